//! The launch description (`*.launch`) and its translation to a litmus test.

use super::module::{self, BodyStmt, Entry, Module};
use super::KernelError;
use crate::ir::Test;
use std::fmt::Write;

/// What a `.param` is bound to.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Binding {
    /// A buffer: the address of a location.
    Buffer(String),
    /// An integer.
    Value(i64),
}

/// The launch description, as read.
#[derive(Debug, Default)]
struct Launch {
    name: String,
    docs: Vec<String>,
    module: Option<(String, u32)>,
    entry: Option<(String, u32)>,
    /// CTAs, all dimensions together (`grid_dim`'s product).
    grid: u32,
    /// `grid X{xY{xZ}}`: the CTAs per dimension.
    grid_dim: [u32; 3],
    cluster: Option<u32>,
    /// Threads per CTA, all dimensions together (`block_dim`'s product).
    block: u32,
    /// `block X{xY{xZ}}`: the threads per dimension.
    block_dim: [u32; 3],
    /// `(cta, tid)` of the threads that run, in order; `None`: all.
    threads: Option<Vec<(u32, u32)>>,
    /// The lines of `threads` and `grid`.
    threads_line: u32,
    grid_line: u32,
    /// `(param name or index, binding, line)`.
    params: Vec<(String, Binding, u32)>,
    /// The initial-state entries `name=V` with their launch line.
    init: Vec<(String, String, u32)>,
    /// The lines of the condition (and `locations`/`filter`), from its first line.
    tail: Vec<String>,
    tail_line: u32,
}

/// Where a line of the generated litmus text comes from.
#[derive(Clone, Debug)]
enum Origin {
    /// A line of the launch description.
    Launch(u32),
    /// A row of body statements: the statement and each cell's start column.
    Row(BodyStmt, Vec<u32>),
    /// Made up (header, module variables).
    Made(String, u32),
}

fn err(file: &str, line: u32, col: u32, message: impl Into<String>) -> KernelError {
    KernelError {
        file: file.to_string(),
        line,
        col,
        message: message.into(),
    }
}

/// The most threads one launch may run (each is a thread of the litmus test).
const MAX_THREADS: u64 = 256;

const WORDS: [&str; 8] = [
    "module", "entry", "grid", "block", "threads", "param", "cluster", "{",
];

/// The `name=value;` entries of one line of the initial state, line `n`.
fn init_entries(l: &mut Launch, body: &str, file: &str, n: u32) -> Result<(), KernelError> {
    for entry in body.split(';').map(str::trim).filter(|e| !e.is_empty()) {
        let Some((name, value)) = entry.split_once('=') else {
            return Err(err(
                file,
                n,
                1,
                format!("expected `name=value;`, found `{entry}`"),
            ));
        };
        l.init
            .push((name.trim().to_string(), value.trim().to_string(), n));
    }
    Ok(())
}

