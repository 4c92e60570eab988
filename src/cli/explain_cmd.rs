//! `ptxmc explain`: which axiom forbids an outcome and the cycle that does
//! it, in words; or the execution that allows it.

use super::args::ExplainArgs;
use super::herd;
use super::label::Labels;
use super::parse_cmd::read_source;
use super::prop;
use super::{EXIT_ERROR, EXIT_OK};
use ptxmc_checker::event::EventId;
use ptxmc_checker::execution::Execution;
use ptxmc_checker::explain::{Reason, Rejection, Rel, Step};
use ptxmc_checker::explore::term_value;
use ptxmc_checker::model::Axiom;
use ptxmc_checker::{Options, Status};
use ptxmc_frontend::ir::{Prop, Quantifier, Test};
use std::fmt::Write as _;
use std::io::Write;
use std::time::Duration;

/// The axiom's name and section.
pub fn axiom_name(a: Axiom) -> &'static str {
    match a {
        Axiom::Coherence => "Coherence (8.10.1)",
        Axiom::FenceSc => "Fence-SC (8.10.2)",
        Axiom::Atomicity => "Atomicity (8.10.3)",
        Axiom::NoThinAir => "No-Thin-Air (8.10.4)",
        Axiom::ScPerLocation => "SC-per-Location (8.10.5)",
        Axiom::Causality => "Causality (8.10.6)",
    }
}

struct Words<'a> {
    labels: Labels<'a>,
    exec: &'a Execution,
}

impl Words<'_> {
    fn pos(&self, e: EventId) -> String {
        self.labels.pos(self.exec.event(e))
    }
    fn describe(&self, e: EventId) -> String {
        self.labels.describe(self.exec.event(e))
    }
    fn mention(&self, e: EventId) -> String {
        self.labels.mention(self.exec.event(e))
    }

    /// `a -po-> b ...`: the first and last events by position, the others
    /// by mention (position, opcode, location).
    fn path(&self, steps: &[Step]) -> String {
        let mut s = String::new();
        let Some(first) = steps.first() else {
            return s;
        };
        s.push_str(&self.pos(first.from));
        for (i, st) in steps.iter().enumerate() {
            let last = i + 1 == steps.len();
            let name = match st.rel {
                Rel::Other => "->".to_string(),
                r => format!("-{}->", r.name()),
            };
            let to = if last {
                self.pos(st.to)
            } else {
                self.mention(st.to)
            };
            let _ = write!(s, " {name} {to}");
        }
        s
    }

    /// `(P0:1 synchronizes with P1:1 through ...)` for each folded sync step.
    fn syncs(&self, steps: &[Step]) -> Vec<String> {
        steps
            .iter()
            .filter(|s| s.rel == Rel::Sync && !s.via.is_empty())
            .map(|s| {
                let mut t = self.pos(s.from);
                let mut evs = s.via.clone();
                evs.push(s.to);
                for (e, r) in evs.iter().zip(&s.via_rels) {
                    let _ = write!(t, " -{}-> {}", r.name(), self.mention(*e));
                }
                format!(
                    "({} synchronizes with {} through {})",
                    self.pos(s.from),
                    self.pos(s.to),
                    t
                )
            })
            .collect()
    }

    /// The cycle: `a -r-> b -r-> ... -r-> a`.
    fn cycle(&self, steps: &[Step]) -> String {
        let mut s = String::new();
        if let Some(f) = steps.first() {
            s.push_str(&self.pos(f.from));
        }
        for st in steps {
            let name = match st.rel {
                Rel::Other => "->".to_string(),
                r => format!("-{}->", r.name()),
            };
            let _ = write!(s, " {name} {}", self.pos(st.to));
        }
        s
    }

    fn rf_source(&self, r: EventId) -> String {
        match self.exec.rf.get(r.index()).copied().flatten() {
            Some(w) => self.describe(w),
            None => "no write".into(),
        }
    }

    /// The rejection in words.
    fn rejection(&self, rj: &Rejection) -> String {
        let ev = &rj.violation.events;
        let st = &rj.steps;
        let n = st.len();
        let name = axiom_name(rj.violation.axiom);
        match rj.violation.axiom {
            Axiom::Causality if n > 1 && st[0].rel == Rel::Fr => format!(
                "{name}: {} reads from {}, which is coherence-before {}; that write precedes the read in causality order: {}",
                self.describe(st[0].from),
                self.rf_source(st[0].from),
                self.describe(st[0].to),
                self.path(&st[1..])
            ),
            Axiom::Causality if n > 1 => format!(
                "{name}: {} reads from {}, but the read precedes that write in causality order: {}",
                self.describe(st[0].from),
                self.describe(st[n - 1].from),
                self.path(&st[..n - 1])
            ),
            Axiom::FenceSc if n > 1 => format!(
                "{name}: {} precedes {} in this Fence-SC order, but follows it in causality order: {}",
                self.describe(st[n - 1].from),
                self.describe(st[0].from),
                self.path(&st[..n - 1])
            ),
            Axiom::Coherence => format!(
                "{name}: no coherence order contains these edges (initial writes first, the execution's order of morally strong writes, and causality between overlapping writes, spelled out as paths): {}",
                self.path(st)
            ),
            Axiom::Atomicity if ev.len() == 3 && self.exec.event(ev[0]).is_rmw() => format!(
                "{name}: the atomic operation {} reads from {}, which is coherence-before {}, and its own write {} is coherence-after that write: another write comes between the read and the write of the atomic operation",
                self.describe(ev[0]),
                self.rf_source(ev[0]),
                self.describe(ev[1]),
                self.pos(ev[2])
            ),
            Axiom::Atomicity if ev.len() == 3 => format!(
                "{name}: {} reads from {} and from {}, which is coherence-before it",
                self.describe(ev[1]),
                self.describe(ev[2]),
                self.describe(ev[0])
            ),
            Axiom::NoThinAir => format!(
                "{name}: the values come out of thin air, through a cycle of reads-from and dependencies: {}",
                self.path(st)
            ),
            Axiom::ScPerLocation => format!(
                "{name}: program order and communication order between these morally strong operations on one location form a cycle: {}",
                self.path(st)
            ),
            _ => format!(
                "{name}: {}",
                ev.iter().map(|&e| self.pos(e)).collect::<Vec<_>>().join(", ")
            ),
        }
    }
}

