//! No import circles between modules (issue 12, item 6).
//!
//! For every crate of the workspace, and at every level of its module tree,
//! the sibling modules form a graph: `a -> b` when code anywhere inside `a`
//! names a path into `b` through `crate::`, `super::` or `self::` (comments
//! and string literals left out; `pub use` re-exports of a parent module are
//! followed to the module that defines the name). A strongly connected
//! component of more than one module is an import circle, and this test
//! fails naming each circle between the top-level modules of a crate, with
//! its uses (file and line). Uses in `#[cfg(test)]` modules are counted
//! apart: the report shows the circles with and without them.
//!
//! `cargo test --release --test import_circles -- --nocapture` prints the
//! report; `IMPORT_CIRCLES_ROOT=DIR` checks another checkout (for a
//! before/after comparison).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The crates checked: name and source folder, relative to the workspace.
const CRATES: &[(&str, &str)] = &[
    ("ptxmc-frontend", "frontend/src"),
    ("ptxmc-checker", "checker/src"),
    ("ptxmc", "src"),
];

/// A module path from the crate root (`[]` is the root).
type ModPath = Vec<String>;

/// One path that a module names.
struct Use {
    /// Whether it is written in test code (a `#[cfg(test)]` module).
    test: bool,
    file: PathBuf,
    line: usize,
    /// The module (inline modules included) the path is written in.
    from: ModPath,
    /// The absolute path named.
    target: ModPath,
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Colons,
    Open,
    Close,
    Comma,
    Semi,
    Star,
    Other(char),
}

/// Tokens of `src` with their lines, comments and literals left out.
fn tokens(src: &str) -> Vec<(Tok, usize)> {
    let b: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    let skip_to = |i: &mut usize, line: &mut usize, end: usize| {
        while *i < end.min(b.len()) {
            if b[*i] == '\n' {
                *line += 1;
            }
            *i += 1;
        }
    };
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            let mut j = i;
            while j < b.len() {
                if b[j] == '/' && b.get(j + 1) == Some(&'*') {
                    depth += 1;
                    j += 2;
                } else if b[j] == '*' && b.get(j + 1) == Some(&'/') {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            skip_to(&mut i, &mut line, j);
        } else if c == '"' || ((c == 'r' || c == 'b') && raw_string_start(&b, i).is_some()) {
            let j = string_end(&b, i);
            skip_to(&mut i, &mut line, j);
        } else if c == '\'' {
            // A char literal ('x', '\n', '\u{..}') or a lifetime ('a).
            if next == Some('\\') {
                let mut j = i + 2;
                while j < b.len() && b[j] != '\'' {
                    j += 1;
                }
                i = j + 1;
            } else if b.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
            }
        } else if c.is_alphanumeric() || c == '_' {
            let s = i;
            while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_') {
                i += 1;
            }
            out.push((Tok::Ident(b[s..i].iter().collect()), line));
        } else {
            let t = match c {
                ':' if next == Some(':') => {
                    i += 1;
                    Tok::Colons
                }
                '{' => Tok::Open,
                '}' => Tok::Close,
                ',' => Tok::Comma,
                ';' => Tok::Semi,
                '*' => Tok::Star,
                c => Tok::Other(c),
            };
            out.push((t, line));
            i += 1;
        }
    }
    out
}

/// Where a raw (or byte) string starting at `i` opens: the index after its `"`.
fn raw_string_start(b: &[char], i: usize) -> Option<usize> {
    let mut j = i;
    if b[j] == 'b' {
        j += 1;
    }
    if b.get(j) == Some(&'r') {
        j += 1;
        while b.get(j) == Some(&'#') {
            j += 1;
        }
    }
    (j > i && b.get(j) == Some(&'"')).then_some(j + 1)
}

