//! One instruction of a cell: mnemonic, operands, and their lowering to an [`Instr`].
//!
//! Operands are checked first and interned after, so that an instruction which
//! turns out unsupported (an `[x+4]` address) leaves no register or location behind.

use super::opcode::{self, BarForm, Shape};
use super::operand::{OpKind, Operand};
use super::{PResult, Parser};
use crate::error::{ParseError, ParseErrorKind};
use crate::ir::{AddrOperand, BarrierKind, Instr, Operand as Val, RmwOp, Span, Unsupported};
use crate::lexer::{Tok, Token};

/// The missing operand of `atom.inc` / `atom.dec` as the manual writes them
/// (`atom.sys.inc.u32 %r0, [x];`): the largest `.u32`, so that `inc` is a plain
/// increment and `dec` wraps only at 0.
pub(crate) const INC_DEC_DEFAULT: i64 = u32::MAX as i64;

/// A value operand before interning.
#[derive(Copy, Clone)]
pub(super) enum Value<'s> {
    Imm(i64),
    Reg(&'s str),
}

/// The result of lowering: an instruction, or the name of an unsupported construct.
pub(super) enum Lowered {
    Instr(Instr),
    Unsupported(String),
    /// An instruction with no effect on the model (`nanosleep`).
    Nothing,
}

