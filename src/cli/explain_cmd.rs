//! `ptxmc explain`: which axiom forbids an outcome and the cycle that does
//! it, in words; or the execution that allows it; and why a thread can hang.
//!
//! The checker's phases poll the deadline themselves; [`run`] also runs
//! them on a worker thread and answers at the deadline (plus a small grace)
//! with what is known, so that a phase that does not poll cannot hold the
//! answer back.

use super::args::ExplainArgs;
use super::explain_words::{
    axiom_name, coherence_words, final_values, known, mbarrier_locations, sync_words, Words,
};
use super::graph::{self, GraphSetup};
use super::herd;
use super::label::Labels;
use super::parse_cmd::read_source;
use super::prop;
use super::{EXIT_ERROR, EXIT_OK};
use ptxmc_checker::execution::Execution;
use ptxmc_checker::explain::{Explanation, Hang, Phase, Reason, WaitKind};
use ptxmc_checker::model::Axiom;
use ptxmc_checker::{Options, Status};
use ptxmc_frontend::ir::{Prop, Quantifier, Test};
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::io::Write;
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Reasons printed without `--all`.
const SHOWN_REASONS: usize = 3;

/// Rejections (existential choices) printed per reason without `--all`.
const SHOWN_CHOICES: usize = 2;

/// Synchronizations printed for an allowed outcome without `--all`.
const SHOWN_SYNCS: usize = 6;

/// How long after the deadline the answer may come (the worker's phases
/// poll the deadline; this covers the ones that do not).
const GRACE: Duration = Duration::from_millis(40);

struct Out<'a> {
    s: String,
    test: &'a Test,
    src: &'a str,
    outcome: &'a Prop,
    mbarriers: BTreeSet<u32>,
    all: bool,
}