fn read_launch(src: &str, file: &str) -> Result<Launch, KernelError> {
    let mut l = Launch {
        grid: 1,
        grid_dim: [1; 3],
        block: 1,
        block_dim: [1; 3],
        ..Launch::default()
    };
    let mut lines = src.lines().enumerate().peekable();
    let mut in_init = false;
    while let Some((i, raw)) = lines.next() {
        let n = i as u32 + 1;
        let line = raw.split("//").next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if in_init {
            init_entries(&mut l, line.trim_end_matches('}').trim(), file, n)?;
            in_init = !line.ends_with('}');
            continue;
        }
        if l.name.is_empty() {
            let Some(name) = line.strip_prefix("KERNEL ") else {
                return Err(err(
                    file,
                    n,
                    1,
                    "a launch description starts with `KERNEL <name>`",
                ));
            };
            l.name = name.trim().to_string();
            continue;
        }
        if line.starts_with('"') {
            l.docs.push(line.trim_matches('"').to_string());
            continue;
        }
        let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim();
        let number = |what: &str, v: &str| -> Result<u32, KernelError> {
            v.parse::<u32>().ok().filter(|&x| x > 0).ok_or_else(|| {
                err(
                    file,
                    n,
                    1,
                    format!("`{what}` takes a positive integer, found `{v}`"),
                )
            })
        };
        // `X`, `XxY` or `XxYxZ`, each positive, the product at most `u32::MAX`.
        let dims = |what: &str, v: &str| -> Result<[u32; 3], KernelError> {
            let parts: Vec<&str> = v.split('x').collect();
            if parts.len() > 3 {
                return Err(err(
                    file,
                    n,
                    1,
                    format!(
                        "`{what}` takes at most 3 dimensions (`X`, `XxY` or `XxYxZ`), found `{v}`"
                    ),
                ));
            }
            let mut d = [1u32; 3];
            for (i, p) in parts.iter().enumerate() {
                d[i] = number(what, p)?;
            }
            if d.iter().try_fold(1u32, |a, &x| a.checked_mul(x)).is_none() {
                return Err(err(file, n, 1, format!("`{what} {v}` is too large")));
            }
            Ok(d)
        };
        match word {
            "module" => l.module = Some((rest.to_string(), n)),
            "entry" => l.entry = Some((rest.to_string(), n)),
            "grid" => {
                l.grid_line = n;
                let mut it = rest.split_whitespace();
                l.grid_dim = dims("grid", it.next().unwrap_or(""))?;
                l.grid = l.grid_dim.iter().product();
                match (it.next(), it.next(), it.next()) {
                    (None, _, _) => {}
                    (Some("cluster"), Some(k), None) if l.grid_dim[1..] == [1, 1] => {
                        l.cluster = Some(number("cluster", k)?)
                    }
                    (Some("cluster"), Some(_), None) => {
                        return Err(err(
                            file,
                            n,
                            1,
                            "clusters need a one-dimensional grid (`grid C cluster K`)",
                        ))
                    }
                    _ => return Err(err(file, n, 1, "expected `grid C` or `grid C cluster K`")),
                }
            }
            "block" => {
                l.block_dim = dims("block", rest)?;
                l.block = l.block_dim.iter().product();
            }
            "threads" if rest == "all" => l.threads = None,
            "threads" => {
                l.threads_line = n;
                let mut v = Vec::new();
                // The column of each listed thread (`threads` and one space before `rest`).
                let mut col = raw.find(rest).map_or(1, |i| i as u32 + 1);
                for piece in rest.split(',') {
                    let t = piece.trim();
                    let at = col + (piece.len() - piece.trim_start().len()) as u32;
                    col += piece.len() as u32 + 1;
                    let parsed = t
                        .split_once(':')
                        .and_then(|(c, i)| Some((c.trim().parse().ok()?, i.trim().parse().ok()?)));
                    let Some(ct) = parsed else {
                        return Err(err(file, n, at, format!("expected `CTA:TID`, found `{t}`")));
                    };
                    if v.contains(&ct) {
                        return Err(err(file, n, at, format!("thread `{t}` is named twice")));
                    }
                    v.push(ct);
                }
                l.threads = Some(v);
            }
            "param" => {
                let Some((p, b)) = rest.split_once('=') else {
                    return Err(err(
                        file,
                        n,
                        1,
                        "expected `param NAME = BUFFER` or `param NAME = VALUE`",
                    ));
                };
                let b = b.trim();
                let binding = match b.parse::<i64>() {
                    Ok(v) => Binding::Value(v),
                    Err(_) => Binding::Buffer(b.to_string()),
                };
                l.params.push((p.trim().to_string(), binding, n));
            }
            _ if line.starts_with('{') => {
                let body = line.trim_start_matches('{').trim();
                let closed = body.ends_with('}');
                init_entries(&mut l, body.trim_end_matches('}'), file, n)?;
                in_init = !closed;
            }
            _ => {
                if !WORDS.contains(&word)
                    && ["exists", "~exists", "forall", "not", "locations", "filter"]
                        .iter()
                        .any(|w| line.starts_with(w))
                {
                    l.tail_line = n;
                    l.tail.push(raw.to_string());
                    l.tail.extend(lines.by_ref().map(|(_, r)| r.to_string()));
                    break;
                }
                return Err(err(file, n, 1, format!("unknown launch line `{word}`")));
            }
        }
    }
    if l.name.is_empty() {
        return Err(err(
            file,
            1,
            1,
            "a launch description starts with `KERNEL <name>`",
        ));
    }
    if l.tail.is_empty() {
        let last = src.lines().count() as u32;
        return Err(err(
            file,
            last.max(1),
            1,
            "the launch has no final condition (`exists ...`)",
        ));
    }
    Ok(l)
}

