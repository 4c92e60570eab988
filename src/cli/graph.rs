//! Graphviz pictures of witness executions (`ptxmc run --graph DIR`).
//!
//! One node per event, grouped by thread (`subgraph cluster_P0`), initial
//! writes on top; one edge per related pair, labelled with every relation
//! that relates it (`rf,obs`) and drawn in each relation's colour. Relations
//! are reduced so that the picture stays readable: program order to
//! immediate successors, coherence and observation to their transitive
//! reductions, from-reads to the first write after the one read, and
//! causality to its non-po, non-transitive part (edges implied by a path
//! through causality, base causality or observation are left out). The
//! legend says so.

use super::herd;
use super::label::Labels;
use ptxmc_checker::event::EventId;
use ptxmc_checker::execution::Execution;
use ptxmc_checker::model::Relations;
use ptxmc_checker::relation::BitMatrix;
use ptxmc_checker::{Report, Witness};
use ptxmc_frontend::ir::{Quantifier, Test};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The relations drawn, in label order, with their colours.
const KINDS: [(&str, &str); 7] = [
    ("po", "black"),
    ("rf", "red"),
    ("co", "blue"),
    ("fr", "darkorange"),
    ("obs", "darkgreen"),
    ("sync", "purple"),
    ("causality", "gray50"),
];