/// The index just past the string literal starting at `i`.
fn string_end(b: &[char], i: usize) -> usize {
    if b[i] == '"' {
        let mut j = i + 1;
        while j < b.len() && b[j] != '"' {
            if b[j] == '\\' {
                j += 1;
            }
            j += 1;
        }
        return j + 1;
    }
    let open = raw_string_start(b, i).unwrap_or(i + 1);
    let hashes = b[i..open - 1].iter().filter(|&&c| c == '#').count();
    let raw = b[i..open].contains(&'r');
    let mut j = open;
    while j < b.len() {
        if !raw && b[j] == '\\' {
            j += 2;
            continue;
        }
        if b[j] == '"' && (0..hashes).all(|k| b.get(j + 1 + k) == Some(&'#')) {
            return j + 1 + hashes;
        }
        j += 1;
    }
    j
}

/// Parses the path (or `use` tree) starting at `toks[*i]`, returning every
/// path it names as its segments (`self` inside a group names the group).
fn parse_tree(toks: &[(Tok, usize)], i: &mut usize, prefix: &[String], out: &mut Vec<ModPath>) {
    let mut path = prefix.to_vec();
    loop {
        match toks.get(*i).map(|t| &t.0) {
            // `self` after a prefix (`a::{self, b}`) names the prefix itself.
            Some(Tok::Ident(s)) if s == "self" && !path.is_empty() => *i += 1,
            Some(Tok::Ident(s)) => {
                path.push(s.clone());
                *i += 1;
            }
            Some(Tok::Open) => {
                *i += 1;
                loop {
                    match toks.get(*i).map(|t| &t.0) {
                        Some(Tok::Close) => {
                            *i += 1;
                            return;
                        }
                        Some(Tok::Comma) => *i += 1,
                        None => return,
                        _ => {
                            let before = *i;
                            parse_tree(toks, i, &path, out);
                            if *i == before {
                                *i += 1;
                            }
                        }
                    }
                }
            }
            Some(Tok::Star) => {
                *i += 1;
                break;
            }
            _ => break,
        }
        if toks.get(*i).map(|t| &t.0) == Some(&Tok::Colons) {
            *i += 1;
        } else {
            break;
        }
    }
    // `a::b as c`: the rename does not change what is named.
    if let Some(Tok::Ident(s)) = toks.get(*i).map(|t| &t.0) {
        if s == "as" {
            *i += 2;
        }
    }
    out.push(path);
}

/// The module a source file is, from its path under the crate's folder.
fn module_of(rel: &Path) -> ModPath {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap_or_default();
    let stem = last.trim_end_matches(".rs");
    let root_file = parts.is_empty() && matches!(stem, "lib" | "main");
    if stem != "mod" && !root_file {
        parts.push(stem.to_string());
    }
    parts
}

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// One crate's modules, the paths they name and the parents' re-exports.
struct CrateUses {
    modules: BTreeSet<ModPath>,
    uses: Vec<Use>,
    /// For a module, the names it re-exports (`pub use`) and what they name.
    reexports: BTreeMap<ModPath, BTreeMap<String, ModPath>>,
}

