//! The words of `ptxmc explain`: events, reads-from, coherence,
//! synchronization, rejections and mbarrier states, for one execution.

use super::herd;
use super::label::Labels;
use ptxmc_checker::event::{EventId, EventKind};
use ptxmc_checker::execution::Execution;
use ptxmc_checker::explain::{Rejection, Rel, Step};
use ptxmc_checker::explore::term_value;
use ptxmc_checker::model::{Axiom, Relations};
use ptxmc_checker::relation::BitMatrix;
use ptxmc_frontend::ir::{mbarrier, AsyncInstr, Instr, PhysId, Prop, Test};
use std::collections::BTreeSet;
use std::fmt::Write as _;

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

/// Names the events of one execution of a test, in words.
pub struct Words<'a> {
    pub labels: Labels<'a>,
    pub exec: &'a Execution,
    pub test: &'a Test,
    /// The physical locations that are mbarrier objects.
    pub mbarriers: &'a BTreeSet<u32>,
}

impl Words<'_> {
    pub fn pos(&self, e: EventId) -> String {
        self.labels.pos(self.exec.event(e))
    }
    /// `R P1:1 ld.weak r1, x`, or `W0 (x=0)` with an mbarrier's value in words.
    pub fn describe(&self, e: EventId) -> String {
        let ev = self.exec.event(e);
        if ev.is_init() {
            return format!("W0 ({})", self.access(e));
        }
        self.labels.describe(ev)
    }
    /// `P0:1 st.release.gpu y`, or `W0 (x=0)` with an mbarrier's value in words.
    pub fn mention(&self, e: EventId) -> String {
        let ev = self.exec.event(e);
        if ev.is_init() {
            return format!("W0 ({})", self.access(e));
        }
        self.labels.mention(ev)
    }

    /// `a -po-> b ...`: the first and last events by position, the others
    /// by mention (position, opcode, location).
    pub fn path(&self, steps: &[Step]) -> String {
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
    pub fn syncs(&self, steps: &[Step]) -> Vec<String> {
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
    pub fn cycle(&self, steps: &[Step]) -> String {
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

    pub fn rf_source(&self, r: EventId) -> String {
        match self.exec.rf().get(r.index()).copied().flatten() {
            Some(w) => self.describe(w),
            None => "no write".into(),
        }
    }

    /// `x=1`, or for an mbarrier object its state in words.
    pub fn access(&self, e: EventId) -> String {
        let ev = self.exec.event(e);
        let Some(loc) = ev.loc() else {
            return String::new();
        };
        let name = self
            .test
            .symbols
            .addrs
            .get(loc.addr.index())
            .map_or("?", String::as_str);
        let v = ev.value().unwrap_or(0);
        if self.mbarriers.contains(&loc.phys.0) {
            format!("{name} = {}", mbarrier_words(v))
        } else {
            format!("{name}={v}")
        }
    }

    /// The reads-from of the execution, in words, one line per read:
    /// `P1:0 ld.acquire.gpu y reads y=1 from P0:1 st.release.gpu y`.
    pub fn reads_from(&self) -> Vec<String> {
        let exec = self.exec;
        let mut out = Vec::new();
        for e in exec.ids() {
            let ev = exec.event(e);
            if !matches!(ev.kind, EventKind::Read { .. }) {
                continue;
            }
            let Some(w) = exec.rf().get(e.index()).copied().flatten() else {
                continue;
            };
            let from = if exec.event(w).is_init() {
                "the initial write W0".to_string()
            } else {
                self.mention(w)
            };
            out.push(format!(
                "{} reads {} from {from}",
                self.mention(e),
                self.access(e)
            ));
        }
        out
    }

    /// The rejection in words.
    pub fn rejection(&self, rj: &Rejection) -> String {
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

/// An mbarrier state (the packed value of `ir::mbarrier`) in words.
pub fn mbarrier_words(v: i64) -> String {
    let field = |shift: u32| (v >> shift) & 0xffff;
    let expected = field(32);
    if expected == 0 {
        return if v == 0 {
            "uninitialized mbarrier".to_string()
        } else {
            format!("mbarrier state {v:#x}")
        };
    }
    let phase = mbarrier::phase(v);
    let pending = field(16);
    let tx = field(0) - (1 << 15);
    let done = match phase {
        0 => "no phase completed yet".to_string(),
        1 => "1 phase completed".to_string(),
        n => format!("{n} phases completed"),
    };
    let mut s =
        format!("mbarrier in phase {phase} ({done}): {pending} of {expected} arrivals pending");
    match tx {
        0 => {}
        t if t > 0 => {
            let _ = write!(s, ", {t} transaction bytes pending");
        }
        t => {
            let _ = write!(s, ", {} transaction bytes completed ahead of expect-tx", -t);
        }
    }
    s
}

/// The physical locations that the test uses as mbarrier objects.
pub fn mbarrier_locations(test: &Test) -> BTreeSet<u32> {
    let mut out = BTreeSet::new();
    for th in &test.threads {
        for st in &th.code {
            let Instr::Async(a) = &st.instr else { continue };
            let mbar = match a {
                AsyncInstr::Copy { mbar, .. } => *mbar,
                AsyncInstr::StAsync { mbar, .. }
                | AsyncInstr::CpAsyncArrive { mbar, .. }
                | AsyncInstr::MbarrierInit { mbar, .. }
                | AsyncInstr::MbarrierUpdate { mbar, .. }
                | AsyncInstr::MbarrierWait { mbar, .. } => Some(*mbar),
                _ => None,
            };
            if let Some(a) = mbar.and_then(|a| test.addresses.get(a.index())) {
                out.insert(a.phys.0);
            }
        }
    }
    out
}

pub fn final_values(
    test: &Test,
    outcome: &Prop,
    regs: &[Vec<Option<i64>>],
    mem: &[Option<i64>],
) -> String {
    let mut ts = Vec::new();
    outcome.terms(&mut ts);
    let mut s = String::new();
    let known: Vec<i64> = mem.iter().map(|v| v.unwrap_or(0)).collect();
    for t in ts {
        let reg = |th: usize, r: usize| regs.get(th).and_then(|x| x.get(r)).copied().flatten();
        let unknown = match t {
            ptxmc_frontend::ir::Term::Reg(th, r) => regs
                .get(th.index())
                .and_then(|x| x.get(r.index()))
                .is_some_and(Option::is_none),
            ptxmc_frontend::ir::Term::Mem(a) => test
                .addresses
                .get(a.index())
                .and_then(|ad| mem.get(ad.phys.index()))
                .is_some_and(Option::is_none),
            ptxmc_frontend::ir::Term::Const(_) => false,
        };
        if unknown {
            let _ = write!(s, "{}=?; ", herd::term(test, &t));
        } else {
            let v = term_value(test, &t, reg, &known);
            let _ = write!(s, "{}={}; ", herd::term(test, &t), v);
        }
    }
    s.trim_end().to_string()
}

pub fn known(v: &[Vec<i64>]) -> Vec<Vec<Option<i64>>> {
    v.iter()
        .map(|t| t.iter().map(|&x| Some(x)).collect())
        .collect()
}

/// The coherence order of writes to each location that has several writes:
/// `x: W0 -> P0:0 -> P1:1` (or the pairs, when the order is partial).
pub fn coherence_words(w: &Words<'_>, co: &BitMatrix) -> Vec<String> {
    let exec = w.exec;
    let mut out = Vec::new();
    let mut phys: Vec<u32> = exec
        .events()
        .iter()
        .filter(|e| e.is_write() && !e.is_init())
        .filter_map(|e| e.loc().map(|l| l.phys.0))
        .collect();
    phys.sort_unstable();
    phys.dedup();
    for p in phys {
        let mut ws: Vec<EventId> = exec
            .ids()
            .filter(|&e| {
                let ev = exec.event(e);
                ev.is_write() && ev.loc().is_some_and(|l| l.phys.0 == p)
            })
            .collect();
        if ws.len() < 2 {
            continue;
        }
        let total = ws.iter().all(|&a| {
            ws.iter()
                .all(|&b| a == b || co.contains(a, b) || co.contains(b, a))
        });
        let name = w
            .test
            .addresses
            .iter()
            .position(|a| a.phys == PhysId::new(p as usize))
            .and_then(|i| w.test.symbols.addrs.get(i))
            .map_or("?", String::as_str);
        if total {
            let all = ws.clone();
            ws.sort_by_key(|&a| all.iter().filter(|&&b| co.contains(b, a)).count());
            let chain: Vec<String> = ws.iter().map(|&a| w.pos(a)).collect();
            out.push(format!("{name}: {}", chain.join(" -co-> ")));
        } else {
            let mut pairs = Vec::new();
            for &a in &ws {
                for &b in &ws {
                    if a != b && co.contains(a, b) && !exec.event(a).is_init() {
                        pairs.push(format!("{} -co-> {}", w.pos(a), w.pos(b)));
                    }
                }
            }
            if !pairs.is_empty() {
                out.push(format!("{name}: {}", pairs.join(", ")));
            }
        }
    }
    out
}

/// Synchronizes-with between threads, in words: each pair, and what it
/// goes through.
pub fn sync_words(w: &Words<'_>, rel: &Relations) -> Vec<String> {
    let exec = w.exec;
    let mut out = Vec::new();
    for (a, b) in rel.sync.pairs() {
        let (ea, eb) = (exec.event(a), exec.event(b));
        if a == b || ea.thread == eb.thread {
            continue;
        }
        // The write the acquire side reads, when it reads the release side's write.
        let how = match exec.rf().get(b.index()).copied().flatten() {
            Some(src) if src == a => "it reads that write".to_string(),
            Some(src) if exec.event(src).thread == ea.thread => {
                format!("through {} that it reads", w.mention(src))
            }
            _ => "through the pattern's write and read".to_string(),
        };
        let kind = if ea.is_fence_sc() && eb.is_fence_sc() {
            " (Fence-SC order)"
        } else if matches!(ea.kind, EventKind::Barrier { .. }) {
            " (barrier)"
        } else {
            ""
        };
        let how = if kind.is_empty() {
            format!(": {how}")
        } else {
            String::new()
        };
        out.push(format!(
            "{} synchronizes with {}{kind}{how}",
            w.mention(a),
            w.mention(b)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mbarrier_states_in_words() {
        assert_eq!(mbarrier_words(0), "uninitialized mbarrier");
        let v = mbarrier::init(2);
        assert_eq!(
            mbarrier_words(v),
            "mbarrier in phase 0 (no phase completed yet): 2 of 2 arrivals pending"
        );
        let v = mbarrier::update(v, 1, 8);
        assert_eq!(
            mbarrier_words(v),
            "mbarrier in phase 0 (no phase completed yet): 1 of 2 arrivals pending, 8 transaction bytes pending"
        );
        let v = mbarrier::update(mbarrier::update(v, 1, 0), 0, -8);
        assert!(mbarrier_words(v).starts_with("mbarrier in phase 1 (1 phase completed)"));
        let early = mbarrier::update(mbarrier::init(1), 0, -16);
        assert!(
            mbarrier_words(early).ends_with("16 transaction bytes completed ahead of expect-tx")
        );
    }
}
