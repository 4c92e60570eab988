//! The `.ptx` module reader of kernel mode: its `.global` and `.shared`
//! variables and the statements of its `.entry` functions, with positions.
//!
//! The reader splits the module into statements (up to `;`, `{`, `}`, or a
//! label's `:`), skipping `//` and `/* */` comments, and keeps each
//! statement's text and where it starts. Instructions are not read here: the
//! litmus parser reads them as thread code (`docs/ptx-forms.md`).

use super::KernelError;

/// A position in the module: 1-based line and column.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
}

/// One statement of an entry's body: its text (without the final `;`) and
/// where it starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BodyStmt {
    pub text: String,
    pub pos: Pos,
}

/// A module variable (`.global` or `.shared`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Var {
    pub name: String,
    /// `.shared` (one per CTA) rather than `.global`.
    pub shared: bool,
    /// The scalar initializer (0 when none).
    pub init: i64,
    pub pos: Pos,
}

/// A kernel: `.entry NAME(.param ... NAME_param_0, ...) { body }`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub name: String,
    /// The parameter names, in order.
    pub params: Vec<String>,
    pub body: Vec<BodyStmt>,
    pub pos: Pos,
}

/// A device function: `.func {(.param ... func_retval0)} NAME(.param ...) { body }`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Func {
    pub name: String,
    /// The return parameters' names (`func_retval0`), in order.
    pub rets: Vec<String>,
    /// The parameter names, in order.
    pub params: Vec<String>,
    /// `None` for a declaration without a body (`.extern .func`, a prototype).
    pub body: Option<Vec<BodyStmt>>,
    pub pos: Pos,
}

/// What the module holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Module {
    pub vars: Vec<Var>,
    pub entries: Vec<Entry>,
    /// The `.func` definitions and declarations (calls to them are inlined).
    pub funcs: Vec<Func>,
}

/// A raw piece of the module: text up to a terminator.
struct Piece {
    text: String,
    pos: Pos,
    /// `;`, `{`, `}`, `:` or `\0` at the end of the input.
    end: char,
}

struct Scanner<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    pos: Pos,
    file: &'a str,
}

impl Scanner<'_> {
    fn bump(&mut self) -> Option<char> {
        let c = self.chars.next()?;
        if c == '\n' {
            self.pos.line += 1;
            self.pos.col = 1;
        } else {
            self.pos.col += 1;
        }
        Some(c)
    }

    fn err(&self, pos: Pos, message: String) -> KernelError {
        KernelError {
            file: self.file.to_string(),
            line: pos.line,
            col: pos.col,
            message,
        }
    }

    /// The next piece, or `None` at the end. `label_ok`: a `:` ends a piece
    /// (labels in a body; `::` of state spaces never does).
    fn piece(&mut self, label_ok: bool) -> Result<Option<Piece>, KernelError> {
        let mut text = String::new();
        let mut start: Option<Pos> = None;
        loop {
            let Some(&c) = self.chars.peek() else {
                return Ok(start.map(|pos| Piece {
                    text: text.trim().to_string(),
                    pos,
                    end: '\0',
                }));
            };
            if c == '/' {
                let at = self.pos;
                self.bump();
                match self.chars.peek() {
                    Some('/') => {
                        while self.chars.peek().is_some_and(|&c| c != '\n') {
                            self.bump();
                        }
                        continue;
                    }
                    Some('*') => {
                        self.bump();
                        let mut prev = ' ';
                        loop {
                            match self.bump() {
                                Some('/') if prev == '*' => break,
                                Some(c) => prev = c,
                                None => {
                                    return Err(self.err(at, "unterminated `/*` comment".into()))
                                }
                            }
                        }
                        text.push(' ');
                        continue;
                    }
                    _ => {
                        start.get_or_insert(at);
                        text.push('/');
                        continue;
                    }
                }
            }
            if c.is_whitespace() {
                self.bump();
                if start.is_some() {
                    text.push(' ');
                }
                continue;
            }
            let here = self.pos;
            if matches!(c, ';' | '{' | '}') {
                self.bump();
                return Ok(Some(Piece {
                    text: text.trim().to_string(),
                    pos: start.unwrap_or(here),
                    end: c,
                }));
            }
            if c == ':' && label_ok {
                self.bump();
                if self.chars.peek() == Some(&':') {
                    self.bump();
                    text.push_str("::");
                    continue;
                }
                return Ok(Some(Piece {
                    text: text.trim().to_string(),
                    pos: start.unwrap_or(here),
                    end: ':',
                }));
            }
            start.get_or_insert(here);
            text.push(c);
            self.bump();
        }
    }
}