impl<'a> Out<'a> {
    fn words(&'a self, exec: &'a Execution) -> Words<'a> {
        Words {
            labels: Labels::new(self.test, self.src),
            exec,
            test: self.test,
            mbarriers: &self.mbarriers,
        }
    }

    fn line(&mut self, l: impl AsRef<str>) {
        self.s.push_str(l.as_ref());
        self.s.push('\n');
    }

    fn reason(&mut self, index: usize, r: &Reason) {
        let mut text = String::new();
        {
            let w = self.words(&r.execution);
            let what = match (r.count - r.partial, r.partial) {
                (c, 0) => format!("{c} candidate execution{}", plural(c)),
                (0, p) => format!("{p} partial graph{} and every completion", plural(p)),
                (c, p) => format!(
                    "{c} candidate execution{} and {p} partial graph{} with every completion",
                    plural(c),
                    plural(p)
                ),
            };
            let _ = writeln!(text, "\nReason {index} (rules out {what}):");
            let many = r.rejections.len() > 1;
            if many {
                let _ = writeln!(
                    text,
                    "  rejected whatever the existential choices (Fence-SC order, barrier arrival order):"
                );
            }
            let shown = if self.all {
                r.rejections.len()
            } else {
                SHOWN_CHOICES
            };
            for j in r.rejections.iter().take(shown) {
                let mut prefix = String::from("  ");
                if many {
                    let order: Vec<String> = j.fence_sc.iter().map(|&e| w.pos(e)).collect();
                    if order.len() > 1 {
                        let _ = write!(prefix, "with Fence-SC order {}: ", order.join(" < "));
                    } else {
                        prefix.push_str("- ");
                    }
                }
                let _ = writeln!(text, "{prefix}{}", w.rejection(j));
                for s in w.syncs(&j.steps) {
                    let _ = writeln!(text, "    {s}");
                }
                if j.violation.axiom != Axiom::Atomicity {
                    let _ = writeln!(text, "    cycle: {}", w.cycle(&j.steps));
                }
            }
            if r.rejections.len() > shown {
                let _ = writeln!(
                    text,
                    "  ... and {} more existential choices, each rejected (--all shows them)",
                    r.rejections.len() - shown
                );
            }
            let rf = w.reads_from();
            let label = if r.is_partial {
                "  partial graph (the other reads have no write yet): "
            } else {
                "  execution: "
            };
            if !rf.is_empty() {
                let _ = writeln!(text, "{label}{}", rf.join("; "));
            }
            for c in coherence_words(&w, r.execution.co()) {
                let _ = writeln!(text, "  coherence: {c}");
            }
            let _ = writeln!(
                text,
                "  final: {}",
                final_values(self.test, self.outcome, &r.regs, &r.memory)
            );
        }
        self.s.push_str(&text);
    }

    fn allowed(&mut self, ex: &Explanation) {
        let Some(wit) = &ex.allowed else { return };
        let mut text = String::new();
        {
            let w = self.words(&wit.execution);
            let _ = writeln!(
                text,
                "Allowed: this consistent execution gives the outcome (found by the DPOR check, {} executions explored)",
                ex.stats.executions
            );
            let _ = writeln!(text, "  reads-from:");
            for l in w.reads_from() {
                let _ = writeln!(text, "    {l}");
            }
            for c in coherence_words(&w, &wit.relations.co) {
                let _ = writeln!(text, "  coherence: {c}");
            }
            let syncs = sync_words(&w, &wit.relations);
            if syncs.is_empty() {
                let _ = writeln!(
                    text,
                    "  synchronization: none between threads (nothing orders one thread's accesses before another's)"
                );
            }
            let shown = if self.all { syncs.len() } else { SHOWN_SYNCS };
            for l in syncs.iter().take(shown) {
                let _ = writeln!(text, "  synchronization: {l}");
            }
            if syncs.len() > shown {
                let _ = writeln!(
                    text,
                    "  ... and {} more synchronizations (--all shows them)",
                    syncs.len() - shown
                );
            }
            let order: Vec<String> = wit.execution.fence_sc().iter().map(|&e| w.pos(e)).collect();
            if order.len() > 1 {
                let _ = writeln!(text, "  Fence-SC order: {}", order.join(" < "));
            }
            let mem: Vec<Option<i64>> = wit.memory.iter().map(|&v| Some(v)).collect();
            let _ = writeln!(
                text,
                "  final: {}",
                final_values(self.test, self.outcome, &known(&wit.regs), &mem)
            );
        }
        self.s.push_str(&text);
    }

    fn forbidden(&mut self, ex: &Explanation) {
        self.line(format!(
            "Forbidden: no consistent execution gives this outcome (the DPOR check explored {} executions, {} blocked)",
            ex.stats.executions, ex.stats.blocked
        ));
        let graphs = ex.candidates + ex.partial;
        match (graphs, ex.reasons_complete) {
            (0, true) if ex.thin_air.is_none() => self.line(
                "No candidate execution gives this outcome (no choice of paths, reads-from and coherence produces these values)",
            ),
            (0, true) => self.line("No candidate execution gives this outcome with values that do not come out of thin air"),
            (0, false) => self.line("Why: no reason found yet"),
            (_, complete) => {
                let scope = if complete { "" } else { " so far" };
                self.line(format!(
                    "Why: {} reason{} (by axiom and cycle shape), ruling out {} candidate execution{} and {} partial graph{}{scope}; those of complete candidates first, then the shortest cycles",
                    ex.reasons.len(),
                    plural(ex.reasons.len() as u64),
                    ex.candidates,
                    plural(ex.candidates),
                    ex.partial,
                    plural(ex.partial)
                ));
            }
        }
        let shown = if self.all {
            ex.reasons.len()
        } else {
            SHOWN_REASONS
        };
        for (i, r) in ex.reasons.iter().take(shown).enumerate() {
            self.reason(i + 1, r);
        }
        if ex.reasons.len() > shown {
            let rest: u64 = ex.reasons[shown..].iter().map(|r| r.count).sum();
            self.line(format!(
                "\n... and {} more reasons ruling out {rest} more graphs (--all prints them)",
                ex.reasons.len() - shown
            ));
        }
        if !ex.undecided.is_empty() {
            let by: Vec<String> = ex
                .undecided
                .iter()
                .map(|&(a, n)| format!("{n} by {}", axiom_name(a)))
                .collect();
            self.line(format!(
                "\nAlso rejected before their values decide the outcome: {} partial graphs ({})",
                ex.undecided.iter().map(|&(_, n)| n).sum::<u64>(),
                by.join(", ")
            ));
        }
        // Thin air is mentioned when nothing else explains the outcome.
        if let (Some(t), 0) = (&ex.thin_air, graphs) {
            let w = self.words(&t.execution);
            let l = format!(
                "\nNo-Thin-Air (8.10.4): {} candidate execution{} would take values out of thin air (any value), through a cycle of reads-from and dependencies: {}",
                t.count,
                plural(t.count),
                w.cycle(&t.steps)
            );
            self.line(l);
        }
    }

    fn hang(&mut self, ex: &Explanation) {
        let Some(note) = &ex.liveness_note else {
            return;
        };
        self.line(format!("\nLiveness violated: {note}"));
        let Some(h) = &ex.hang else { return };
        let text = self.hang_words(h);
        self.s.push_str(&text);
    }

    fn hang_words(&self, h: &Hang) -> String {
        let w = self.words(&h.execution);
        let mut text = String::from("  the blocked execution:\n");
        for wait in &h.waits {
            let t = wait.thread;
            let _ = match &wait.kind {
                WaitKind::Done => writeln!(text, "    P{t} terminates"),
                WaitKind::Bound { at } => {
                    writeln!(text, "    P{t} is cut by the loop bound at {at}")
                }
                WaitKind::Barrier {
                    event,
                    arrivals,
                    count,
                } => writeln!(
                    text,
                    "    P{t} waits forever at {}: {arrivals} of the {count} threads it waits for arrive",
                    w.mention(*event)
                ),
                WaitKind::Spin { at, reads } => {
                    let what: Vec<String> = reads
                        .iter()
                        .map(|&(r, src)| {
                            let from = match src {
                                Some(s) if h.execution.event(s).is_init() => {
                                    "the initial write".to_string()
                                }
                                Some(s) => w.mention(s),
                                None => "no write".to_string(),
                            };
                            format!("{} reads {} from {from}", w.pos(r), w.access(r))
                        })
                        .collect();
                    writeln!(
                        text,
                        "    P{t} spins forever in the loop at {at}: every iteration {}, and no newer write is bound to become visible to these reads (8.6.1)",
                        what.join(", ")
                    )
                }
            };
        }
        for c in coherence_words(&w, &h.relations.co) {
            let _ = writeln!(text, "  coherence: {c}");
        }
        text
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The picture of the allowed execution or of the blocked one, in `dir`.
fn write_graph(
    dir: &Path,
    file: &Path,
    test: &Test,
    src: &str,
    ex: &Explanation,
) -> Result<String, String> {
    let labels = Labels::new(test, src);
    let stem = file
        .file_stem()
        .map_or_else(|| "test".to_string(), |s| s.to_string_lossy().into_owned());
    let esc = |s: &str| s.replace('\\', "\\\\").replace('"', "\\\"");
    let (name, title, exec, rel) = match (&ex.allowed, &ex.hang) {
        (Some(w), _) => (
            format!("{stem}-allowed"),
            format!(
                "{}: a consistent execution that gives the outcome\\l",
                esc(&test.name)
            ),
            &w.execution,
            &w.relations,
        ),
        (None, Some(h)) => (
            format!("{stem}-hang"),
            format!(
                "{}: a blocked execution ({})\\l",
                esc(&test.name),
                esc(&h.note)
            ),
            &h.execution,
            &h.relations,
        ),
        (None, None) => return Ok("no picture: no consistent execution gives the outcome".into()),
    };
    let setup = GraphSetup::new(dir, &[])?;
    let text = graph::dot_execution(test, &labels, &title, exec, rel);
    let paths = setup.write_text(&name, &text)?;
    let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    let mut s = format!("wrote {}", shown.join(", "));
    if !setup.dot {
        s.push_str(" (no svg: Graphviz `dot` not found)");
    }
    Ok(s)
}

/// The text of an explanation.
fn render(o: &mut Out<'_>, ex: &Explanation) {
    match &ex.status {
        Status::Limit(m) => {
            o.line(format!(
                "Incomplete: limit: {m} ({}; {} executions explored so far, none gives the outcome)",
                Phase::Verdict.name(),
                ex.stats.executions
            ));
            return;
        }
        Status::Ok => {}
        Status::Unsupported(_) | Status::Undefined(_) | Status::Estimate(_) => return,
    }
    if ex.allowed.is_some() {
        o.allowed(ex);
    } else {
        o.forbidden(ex);
    }
    o.hang(ex);
    if let Some((phase, m)) = &ex.stopped {
        o.line(format!(
            "\nIncomplete: limit: {m} (while {}; the verdict above is exact)",
            phase.name()
        ));
    }
}

/// Runs the subcommand; returns the exit code.
pub fn run(args: &ExplainArgs) -> u8 {
    let start = Instant::now();
    let file = &args.test;
    let src = match read_source(file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_ERROR;
        }
    };
    let test = match super::kernel_cmd::parse(file, &src) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{}", e.render(&file.display().to_string(), &src));
            return EXIT_ERROR;
        }
    };
    let timeout = match args.timeout.map(Duration::try_from_secs_f64).transpose() {
        Ok(t) => t,
        Err(_) => {
            eprintln!("error: --timeout expects a number of seconds >= 0");
            return EXIT_ERROR;
        }
    };
    let (outcome, note) = match &args.outcome {
        Some(s) => match prop::parse(s, &test) {
            Ok(p) => (p, ""),
            Err(e) => {
                eprintln!("error: --outcome: {e}");
                return EXIT_ERROR;
            }
        },
        None => match test.condition.quantifier {
            Quantifier::Forall => (
                Prop::Not(Box::new(test.condition.prop.clone())),
                " (the negation of the forall condition: the outcome it rules out)",
            ),
            _ => (
                test.condition.prop.clone(),
                " (the condition's proposition)",
            ),
        },
    };
    let opts = Options {
        unroll: args.unroll,
        timeout: timeout.map(|t| t.saturating_sub(start.elapsed())),
        ..Options::default()
    };
    let (ex, late) = explain_by_deadline(&test, &outcome, &opts, timeout.map(|t| start + t));
    let mut o = Out {
        s: String::new(),
        test: &test,
        src: &src,
        outcome: &outcome,
        mbarriers: mbarrier_locations(&test),
        all: args.all,
    };
    o.line(format!("Test {}: {}", test.name, herd::condition(&test)));
    o.line(format!("Outcome {}{note}", herd::prop(&test, &outcome)));
    let Some(mut ex) = ex else {
        let t = timeout.map_or(0.0, |t| t.as_secs_f64());
        o.line(format!(
            "Incomplete: limit: timeout after {t:.3} s ({}; nothing decided yet)",
            Phase::Verdict.name()
        ));
        print!("{}", o.s);
        let _ = std::io::stdout().flush();
        return EXIT_OK;
    };
    if let Some(phase) = late {
        let t = timeout.map_or(0.0, |t| t.as_secs_f64());
        ex.stopped = Some((phase, format!("timeout after {t:.3} s")));
    }
    // Each phase ran on what was left of the limit after parsing: its
    // message names the limit given.
    if let Some(t) = timeout {
        let given = format!("timeout after {:.3} s", t.as_secs_f64());
        let restate = |m: &mut String| {
            if m.starts_with("timeout after ") {
                m.clone_from(&given);
            }
        };
        if let Status::Limit(m) = &mut ex.status {
            restate(m);
        }
        if let Some((_, m)) = &mut ex.stopped {
            restate(m);
        }
    }
    // Undefined behaviour is the verdict (chapter 8 and the instruction
    // descriptions give the program no behaviour): the rule and where.
    if let Status::Undefined(m) = &ex.status {
        o.line(format!("Undefined: {m}"));
        o.line(String::from(
            "No verdict: a program with undefined behaviour has no executions that allow or \
             forbid an outcome (docs/model-notes.md names the rule).",
        ));
        print!("{}", o.s);
        let _ = std::io::stdout().flush();
        return EXIT_OK;
    }
    if let Status::Unsupported(m) = &ex.status {
        print!("{}", o.s);
        eprintln!(
            "error: {}: cannot explain: {} ({m})",
            file.display(),
            ex.status.name()
        );
        return EXIT_ERROR;
    }
    render(&mut o, &ex);
    if let Some(dir) = &args.graph {
        match write_graph(dir, file, &test, &src, &ex) {
            Ok(l) => o.line(format!("Graph: {l}")),
            Err(e) => {
                print!("{}", o.s);
                eprintln!("error: --graph: {e}");
                return EXIT_ERROR;
            }
        }
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let _ = out.write_all(o.s.as_bytes());
    let _ = out.flush();
    EXIT_OK
}

