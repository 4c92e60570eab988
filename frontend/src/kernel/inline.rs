//! Calls to `.func` device functions, inlined into the entry's statements.
//!
//! A call sequence as compilers write it,
//!
//! ```text
//! { .param .b64 param0; st.param.b64 [param0+0], %rd3;
//!   .param .b32 retval0;
//!   call.uni (retval0), f, (param0);
//!   ld.param.b32 %r6, [retval0+0]; }
//! ```
//!
//! becomes register moves around a copy of `f`'s body: `st.param` into an
//! argument register, `f`'s `ld.param` of its parameter `i` a move from the
//! `i`-th argument, its `st.param [func_retval0]` a move into a result
//! register, which the caller's `ld.param [retval0]` reads. Each inlined copy
//! has its own registers and labels (`%iN_r1`, `$iN_L__BB1_1`, names no
//! compiler emits) and its `ret` jumps past the copy. A call to a function
//! without a body in the module, an indirect call, a recursive call, or
//! parameters passed at other offsets than `+0` are errors at the `call`.

use super::module::{BodyStmt, Func};
use super::KernelError;
use crate::parser::special::is_special;

/// The deepest nesting of inlined calls.
const MAX_DEPTH: usize = 16;

/// The most statements the inlined entry may have.
const MAX_STMTS: usize = 100_000;

/// One `call`: its return parameters, the function, the arguments.
struct Call<'a> {
    rets: Vec<&'a str>,
    name: &'a str,
    args: Vec<&'a str>,
}

/// The names of a comma-separated list.
fn list(s: &str) -> Vec<&str> {
    s.split(',')
        .map(str::trim)
        .filter(|x| !x.is_empty())
        .collect()
}

/// `call{.uni} {(r, ...),} NAME{, (a, ...)}`, or why not.
fn read_call(text: &str) -> Result<Call<'_>, String> {
    let rest = text
        .split_once(char::is_whitespace)
        .map_or("", |(_, r)| r)
        .trim();
    let (rets, rest) = match rest.strip_prefix('(') {
        Some(r) => {
            let close = r.find(')').ok_or("a `(` without `)`")?;
            let after = r[close + 1..].trim_start();
            let after = after
                .strip_prefix(',')
                .ok_or("expected `,` after the results")?;
            (list(&r[..close]), after.trim())
        }
        None => (Vec::new(), rest),
    };
    let (name, rest) = match rest.split_once(',') {
        Some((n, r)) => (n.trim(), r.trim()),
        None => (rest, ""),
    };
    if name.is_empty() || name.starts_with('%') {
        return Err("an indirect call (through a register) cannot be inlined".into());
    }
    let args = match rest {
        "" => Vec::new(),
        r => {
            let inner = r
                .strip_prefix('(')
                .and_then(|r| r.strip_suffix(')'))
                .ok_or("an indirect call (with a prototype) cannot be inlined")?;
            if inner.contains('(') || inner.contains(')') {
                return Err("an indirect call (with a prototype) cannot be inlined".into());
            }
            list(inner)
        }
    };
    Ok(Call { rets, name, args })
}

/// Renames the registers (`%r1`, not special registers) and labels (`$L..`)
/// of a statement for inlined copy `n`.
fn rename(text: &str, n: usize) -> String {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$';
    let mut out = String::with_capacity(text.len() + 8);
    let mut chars = text.char_indices().peekable();
    let mut prev: Option<char> = None;
    while let Some((i, c)) = chars.next() {
        let starts = (c == '%' || c == '$') && !prev.is_some_and(ident);
        if !starts {
            out.push(c);
            prev = Some(c);
            continue;
        }
        let mut end = i + 1;
        while let Some(&(j, d)) = chars.peek() {
            if !ident(d) {
                break;
            }
            end = j + d.len_utf8();
            chars.next();
        }
        let word = &text[i + 1..end];
        if word.is_empty() || (c == '%' && is_special(&text[i..end])) {
            out.push_str(&text[i..end]);
        } else {
            out.push(c);
            out.push_str(&format!("i{n}_{word}"));
        }
        prev = text[..end].chars().last();
    }
    out
}