fn final_values(test: &Test, outcome: &Prop, regs: &[Vec<i64>], mem: &[i64]) -> String {
    let mut ts = Vec::new();
    outcome.terms(&mut ts);
    let mut s = String::new();
    for t in ts {
        let reg = |th: usize, r: usize| regs.get(th).and_then(|x| x.get(r)).copied();
        let v = term_value(test, &t, reg, mem);
        let _ = write!(s, "{}={}; ", herd::term(test, &t), v);
    }
    s.trim_end().to_string()
}

/// The coherence order of writes to each location that has several writes.
fn coherence_words(w: &Words<'_>, co: &ptxmc_checker::relation::BitMatrix) -> Vec<String> {
    let exec = w.exec;
    let mut out = Vec::new();
    let mut phys: Vec<u32> = exec
        .events
        .iter()
        .filter(|e| e.is_write() && !e.is_init())
        .filter_map(|e| e.loc().map(|l| l.phys.0))
        .collect();
    phys.sort_unstable();
    phys.dedup();
    for p in phys {
        let ws: Vec<EventId> = exec
            .ids()
            .filter(|&e| {
                let ev = exec.event(e);
                ev.is_write() && ev.loc().is_some_and(|l| l.phys.0 == p)
            })
            .collect();
        let mut pairs = Vec::new();
        for &a in &ws {
            for &b in &ws {
                if a != b && co.contains(a, b) && !exec.event(a).is_init() {
                    pairs.push(format!("{} -co-> {}", w.pos(a), w.pos(b)));
                }
            }
        }
        if !pairs.is_empty() {
            out.push(pairs.join(", "));
        }
    }
    out
}

