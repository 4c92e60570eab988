//! The checks run on every consistent execution of a rewritten test:
//! mixed-size data races and multimem misuse (status `undefined`, 8.7.2,
//! 8.2.3), misaligned mbarrier objects and `.noComplete` arrivals that
//! complete their phase (instruction descriptions), and the agreement of the parts of morally strong operations of the
//! same range (8.7, 8.10.3, 8.10.5).

use crate::event::{EventId, EventKind};
use crate::execution::Execution;
use crate::model::Relations;
use ptxmc_frontend::ir::{mbarrier, PhysId, Span};

/// Which events of a rewritten statement an [`Origin`] is the operation of.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Dir {
    /// Its reads and writes (a load, a store, an RMW).
    Any,
    /// Its reads only (the source of a copy).
    Reads,
    /// Its writes only (the destination of a copy).
    Writes,
}

/// The scalar memory operation (8.2.4) a rewritten access comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Origin {
    /// The physical location of the original test.
    pub(super) phys: PhysId,
    /// Its first byte.
    pub(super) start: u32,
    /// One past its last byte.
    pub(super) end: u32,
    /// Where it is written.
    pub(super) span: Span,
    /// Which scalar operation of the original code (a dense id).
    pub(super) op: u32,
    /// Which events of the statement it is.
    pub(super) dir: Dir,
}

/// What the explorers' completion step checks on every consistent execution:
/// mixed-size data races and accesses to multimem addresses.
#[derive(Clone, Debug, Default)]
pub(crate) struct SizeInfo {
    /// Per thread, per statement of the rewritten code: the scalar
    /// operations its memory accesses come from, where their locations were
    /// cut into granules (two for a copy whose source and destination were:
    /// the read of one and the write of the other).
    pub(super) origin: Vec<Vec<Vec<Origin>>>,
    /// Per address of the rewritten test: whether it is a multimem address.
    pub(super) multimem: Vec<bool>,
    /// Names of the original physical locations (for messages).
    pub(super) names: Vec<String>,
    /// Per physical location of the rewritten test: the first granule of the
    /// original location it is part of (what [`Origin::phys`] names), so that
    /// the other accesses of a statement (the mbarrier signal of a
    /// `st.async`) are not taken for parts of its scalar operation.
    // invariant: empty when `origin` is, else one entry per physical location
    // of the rewritten test.
    pub(super) home: Vec<PhysId>,
    /// Per physical location of the rewritten test: its bytes in the
    /// original location (same invariant as `home`).
    pub(super) bytes: Vec<(u32, u32)>,
    /// The statements of the rewritten code (thread, index) whose execution
    /// can make the behaviour undefined ([`Hazard`]).
    pub(super) hazards: Vec<((usize, u32), Hazard)>,
}

/// Why executing a statement makes the program's behaviour undefined.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Hazard {
    /// What the verdict says.
    pub(super) message: String,
    /// When it does.
    pub(super) when: When,
}

/// When a [`Hazard`]'s statement makes the behaviour undefined.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum When {
    /// Whenever it runs (an mbarrier operand that is not 8-byte aligned).
    Runs,
    /// When its mbarrier RMW completes the phase it reads
    /// (`mbarrier.arrive{,_drop}.noComplete`, instruction descriptions).
    Completes,
}

/// Whether the RMW read `r` of an mbarrier in `exec` and its write make the
/// phase complete: the write holds more completed phases than the read
/// (`ir::mbarrier`). A read without its write (a graph cut short) does not.
fn completes_phase(exec: &Execution, r: EventId) -> bool {
    let er = exec.event(r);
    let EventKind::Read {
        value: before,
        rmw: true,
        ..
    } = er.kind
    else {
        return false;
    };
    exec.ids().any(|w| {
        let ew = exec.event(w);
        ew.thread == er.thread
            && ew.instr == er.instr
            && ew.po_index > er.po_index
            && matches!(ew.kind, EventKind::Write { value: after, rmw: true, .. }
                if mbarrier::phase(after) != mbarrier::phase(before))
    })
}

/// An undefined-behaviour finding: a sort key (so that every explorer reports
/// the same one, whatever the order it finds them in) and the message.
pub(crate) type Finding = ((u32, u32, u32, u32), String);

fn key(a: Span, b: Span) -> (u32, u32, u32, u32) {
    (a.line, a.col, b.line, b.col)
}

