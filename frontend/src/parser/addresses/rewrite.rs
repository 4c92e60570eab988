//! Writing the resolved register-held addresses into the threads' code: each
//! into its own operand of its instruction ([`AddrOperand`]), an address
//! chosen between locations as a dispatch, code that never runs left out.

use super::super::builder::{Builder, PendingAddr, UNRESOLVED};
use super::Resolved;
use crate::error::ParseError;
use crate::ir::{AddrId, AddrOperand, CmpOp, Instr, LabelId, Operand, RegId, Span, Stmt};

/// The operands of one instruction whose register is one of several
/// locations: per register, its values, and for each value the location of
/// every operand that register holds (one register may hold two operands,
/// `[%r1]` and `[%r1+8]`: it is dispatched on once).
struct RegChoice {
    reg: RegId,
    /// `(register value, [(operand, location)])`, at least two values.
    values: Vec<(i64, Vec<(AddrOperand, AddrId)>)>,
}

/// A memory instruction with a register-held operand that is one of several
/// locations.
struct Dispatch {
    thread: usize,
    /// Position of the memory instruction (its `AddrReg`s are just before).
    pos: usize,
    span: Span,
    choices: Vec<RegChoice>,
}

/// The first position of the `AddrReg`s just before position `pos`.
fn addr_regs_from(code: &[Stmt], pos: usize) -> usize {
    let mut from = pos.min(code.len());
    while from > 0 && matches!(code[from - 1].instr, Instr::AddrReg { .. }) {
        from -= 1;
    }
    from
}

/// Writes `a` into the operand `which` of `instr` where it still waits for
/// its address.
fn set_operand(instr: &mut Instr, which: AddrOperand, a: AddrId) {
    if let Some(slot) = instr.address_mut(which) {
        if *slot == UNRESOLVED {
            *slot = a;
        }
    }
}

impl Builder {
    /// Writes what each of `pending` (sorted by thread and position)
    /// `resolved` to into the code.
    pub(super) fn rewrite_addresses(
        &mut self,
        pending: &[PendingAddr],
        resolved: Vec<Resolved>,
    ) -> Result<(), ParseError> {
        // Rewrites, last position first so that earlier positions stay.
        enum Edit {
            Dispatch(Dispatch),
            Drop(usize, usize),
        }
        let mut edits: Vec<Edit> = Vec::new();
        let mut i = 0;
        let mut resolved = resolved.into_iter();
        while i < pending.len() {
            let (t, pos) = (pending[i].thread, pending[i].pos);
            let n = pending[i..]
                .iter()
                .take_while(|q| (q.thread, q.pos) == (t, pos))
                .count();
            let group: Vec<(&PendingAddr, Resolved)> =
                pending[i..i + n].iter().zip(resolved.by_ref()).collect();
            i += n;
            if group.iter().any(|(_, r)| matches!(r, Resolved::Dead)) {
                edits.push(Edit::Drop(t, pos));
                continue;
            }
            let mut choices: Vec<RegChoice> = Vec::new();
            // The chain's own statements are at the first chosen address.
            let mut span = None;
            for (q, r) in group {
                match r {
                    Resolved::One(a) => {
                        if let Some(s) = self.threads[t].code.get_mut(pos) {
                            set_operand(&mut s.instr, q.operand, a);
                        }
                    }
                    Resolved::Choice(targets) => {
                        span.get_or_insert(q.span);
                        let c = match choices.iter_mut().position(|c| c.reg == q.reg) {
                            Some(k) => &mut choices[k],
                            None => {
                                choices.push(RegChoice {
                                    reg: q.reg,
                                    values: Vec::new(),
                                });
                                let last = choices.len() - 1;
                                &mut choices[last]
                            }
                        };
                        for (v, a) in targets {
                            match c.values.iter_mut().find(|(w, _)| *w == v) {
                                Some((_, ops)) => ops.push((q.operand, a)),
                                None => c.values.push((v, vec![(q.operand, a)])),
                            }
                        }
                    }
                    Resolved::Dead => {}
                }
            }
            if let Some(span) = span {
                edits.push(Edit::Dispatch(Dispatch {
                    thread: t,
                    pos,
                    span,
                    choices,
                }));
            }
        }
        let key = |e: &Edit| match e {
            Edit::Dispatch(d) => (d.thread, d.pos),
            Edit::Drop(t, p) => (*t, *p),
        };
        edits.sort_by_key(|e| std::cmp::Reverse(key(e)));
        for e in edits {
            match e {
                Edit::Dispatch(d) => self.dispatch(d)?,
                Edit::Drop(t, pos) => {
                    // Never runs: the access and its `AddrReg`s are left out.
                    let code = &mut self.threads[t].code;
                    if pos < code.len() {
                        let from = addr_regs_from(code, pos);
                        code.drain(from..=pos);
                    }
                }
            }
        }
        Ok(())
    }