/// A memory address operand before interning.
#[derive(Copy, Clone)]
pub(super) enum MemAddr<'s> {
    /// A location `x` / `[x+N]` with its byte offset.
    Loc(&'s str, u32),
    /// A register-held address `[%rd1+N]`.
    Reg(&'s str, i64),
}

/// Joins tokens with single spaces, except where no space reads better and
/// re-lexing cannot merge them (`[x]`, `{a, b}`, `@!p`, `-1`).
pub(crate) fn join_tokens(src: &str, toks: &[Token]) -> String {
    let mut out = String::new();
    for (i, t) in toks.iter().enumerate() {
        if i > 0 {
            let prev = toks[i - 1].tok;
            let tight_after = matches!(
                prev,
                Tok::LBracket | Tok::LBrace | Tok::LParen | Tok::At | Tok::Minus
            ) || (prev == Tok::Bang && t.tok == Tok::Ident);
            let tight_before = matches!(
                t.tok,
                Tok::RBracket | Tok::RBrace | Tok::RParen | Tok::Comma
            );
            if !tight_after && !tight_before {
                out.push(' ');
            }
        }
        out.push_str(&src[t.start..t.end]);
    }
    out
}

impl<'s> Parser<'s> {
    /// Parses one instruction of thread `t` and appends it to the thread's code.
    pub(super) fn instruction(&mut self, t: usize) -> PResult<()> {
        let start = self.pos;
        let first = self.peek();
        if first.tok == Tok::At {
            if let Some(branch) = self.predicated_branch(t)? {
                self.push(t, branch, first.span);
                return Ok(());
            }
            return self.guarded(t);
        }
        if first.tok != Tok::Ident {
            return Err(self.expected("an instruction"));
        }
        let text = self.text(first);
        if text.starts_with('.') {
            return self.reg_decl(first);
        }
        self.bump();
        if self.multimem_instruction(t, text, first.span)? {
            return Ok(());
        }
        if self.tensor_instruction(t, text, first.span, start)? {
            return Ok(());
        }
        if self.bar_red_instruction(t, text, first.span)? {
            return Ok(());
        }
        if self.packed_instruction(t, text, first.span)? {
            return Ok(());
        }
        if self.st_async_vector_instruction(t, text, first.span)? {
            return Ok(());
        }
        if self.unordered_instruction(t, text, first.span)? {
            return Ok(());
        }
        if self.hopper_instruction(t, text, first.span)? {
            return Ok(());
        }
        if self.wgmma_instruction(t, text, first.span, start)? {
            return Ok(());
        }
        if self.host_instruction(t, text, first.span)? {
            return Ok(());
        }
        let shape = opcode::classify(text).map_err(|k| ParseError::new(k, first.span))?;
        if let Shape::Unsupported(construct) = shape {
            self.skip_raw()?;
            self.unsupported(t, start, construct, first.span);
            return Ok(());
        }
        let mut ops = self.operands(first.end_span.line)?;
        self.resolve_specials(t, &mut ops)?;
        match self.lower(t, text, shape, &ops, first.span)? {
            Lowered::Instr(i) => self.push(t, i, first.span),
            Lowered::Unsupported(construct) => self.unsupported(t, start, construct, first.span),
            Lowered::Nothing => {}
        }
        Ok(())
    }

    /// Skips the operands of an unsupported instruction: up to `|`, `;` or the end of the line.
    pub(super) fn skip_raw(&mut self) -> PResult<()> {
        loop {
            let t = self.peek();
            match t.tok {
                Tok::Pipe | Tok::Semi | Tok::Eof => return Ok(()),
                Tok::Str => return Err(self.expected("an operand")),
                _ if t.span.line != self.prev().end_span.line => return Ok(()),
                _ => {
                    self.bump();
                }
            }
        }
    }

    /// Records the tokens `start..pos` as an unsupported instruction of thread `t`.
    pub(super) fn unsupported(&mut self, t: usize, start: usize, construct: String, span: Span) {
        let text = join_tokens(self.src, &self.toks[start..self.pos]);
        self.push(t, Instr::Unsupported(text), span);
        self.b.threads[t]
            .unsupported
            .push(Unsupported { construct, span });
    }

    fn lower(
        &mut self,
        t: usize,
        instr: &str,
        shape: Shape,
        ops: &[Operand<'s>],
        span: Span,
    ) -> PResult<Lowered> {
        let c = Check { instr, span };
        let lowered = match shape {
            Shape::Load {
                sem,
                scope,
                proxy,
                space,
                access,
                bare,
            } => {
                let [d, a] = c.exactly::<2>(ops, "2 operands")?;
                if bare && !matches!(a.kind, OpKind::Addr { .. }) {
                    // Dialect `ld R, V`: a register move.
                    let dst = c.reg("destination", d)?;
                    if let OpKind::Name(n) = a.kind {
                        if self.b.is_declared_location(n) {
                            return Err(ParseError::new(
                                ParseErrorKind::MoveFromLocation(n.into()),
                                a.span,
                            ));
                        }
                    }
                    let src = c.value("source", a)?;
                    return Ok(Lowered::Instr(Instr::Mov {
                        dst: self.b.reg(t, dst),
                        src: self.val(t, src),
                    }));
                }
                let dst = c.regs("destination", d, access.vector)?;
                let addr = c.mem_addr(a)?;
                let dst = dst.iter().map(|r| self.b.reg(t, r)).collect();
                Instr::Load {
                    sem,
                    scope,
                    proxy,
                    space,
                    access,
                    dst,
                    addr: self.intern_addr(t, addr, a),
                }
            }
            Shape::Store {
                sem,
                scope,
                proxy,
                space,
                access,
            } => {
                let [a, v] = c.exactly::<2>(ops, "2 operands")?;
                let addr = c.mem_addr(a)?;
                let src = c.values("source", v, access.vector)?;
                let addr = self.intern_addr(t, addr, a);
                let src = src.into_iter().map(|v| self.val(t, v)).collect();
                Instr::Store {
                    sem,
                    scope,
                    proxy,
                    space,
                    access,
                    addr,
                    src,
                }
            }
            Shape::Rmw {
                red,
                sem,
                scope,
                proxy,
                space,
                access,
                op,
            } => {
                let (dst, rest) = if red {
                    (None, ops)
                } else {
                    match ops.split_first() {
                        Some((d, rest)) => (Some(c.reg("destination", d)?), rest),
                        None => (None, ops),
                    }
                };
                let (min, max, expected) = match (red, op) {
                    (false, RmwOp::Cas) => (3, 3, "4 operands"),
                    (false, RmwOp::Inc | RmwOp::Dec) => (1, 2, "2 or 3 operands"),
                    (false, _) => (2, 2, "3 operands"),
                    (true, RmwOp::Inc | RmwOp::Dec) => (1, 2, "1 or 2 operands"),
                    (true, _) => (2, 2, "2 operands"),
                };
                if (!red && dst.is_none()) || rest.len() < min || rest.len() > max {
                    return Err(c.count(expected, ops.len()));
                }
                let addr = c.mem_addr(&rest[0])?;
                let a = match rest.get(1) {
                    Some(o) => c.value("operand", o)?,
                    None => Value::Imm(INC_DEC_DEFAULT),
                };
                let b = rest
                    .get(2)
                    .map(|o| c.value("swap operand", o))
                    .transpose()?;
                let dst = dst.map(|d| self.b.reg(t, d));
                let addr = self.intern_addr(t, addr, &rest[0]);
                let a = self.val(t, a);
                let b = b.map(|b| self.val(t, b));
                Instr::Rmw {
                    sem,
                    scope,
                    proxy,
                    space,
                    access,
                    op,
                    dst,
                    addr,
                    a,
                    b,
                }
            }
            Shape::Fence {
                kind,
                scope,
                operands_ok,
            } => {
                match ops {
                    [] => {}
                    [a, n] if operands_ok => {
                        // No event: a register-held address needs no location.
                        c.mem_addr(a)?;
                        c.value("size", n)?;
                    }
                    _ => {
                        return Err(c.count(
                            if operands_ok {
                                "0 or 2 operands"
                            } else {
                                "no operands"
                            },
                            ops.len(),
                        ))
                    }
                }
                Instr::Fence { kind, scope }
            }
            Shape::Barrier { kind, form } => return self.barrier(t, &c, kind, form, ops),
            Shape::Op(op) => {
                let [d, a, b] = c.exactly::<3>(ops, "3 operands")?;
                let (d, a, b) = (
                    c.reg("destination", d)?,
                    c.value("first operand", a)?,
                    c.value("second operand", b)?,
                );
                Instr::Op {
                    op,
                    dst: self.b.reg(t, d),
                    a: self.val(t, a),
                    b: self.val(t, b),
                }
            }
            Shape::Mov => {
                let [d, s] = c.exactly::<2>(ops, "2 operands")?;
                let d = c.reg("destination", d)?;
                let mut src = self.mov_source(t, &c, s)?;
                // `mov.pred %p, -1` (clang's "true"): a predicate is 0 or 1.
                if let (true, Val::Imm(v)) = (instr.ends_with(".pred"), src) {
                    src = Val::Imm(i64::from(v != 0));
                }
                Instr::Mov {
                    dst: self.b.reg(t, d),
                    src,
                }
            }
            Shape::Ptx(p) => return self.lower_ptx(t, &c, p, ops),
            Shape::Goto => {
                let [l] = c.exactly::<1>(ops, "1 operand")?;
                let l = c.label(l)?;
                Instr::Goto(self.b.label_use(t, l.0, l.1))
            }
            Shape::Branch(cmp) => {
                let [a, b, l] = c.exactly::<3>(ops, "3 operands")?;
                let (a, b, l) = (
                    c.value("first operand", a)?,
                    c.value("second operand", b)?,
                    c.label(l)?,
                );
                let (a, b) = (self.val(t, a), self.val(t, b));
                Instr::Branch {
                    cmp,
                    a,
                    b,
                    target: self.b.label_use(t, l.0, l.1),
                }
            }
            Shape::Async(a) => return self.lower_async(t, &c, a, ops),
            Shape::Unsupported(construct) => return Ok(Lowered::Unsupported(construct)),
        };
        Ok(Lowered::Instr(lowered))
    }

    /// Barriers: dialect `bar.cta.sync N[, ID[, COUNT]]` (ID defaults to 0),
    /// PTX `bar.sync ID[, COUNT]` (instance 0), `barrier.cluster.*` (no operands).
    fn barrier(
        &mut self,
        t: usize,
        c: &Check<'_>,
        kind: BarrierKind,
        form: BarForm,
        ops: &[Operand<'s>],
    ) -> PResult<Lowered> {
        let (instance, rest) = match form {
            BarForm::Cluster => {
                if !ops.is_empty() {
                    return Err(c.count("no operands", ops.len()));
                }
                (0, ops)
            }
            BarForm::Dialect => {
                let Some((n, rest)) = ops.split_first().filter(|(_, r)| r.len() <= 2) else {
                    return Err(c.count("1 to 3 operands (instance, id, count)", ops.len()));
                };
                let OpKind::Int(v) = n.kind else {
                    return Err(c.bad("instance", "an integer constant", n));
                };
                let instance = u32::try_from(v).map_err(|_| {
                    ParseError::new(
                        ParseErrorKind::OutOfRange {
                            what: "barrier instance",
                            value: v.to_string(),
                            range: "0 to 4294967295",
                        },
                        n.span,
                    )
                })?;
                (instance, rest)
            }
            BarForm::Ptx => {
                if ops.is_empty() || ops.len() > 2 {
                    return Err(c.count("1 or 2 operands (id, count)", ops.len()));
                }
                (0, ops)
            }
        };
        let id = rest.first().map(|o| c.value("barrier id", o)).transpose()?;
        let count = rest
            .get(1)
            .map(|o| c.value("thread count", o))
            .transpose()?;
        // A constant thread count below 1 names no thread: no barrier can
        // complete with it (the interpreter would treat it as 1).
        if let Some(o) = rest.get(1) {
            if let OpKind::Int(v) = o.kind {
                if v < 1 {
                    return Err(ParseError::new(
                        ParseErrorKind::OutOfRange {
                            what: "barrier thread count",
                            value: v.to_string(),
                            range: "1 to 4294967295",
                        },
                        o.span,
                    ));
                }
            }
        }
        let id = id.map_or(Val::Imm(0), |v| self.val(t, v));
        let count = count.map(|v| self.val(t, v));
        Ok(Lowered::Instr(Instr::Barrier {
            kind,
            instance,
            id,
            count,
        }))
    }

    /// Interns a memory address of thread `t`: a location, or a register-held
    /// address (an [`Instr::AddrReg`] pushed before the instruction, resolved
    /// after the thread table by `parser/addresses`).
    pub(super) fn intern_addr(
        &mut self,
        t: usize,
        addr: MemAddr<'_>,
        op: &Operand<'_>,
    ) -> crate::ir::AddrId {
        self.intern_addr_as(t, addr, op, AddrOperand::Target, 1)
    }

    /// [`Self::intern_addr`] of the address operand `operand` of the next
    /// instruction, whose resolved offset must be a multiple of `align`. An
    /// instruction with several register-held operands has their
    /// `AddrReg`s in a row before it, each pending resolution at the
    /// instruction's position.
    pub(super) fn intern_addr_as(
        &mut self,
        t: usize,
        addr: MemAddr<'_>,
        op: &Operand<'_>,
        operand: AddrOperand,
        align: u32,
    ) -> crate::ir::AddrId {
        match addr {
            MemAddr::Loc(name, off) => self.b.addr_at(name, off),
            MemAddr::Reg(name, offset) => {
                let reg = self.b.reg(t, name);
                let at = self.b.threads[t].code.len();
                self.push(
                    t,
                    Instr::AddrReg {
                        reg,
                        offset,
                        operand,
                    },
                    op.span,
                );
                // The instruction's earlier operands now wait one position on.
                for q in self.b.pending_addrs.iter_mut().rev() {
                    if q.thread == t && q.pos == at {
                        q.pos = at + 1;
                    } else if q.thread == t {
                        break;
                    }
                }
                self.b.pending_addrs.push(super::builder::PendingAddr {
                    thread: t,
                    pos: at + 1,
                    reg,
                    offset,
                    operand,
                    align,
                    text: op.text.to_string(),
                    span: op.span,
                });
                super::builder::UNRESOLVED
            }
        }
    }

    /// Interns a value operand of thread `t`.
    pub(super) fn val(&mut self, t: usize, v: Value<'_>) -> Val {
        match v {
            Value::Imm(i) => Val::Imm(i),
            Value::Reg(r) => Val::Reg(self.b.reg(t, r)),
        }
    }
}

/// Operand checks of one instruction (no interning).
pub(super) struct Check<'a> {
    pub(super) instr: &'a str,
    pub(super) span: Span,
}

impl Check<'_> {
    pub(super) fn count(&self, expected: &'static str, found: usize) -> ParseError {
        ParseError::new(
            ParseErrorKind::OperandCount {
                instr: self.instr.into(),
                expected,
                found,
            },
            self.span,
        )
    }

    pub(super) fn bad(
        &self,
        what: &'static str,
        expected: &'static str,
        op: &Operand<'_>,
    ) -> ParseError {
        ParseError::new(
            ParseErrorKind::BadOperand {
                instr: self.instr.into(),
                what,
                expected,
                found: format!("`{}`", op.text),
            },
            op.span,
        )
    }

    pub(super) fn exactly<'o, 's, const N: usize>(
        &self,
        ops: &'o [Operand<'s>],
        expected: &'static str,
    ) -> PResult<&'o [Operand<'s>; N]> {
        ops.try_into().map_err(|_| self.count(expected, ops.len()))
    }

    pub(super) fn reg<'s>(&self, what: &'static str, op: &Operand<'s>) -> PResult<&'s str> {
        match op.kind {
            OpKind::Name(n) => Ok(n),
            _ => Err(self.bad(what, "a register", op)),
        }
    }

    pub(super) fn value<'s>(&self, what: &'static str, op: &Operand<'s>) -> PResult<Value<'s>> {
        match op.kind {
            OpKind::Int(i) => Ok(Value::Imm(i)),
            OpKind::Name(n) => Ok(Value::Reg(n)),
            _ => Err(self.bad(what, "a register or an integer", op)),
        }
    }

    /// `n` registers: one bare register, or a `{...}` vector of `n` registers.
    pub(super) fn regs<'s>(
        &self,
        what: &'static str,
        op: &Operand<'s>,
        n: u8,
    ) -> PResult<Vec<&'s str>> {
        match (&op.kind, n) {
            (OpKind::Vector(elems), n) if n > 1 && elems.len() == n as usize => {
                elems.iter().map(|e| self.reg(what, e)).collect()
            }
            (_, 1) => Ok(vec![self.reg(what, op)?]),
            (_, 2) => Err(self.bad(what, "a vector of 2 registers `{a, b}`", op)),
            (_, 4) => Err(self.bad(what, "a vector of 4 registers `{a, b, c, d}`", op)),
            _ => Err(self.bad(what, "a vector of 8 registers `{a, b, ..., h}`", op)),
        }
    }

    /// `n` values: one value, or a `{...}` vector of `n` values.
    pub(super) fn values<'s>(
        &self,
        what: &'static str,
        op: &Operand<'s>,
        n: u8,
    ) -> PResult<Vec<Value<'s>>> {
        match (&op.kind, n) {
            (OpKind::Vector(elems), n) if n > 1 && elems.len() == n as usize => {
                elems.iter().map(|e| self.value(what, e)).collect()
            }
            (_, 1) => Ok(vec![self.value(what, op)?]),
            (_, 2) => Err(self.bad(what, "a vector of 2 values `{a, b}`", op)),
            (_, 4) => Err(self.bad(what, "a vector of 4 values `{a, b, c, d}`", op)),
            _ => Err(self.bad(what, "a vector of 8 values `{a, b, ..., h}`", op)),
        }
    }

    /// A location `x`, `[x]` or `[x+N]` with its byte offset `N`. A negative
    /// offset is an error: a name is where its location starts (ptxmc gives
    /// locations no addresses, so nothing lies before one), and `[x-N]` is in
    /// no location (8.2: an address operand names "the range of bytes
    /// starting from the physical address"). So is an offset outside the
    /// 32-bit signed immediate of an address operand (PTX ISA 6.4.1).
    pub(super) fn addr<'s>(&self, op: &Operand<'s>) -> PResult<(&'s str, u32)> {
        let (name, offset) = match op.kind {
            OpKind::Name(n) => (n, 0),
            OpKind::Addr { name, .. } if name.starts_with('%') => (name, 0),
            OpKind::Addr { name, offset } if offset < 0 => {
                return Err(ParseError::new(
                    ParseErrorKind::UnresolvedAddress {
                        text: op.text.into(),
                        reason: format!(
                            "it is {} bytes before `{name}`, where its location starts: outside every location",
                            offset.unsigned_abs()
                        ),
                    },
                    op.span,
                ));
            }
            OpKind::Addr { name, offset } => match u32::try_from(offset) {
                Ok(o) if i64::from(o) < crate::ir::MAX_ADDR_OFFSET => (name, o),
                _ => return Err(offset_out_of_range(op, offset)),
            },
            _ => return Err(self.bad("address", "a location `x` or `[x]`", op)),
        };
        if name.starts_with('%') {
            return Err(ParseError::new(
                ParseErrorKind::RegisterAsLocation(name.into()),
                op.span,
            ));
        }
        Ok((name, offset))
    }

    /// A memory address: a location (as [`Self::addr`]) or a register-held
    /// address `[%rd1]` / `[%rd1+N]`, `N` a 32-bit signed immediate (PTX ISA
    /// 6.4.1; an error otherwise).
    pub(super) fn mem_addr<'s>(&self, op: &Operand<'s>) -> PResult<MemAddr<'s>> {
        if let OpKind::Addr { name, offset } = op.kind {
            if name.starts_with('%') {
                if i32::try_from(offset).is_err() {
                    return Err(offset_out_of_range(op, offset));
                }
                return Ok(MemAddr::Reg(name, offset));
            }
        }
        let (n, o) = self.addr(op)?;
        Ok(MemAddr::Loc(n, o))
    }

    pub(super) fn label<'s>(&self, op: &Operand<'s>) -> PResult<(&'s str, Span)> {
        match op.kind {
            OpKind::Name(n) => Ok((n, op.span)),
            _ => Err(self.bad("target", "a label", op)),
        }
    }
}

/// The error for an address offset that no PTX address operand can hold.
pub(super) fn offset_out_of_range(op: &Operand<'_>, offset: i64) -> ParseError {
    ParseError::new(
        ParseErrorKind::AddressOffsetOutOfRange {
            text: op.text.into(),
            offset,
        },
        op.span,
    )
}