impl SizeInfo {
    /// The first (by source position) reason why the program's behaviour is
    /// undefined that the consistent execution `exec` with relations `rel`
    /// shows, if any.
    pub(crate) fn undefined(&self, exec: &Execution, rel: &Relations) -> Option<Finding> {
        let mut best: Option<Finding> = None;
        let mut keep = |f: Finding| {
            if best.as_ref().is_none_or(|b| f.0 < b.0) {
                best = Some(f);
            }
        };
        let ids: Vec<EventId> = exec.ids().collect();
        for &a in &ids {
            let ea = exec.event(a);
            let Some(la) = ea.loc() else { continue };
            let Some(th) = ea.thread else { continue };
            if let Some((_, h)) = self
                .hazards
                .iter()
                .find(|(at, _)| *at == (th.index(), ea.instr))
            {
                if h.when == When::Runs || completes_phase(exec, a) {
                    keep((key(ea.span, ea.span), h.message.clone()));
                }
            }
            if self.multimem.get(la.addr.index()).copied().unwrap_or(false) {
                let name = self.names.get(la.phys.index()).map_or("?", String::as_str);
                keep((
                    key(ea.span, ea.span),
                    format!(
                        "non-multimem access to the multimem address {name} at {} (8.2.3)",
                        ea.span
                    ),
                ));
            }
        }
        for (i, &a) in ids.iter().enumerate() {
            let ea = exec.event(a);
            let (Some(la), Some(oa)) = (ea.loc(), self.origin_of(exec, a)) else {
                continue;
            };
            for &b in &ids[i + 1..] {
                let eb = exec.event(b);
                let (Some(lb), Some(ob)) = (eb.loc(), self.origin_of(exec, b)) else {
                    continue;
                };
                if la.phys != lb.phys
                    || (oa.start, oa.end) == (ob.start, ob.end)
                    || !(ea.is_write() || eb.is_write())
                    || rel.causality.contains(a, b)
                    || rel.causality.contains(b, a)
                {
                    continue;
                }
                let (s1, s2) = if (oa.span.line, oa.span.col) <= (ob.span.line, ob.span.col) {
                    (oa.span, ob.span)
                } else {
                    (ob.span, oa.span)
                };
                let name = self.names.get(oa.phys.index()).map_or("?", String::as_str);
                keep((
                    key(s1, s2),
                    format!(
                        "mixed-size data race on {name} between {s1} and {s2} (8.7.2: partially overlapping, not ordered by causality)"
                    ),
                ));
            }
        }
        best
    }

    /// Whether `exec`, an execution of the rewritten test, is one of the
    /// original test: operations that overlap completely and are morally
    /// strong act on their whole location at once (8.7, 8.10.3, 8.10.5), so
    /// the parts of one such operation agree on how they relate to the parts
    /// of another. For two writes, coherence order has the same direction on
    /// every part; for a read and a write, the read reads from the write on
    /// every part, or on none and then from a write before it on every part
    /// or from one after it on every part. Pairs of atomic operations are
    /// pairs of writes, so mixed-size RMW atomicity follows.
    pub(crate) fn accept(&self, exec: &Execution, rel: &Relations) -> bool {
        if self.origin.is_empty() {
            return true;
        }
        let inst = self.instances(exec);
        for (i, a) in inst.iter().enumerate() {
            for b in &inst[i + 1..] {
                if (a.phys, a.start, a.end) != (b.phys, b.start, b.end) || a.parts.len() < 2 {
                    continue;
                }
                if !self.agree(exec, rel, a, b) {
                    return false;
                }
            }
        }
        true
    }