/// The mnemonic of a statement past its guard, the statement without the
/// guard, and whether it had one (`@%p1 ret` is `ret`).
fn mnemonic(text: &str) -> (&str, &str, bool) {
    let t = text.trim();
    let (t, guarded) = match t.strip_prefix('@') {
        Some(r) => (
            r.split_once(char::is_whitespace)
                .map_or("", |(_, rest)| rest.trim_start()),
            true,
        ),
        None => (t, false),
    };
    (t.split_whitespace().next().unwrap_or(""), t, guarded)
}

/// `ld.param.T DST, [NAME+0]` / `st.param.T [NAME+0], SRC`: the type, the
/// parameter and the register or value, or `None` when the form differs.
fn param_access(text: &str, load: bool) -> Option<(&str, &str, &str)> {
    let (m, ops) = text.split_once(char::is_whitespace)?;
    let ty = m.rsplit('.').next()?;
    let (a, b) = ops.split_once(',')?;
    let (addr, other) = if load { (b, a) } else { (a, b) };
    let inner = addr.trim().strip_prefix('[')?.strip_suffix(']')?.trim();
    let name = match inner.split_once('+') {
        Some((n, off)) if off.trim() == "0" => n.trim(),
        Some(_) => return None,
        None => inner,
    };
    Some((ty, name, other.trim()))
}

/// The inliner's state: the module's functions, the file for errors, the
/// number of copies made.
struct Inliner<'a> {
    funcs: &'a [Func],
    file: &'a str,
    copies: usize,
}