/// Runs the explanation on a worker thread and waits for it until
/// `deadline` (plus [`GRACE`]). Returns the last state the worker handed
/// over (`None`: not even the verdict), and the phase that was still
/// running when the deadline passed (`None`: it finished).
fn explain_by_deadline(
    test: &Test,
    outcome: &Prop,
    opts: &Options,
    deadline: Option<Instant>,
) -> (Option<Explanation>, Option<Phase>) {
    let (tx, rx) = mpsc::channel::<(Explanation, bool)>();
    let (t, p, o) = (test.clone(), outcome.clone(), opts.clone());
    let spawned = std::thread::Builder::new()
        .name("explain".into())
        .stack_size(64 << 20)
        .spawn(move || {
            let progress_tx = tx.clone();
            let ex = ptxmc_checker::explain::explain_observed(&t, &p, &o, &mut |e| {
                let _ = progress_tx.send((e.clone(), false));
            });
            let _ = tx.send((ex, true));
        });
    if spawned.is_err() {
        return (Some(ptxmc_checker::explain(test, outcome, opts)), None);
    }
    let mut last: Option<Explanation> = None;
    loop {
        let got = match deadline {
            Some(d) => rx.recv_timeout((d + GRACE).saturating_duration_since(Instant::now())),
            None => rx.recv().map_err(|_| mpsc::RecvTimeoutError::Disconnected),
        };
        match got {
            Ok((ex, true)) => return (Some(ex), None),
            Ok((ex, false)) => last = Some(ex),
            Err(_) => {
                // The worker is left behind: the process ends after printing.
                let phase = match &last {
                    None => Phase::Verdict,
                    Some(e)
                        if e.allowed.is_none() && !e.reasons_complete && e.stopped.is_none() =>
                    {
                        Phase::Reasons
                    }
                    Some(_) => Phase::Hang,
                };
                return (last, Some(phase));
            }
        }
    }
}