fn scan_crate(src: &Path) -> CrateUses {
    let mut files = Vec::new();
    rs_files(src, &mut files);
    let mut modules = BTreeSet::new();
    let mut test_modules = BTreeSet::new();
    let mut uses = Vec::new();
    let mut reexports: BTreeMap<ModPath, BTreeMap<String, ModPath>> = BTreeMap::new();
    for file in &files {
        let rel = file.strip_prefix(src).unwrap_or(file);
        let module = module_of(rel);
        modules.insert(module.clone());
        let text = fs::read_to_string(file).unwrap_or_default();
        let toks = tokens(&text);
        // Inline modules: (name, brace depth inside them).
        let mut inline: Vec<(String, usize)> = Vec::new();
        let mut depth = 0usize;
        let mut i = 0;
        while i < toks.len() {
            let here: ModPath = module
                .iter()
                .cloned()
                .chain(inline.iter().map(|(n, _)| n.clone()))
                .collect();
            match &toks[i].0 {
                Tok::Open => depth += 1,
                Tok::Close => {
                    if inline.last().is_some_and(|(_, d)| *d == depth) {
                        inline.pop();
                    }
                    depth = depth.saturating_sub(1);
                }
                Tok::Ident(k) if k == "mod" => {
                    if let Some((Tok::Ident(name), _)) = toks.get(i + 1) {
                        let child: ModPath = here.iter().cloned().chain([name.clone()]).collect();
                        if cfg_test(&toks[..i]) {
                            test_modules.insert(child.clone());
                        }
                        if let Some((Tok::Open, _)) = toks.get(i + 2) {
                            inline.push((name.clone(), depth + 1));
                            modules.insert(child);
                        }
                    }
                }
                Tok::Ident(k)
                    if matches!(k.as_str(), "crate" | "super" | "self")
                        && toks.get(i + 1).map(|t| &t.0) == Some(&Tok::Colons)
                        && (i == 0 || toks[i - 1].0 != Tok::Colons) =>
                {
                    let line = toks[i].1;
                    let reexport = inline.is_empty()
                        && i >= 2
                        && toks[i - 1].0 == Tok::Ident("use".into())
                        && toks[i - 2].0 == Tok::Ident("pub".into());
                    let start = i;
                    let mut paths = Vec::new();
                    parse_tree(&toks, &mut i, &[], &mut paths);
                    for p in paths {
                        let target = resolve(&here, &p);
                        if reexport {
                            if let Some(name) = p.last() {
                                reexports
                                    .entry(module.clone())
                                    .or_default()
                                    .insert(name.clone(), target.clone());
                            }
                        }
                        uses.push(Use {
                            test: false,
                            file: file.clone(),
                            line,
                            from: here.clone(),
                            target,
                        });
                    }
                    if i == start {
                        i += 1;
                    }
                    continue;
                }
                // `pub use child::Name;` in a parent names its child without a prefix.
                Tok::Ident(k)
                    if k == "use"
                        && inline.is_empty()
                        && i >= 1
                        && toks[i - 1].0 == Tok::Ident("pub".into()) =>
                {
                    if let Some((Tok::Ident(first), _)) = toks.get(i + 1) {
                        if !matches!(first.as_str(), "crate" | "super" | "self") {
                            let mut j = i + 1;
                            let mut paths = Vec::new();
                            parse_tree(&toks, &mut j, &[], &mut paths);
                            for p in paths {
                                let name = p.last().cloned().unwrap_or_default();
                                let target: ModPath = module.iter().cloned().chain(p).collect();
                                reexports
                                    .entry(module.clone())
                                    .or_default()
                                    .insert(name, target);
                            }
                        }
                    }
                }
                _ => {}
            }
            i += 1;
        }
    }
    // Keep only re-exports that point into a child module of the re-exporter.
    for (m, names) in reexports.iter_mut() {
        names.retain(|_, t| {
            t.len() > m.len() + 1 && t.starts_with(m) && modules.contains(&t[..m.len() + 1])
        });
    }
    for u in &mut uses {
        u.test = (1..=u.from.len()).any(|k| test_modules.contains(&u.from[..k]));
    }
    CrateUses {
        modules,
        uses,
        reexports,
    }
}

/// Whether the tokens before a `mod` end in `#[cfg(test)]` (other
/// attributes may come between).
fn cfg_test(before: &[(Tok, usize)]) -> bool {
    let mut end = before.len();
    // Skip `pub`, `pub(crate)` and attributes other than cfg(test).
    while end > 0 {
        match &before[end - 1].0 {
            Tok::Ident(k) if k == "pub" || k == "crate" || k == "super" => end -= 1,
            Tok::Other(')') if end >= 3 && before[end - 3].0 == Tok::Ident("pub".into()) => {
                end -= 3
            }
            Tok::Other(']') => {
                let mut j = end - 1;
                while j > 0 && before[j].0 != Tok::Other('#') {
                    j -= 1;
                }
                let attr: Vec<&Tok> = before[j..end].iter().map(|t| &t.0).collect();
                let want = [
                    Tok::Other('#'),
                    Tok::Other('['),
                    Tok::Ident("cfg".into()),
                    Tok::Other('('),
                    Tok::Ident("test".into()),
                    Tok::Other(')'),
                    Tok::Other(']'),
                ];
                if attr.len() == want.len() && attr.iter().zip(&want).all(|(a, b)| *a == b) {
                    return true;
                }
                end = j;
            }
            _ => return false,
        }
    }
    false
}

