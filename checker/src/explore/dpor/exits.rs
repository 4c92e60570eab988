//! Which writes can let a thread stopped at a guarded CAS go on: the CAS of
//! a `while (!CAS) ;` lock (`lock: atom.cas d, [m], a, b; bne d, a, lock`)
//! that reads any value but `a` fails, and its thread stops at the back edge
//! (a spin loop under the reading, `docs/model-notes.md`, "Waits"). Only a
//! write that may write `a` lets it go on, so only those writes need to
//! synchronize with it for [`Dpor::gated_behind`]'s argument (8.9.4).

use super::{Dpor, State};
use crate::event::Event;
use crate::model::waits::Waits;
use ptxmc_frontend::ir::{Instr, Operand, RmwOp};

/// For each thread and physical location: each write instruction of the
/// thread to the location, as (index of its kind in `Dpor::writers[t][p]`,
/// position of the instruction).
pub(super) type WriteSites = Vec<Vec<Vec<(usize, usize)>>>;

impl Dpor<'_> {
    /// The write instructions of each thread to each location, with their
    /// kinds, found on first use.
    fn write_sites(&self) -> &WriteSites {
        self.write_sites.get_or_init(|| {
            let n_phys = self.init_mem.len();
            self.codes
                .iter()
                .enumerate()
                .map(|(t, code)| {
                    let mut sites = vec![Vec::new(); n_phys];
                    for (i, stmt) in code.stmts().iter().enumerate() {
                        for (addr, proxy, sem, scope, rmw) in
                            crate::interp::write_shapes(&stmt.instr)
                        {
                            let Some(a) = self.test.addresses.get(addr.index()) else {
                                continue;
                            };
                            let p = a.phys.index();
                            let kinds = self.writers[t].get(p).map_or(&[][..], Vec::as_slice);
                            let kind = kinds.iter().position(|e| {
                                (e.sem, e.scope, e.proxy, e.is_rmw()) == (sem, scope, proxy, rmw)
                                    && e.loc().is_some_and(|l| l.vaddr == a.vaddr)
                            });
                            if let (Some(k), Some(slot)) = (kind, sites.get_mut(p)) {
                                slot.push((k, i));
                            }
                        }
                    }
                    sites
                })
                .collect()
        })
    }

    /// The kinds of the writes thread `t` makes to `phys` that may write
    /// `exit` (every kind when `exit` is `None`; a kind is left out only when
    /// every instruction of that kind certainly writes another value).
    fn exit_writes(
        &self,
        t: usize,
        phys: usize,
        exit: Option<i64>,
    ) -> impl Iterator<Item = &Event> {
        let code = &self.codes[t];
        let failed_cas_writes = code.reading().failed_cas_writes;
        let sites = self
            .write_sites()
            .get(t)
            .and_then(|s| s.get(phys))
            .map_or(&[][..], Vec::as_slice);
        let kinds = self.writers[t].get(phys).map_or(&[][..], Vec::as_slice);
        kinds.iter().enumerate().filter_map(move |(k, w)| {
            let Some(v) = exit else {
                return Some(w);
            };
            let mut of_kind = sites.iter().filter(|&&(kk, _)| kk == k).peekable();
            let may = of_kind.peek().is_none()
                || of_kind.any(|&(_, i)| {
                    code.stmts()
                        .get(i)
                        .is_none_or(|st| may_write(&st.instr, failed_cas_writes, v))
                });
            may.then_some(w)
        })
    }

    /// Whether thread `t` may write `exit` to `phys` (any value: `None`).
    pub(super) fn may_write_exit(&self, t: usize, phys: usize, exit: Option<i64>) -> bool {
        self.exit_writes(t, phys, exit).next().is_some()
    }

    /// Whether every write any thread makes to `q`'s location `phys` that
    /// may write `exit` (every write: `None`) is one that the acquire read
    /// `q` synchronizes with when it reads it (the model's rule,
    /// [`Waits::synchronizes_when_read`]: 8.7, 8.8 form 1, 8.9.4).
    pub(super) fn exit_writes_synchronize(
        &self,
        s: &State,
        q: &Event,
        phys: usize,
        exit: Option<i64>,
    ) -> bool {
        (0..self.codes.len()).all(|t| {
            self.exit_writes(t, phys, exit)
                .all(|w| s.model.synchronizes_when_read(&s.exec, q, w))
        })
    }
}

/// Whether the write of `instr` may write the value `v` (`true` when it is
/// not known): a store of an immediate writes it; `atom.cas` with immediate
/// operands writes its swap value, or, when it fails under a reading where
/// a failed CAS writes (`failed_cas_writes`), the old value back, which is
/// not its compare value.
fn may_write(instr: &Instr, failed_cas_writes: bool, v: i64) -> bool {
    match instr {
        Instr::Store { src, .. } => match src.as_slice() {
            [Operand::Imm(x)] => *x == v,
            _ => true,
        },
        Instr::Rmw {
            op: RmwOp::Cas,
            a: Operand::Imm(a),
            b: Some(Operand::Imm(b)),
            ..
        } => *b == v || (failed_cas_writes && *a != v),
        _ => true,
    }
}