/// Pairs of `m` not implied by two of its own edges (`a m c m b`, `c` distinct).
fn reduce(m: &BitMatrix) -> Vec<(EventId, EventId)> {
    m.pairs()
        .filter(|&(a, b)| {
            a != b
                && !m
                    .successors(a)
                    .any(|c| c != a && c != b && m.contains(c, b))
        })
        .collect()
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The DOT text of `w`, a witness of `test` (whose report is `r`).
pub fn dot(test: &Test, labels: &Labels<'_>, r: &Report, w: &Witness) -> String {
    let state: Vec<String> = r
        .state_terms
        .iter()
        .zip(&w.state.0)
        .map(|(t, v)| format!("{}={};", herd::term(test, t), v))
        .collect();
    let what = match test.condition.quantifier {
        Quantifier::Exists => "satisfies",
        Quantifier::NotExists | Quantifier::Forall => "violates",
    };
    let title = format!(
        "{}: a witness execution that {} {}\\lfinal state: {}\\l",
        escape(&test.name),
        what,
        escape(&herd::condition(test)),
        escape(&state.join(" "))
    );
    dot_execution(test, labels, &title, &w.execution, &w.relations)
}

/// The DOT text of the consistent execution `exec` of `test`, with its
/// relations `rel`, under the title `title` (DOT-escaped, `\l` line ends).
///
/// No `newrank`: Graphviz 2.43 (Debian's) fails on some of these pictures
/// with it (`trouble in init_rank`); `rank=same` rows work without it.
pub fn dot_execution(
    test: &Test,
    labels: &Labels<'_>,
    title: &str,
    exec: &Execution,
    rel: &Relations,
) -> String {
    let n = exec.len();
    let mut edges: BTreeMap<(EventId, EventId), Vec<usize>> = BTreeMap::new();
    let mut add = |k: usize, a: EventId, b: EventId| {
        let v = edges.entry((a, b)).or_default();
        if !v.contains(&k) {
            v.push(k);
        }
    };
    // po: immediate successors.
    let mut po = BitMatrix::new(n);
    for th in exec.threads() {
        for (i, &a) in th.iter().enumerate() {
            if let Some(&b) = th.get(i + 1) {
                add(0, a, b);
            }
            for &b in &th[i + 1..] {
                po.insert(a, b);
            }
        }
    }
    for e in exec.ids() {
        if let Some(wr) = exec.rf().get(e.index()).copied().flatten() {
            add(1, wr, e);
        }
    }
    for (a, b) in reduce(&rel.co) {
        add(2, a, b);
    }
    // fr: to the first write after the one read.
    for (a, b) in rel.fr.pairs() {
        if !rel
            .fr
            .successors(a)
            .any(|c| c != b && rel.co.contains(c, b))
        {
            add(3, a, b);
        }
    }
    for (a, b) in reduce(&rel.observation) {
        add(4, a, b);
    }
    for (a, b) in rel.sync.pairs() {
        if a != b {
            add(5, a, b);
        }
    }
    // causality: not program order, and not implied by a path a -> c -> b
    // of causality, base causality or observation.
    let mut via = rel.base_causality.clone();
    via.union_with(&rel.causality);
    via.union_with(&rel.observation);
    for (a, b) in rel.causality.pairs() {
        let implied = via
            .successors(a)
            .any(|c| c != a && c != b && via.contains(c, b));
        if a != b && !po.contains(a, b) && !implied {
            add(6, a, b);
        }
    }

    let mut s = String::new();
    let _ = writeln!(s, "digraph \"{}\" {{", escape(&test.name));
    let _ = writeln!(
        s,
        "  graph [label=\"{title}\", labelloc=t, labeljust=l, fontname=\"Helvetica\", fontsize=12, nodesep=0.6, ranksep=0.5];"
    );
    let _ = writeln!(
        s,
        "  node [shape=box, style=rounded, fontname=\"Courier\", fontsize=11];"
    );
    let _ = writeln!(s, "  edge [fontname=\"Helvetica\", fontsize=10];");
    let node = |e: EventId| format!("e{}", e.index());
    // Initial writes.
    let inits: Vec<EventId> = exec.ids().filter(|&e| exec.event(e).is_init()).collect();
    if !inits.is_empty() {
        let _ = writeln!(s, "  subgraph cluster_init {{");
        let _ = writeln!(
            s,
            "    label=\"initial writes\"; style=dashed; color=gray60;"
        );
        for &e in &inits {
            let _ = writeln!(
                s,
                "    {} [label=\"{}\"];",
                node(e),
                escape(&labels.node(exec.event(e)))
            );
        }
        let _ = writeln!(s, "  }}");
    }
    for (t, th) in exec.threads().iter().enumerate() {
        let placement = exec
            .placements()
            .get(t)
            .map(|p| format!(" (cta {}, gpu {})", p.cta, p.gpu))
            .unwrap_or_default();
        let _ = writeln!(s, "  subgraph cluster_P{t} {{");
        let _ = writeln!(s, "    label=\"P{t}{placement}\"; color=gray40;");
        for &e in th {
            let ev = exec.event(e);
            let _ = writeln!(
                s,
                "    {} [label=\"{}\", tooltip=\"{} {}\"];",
                node(e),
                escape(&labels.node(ev)),
                escape(&labels.pos(ev)),
                escape(&labels.instr(ev))
            );
        }
        let _ = writeln!(s, "  }}");
        // Keep the initial writes above the threads.
        if let Some(&first) = th.first() {
            for &i in &inits {
                let _ = writeln!(s, "  {} -> {} [style=invis];", node(i), node(first));
            }
        }
    }
    // Events at the same program-order index side by side.
    let rows = exec.threads().iter().map(Vec::len).max().unwrap_or(0);
    for i in 0..rows {
        let same: Vec<String> = exec
            .threads()
            .iter()
            .filter_map(|th| th.get(i).map(|&e| node(e)))
            .collect();
        if same.len() > 1 {
            let _ = writeln!(s, "  {{ rank=same; {}; }}", same.join("; "));
        }
    }
    for ((a, b), kinds) in &edges {
        let mut kinds = kinds.clone();
        kinds.sort_unstable();
        let label: Vec<&str> = kinds.iter().map(|&k| KINDS[k].0).collect();
        let color: Vec<&str> = kinds.iter().map(|&k| KINDS[k].1).collect();
        let style = if kinds.contains(&5) {
            ", penwidth=1.6"
        } else {
            ""
        };
        let constraint = if kinds.contains(&0) {
            ""
        } else {
            ", constraint=false"
        };
        let _ = writeln!(
            s,
            "  {} -> {} [label=\"{}\", color=\"{}\", fontcolor=\"{}\"{}{}];",
            node(*a),
            node(*b),
            label.join(","),
            color.join(":"),
            color[0],
            style,
            constraint
        );
    }
    let legend = "Edges (one per related pair, labelled with every relation):\\l\
po: program order, immediate successors only (black)\\l\
rf: reads-from (red)\\l\
co: coherence order, transitive reduction (blue)\\l\
fr: from-reads, to the first write coherence-after the one read (orange)\\l\
obs: observation order, transitive reduction (green)\\l\
sync: synchronizes-with (purple)\\l\
causality: causality order reduced to its non-po, non-transitive part: an edge a -> b\\l\
  that is not program order and not implied by a path a -> c -> b of causality,\\l\
  base causality or observation (gray)\\l";
    let _ = writeln!(
        s,
        "  legend [shape=note, fontname=\"Helvetica\", fontsize=10, label=\"{legend}\"];"
    );
    let _ = writeln!(s, "}}");
    s
}

/// Where pictures go, and whether `dot` can render them.
pub struct GraphSetup {
    /// The folder.
    pub dir: PathBuf,
    /// Whether `dot -V` ran.
    pub dot: bool,
    /// The picture name (no extension) of each file whose stem is shared
    /// with another file of the run.
    pub names: BTreeMap<PathBuf, String>,
}

/// What was written for one test.
pub enum GraphResult {
    /// The test has no witness (or was not checked).
    NoWitness,
    /// `.dot` written; `svg` whether the `.svg` was too.
    Written {
        /// The `.svg` was written too.
        svg: bool,
    },
    /// Writing failed.
    Error(String),
}

impl GraphSetup {
    /// Creates `dir`, probes `dot`, and names the pictures of `files`: the
    /// file stem, or, for stems that several files share, the path with `/`
    /// replaced by `_`.
    pub fn new(dir: &Path, files: &[PathBuf]) -> Result<GraphSetup, String> {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {}", dir.display(), e))?;
        let dot = Command::new("dot")
            .arg("-V")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        let stem = |f: &Path| {
            f.file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        let mut count: BTreeMap<String, usize> = BTreeMap::new();
        for f in files {
            *count.entry(stem(f)).or_default() += 1;
        }
        let mut names = BTreeMap::new();
        for f in files {
            if count.get(&stem(f)).is_some_and(|&c| c > 1) {
                let p = f
                    .with_extension("")
                    .to_string_lossy()
                    .replace(['/', '\\'], "_");
                names.insert(f.clone(), p.trim_start_matches(['.', '_']).to_string());
            }
        }
        Ok(GraphSetup {
            dir: dir.to_path_buf(),
            dot,
            names,
        })
    }

    /// Writes `text` as `NAME.dot` (and `NAME.svg` when `dot` runs); the
    /// paths written.
    pub fn write_text(&self, name: &str, text: &str) -> Result<Vec<PathBuf>, String> {
        let dot_path = self.dir.join(format!("{name}.dot"));
        std::fs::write(&dot_path, text).map_err(|e| format!("{}: {}", dot_path.display(), e))?;
        let mut paths = vec![dot_path.clone()];
        if self.dot {
            let svg_path = self.dir.join(format!("{name}.svg"));
            if render_svg(&dot_path, &svg_path) {
                paths.push(svg_path);
            } else {
                return Err(format!("dot -Tsvg {} failed", dot_path.display()));
            }
        }
        Ok(paths)
    }

    /// Writes the picture of `file`'s witness, if it has one.
    pub fn write(&self, file: &Path, test: &Test, src: &str, r: &Report) -> GraphResult {
        let Some(w) = &r.witness else {
            return GraphResult::NoWitness;
        };
        let name = self.names.get(file).cloned().unwrap_or_else(|| {
            file.file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "test".into())
        });
        let labels = Labels::new(test, src);
        let text = dot(test, &labels, r, w);
        let dot_path = self.dir.join(format!("{name}.dot"));
        if let Err(e) = std::fs::write(&dot_path, text) {
            return GraphResult::Error(format!("{}: {}", dot_path.display(), e));
        }
        if !self.dot {
            return GraphResult::Written { svg: false };
        }
        let svg_path = self.dir.join(format!("{name}.svg"));
        let ok = render_svg(&dot_path, &svg_path);
        if !ok {
            eprintln!("warning: dot -Tsvg {} failed", dot_path.display());
        }
        GraphResult::Written { svg: ok }
    }
}

/// Runs `dot -Tsvg DOT -o SVG`; whether it succeeded.
fn render_svg(dot_path: &Path, svg_path: &Path) -> bool {
    Command::new("dot")
        .arg("-Tsvg")
        .arg(dot_path)
        .arg("-o")
        .arg(svg_path)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}