/// The absolute path that `path` (starting with crate/super/self) names in `here`.
fn resolve(here: &[String], path: &[String]) -> ModPath {
    let mut base: ModPath = here.to_vec();
    let mut rest = path;
    match rest.first().map(String::as_str) {
        Some("crate") => {
            base.clear();
            rest = &rest[1..];
        }
        Some("self") => rest = &rest[1..],
        _ => {}
    }
    while rest.first().map(String::as_str) == Some("super") {
        base.pop();
        rest = &rest[1..];
    }
    base.extend(rest.iter().cloned());
    base
}

/// Follows re-exports: `m::Name` where `m` re-exports `Name` from its child.
fn follow(mut target: ModPath, c: &CrateUses) -> ModPath {
    for _ in 0..8 {
        let mut changed = false;
        for k in 0..target.len() {
            let (m, name) = (&target[..k], &target[k]);
            if c.modules.contains(&target[..=k]) {
                continue;
            }
            if let Some(t) = c.reexports.get(m).and_then(|r| r.get(name)) {
                let mut next = t.clone();
                next.extend(target[k + 1..].iter().cloned());
                target = next;
                changed = true;
                break;
            }
        }
        if !changed {
            break;
        }
    }
    target
}

/// A circle: the modules of one strongly connected component at one level,
/// with the uses along its edges.
struct Circle {
    parent: ModPath,
    members: Vec<String>,
    edges: BTreeMap<(String, String), Vec<String>>,
}

/// The circles of every crate under `root`; `with_tests`: counting the
/// uses in `#[cfg(test)]` modules too.
fn circles(root: &Path, with_tests: bool) -> (Vec<Circle>, String) {
    let mut report = String::new();
    let mut found = Vec::new();
    for (name, dir) in CRATES {
        let c = scan_crate(&root.join(dir));
        // edges[parent][(a, b)] = uses, a and b children of parent.
        let mut edges: BTreeMap<ModPath, BTreeMap<(String, String), Vec<String>>> = BTreeMap::new();
        for u in c.uses.iter().filter(|u| with_tests || !u.test) {
            let target = follow(u.target.clone(), &c);
            let common = u
                .from
                .iter()
                .zip(&target)
                .take_while(|(a, b)| a == b)
                .count();
            if common >= u.from.len() || common >= target.len() {
                continue; // a path into itself, or to an ancestor's item
            }
            let parent: ModPath = target[..common].to_vec();
            let mut child = parent.clone();
            child.push(target[common].clone());
            if !c.modules.contains(&child) {
                continue; // an item of the parent, not a module
            }
            let rel = u.file.strip_prefix(root).unwrap_or(&u.file);
            edges
                .entry(parent)
                .or_default()
                .entry((u.from[common].clone(), target[common].clone()))
                .or_default()
                .push(format!(
                    "{}:{} {}{}",
                    rel.display(),
                    u.line,
                    target.join("::"),
                    if u.test { " (test)" } else { "" }
                ));
        }
        let mut crate_circles = 0;
        for (parent, es) in &edges {
            for scc in components(es) {
                let members: BTreeSet<&String> = scc.iter().collect();
                let inner: BTreeMap<(String, String), Vec<String>> = es
                    .iter()
                    .filter(|((a, b), _)| members.contains(a) && members.contains(b))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                crate_circles += 1;
                found.push(Circle {
                    parent: parent.clone(),
                    members: scc,
                    edges: inner,
                });
            }
        }
        let top = edges.get(&Vec::new()).map_or(0, |e| e.len());
        report.push_str(&format!(
            "{name}: {} modules, {top} edges between top-level modules, {crate_circles} circle(s)\n",
            c.modules.len()
        ));
        for circle in found.iter().rev().take(crate_circles).rev() {
            let at = if circle.parent.is_empty() {
                "crate root".to_string()
            } else {
                circle.parent.join("::")
            };
            report.push_str(&format!(
                "  circle in {at}: {}\n",
                circle.members.join(" <-> ")
            ));
            for ((a, b), uses) in &circle.edges {
                report.push_str(&format!("    {a} -> {b} ({} uses)\n", uses.len()));
                for u in uses {
                    report.push_str(&format!("      {u}\n"));
                }
            }
        }
    }
    (found, report)
}