    /// Whether the parts of instances `a` and `b` (same range) agree.
    fn agree(&self, exec: &Execution, rel: &Relations, a: &Instance, b: &Instance) -> bool {
        let strong = a.parts.iter().any(|&(ga, ea)| {
            b.parts
                .iter()
                .any(|&(gb, eb)| ga == gb && rel.morally_strong.contains(ea, eb))
        });
        if !strong {
            return true;
        }
        // Writes: coherence direction per part.
        let dir = |x: &Instance, y: &Instance| -> Vec<Option<bool>> {
            x.parts
                .iter()
                .filter(|&&(_, e)| exec.event(e).is_write())
                .filter_map(|&(g, ex)| {
                    let ey = y
                        .parts
                        .iter()
                        .find(|&&(gy, e)| gy == g && exec.event(e).is_write())?
                        .1;
                    Some(if rel.co.contains(ex, ey) {
                        Some(true)
                    } else if rel.co.contains(ey, ex) {
                        Some(false)
                    } else {
                        None
                    })
                })
                .collect()
        };
        let same = |v: &[Option<bool>]| v.windows(2).all(|w| w[0] == w[1]);
        if !same(&dir(a, b)) {
            return false;
        }
        // A read of one against the writes of the other.
        let read_vs = |r: &Instance, w: &Instance| -> bool {
            // 0: reads from the write; 1: from one before it; 2: from one after it.
            let mut seen: Vec<u8> = Vec::new();
            for &(g, er) in &r.parts {
                if !exec.event(er).is_read() {
                    continue;
                }
                let Some(ew) = w
                    .parts
                    .iter()
                    .find(|&&(gw, e)| gw == g && exec.event(e).is_write())
                    .map(|p| p.1)
                else {
                    continue;
                };
                let src = exec.rf().get(er.index()).copied().flatten();
                let k = match src {
                    Some(s) if s == ew => 0,
                    Some(s) if rel.co.contains(ew, s) => 2,
                    Some(s) if rel.co.contains(s, ew) => 1,
                    // Unrelated in coherence (a write in a data race): no constraint.
                    _ => continue,
                };
                seen.push(k);
            }
            seen.windows(2).all(|w| w[0] == w[1])
        };
        read_vs(a, b) && read_vs(b, a)
    }

    /// The executed instances of split scalar operations: the events of one
    /// instance follow each other in their thread, one per granule.
    fn instances(&self, exec: &Execution) -> Vec<Instance> {
        let mut out: Vec<Instance> = Vec::new();
        for th in exec.threads() {
            // The instances under way, one per operation: the parts of a
            // copy's read and write interleave (`cp.async` parts read and
            // write granule by granule), those of other operations follow
            // each other. A part on a granule the instance already has (in
            // the same direction) starts the operation's next instance.
            let mut open: Vec<Instance> = Vec::new();
            for &e in th {
                let Some(o) = self.origin_of(exec, e) else {
                    continue;
                };
                let Some(loc) = exec.event(e).loc() else {
                    continue;
                };
                let write = exec.event(e).is_write();
                let at = open.iter().position(|c| c.op == o.op);
                let fits = at.is_some_and(|i| {
                    !open[i]
                        .parts
                        .iter()
                        .any(|&(g, x)| g == loc.phys && exec.event(x).is_write() == write)
                });
                let i = match at {
                    Some(i) if fits => i,
                    _ => {
                        if let Some(i) = at {
                            out.push(open.swap_remove(i));
                        }
                        open.push(Instance {
                            op: o.op,
                            phys: o.phys,
                            start: o.start,
                            end: o.end,
                            parts: Vec::new(),
                        });
                        open.len() - 1
                    }
                };
                open[i].parts.push((loc.phys, e));
            }
            out.extend(open);
        }
        out
    }

    /// The scalar operation event `e` is a part of: the one of its statement
    /// on the original location and bytes of its granule, reading or writing
    /// as `e` does.
    fn origin_of(&self, exec: &Execution, e: EventId) -> Option<&Origin> {
        let ev = exec.event(e);
        let write = match ev.kind {
            EventKind::Read { .. } => false,
            EventKind::Write { .. } => true,
            _ => return None,
        };
        let phys = ev.loc()?.phys;
        let home = self.home.get(phys.index())?;
        let &(gs, ge) = self.bytes.get(phys.index())?;
        self.origin
            .get(ev.thread?.index())?
            .get(ev.instr as usize)?
            .iter()
            .find(|o| {
                o.phys == *home
                    && o.start <= gs
                    && ge <= o.end
                    && match o.dir {
                        Dir::Any => true,
                        Dir::Reads => !write,
                        Dir::Writes => write,
                    }
            })
    }
}

/// One executed scalar operation whose location was split: its events, one
/// per granule (two for an RMW part: read and write).
#[derive(Clone, Debug)]
struct Instance {
    op: u32,
    phys: PhysId,
    start: u32,
    end: u32,
    /// (granule location, event).
    parts: Vec<(PhysId, EventId)>,
}