    /// A new label `$aN` of thread `t`, defined here (all of the thread's
    /// own labels are defined by now, so a name that is taken fails).
    fn fresh_label(&mut self, t: usize, span: Span) -> Result<LabelId, ParseError> {
        let mut tries = 0;
        loop {
            let name = self.fresh(t, "$a");
            match self.label_def(t, &name, span) {
                Ok(l) => return Ok(l),
                Err(e) if tries > 64 => return Err(e),
                Err(_) => tries += 1,
            }
        }
    }

    /// An access whose address is one of several locations, by the value of
    /// its register, becomes a chain of `bne REG, VALUE, next; AddrReg...;
    /// ACCESS [LOCATION]; bra done; next: ...`: the access is control and
    /// address dependent on the register's reads (8.10.4), and it reads back
    /// to itself (the analysis narrows the register at each `bne`). An
    /// instruction with two such registers has the chain of the second
    /// inside each link of the first's.
    fn dispatch(&mut self, d: Dispatch) -> Result<(), ParseError> {
        let t = d.thread;
        let Some(access) = self.threads[t].code.get(d.pos).cloned() else {
            return Ok(());
        };
        let from = addr_regs_from(&self.threads[t].code, d.pos);
        let addr_regs: Vec<Stmt> = self.threads[t].code[from..d.pos].to_vec();
        let mut chain = Vec::new();
        self.chain(t, d.span, &access, &addr_regs, &d.choices, &mut chain)?;
        self.threads[t].code.splice(from..=d.pos, chain);
        Ok(())
    }

    /// The dispatch of `access` on the registers of `choices` into `out`
    /// (the depth is the number of registers: at most three operands).
    fn chain(
        &mut self,
        t: usize,
        span: Span,
        access: &Stmt,
        addr_regs: &[Stmt],
        choices: &[RegChoice],
        out: &mut Vec<Stmt>,
    ) -> Result<(), ParseError> {
        let Some((c, rest)) = choices.split_first() else {
            out.extend(addr_regs.iter().cloned());
            out.push(access.clone());
            return Ok(());
        };
        let stmt = |instr| Stmt { instr, span };
        let done = self.fresh_label(t, span)?;
        let last = c.values.len().saturating_sub(1);
        for (i, (value, ops)) in c.values.iter().enumerate() {
            let mut with = access.clone();
            for &(which, a) in ops {
                set_operand(&mut with.instr, which, a);
            }
            if i < last {
                let next = self.fresh_label(t, span)?;
                out.push(stmt(Instr::Branch {
                    cmp: CmpOp::Ne,
                    a: Operand::Reg(c.reg),
                    b: Operand::Imm(*value),
                    target: next,
                }));
                self.chain(t, span, &with, addr_regs, rest, out)?;
                out.push(stmt(Instr::Goto(done)));
                out.push(stmt(Instr::Label(next)));
            } else {
                self.chain(t, span, &with, addr_regs, rest, out)?;
                out.push(stmt(Instr::Label(done)));
            }
        }
        Ok(())
    }
}