/// Reads a module; `file` names it in errors.
pub fn read(src: &str, file: &str) -> Result<Module, KernelError> {
    // Directives that end at the end of their line (no `;`): blanked, so
    // that positions stay.
    let clean: String = src
        .split_inclusive('\n')
        .map(|line| {
            let t = line.trim_start();
            let word = t.split_whitespace().next().unwrap_or("");
            if matches!(
                word,
                ".version" | ".target" | ".address_size" | ".file" | ".loc"
            ) {
                if line.ends_with('\n') {
                    "\n".to_string()
                } else {
                    String::new()
                }
            } else {
                line.to_string()
            }
        })
        .collect();
    let mut s = Scanner {
        chars: clean.chars().peekable(),
        pos: Pos { line: 1, col: 1 },
        file,
    };
    let mut m = Module::default();
    while let Some(p) = s.piece(false)? {
        if p.text.is_empty() {
            if p.end == '}' {
                return Err(s.err(p.pos, "`}` without a `{`".into()));
            }
            continue;
        }
        let words: Vec<&str> = p.text.split_whitespace().collect();
        let first = words.first().copied().unwrap_or("");
        if first == ".pragma" {
            continue;
        }
        let kw = |w: &str| {
            words
                .iter()
                .any(|x| *x == w || x.starts_with(&format!("{w}(")))
        };
        if kw(".entry") || kw(".func") {
            let is_entry = kw(".entry");
            let (rets, name, params) = signature(&p.text, is_entry).ok_or_else(|| {
                s.err(
                    p.pos,
                    format!(
                        "cannot read the signature `{}`",
                        p.text.chars().take(60).collect::<String>()
                    ),
                )
            })?;
            let body = if p.end == '{' {
                Some(read_body(&mut s, p.pos)?)
            } else {
                None
            };
            match (is_entry, body) {
                (true, None) => return Err(s.err(p.pos, format!("`.entry {name}` has no body"))),
                (true, Some(body)) => m.entries.push(Entry {
                    name,
                    params,
                    body,
                    pos: p.pos,
                }),
                (false, body) => m.funcs.push(Func {
                    name,
                    rets,
                    params,
                    body,
                    pos: p.pos,
                }),
            }
            continue;
        }
        if kw(".global") || kw(".shared") {
            if p.end != ';' {
                return Err(s.err(p.pos, format!("expected `;` after `{}`", p.text)));
            }
            m.vars
                .push(var(&p.text, kw(".shared"), p.pos).map_err(|why| s.err(p.pos, why))?);
            continue;
        }
        return Err(s.err(
            p.pos,
            format!(
                "unsupported module directive `{}`",
                first.chars().take(40).collect::<String>()
            ),
        ));
    }
    Ok(m)
}

/// `... .entry NAME(.param .u64 NAME_param_0, ...)` or `... .func
/// {(.param .b32 func_retval0)} NAME{(.param ...)}`: the return parameters,
/// the name and the parameter names.
fn signature(text: &str, entry: bool) -> Option<(Vec<String>, String, Vec<String>)> {
    let kw = if entry { ".entry" } else { ".func" };
    // The text after the keyword.
    let start = text.find(kw)? + kw.len();
    let mut rest = text[start..].trim_start();
    let names = |list: &str| -> Vec<String> {
        list.split(',')
            .filter_map(|p| p.split_whitespace().last())
            .map(str::to_string)
            .collect()
    };
    let mut rets = Vec::new();
    if !entry && rest.starts_with('(') {
        let close = rest.find(')')?;
        rets = names(&rest[1..close]);
        rest = rest[close + 1..].trim_start();
    }
    let end = rest
        .find(|c: char| c == '(' || c.is_whitespace())
        .unwrap_or(rest.len());
    let name = rest[..end].to_string();
    if name.is_empty() || name.starts_with('.') {
        return None;
    }
    rest = rest[end..].trim_start();
    let mut params = Vec::new();
    if rest.starts_with('(') {
        let close = rest.find(')')?;
        params = names(&rest[1..close]);
    }
    Some((rets, name, params))
}

/// The words a variable declaration may hold before its name.
const VAR_WORDS: &[&str] = &[
    ".visible", ".extern", ".weak", ".common", ".global", ".shared", ".align", ".v2", ".v4", ".b8",
    ".b16", ".b32", ".b64", ".u8", ".u16", ".u32", ".u64", ".s8", ".s16", ".s32", ".s64", ".f16",
    ".f32", ".f64", ".pred",
];