impl Inliner<'_> {
    fn err(&self, s: &BodyStmt, message: String) -> KernelError {
        KernelError {
            file: self.file.to_string(),
            line: s.pos.line,
            col: s.pos.col,
            message,
        }
    }

    /// Appends `body` to `out` with its calls inlined; `stack` holds the
    /// functions being inlined (for recursion).
    fn body(
        &mut self,
        body: &[BodyStmt],
        stack: &mut Vec<String>,
        out: &mut Vec<BodyStmt>,
    ) -> Result<(), KernelError> {
        // The caller's result parameter names, bound by the last call.
        let mut results: Vec<(String, String)> = Vec::new();
        for s in body {
            let (m, text, guarded) = mnemonic(&s.text);
            if m == ".param" {
                continue;
            }
            let param = |w: &str| m == w || m.starts_with(&format!("{w}."));
            if guarded && (param("call") || param("st.param") || param("ld.param")) {
                return Err(self.err(s, format!("a guarded `{m}` cannot be inlined")));
            }
            if m == "st.param" || m.starts_with("st.param.") {
                let Some((ty, name, src)) = param_access(text, false) else {
                    return Err(self.err(
                        s,
                        format!("cannot inline `{text}`: parameters are passed at offset 0 only"),
                    ));
                };
                out.push(BodyStmt {
                    text: format!("mov.{ty} %ia_{name}, {src}"),
                    pos: s.pos,
                });
                continue;
            }
            if m == "ld.param" || m.starts_with("ld.param.") {
                let bound = param_access(text, true).and_then(|(ty, name, dst)| {
                    Some((ty, results.iter().find(|(r, _)| r == name)?, dst))
                });
                if let Some((ty, (_, reg), dst)) = bound {
                    out.push(BodyStmt {
                        text: format!("mov.{ty} {dst}, {reg}"),
                        pos: s.pos,
                    });
                    continue;
                }
                // A kernel parameter: read by the launch.
                out.push(s.clone());
                continue;
            }
            if m != "call" && !m.starts_with("call.") {
                out.push(s.clone());
                continue;
            }
            let call = read_call(text)
                .map_err(|why| self.err(s, format!("cannot inline `call`: {why}")))?;
            let Some(f) = self.funcs.iter().find(|f| f.name == call.name) else {
                return Err(self.err(
                    s,
                    format!(
                        "`call {}`: the module has no `.func {}`",
                        call.name, call.name
                    ),
                ));
            };
            let Some(fbody) = &f.body else {
                return Err(self.err(s, format!("`call {}`: `.func {}` has no body in the module (functions outside the module are not supported)", call.name, call.name)));
            };
            if stack.iter().any(|n| n == &f.name) || stack.len() >= MAX_DEPTH {
                return Err(self.err(
                    s,
                    format!("`call {}`: a recursive call cannot be inlined", call.name),
                ));
            }
            if call.args.len() != f.params.len() || call.rets.len() > f.rets.len() {
                return Err(self.err(
                    s,
                    format!(
                        "`call {}` passes {} arguments and {} results; `.func {}` takes {} and {}",
                        call.name,
                        call.args.len(),
                        call.rets.len(),
                        call.name,
                        f.params.len(),
                        f.rets.len()
                    ),
                ));
            }
            self.copies += 1;
            let n = self.copies;
            // The callee's parameters and results, by name: what they become.
            let mut copy: Vec<BodyStmt> = Vec::new();
            for st in fbody {
                let (fm, ftext, _) = mnemonic(&st.text);
                if fm == ".reg" || fm == ".pragma" || fm == ".loc" {
                    continue;
                }
                let renamed = |t: &str| BodyStmt {
                    text: rename(t, n),
                    pos: st.pos,
                };
                if fm == "ld.param" || fm.starts_with("ld.param.") {
                    if let Some((ty, name, dst)) = param_access(ftext, true) {
                        if let Some(i) = f.params.iter().position(|p| p == name) {
                            copy.push(BodyStmt {
                                text: format!("mov.{ty} {}, %ia_{}", rename(dst, n), call.args[i]),
                                pos: st.pos,
                            });
                            continue;
                        }
                    }
                }
                if fm == "st.param" || fm.starts_with("st.param.") {
                    if let Some((ty, name, src)) = param_access(ftext, false) {
                        if let Some(i) = f.rets.iter().position(|r| r == name) {
                            copy.push(BodyStmt {
                                text: format!("mov.{ty} %i{n}_ret{i}, {}", rename(src, n)),
                                pos: st.pos,
                            });
                            continue;
                        }
                    }
                }
                if fm == "ret" || fm == "ret.uni" {
                    // `@%p ret` keeps its guard: a jump past the copy.
                    let guard = &st.text[..st.text.len() - ftext.len()];
                    copy.push(BodyStmt {
                        text: format!("{}bra.uni $i{n}_return", rename(guard, n)),
                        pos: st.pos,
                    });
                    continue;
                }
                copy.push(renamed(&st.text));
            }
            copy.push(BodyStmt {
                text: format!("$i{n}_return:"),
                pos: s.pos,
            });
            stack.push(f.name.clone());
            self.body(&copy, stack, out)?;
            stack.pop();
            for (i, r) in call.rets.iter().enumerate() {
                results.retain(|(x, _)| x != r);
                results.push((r.to_string(), format!("%i{n}_ret{i}")));
            }
            if out.len() > MAX_STMTS {
                return Err(self.err(
                    s,
                    format!("inlining makes more than {MAX_STMTS} statements"),
                ));
            }
        }
        Ok(())
    }
}