fn reason(out: &mut String, index: usize, test: &Test, src: &str, outcome: &Prop, r: &Reason) {
    let w = Words {
        labels: Labels::new(test, src),
        exec: &r.execution,
    };
    let plural = if r.count == 1 { "" } else { "s" };
    let _ = writeln!(
        out,
        "\nReason {index} ({} candidate execution{plural}):",
        r.count
    );
    let many = r.rejections.len() > 1;
    if many {
        let _ = writeln!(
            out,
            "  rejected whatever the existential choices (Fence-SC order, barrier arrival order):"
        );
    }
    for j in &r.rejections {
        let mut prefix = String::from("  ");
        if many {
            let order: Vec<String> = j.fence_sc.iter().map(|&e| w.pos(e)).collect();
            if order.len() > 1 {
                let _ = write!(prefix, "with Fence-SC order {}: ", order.join(" < "));
            } else {
                prefix.push_str("- ");
            }
        }
        let _ = writeln!(out, "{prefix}{}", w.rejection(j));
        for s in w.syncs(&j.steps) {
            let _ = writeln!(out, "    {s}");
        }
        if j.violation.axiom != Axiom::Atomicity {
            let _ = writeln!(out, "    cycle: {}", w.cycle(&j.steps));
        }
    }
    let rf = w.labels.reads_from(&r.execution);
    if !rf.is_empty() {
        let _ = writeln!(out, "  execution: {}", rf.join("; "));
    }
    for c in coherence_words(&w, &r.execution.co) {
        let _ = writeln!(out, "  coherence: {c}");
    }
    let _ = writeln!(
        out,
        "  final: {}",
        final_values(test, outcome, &r.regs, &r.memory)
    );
}

/// Runs the subcommand; returns the exit code.
pub fn run(args: &ExplainArgs) -> u8 {
    let file = &args.test;
    let src = match read_source(file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_ERROR;
        }
    };
    let test = match ptxmc_frontend::parse(&src) {
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
        timeout,
        ..Options::default()
    };
    let ex = ptxmc_checker::explain(&test, &outcome, &opts);
    let mut s = String::new();
    let _ = writeln!(s, "Test {}: {}", test.name, herd::condition(&test));
    let _ = writeln!(s, "Outcome {}{note}", herd::prop(&test, &outcome));
    match &ex.status {
        Status::Unsupported(m) | Status::Undefined(m) => {
            print!("{s}");
            eprintln!(
                "error: {}: cannot explain: {} ({m})",
                file.display(),
                ex.status.name()
            );
            return EXIT_ERROR;
        }
        Status::Limit(m) => {
            let _ = writeln!(
                s,
                "Incomplete: {m}; {} candidate executions giving the outcome seen so far, none consistent",
                ex.candidates
            );
        }
        Status::Ok => {}
    }
    if let Some(w) = &ex.allowed {
        let words = Words {
            labels: Labels::new(&test, &src),
            exec: &w.execution,
        };
        let _ = writeln!(s, "Allowed: this consistent execution gives the outcome");
        for l in words.labels.reads_from(&w.execution) {
            let _ = writeln!(s, "  {l}");
        }
        for c in coherence_words(&words, &w.relations.co) {
            let _ = writeln!(s, "  coherence: {c}");
        }
        let order: Vec<String> = w.execution.fence_sc.iter().map(|&e| words.pos(e)).collect();
        if order.len() > 1 {
            let _ = writeln!(s, "  Fence-SC order: {}", order.join(" < "));
        }
        let _ = writeln!(
            s,
            "  final: {}",
            final_values(&test, &outcome, &w.regs, &w.memory)
        );
    } else if ex.status == Status::Ok {
        match ex.candidates {
            0 => {
                let _ = writeln!(
                    s,
                    "Forbidden: no candidate execution gives this outcome (no choice of paths, reads-from and coherence produces these values)"
                );
            }
            1 => {
                let _ = writeln!(
                    s,
                    "Forbidden: 1 candidate execution gives this outcome, and the model rejects it"
                );
            }
            n => {
                let _ = writeln!(
                    s,
                    "Forbidden: {n} candidate executions give this outcome, and the model rejects every one ({} distinct reasons)",
                    ex.reasons.len()
                );
            }
        }
    }
    if ex.allowed.is_none() {
        for (i, r) in ex.reasons.iter().enumerate() {
            reason(&mut s, i + 1, &test, &src, &outcome, r);
        }
        // Candidates whose values come out of thin air are mentioned only
        // when nothing else explains the outcome.
        if let (Some(t), 0) = (&ex.thin_air, ex.candidates) {
            let w = Words {
                labels: Labels::new(&test, &src),
                exec: &t.execution,
            };
            let _ = writeln!(
                s,
                "\nNo-Thin-Air (8.10.4): {} candidate execution{} would take values out of thin air (any value), through a cycle of reads-from and dependencies: {}",
                t.count,
                if t.count == 1 { "" } else { "s" },
                w.cycle(&t.steps)
            );
        }
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let _ = out.write_all(s.as_bytes());
    EXIT_OK
}
