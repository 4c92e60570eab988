//! The thread table: the header row `P0@cta 0,gpu 0 | ... ;` and the instruction rows.

use super::builder::ThreadState;
use super::special::SpecialFields;
use super::{PResult, Parser};
use crate::error::{ParseError, ParseErrorKind};
use crate::ir::{BinOp, Instr, Operand, Placement, RegId, Span, Stmt};
use crate::lexer::Tok;
use fxhash::FxHashMap;

/// Words that end the thread table when they start a row.
const TAIL_WORDS: [&str; 4] = ["exists", "forall", "locations", "filter"];

impl Parser<'_> {
    /// The header row, the instruction rows, and the checks that need all threads.
    pub(super) fn thread_table(&mut self) -> PResult<()> {
        self.thread_header()?;
        self.b.resolve_pending_regs()?;
        self.resolve_kernels()?;
        while !self.at_tail() {
            self.row()?;
        }
        self.define_exit_labels()?;
        self.b.check_labels()?;
        self.check_host_thread()?;
        self.b.resolve_addresses()?;
        self.b.resolve_spaces()
    }

    /// `ret` / `exit` jump to a label after the thread's last statement.
    fn define_exit_labels(&mut self) -> PResult<()> {
        for t in 0..self.b.threads.len() {
            if self.b.threads[t].exit_label.is_none() {
                continue;
            }
            let span = self.b.threads[t]
                .code
                .last()
                .map_or_else(Span::default, |s| s.span);
            let l = self.b.label_def(t, "$exit", span)?;
            self.push(t, Instr::Label(l), span);
        }
        Ok(())
    }

    /// Whether the current token starts the tail (`exists`, `~exists`, `forall`,
    /// `locations`, `filter`, `not exists`) or is the end of the file.
    pub(super) fn at_tail(&self) -> bool {
        let t = self.peek();
        match t.tok {
            Tok::Eof | Tok::Tilde => true,
            // `not` is also a PTX instruction (`not exists` could be one, with a register
            // named `exists`): it starts the tail only as `not exists` followed by a
            // condition, which holds no `|` and no `;` but a last one.
            Tok::Ident if self.text(t) == "not" => {
                let next = self.peek_at(1);
                next.tok == Tok::Ident && self.text(next) == "exists" && self.rest_is_condition()
            }
            Tok::Ident => TAIL_WORDS.contains(&self.text(t)) && self.peek_at(1).tok != Tok::Colon,
            _ => false,
        }
    }

    /// Whether no `|`, and no `;` other than a final one, follows the cursor.
    fn rest_is_condition(&self) -> bool {
        let rest = &self.toks[self.pos..];
        rest.iter().enumerate().all(|(i, t)| match t.tok {
            Tok::Pipe => false,
            Tok::Semi => rest.get(i + 1).is_some_and(|n| n.tok == Tok::Eof),
            _ => true,
        })
    }

    /// `P0@cta 0,gpu 0 | P1@cta 1,cluster 0,gpu 0 ;`
    fn thread_header(&mut self) -> PResult<()> {
        let mut index = 0u64;
        loop {
            let t = self.peek();
            if t.tok == Tok::Semi && index == 0 {
                return Err(ParseError::new(ParseErrorKind::NoThreads, t.span));
            }
            let Some(n) = self.thread_number(t) else {
                return Err(self.expected("a thread header such as `P0@cta 0,gpu 0`"));
            };
            if n < index {
                return Err(ParseError::new(ParseErrorKind::DuplicateThread(n), t.span));
            }
            if n > index {
                return Err(ParseError::new(
                    ParseErrorKind::ThreadOutOfOrder {
                        expected: index,
                        found: n,
                    },
                    t.span,
                ));
            }
            self.bump();
            if !self.at(Tok::At) {
                return Err(ParseError::new(
                    ParseErrorKind::MissingPlacement(n),
                    self.peek().span,
                ));
            }
            self.bump();
            let (placement, explicit_cluster, special) = self.placement(n)?;
            let mut th = ThreadState::new(placement, explicit_cluster, t.span);
            th.special = special;
            self.b.threads.push(th);
            match self.peek().tok {
                Tok::Pipe => {
                    self.bump();
                    index += 1;
                }
                Tok::Semi => {
                    self.bump();
                    break;
                }
                _ => return Err(self.expected("`|` or `;` after the thread placement")),
            }
        }
        self.check_clusters()
    }

    /// `cta N, [cluster N,] gpu N` (any order, each at most once; `cta` and `gpu`
    /// required), and the optional fields of special registers (`tid N`, ...).
    fn placement(&mut self, thread: u64) -> PResult<(Placement, bool, SpecialFields)> {
        let (mut cta, mut cluster, mut gpu) = (None, None, None);
        let mut special = SpecialFields::default();
        loop {
            let (field, span) = self.ident("a placement field (`cta`, `cluster` or `gpu`)")?;
            let slot = match field {
                "cta" => &mut cta,
                "cluster" => &mut cluster,
                "gpu" => &mut gpu,
                f => match special.slot(f) {
                    Some(slot) => slot,
                    None => {
                        return Err(ParseError::new(
                            ParseErrorKind::UnknownPlacementField {
                                field: field.into(),
                                thread,
                            },
                            span,
                        ))
                    }
                },
            };
            if slot.is_some() {
                return Err(ParseError::new(
                    ParseErrorKind::DuplicatePlacementField {
                        field: field.into(),
                        thread,
                    },
                    span,
                ));
            }
            let t = self.peek();
            let Tok::Int(v) = t.tok else {
                return Err(self.expected(&format!("an id after `{field}`")));
            };
            let v = u32::try_from(v).map_err(|_| {
                ParseError::new(
                    ParseErrorKind::OutOfRange {
                        what: "placement id",
                        value: self.text(t).into(),
                        range: "0 to 4294967295",
                    },
                    t.span,
                )
            })?;
            self.bump();
            *slot = Some(v);
            if self.at(Tok::Comma) {
                self.bump();
            } else {
                break;
            }
        }
        let missing = |field| {
            ParseError::new(
                ParseErrorKind::MissingPlacementField { field, thread },
                self.peek().span,
            )
        };
        let cta = cta.ok_or_else(|| missing("cta"))?;
        let gpu = gpu.ok_or_else(|| missing("gpu"))?;
        let placement = Placement {
            cta,
            cluster: cluster.unwrap_or(cta),
            gpu,
        };
        Ok((placement, cluster.is_some(), special))
    }

    /// Every thread names its cluster or none does, and each CTA lies in one cluster.
    fn check_clusters(&self) -> PResult<()> {
        let threads = &self.b.threads;
        let named = threads.iter().position(|t| t.explicit_cluster);
        let unnamed = threads.iter().position(|t| !t.explicit_cluster);
        if let (Some(named), Some(unnamed)) = (named, unnamed) {
            let span = threads[named.max(unnamed)].span;
            return Err(ParseError::new(
                ParseErrorKind::MixedClusters { named, unnamed },
                span,
            ));
        }
        let mut seen: FxHashMap<(u32, u32), (u32, usize)> = FxHashMap::default();
        for (i, t) in threads.iter().enumerate() {
            let p = t.placement;
            let (c, first) = *seen.entry((p.gpu, p.cta)).or_insert((p.cluster, i));
            if c != p.cluster {
                return Err(ParseError::new(
                    ParseErrorKind::ClusterConflict {
                        cta: p.cta,
                        gpu: p.gpu,
                        first: c,
                        first_thread: first,
                        second: p.cluster,
                        second_thread: i,
                    },
                    t.span,
                ));
            }
        }
        Ok(())
    }

    /// One row `cell | cell | ... ;`; missing trailing cells are empty.
    fn row(&mut self) -> PResult<()> {
        let mut column = 0usize;
        loop {
            let had_instr = self.cell(column)?;
            match self.peek().tok {
                Tok::Pipe => {
                    self.bump();
                    column += 1;
                }
                Tok::Semi => {
                    self.bump();
                    return Ok(());
                }
                _ => return Err(self.cell_end_error(had_instr)),
            }
        }
    }

    /// The error when a cell is not followed by `|` or `;`.
    fn cell_end_error(&self, had_instr: bool) -> ParseError {
        let prev = self.prev();
        let next = self.peek();
        let what = if had_instr { "instruction" } else { "label" };
        if next.tok == Tok::Eof || next.span.line > prev.end_span.line {
            // The row was not terminated: point just after its last token.
            ParseError::new(
                ParseErrorKind::Expected {
                    expected: format!("`;` after {what}"),
                    found: self.describe(next),
                },
                prev.end_span,
            )
        } else {
            self.expected(&format!("`|` or `;` after {what}"))
        }
    }

    /// One cell of thread `column`: empty, a label, an instruction, or a label and an
    /// instruction; an instruction may end with its own `;` when `|` or `;` follows.
    /// Returns whether the cell ended with an instruction.
    fn cell(&mut self, column: usize) -> PResult<bool> {
        let first = self.peek();
        if matches!(first.tok, Tok::Pipe | Tok::Semi) {
            return Ok(false);
        }
        let threads = self.b.threads.len();
        if column >= threads {
            return Err(ParseError::new(
                ParseErrorKind::TooManyCells { column, threads },
                first.span,
            ));
        }
        let mut had_instr = false;
        // A label is `NAME:` with nothing between the name and the colon.
        let colon = self.peek_at(1);
        let labelled =
            first.tok == Tok::Ident && colon.tok == Tok::Colon && colon.start == first.end;
        if labelled {
            let name = self.text(first);
            self.bump();
            self.bump();
            let l = self.b.label_def(column, name, first.span)?;
            self.push(column, Instr::Label(l), first.span);
        }
        let next = self.peek();
        // After a label, an instruction must be on the same line (else the row lacks its `;`).
        let same_line = !labelled || next.span.line == self.prev().end_span.line;
        if same_line && !matches!(next.tok, Tok::Pipe | Tok::Semi | Tok::Eof) {
            self.instruction(column)?;
            had_instr = true;
        }
        // `instr; |` or `instr; ;`: the instruction's own `;` (a `;` that ends its
        // line always ends the row, even when the next row starts with `|`).
        let (semi, after) = (self.peek(), self.peek_at(1));
        if semi.tok == Tok::Semi
            && matches!(after.tok, Tok::Pipe | Tok::Semi)
            && after.span.line == semi.span.line
        {
            self.bump();
        }
        Ok(had_instr)
    }

    /// Appends a statement to thread `t`.
    pub(super) fn push(&mut self, t: usize, instr: Instr, span: Span) {
        self.b.threads[t].code.push(Stmt { instr, span });
    }

    /// Appends `dst = regs[0] op regs[1] op ...` to thread `t`: a `mov` of the
    /// first register, then one `op` per further register.
    pub(super) fn fold_regs(
        &mut self,
        t: usize,
        dst: RegId,
        op: BinOp,
        regs: &[RegId],
        span: Span,
    ) {
        for (i, &r) in regs.iter().enumerate() {
            let instr = if i == 0 {
                Instr::Mov {
                    dst,
                    src: Operand::Reg(r),
                }
            } else {
                Instr::Op {
                    op,
                    dst,
                    a: Operand::Reg(dst),
                    b: Operand::Reg(r),
                }
            };
            self.push(t, instr, span);
        }
    }
}