/// The entry's statements with every `call` inlined (`file` names the
/// module in errors).
pub(super) fn inline_calls(
    body: &[BodyStmt],
    funcs: &[Func],
    file: &str,
) -> Result<Vec<BodyStmt>, KernelError> {
    let mut inliner = Inliner {
        funcs,
        file,
        copies: 0,
    };
    let mut out = Vec::with_capacity(body.len());
    inliner.body(body, &mut Vec::new(), &mut out)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::module::read;

    const M: &str = ".visible .global .align 4 .u32 result;\n.visible .func  (.param .b32 func_retval0) f(\n\t.param .b64 f_param_0,\n\t.param .b32 f_param_1\n)\n{\n\t.reg .b32 \t%r<4>;\n\tld.param.u64 \t%rd1, [f_param_0];\n\tld.param.u32 \t%r1, [f_param_1];\n\tsetp.eq.s32 %p1, %r1, 0;\n\t@%p1 ret;\n$L__BB0_1:\n\tst.volatile.u32 \t[%rd1], %r1;\n\tmov.u32 %r2, %tid.x;\n\tst.param.b32 \t[func_retval0+0], %r2;\n\tret;\n}\n.visible .func g()\n{\n\t{ // callseq 0, 0\n\t.param .b64 param0;\n\tst.param.b64 \t[param0+0], 0;\n\t.param .b32 param1;\n\tst.param.b32 \t[param1+0], 1;\n\tcall.uni (retval0), \n\tf, \n\t(\n\tparam0, \n\tparam1\n\t);\n\t}\n\tret;\n}\n.func r()\n{\n\tcall.uni r;\n\tret;\n}\n.extern .func vprintf(.param .b64 a);\n.visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\tld.param.u64 \t%rd1, [k_param_0];\n\t{ // callseq 0, 0\n\t.param .b64 param0;\n\tst.param.b64 \t[param0+0], %rd1;\n\t.param .b32 param1;\n\tst.param.b32 \t[param1+0], 42;\n\t.param .b32 retval0;\n\tcall.uni (retval0), \n\tf, \n\t(\n\tparam0, \n\tparam1\n\t);\n\tld.param.b32 \t%r6, [retval0+0];\n\t} // callseq 0\n\tst.global.u32 \t[result], %r6;\n\tret;\n}\n";

    fn texts(v: &[BodyStmt]) -> Vec<&str> {
        v.iter().map(|s| s.text.as_str()).collect()
    }

    #[test]
    fn a_call_becomes_moves_around_a_renamed_copy() {
        let m = read(M, "m.ptx").expect("reads");
        assert_eq!(m.funcs[0].rets, ["func_retval0"]);
        assert_eq!(m.funcs[0].params, ["f_param_0", "f_param_1"]);
        assert!(m.funcs[3].body.is_none());
        let e = &m.entries[0];
        let out = inline_calls(&e.body, &m.funcs, "m.ptx").expect("inlines");
        assert_eq!(
            texts(&out),
            [
                "ld.param.u64  %rd1, [k_param_0]",
                "mov.b64 %ia_param0, %rd1",
                "mov.b32 %ia_param1, 42",
                "mov.u64 %i1_rd1, %ia_param0",
                "mov.u32 %i1_r1, %ia_param1",
                "setp.eq.s32 %i1_p1, %i1_r1, 0",
                "@%i1_p1 bra.uni $i1_return",
                "$i1_L__BB0_1:",
                "st.volatile.u32  [%i1_rd1], %i1_r1",
                "mov.u32 %i1_r2, %tid.x",
                "mov.b32 %i1_ret0, %i1_r2",
                "bra.uni $i1_return",
                "$i1_return:",
                "mov.b32 %r6, %i1_ret0",
                "st.global.u32  [result], %r6",
                "ret",
            ]
        );
        // The statements keep their positions in the module (the callee's own).
        assert_eq!(out[8].pos.line, 13);
    }

    #[test]
    fn calls_that_cannot_be_inlined_are_positioned_errors() {
        let m = read(M, "m.ptx").expect("reads");
        let body = |text: &str| {
            vec![BodyStmt {
                text: text.into(),
                pos: super::super::module::Pos { line: 9, col: 2 },
            }]
        };
        let e = |text: &str| {
            inline_calls(&body(text), &m.funcs, "m.ptx")
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            e("call.uni vprintf, (param0)"),
            "m.ptx:9:2: `call vprintf`: `.func vprintf` has no body in the module (functions outside the module are not supported)"
        );
        assert!(e("call.uni r").contains("recursive"));
        assert!(e("call.uni nowhere").contains("has no `.func nowhere`"));
        assert!(e("call %rd1, (param0)").contains("indirect"));
        assert!(e("call.uni (retval0), f, (param0, param1), proto").contains("indirect"));
        assert!(e("call.uni f, (param0)").contains("passes 1 arguments"));
        // A nested call inlines too.
        let out = inline_calls(&body("call.uni g"), &m.funcs, "m.ptx").expect("inlines");
        assert!(
            texts(&out).contains(&"mov.u64 %i2_rd1, %ia_param0"),
            "{:?}",
            texts(&out)
        );
    }

    #[test]
    fn renaming_keeps_special_registers_and_names() {
        assert_eq!(
            rename(
                "@!%p1 ld.u32 %r1, [x+4]; add %rd2, %rd1, %ntid.x; bra $L__BB0_2",
                3
            ),
            "@!%i3_p1 ld.u32 %i3_r1, [x+4]; add %i3_rd2, %i3_rd1, %ntid.x; bra $i3_L__BB0_2"
        );
    }
}
