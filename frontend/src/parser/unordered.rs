//! `unordered N` (ptxmc's dialect): the next `N` memory instructions of the
//! thread are the elements of one operation executed "in an unspecified
//! order" (8.2.4, 8.2.5), not ordered with each other in program order. The
//! lowerings write it (`multimem.st.release`, ...), and `ptxmc parse` prints
//! it, so that the printed test reads back the same.

use super::operand::OpKind;
use super::{PResult, Parser};
use crate::ir::{Instr, Span};

impl Parser<'_> {
    /// Parses `unordered N` of thread `t` (mnemonic `text` already read);
    /// `false` (nothing read) for any other mnemonic.
    pub(super) fn unordered_instruction(
        &mut self,
        t: usize,
        text: &str,
        span: Span,
    ) -> PResult<bool> {
        if text != "unordered" {
            return Ok(false);
        }
        let ops = self.operands(span.line)?;
        let c = super::instr::Check { instr: text, span };
        let [n] = c.exactly::<1>(&ops, "1 operand")?;
        let n = match n.kind {
            OpKind::Int(i) => u32::try_from(i)
                .ok()
                .filter(|&i| i > 0)
                .ok_or_else(|| c.bad("count", "a positive integer", n))?,
            _ => return Err(c.bad("count", "a positive integer", n)),
        };
        self.push(t, Instr::Unordered(n), span);
        Ok(true)
    }
}