/// `.visible .global .align 4 .u32 name{[N]}{ = V}`.
pub(super) fn var(text: &str, shared: bool, pos: Pos) -> Result<Var, String> {
    let (decl, init) = match text.split_once('=') {
        Some((d, i)) => (d.trim(), Some(i.trim())),
        None => (text.trim(), None),
    };
    let name = decl
        .split_whitespace()
        .last()
        .filter(|n| !n.starts_with('.'))
        .ok_or_else(|| format!("cannot read the variable of `{text}`"))?;
    let name = name.split('[').next().unwrap_or(name).to_string();
    let words: Vec<&str> = decl.split_whitespace().collect();
    for (i, w) in words.iter().enumerate().take(words.len().saturating_sub(1)) {
        let after_align = i > 0 && words[i - 1] == ".align";
        let known = VAR_WORDS.contains(w) || (after_align && w.parse::<u32>().is_ok());
        if !known {
            let why = if matches!(*w, ".texref" | ".samplerref" | ".surfref") {
                "textures, samplers and surfaces are outside the model"
            } else {
                "not a state space, alignment or integer type"
            };
            return Err(format!(
                "unsupported `{}` in a variable declaration ({why})",
                w.chars().take(40).collect::<String>()
            ));
        }
    }
    // A PTX identifier (`[a-zA-Z][a-zA-Z0-9_$]*` or `[_$%][a-zA-Z0-9_$]+`).
    let ident = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || matches!(c, '_' | '$' | '%'))
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '%'))
        && (name.len() > 1 || name.chars().all(|c| c.is_ascii_alphabetic()));
    if !ident {
        return Err(format!(
            "cannot read the variable of `{}`: `{}` is not an identifier",
            text.chars().take(60).collect::<String>(),
            name.chars().take(40).collect::<String>()
        ));
    }
    let init = match init {
        None => 0,
        Some(v) => v.parse::<i64>().map_err(|_| {
            format!("the initializer `{v}` is not an integer (arrays are initialized to 0)")
        })?,
    };
    Ok(Var {
        name,
        shared,
        init,
        pos,
    })
}

/// The statements of a body, up to its closing `}` (inner `{ }` blocks are
/// flattened: they only scope registers).
fn read_body(s: &mut Scanner<'_>, open: Pos) -> Result<Vec<BodyStmt>, KernelError> {
    let mut out = Vec::new();
    let mut depth = 1u32;
    loop {
        let Some(p) = s.piece(true)? else {
            return Err(s.err(open, "the body is not closed by `}`".into()));
        };
        if !p.text.is_empty() {
            let text = if p.end == ':' {
                format!("{}:", p.text)
            } else {
                p.text.clone()
            };
            out.push(BodyStmt { text, pos: p.pos });
        }
        match p.end {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Ok(out);
                }
            }
            '\0' => return Err(s.err(open, "the body is not closed by `}`".into())),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MP: &str = "//\n// Generated\n.version 8.0\n.target sm_90\n.address_size 64\n\n.visible .global .align 4 .u32 flag;\n.visible .global .align 4 .u32 data = 7;\n\n.visible .entry mp(\n\t.param .u64 mp_param_0\n)\n{\n\t.reg .pred \t%p<2>;\n\t.reg .b32 \t%r<3>;\n\tld.param.u64 \t%rd1, [mp_param_0];\n$L__BB0_1:\n\tld.volatile.global.u32 \t%r1, [flag];  /* spin */\n\tsetp.eq.s32 \t%p1, %r1, 0;\n\t@%p1 bra.uni \t$L__BB0_1;\n\tret;\n\n}\n";

    #[test]
    fn variables_entries_and_positions() {
        let m = read(MP, "mp.ptx").expect("reads");
        assert_eq!(m.vars.len(), 2);
        assert_eq!(m.vars[1].name, "data");
        assert_eq!(m.vars[1].init, 7);
        let e = &m.entries[0];
        assert_eq!(e.name, "mp");
        assert_eq!(e.params, ["mp_param_0"]);
        let texts: Vec<&str> = e.body.iter().map(|b| b.text.as_str()).collect();
        assert_eq!(texts[2], "ld.param.u64  %rd1, [mp_param_0]");
        assert_eq!(texts[3], "$L__BB0_1:");
        assert_eq!(texts[4], "ld.volatile.global.u32  %r1, [flag]");
        assert_eq!(e.body[4].pos, Pos { line: 18, col: 2 });
        assert_eq!(texts.last(), Some(&"ret"));
    }

    #[test]
    fn bad_modules_are_positioned_errors() {
        let e = read(".version 8.0\n.tex .u64 t;\n", "m.ptx").unwrap_err();
        assert_eq!(
            e.to_string(),
            "m.ptx:2:1: unsupported module directive `.tex`"
        );
        let e = read(".global .texref t;\n", "m.ptx").unwrap_err();
        assert_eq!(
            e.to_string(),
            "m.ptx:1:1: unsupported `.texref` in a variable declaration (textures, samplers and surfaces are outside the model)"
        );
        let e = read(".entry k()\n{\n ret;\n", "m.ptx").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("m.ptx:1:1: the body is not closed"),
            "{e}"
        );
        let e = read("/* open", "m.ptx").unwrap_err();
        assert!(e.to_string().contains("unterminated"), "{e}");
    }

    #[test]
    fn truncated_and_mutated_modules_never_panic() {
        let chars: Vec<char> = MP.chars().collect();
        for i in 0..chars.len() {
            let prefix: String = chars[..i].iter().collect();
            let _ = read(&prefix, "m.ptx");
            let mut cut = chars.clone();
            cut.remove(i);
            let _ = read(&cut.iter().collect::<String>(), "m.ptx");
            for c in ['{', '}', ';', ':', '(', ')', '/', '*', '='] {
                let mut ins = chars.clone();
                ins.insert(i, c);
                let _ = read(&ins.iter().collect::<String>(), "m.ptx");
            }
        }
    }
}