/// Strongly connected components of more than one node (Tarjan's algorithm).
fn components(edges: &BTreeMap<(String, String), Vec<String>>) -> Vec<Vec<String>> {
    let nodes: BTreeSet<&String> = edges.keys().flat_map(|(a, b)| [a, b]).collect();
    let nodes: Vec<&String> = nodes.into_iter().collect();
    let idx = |n: &String| nodes.iter().position(|m| *m == n).unwrap_or(0);
    let mut succ = vec![Vec::new(); nodes.len()];
    for (a, b) in edges.keys() {
        succ[idx(a)].push(idx(b));
    }
    struct T {
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(v: usize, succ: &[Vec<usize>], t: &mut T) {
        t.index[v] = Some(t.next);
        t.low[v] = t.next;
        t.next += 1;
        t.stack.push(v);
        t.on[v] = true;
        for &w in &succ[v] {
            match t.index[w] {
                None => {
                    visit(w, succ, t);
                    t.low[v] = t.low[v].min(t.low[w]);
                }
                Some(iw) if t.on[w] => t.low[v] = t.low[v].min(iw),
                _ => {}
            }
        }
        if Some(t.low[v]) == t.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = t.stack.pop() {
                t.on[w] = false;
                comp.push(w);
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                t.out.push(comp);
            }
        }
    }
    let n = nodes.len();
    let mut t = T {
        index: vec![None; n],
        low: vec![0; n],
        on: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if t.index[v].is_none() {
            visit(v, &succ, &mut t);
        }
    }
    t.out
        .into_iter()
        .map(|c| {
            let mut names: Vec<String> = c.into_iter().map(|i| nodes[i].clone()).collect();
            names.sort();
            names
        })
        .collect()
}

fn root() -> PathBuf {
    std::env::var_os("IMPORT_CIRCLES_ROOT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")))
}

#[test]
fn no_import_circles_between_modules() {
    let (found, report) = circles(&root(), false);
    println!("== code (tests left out)\n{report}");
    let (_, with_tests) = circles(&root(), true);
    println!("== code and tests\n{with_tests}");
    // What must hold: no circle between the modules of a crate in its code,
    // at any depth of the module tree. (Those that only tests close, a
    // module's unit tests running the whole checker, are printed above.)
    assert!(found.is_empty(), "import circles:\n{report}");
}

#[test]
fn the_scanner_sees_a_circle_through_a_reexport_and_skips_comments() {
    let dir = std::env::temp_dir().join(format!("import-circles-{}", std::process::id()));
    let src = dir.join("checker/src");
    fs::create_dir_all(src.join("b")).unwrap();
    fs::write(src.join("lib.rs"), "mod a; mod b; mod c;\n").unwrap();
    // a -> b through the re-export in b/mod.rs; b -> a through a group.
    fs::write(src.join("a.rs"), "use crate::b::Thing;\n// crate::c::X\n").unwrap();
    fs::write(src.join("b/mod.rs"), "mod inner;\npub use inner::Thing;\n").unwrap();
    fs::write(
        src.join("b/inner.rs"),
        "pub struct Thing;\nfn f() { let _ = \"crate::c::Y\"; }\nuse crate::{a::F, c};\n",
    )
    .unwrap();
    fs::write(src.join("c.rs"), "/* crate::a::Z */ pub fn g() {}\n").unwrap();
    let (found, report) = circles(&dir, true);
    fs::remove_dir_all(&dir).ok();
    assert_eq!(found.len(), 1, "{report}");
    assert_eq!(found[0].members, ["a", "b"], "{report}");
    // b -> c is an edge, but c names nothing (its path is in a comment).
    assert!(!found[0].members.contains(&"c".to_string()), "{report}");
    assert!(report.contains("b -> a (1 uses)"), "{report}");
}