/// Replaces whole-word occurrences of `from` in `text` by `to`.
fn rename(text: &str, from: &str, to: &str) -> String {
    if from.is_empty() {
        return text.to_string();
    }
    let word = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '%' | '.');
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut prev: Option<char> = None;
    while let Some(i) = rest.find(from) {
        let before = rest[..i].chars().last().or(prev);
        let after = rest[i + from.len()..].chars().next();
        out.push_str(&rest[..i]);
        if before.is_some_and(word) || after.is_some_and(|c| word(c) && c != '.') {
            out.push_str(from);
        } else {
            out.push_str(to);
        }
        prev = from.chars().last();
        rest = &rest[i + from.len()..];
    }
    out.push_str(rest);
    out
}

/// Reads a launch description `src` (named `file`) and the module it names
/// (read with `read`, which gets the module path as written), and builds
/// the litmus test.
pub fn parse_launch(
    src: &str,
    file: &str,
    read: &dyn Fn(&str) -> Result<String, String>,
) -> Result<Test, KernelError> {
    let l = read_launch(src, file)?;
    let Some((mpath, mline)) = l.module.clone() else {
        return Err(err(file, 1, 1, "the launch names no `module FILE.ptx`"));
    };
    let msrc =
        read(&mpath).map_err(|e| err(file, mline, 8, format!("cannot read `{mpath}`: {e}")))?;
    let m: Module = module::read(&msrc, &mpath)?;
    let entry: &Entry = match &l.entry {
        Some((name, n)) => m
            .entries
            .iter()
            .find(|e| &e.name == name)
            .ok_or_else(|| err(file, *n, 7, format!("`{mpath}` has no `.entry {name}`")))?,
        None => match m.entries.as_slice() {
            [e] => e,
            [] => {
                return Err(err(
                    file,
                    mline,
                    8,
                    format!("`{mpath}` has no `.entry` (a kernel to launch)"),
                ))
            }
            _ => {
                return Err(err(
                    file,
                    1,
                    1,
                    "the module has several entries: name one with `entry NAME`",
                ))
            }
        },
    };
    // `.func` calls inlined (`inline.rs`).
    let body = super::inline::inline_calls(&entry.body, &m.funcs, &mpath)?;
    // Threads.
    let ctas = l.grid;
    let launched = u64::from(ctas) * u64::from(l.block);
    let listed = l.threads.as_ref().map_or(launched, |v| v.len() as u64);
    if listed > MAX_THREADS {
        return Err(err(
            file,
            l.grid_line.max(1),
            1,
            format!("{listed} threads: kernel mode runs at most {MAX_THREADS} (list them with `threads CTA:TID, ...`)"),
        ));
    }
    let threads = match &l.threads {
        None => (0..ctas)
            .flat_map(|c| (0..l.block).map(move |t| (c, t)))
            .collect(),
        Some(v) => {
            for &(c, t) in v {
                if c >= ctas || t >= l.block {
                    return Err(err(
                        file,
                        l.threads_line,
                        1,
                        format!(
                            "thread {c}:{t} is outside the grid ({ctas} CTAs of {} threads)",
                            l.block
                        ),
                    ));
                }
            }
            v.clone()
        }
    };
    if let Some(k) = l.cluster {
        if ctas % k != 0 {
            return Err(err(
                file,
                l.grid_line,
                1,
                format!("{ctas} CTAs do not split into clusters of {k}"),
            ));
        }
    }
    // Parameters: by name or by index.
    let binding = |param: &str, idx: usize| {
        l.params
            .iter()
            .find(|(p, _, _)| p == param || p.parse::<usize>() == Ok(idx))
            .map(|(_, b, _)| b.clone())
    };
    let mut lines: Vec<(String, Origin)> = Vec::new();
    lines.push((format!("PTX {}", l.name), Origin::Launch(1)));
    for d in &l.docs {
        lines.push((format!("\"{d}\""), Origin::Launch(1)));
    }
    lines.push(("{".into(), Origin::Launch(1)));
    let init_names: Vec<&str> = l.init.iter().map(|(n, _, _)| n.as_str()).collect();
    // `.shared` variables declared in the entry (clang's "demoted" ones) are
    // per-CTA locations like the module's.
    let mut vars = m.vars.clone();
    for stmt in &body {
        if stmt.text.starts_with(".shared") {
            let v = module::var(&stmt.text, true, stmt.pos)
                .map_err(|why| err(&mpath, stmt.pos.line, stmt.pos.col, why))?;
            vars.push(v);
        }
    }
    let mut shared: Vec<&str> = Vec::new();
    for v in &vars {
        if v.shared {
            shared.push(&v.name);
            for c in 0..ctas {
                lines.push((
                    format!("{}_cta{c}={};", v.name, v.init),
                    Origin::Made(mpath.clone(), v.pos.line),
                ));
            }
        } else if !init_names.contains(&v.name.as_str()) {
            lines.push((
                format!("{}={};", v.name, v.init),
                Origin::Made(mpath.clone(), v.pos.line),
            ));
        }
    }
    for (name, value, n) in &l.init {
        lines.push((format!("{name}={value};"), Origin::Launch(*n)));
    }
    for (_, b, n) in &l.params {
        if let Binding::Buffer(b) = b {
            let known = init_names.contains(&b.as_str())
                || m.vars.iter().any(|v| !v.shared && &v.name == b);
            if !known {
                return Err(err(
                    file,
                    *n,
                    1,
                    format!(
                        "the buffer `{b}` is not declared: add `{b}=0;` to the launch's `{{ }}`"
                    ),
                ));
            }
        }
    }
    lines.push(("}".into(), Origin::Launch(1)));
    // The thread header.
    let header: Vec<String> = threads
        .iter()
        .enumerate()
        .map(|(i, &(c, t))| {
            let mut h = format!("P{i}@cta {c},");
            if let Some(k) = l.cluster {
                let _ = write!(
                    h,
                    "cluster {},cluster_ctaid {},cluster_nctaid {k},nclusterid {},",
                    c / k,
                    c % k,
                    ctas / k
                );
            }
            let [bx, by, _] = l.block_dim;
            let [gx, gy, _] = l.grid_dim;
            let _ = write!(h, "gpu 0,tid {},ntid {bx},nctaid {gx}", t % bx);
            if l.block_dim[1..] != [1, 1] {
                let [_, ny, nz] = l.block_dim;
                let (y, z) = ((t / bx) % by, t / (bx * by));
                let _ = write!(h, ",tid_y {y},tid_z {z},ntid_y {ny},ntid_z {nz}");
            }
            if l.grid_dim[1..] != [1, 1] {
                let [_, ny, nz] = l.grid_dim;
                let (x, y, z) = (c % gx, (c / gx) % gy, c / (gx * gy));
                let _ = write!(
                    h,
                    ",ctaid_x {x},ctaid_y {y},ctaid_z {z},nctaid_y {ny},nctaid_z {nz}"
                );
            }
            h
        })
        .collect();
    lines.push((format!(" {} ;", header.join(" | ")), Origin::Launch(1)));
    // The rows: one per body statement, the same statement in every column.
    for stmt in &body {
        let text = stmt.text.as_str();
        let first = text.split_whitespace().next().unwrap_or("");
        if first.starts_with(".shared") {
            continue;
        }
        if first.starts_with(".local") || first.starts_with(".const") {
            return Err(err(&mpath, stmt.pos.line, stmt.pos.col, format!("`{first}` variables inside an entry are not supported (declare them in the module)")));
        }
        if matches!(first, ".loc" | ".pragma" | ".file") {
            continue;
        }
        let text: String = if first.starts_with("ld.param") {
            ld_param(text, entry, &binding)
                .map_err(|m| err(&mpath, stmt.pos.line, stmt.pos.col, m))?
        } else {
            text.to_string()
        };
        let mut cells = Vec::with_capacity(threads.len());
        let mut starts = Vec::with_capacity(threads.len());
        let mut col = 2u32;
        for &(c, _) in &threads {
            let mut cell = text.clone();
            for s in &shared {
                cell = rename(&cell, s, &format!("{s}_cta{c}"));
            }
            starts.push(col);
            col += cell.chars().count() as u32 + 3;
            cells.push(cell);
        }
        lines.push((
            format!(" {} ;", cells.join(" | ")),
            Origin::Row(stmt.clone(), starts),
        ));
    }
    for (i, t) in l.tail.iter().enumerate() {
        lines.push((t.clone(), Origin::Launch(l.tail_line + i as u32)));
    }
    let text: String = lines.iter().map(|(t, _)| format!("{t}\n")).collect();
    crate::parse(&text).map_err(|e| {
        let line = e.span.line as usize;
        match lines.get(line.wrapping_sub(1)).map(|(_, o)| o) {
            Some(Origin::Row(stmt, starts)) => {
                let cell = starts.iter().rposition(|&s| s <= e.span.col).unwrap_or(0);
                let offset = e.span.col.saturating_sub(starts[cell]);
                err(
                    &mpath,
                    stmt.pos.line,
                    stmt.pos.col + offset,
                    e.kind.to_string(),
                )
            }
            Some(Origin::Launch(n)) => err(file, *n, e.span.col, e.kind.to_string()),
            Some(Origin::Made(f, n)) => err(f, *n, 1, e.kind.to_string()),
            None => err(file, 1, 1, e.kind.to_string()),
        }
    })
}

