//! Operands as written (`r0`, `%r1`, `5`, `-1`, `x`, `[x]`, `{%r0, %r1}`, `!p`),
//! before the instruction gives them a meaning.

use super::{PResult, Parser};
use crate::ir::Span;
use crate::lexer::Tok;

/// The form of an operand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum OpKind<'s> {
    /// An integer constant.
    Int(i64),
    /// A bare name: a register, a location (dialect) or a label.
    Name(&'s str),
    /// `[name]`, or `[name+N]` / `[name-N]` with `offset` the signed `N` (0 for `[name]`).
    Addr { name: &'s str, offset: i64 },
    /// `[name, {c0, c1, ...}]`: a tensor map and the coordinates of a tile
    /// (the `cp.async.bulk.tensor` family).
    TensorAddr {
        name: &'s str,
        coords: Vec<Operand<'s>>,
    },
    /// `{a, b, ...}`.
    Vector(Vec<Operand<'s>>),
    /// `!p` (a negated predicate).
    Not(&'s str),
    /// A non-integer number (`1.5`, `0f3F800000`).
    Number,
}

/// An operand with its position and source text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Operand<'s> {
    pub kind: OpKind<'s>,
    pub span: Span,
    pub text: &'s str,
}

/// The bits of a PTX floating-point literal: `0fXXXXXXXX` (8 hex digits, a
/// `.f32` bit pattern) or `0dXXXXXXXXXXXXXXXX` (16, `.f64`), the value ptxmc
/// holds for a floating-point operand (values are bit patterns).
fn float_literal(text: &str) -> Option<i64> {
    let (digits, n) = match text.get(..2)? {
        "0f" | "0F" => (&text[2..], 8),
        "0d" | "0D" => (&text[2..], 16),
        _ => return None,
    };
    if digits.len() != n || !digits.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    u64::from_str_radix(digits, 16).ok().map(|b| b as i64)
}

impl<'s> Parser<'s> {
    /// The comma-separated operands after a mnemonic. The first operand must be on
    /// the mnemonic's line: an instruction without operands followed by a line
    /// break is a row without its `;`.
    pub(super) fn operands(&mut self, line: u32) -> PResult<Vec<Operand<'s>>> {
        let mut ops = Vec::new();
        let t = self.peek();
        if t.span.line != line || matches!(t.tok, Tok::Pipe | Tok::Semi | Tok::Eof) {
            return Ok(ops);
        }
        loop {
            ops.push(self.operand(true)?);
            if !self.at(Tok::Comma) {
                return Ok(ops);
            }
            self.bump();
        }
    }

    /// One operand; vectors only where `vector_ok`.
    fn operand(&mut self, vector_ok: bool) -> PResult<Operand<'s>> {
        let first = self.peek();
        let kind = match first.tok {
            Tok::Minus | Tok::Int(_) => OpKind::Int(self.integer("an integer after `-`")?.0),
            Tok::Number => {
                self.bump();
                float_literal(self.text(first)).map_or(OpKind::Number, OpKind::Int)
            }
            Tok::Ident => {
                self.bump();
                OpKind::Name(self.text(first))
            }
            Tok::LBracket => {
                self.bump();
                let (name, _) = self.ident("a location name inside `[...]`")?;
                let sign = match self.peek().tok {
                    Tok::Plus => Some(1),
                    Tok::Minus => Some(-1),
                    _ => None,
                };
                let mut offset = 0i64;
                if let Some(sign) = sign {
                    self.bump();
                    offset = self.integer("an integer offset")?.0.saturating_mul(sign);
                }
                if sign.is_none() && self.at(Tok::Comma) {
                    // `[tensorMap, {c0, ...}]`.
                    self.bump();
                    if !self.at(Tok::LBrace) {
                        return Err(self.expected("`{` to open the tensor coordinates"));
                    }
                    let OpKind::Vector(coords) = self.operand(true)?.kind else {
                        return Err(self.expected("the tensor coordinates"));
                    };
                    self.expect(Tok::RBracket, "`]` to close the tensor address")?;
                    OpKind::TensorAddr { name, coords }
                } else {
                    self.expect(Tok::RBracket, "`]` to close the address")?;
                    OpKind::Addr { name, offset }
                }
            }
            Tok::LBrace if vector_ok => {
                self.bump();
                let mut elems = vec![self.operand(false)?];
                while self.at(Tok::Comma) {
                    self.bump();
                    elems.push(self.operand(false)?);
                }
                self.expect(Tok::RBrace, "`,` or `}` in the vector operand")?;
                OpKind::Vector(elems)
            }
            Tok::Bang => {
                self.bump();
                OpKind::Not(self.ident("a predicate after `!`")?.0)
            }
            _ => return Err(self.expected("an operand")),
        };
        let end = self.prev().end;
        Ok(Operand {
            kind,
            span: first.span,
            text: &self.src[first.start..end.max(first.start)],
        })
    }
}