/// `ld.param.TYPE DST, [NAME]` as a move of the bound value.
fn ld_param(
    text: &str,
    entry: &Entry,
    binding: &dyn Fn(&str, usize) -> Option<Binding>,
) -> Result<String, String> {
    let (mnemonic, ops) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
    let ty = mnemonic.rsplit('.').next().unwrap_or("u64");
    let (dst, src) = ops
        .split_once(',')
        .ok_or_else(|| format!("cannot read `{text}`"))?;
    let name = src
        .trim()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .trim();
    if name.contains('+') {
        return Err(format!("`{text}`: parameter offsets are not supported"));
    }
    let idx = entry
        .params
        .iter()
        .position(|p| p == name)
        .ok_or_else(|| format!("`{name}` is not a parameter of `.entry {}`", entry.name))?;
    match binding(name, idx) {
        Some(Binding::Buffer(b)) => Ok(format!("mov.u64 {}, {b}", dst.trim())),
        Some(Binding::Value(v)) => Ok(format!("mov.{ty} {}, {v}", dst.trim())),
        None => Err(format!(
            "the parameter `{name}` is not bound: add `param {name} = BUFFER` (or `= VALUE`) to the launch"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .global .align 4 .u32 g = 3;\n.visible .entry k(\n .param .u64 k_param_0,\n .param .u32 k_param_1\n)\n{\n .reg .b64 %rd<3>;\n ld.param.u64 %rd1, [k_param_0];\n ld.param.u32 %r1, [k_param_1];\n st.global.u32 [%rd1], %r1;\n ret;\n}\n";

    /// Stores its special registers (`.y`/`.z` components, ids) to `g`.
    const DIMS: &str = ".visible .global .align 4 .u32 g;\n.visible .entry d()\n{\n mov.u32 %r1, %tid.y;\n mov.u32 %r2, %tid.z;\n mov.u32 %r3, %ctaid.x;\n mov.u32 %r4, %ctaid.y;\n mov.u32 %r5, %nctaid.y;\n mov.u32 %r6, %ntid.z;\n mov.u32 %r7, %tid.x;\n mov.u32 %r8, %laneid;\n ret;\n}\n";

    fn launch(body: &str) -> Result<Test, String> {
        let read = |m: &str| {
            if m == "d.ptx" {
                Ok(DIMS.to_string())
            } else if m == "k.ptx" {
                Ok(PTX.to_string())
            } else {
                Err("no such file".to_string())
            }
        };
        parse_launch(body, "k.launch", &read).map_err(|e| e.to_string())
    }

    #[test]
    fn a_launch_becomes_a_test() {
        let t = launch("KERNEL k\nmodule k.ptx\ngrid 2\nblock 1\nparam k_param_0 = buf\nparam 1 = 5\n{ buf=0; }\nforall (buf == 5)\n")
            .expect("launches");
        assert_eq!(t.name, "k");
        assert_eq!(t.threads.len(), 2);
        assert_eq!(t.threads[1].placement.cta, 1);
        // The module's global with its initializer, then the buffer.
        assert_eq!(t.symbols.addrs[..2], ["g".to_string(), "buf".to_string()]);
        assert_eq!(t.init_mem[0], 3);
    }

    #[test]
    fn listed_threads_run() {
        let t = launch("KERNEL k\nmodule k.ptx\ngrid 2\nblock 4\nthreads 1:3, 0:0\nparam 0 = buf\nparam 1 = 1\n{ buf=0; }\nexists (buf == 1)\n")
            .expect("launches");
        assert_eq!(t.threads.len(), 2);
        assert_eq!(t.threads[0].placement.cta, 1);
    }

    #[test]
    fn errors_name_the_file_line_and_column() {
        let e = |b: &str| launch(b).unwrap_err();
        assert_eq!(
            e("KERNEL k\nmodule k.ptx\nparam 1 = 5\n{ buf=0; }\nexists (buf == 1)\n"),
            "k.ptx:11:2: the parameter `k_param_0` is not bound: add `param k_param_0 = BUFFER` (or `= VALUE`) to the launch"
        );
        assert_eq!(
            e("KERNEL k\nmodule k.ptx\nentry j\nexists (buf == 1)\n"),
            "k.launch:3:7: `k.ptx` has no `.entry j`"
        );
        assert_eq!(
            e("KERNEL k\nmodule k.ptx\ngrid 2\nthreads 0:0, 0:0\nexists (buf == 1)\n"),
            "k.launch:4:14: thread `0:0` is named twice"
        );
        assert!(e("KERNEL k\nmodule m.ptx\nexists (x == 1)\n")
            .starts_with("k.launch:2:8: cannot read `m.ptx`"));
        assert!(
            e("KERNEL k\nmodule k.ptx\nparam 0 = nowhere\nparam 1 = 1\nexists (x == 1)\n")
                .contains("`nowhere` is not declared")
        );
        // An error of the generated test at the position of its `.ptx` statement.
        let bad = launch("KERNEL k\nmodule k.ptx\nparam 0 = 7\nparam 1 = 1\nexists (g == 1)\n")
            .unwrap_err();
        assert!(
            bad.starts_with("k.ptx:13:16: cannot resolve the address `[%rd1]`"),
            "{bad}"
        );
        // The condition's errors at the launch's line.
        let bad = launch("KERNEL k\nmodule k.ptx\nparam 0 = g\nparam 1 = 1\nexists (P7:r1 == 1)\n")
            .unwrap_err();
        assert!(bad.starts_with("k.launch:5:"), "{bad}");
    }

    #[test]
    fn multi_dimensional_grids_and_ctas() {
        let t = launch("KERNEL k\nmodule k.ptx\ngrid 2x3\nblock 2x2x2\nthreads 5:6\nparam 0 = g\nparam 1 = 1\nexists (g == 1)\n")
            .expect("launches");
        assert_eq!(t.threads.len(), 1);
        assert_eq!(t.threads[0].placement.cta, 5);
        // CTA 5 of a 2x3 grid is (1, 2); thread 6 of a 2x2x2 CTA is (0, 1, 1).
        let t = launch(
            "KERNEL d\nmodule d.ptx\ngrid 2x3\nblock 2x2x2\nthreads 5:6, 0:1\nexists (g == 1)\n",
        )
        .expect("launches");
        let imms = |th: &crate::ir::Thread| -> Vec<i64> {
            th.code
                .iter()
                .filter_map(|s| match s.instr {
                    crate::ir::Instr::Mov {
                        src: crate::ir::Operand::Imm(v),
                        ..
                    } => Some(v),
                    _ => None,
                })
                .collect()
        };
        // tid.y tid.z ctaid.x ctaid.y nctaid.y ntid.z tid.x laneid
        assert_eq!(imms(&t.threads[0]), [1, 1, 1, 2, 3, 2, 0, 6]);
        assert_eq!(imms(&t.threads[1]), [0, 0, 0, 0, 3, 2, 1, 1]);
        // One-dimensional launches: .y/.z are 0 and 1.
        let t = launch("KERNEL d\nmodule d.ptx\ngrid 3\nblock 2\nthreads 2:1\nexists (g == 1)\n")
            .expect("launches");
        assert_eq!(imms(&t.threads[0]), [0, 0, 2, 0, 1, 1, 1, 1]);
        let e =
            launch("KERNEL k\nmodule k.ptx\ngrid 2x2 cluster 2\nexists (g == 1)\n").unwrap_err();
        assert!(e.contains("one-dimensional grid"), "{e}");
        let e = launch("KERNEL k\nmodule k.ptx\nblock 2x2x2x2\nexists (g == 1)\n").unwrap_err();
        assert!(
            e.starts_with("k.launch:3:1: `block` takes at most 3"),
            "{e}"
        );
        let e =
            launch("KERNEL k\nmodule k.ptx\nblock 65536x65536x2\nexists (g == 1)\n").unwrap_err();
        assert!(e.contains("too large"), "{e}");
    }

    #[test]
    fn a_huge_launch_is_refused() {
        let e = launch("KERNEL k\nmodule k.ptx\ngrid 100000\nblock 1024\nexists (x == 1)\n")
            .unwrap_err();
        assert!(e.starts_with("k.launch:3:1: 102400000 threads"), "{e}");
    }
}
