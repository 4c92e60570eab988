//! The recursive-descent parser: header, initial state, thread table and final
//! condition, lowered straight to the IR (no intermediate AST survives a cell).

mod addresses;
mod api;
mod async_ops;
mod bar_red;
mod builder;
mod canonical;
mod condition;
mod header;
mod hopper;
mod host;
mod instr;
mod multimem;
mod multimem_float;
mod opcode;
mod operand;
mod packed;
mod ptx_bits;
mod ptx_forms;
mod spaces;
pub(crate) mod special;
mod st_async;
mod tensor;
mod threads;
mod unordered;
mod wgmma;

use crate::error::{ParseError, ParseErrorKind};
use crate::ir::{Span, Test};
use crate::lexer::{Lexer, Tok, Token};
use builder::Builder;

/// Parses a litmus test.
pub(crate) fn parse(src: &str) -> Result<Test, ParseError> {
    let mut lexer = Lexer::new(src);
    let header = header::parse_header(&mut lexer)?;
    let toks = lexer.tokenize()?;
    let mut p = Parser {
        src,
        toks,
        pos: 0,
        b: Builder::default(),
    };
    p.init_block()?;
    p.thread_table()?;
    let condition = p.tail()?;
    let mut test = p.b.finish(header.name, header.docs, condition);
    canonical::canonical_addresses(&mut test);
    Ok(test)
}

/// Parses a standalone proposition over `test`'s names
/// ([`condition::standalone_prop`]).
pub(crate) fn parse_prop(src: &str, test: &Test) -> Result<crate::ir::Prop, ParseError> {
    condition::standalone_prop(src, test)
}

/// The parser state: the tokens after the header, a cursor, and the IR being built.
pub(super) struct Parser<'s> {
    src: &'s str,
    // invariant: non-empty, and the last token is `Tok::Eof`.
    toks: Vec<Token>,
    // invariant: `pos < toks.len()`.
    pos: usize,
    b: Builder,
}

type PResult<T> = Result<T, ParseError>;

impl<'s> Parser<'s> {
    /// The current token.
    fn peek(&self) -> Token {
        self.toks[self.pos]
    }

    /// The token `n` places ahead (the final `Eof` if past the end).
    fn peek_at(&self, n: usize) -> Token {
        let i = (self.pos + n).min(self.toks.len() - 1);
        self.toks[i]
    }

    /// Consumes the current token (never moves past `Eof`).
    fn bump(&mut self) -> Token {
        let t = self.peek();
        if t.tok != Tok::Eof {
            self.pos += 1;
        }
        t
    }

    /// The token before the current one (the current one at the start).
    fn prev(&self) -> Token {
        self.toks[self.pos.saturating_sub(1)]
    }

    /// Whether the current token is `tok`.
    fn at(&self, tok: Tok) -> bool {
        self.peek().tok == tok
    }

    /// Whether the current token is the identifier `word`.
    fn at_word(&self, word: &str) -> bool {
        let t = self.peek();
        t.tok == Tok::Ident && self.text(t) == word
    }

    /// The source text of a token.
    fn text(&self, t: Token) -> &'s str {
        &self.src[t.start..t.end]
    }

    /// A token as shown in messages.
    fn describe(&self, t: Token) -> String {
        match t.tok {
            Tok::Eof => "end of file".to_string(),
            Tok::Str => "a string".to_string(),
            _ => {
                let text = self.text(t);
                let mut shown: String = text.chars().take(40).collect();
                if shown.len() < text.len() {
                    shown.push_str("...");
                }
                format!("`{shown}`")
            }
        }
    }

    /// An "expected X, found Y" error at the current token.
    fn expected(&self, what: &str) -> ParseError {
        let t = self.peek();
        ParseError::new(
            ParseErrorKind::Expected {
                expected: what.to_string(),
                found: self.describe(t),
            },
            t.span,
        )
    }

    /// Consumes a `tok` or fails with "expected `what`".
    fn expect(&mut self, tok: Tok, what: &str) -> PResult<Token> {
        if self.at(tok) {
            Ok(self.bump())
        } else {
            Err(self.expected(what))
        }
    }

    /// Consumes an identifier.
    fn ident(&mut self, what: &str) -> PResult<(&'s str, Span)> {
        let t = self.expect(Tok::Ident, what)?;
        Ok((self.text(t), t.span))
    }

    /// A signed integer literal (`-` allowed before it).
    fn integer(&mut self, what: &str) -> PResult<(i64, Span)> {
        let start = self.peek();
        let neg = self.at(Tok::Minus);
        if neg {
            self.bump();
        }
        let t = self.peek();
        let Tok::Int(mag) = t.tok else {
            return Err(self.expected(what));
        };
        self.bump();
        let value = signed(mag, neg).ok_or_else(|| {
            let sign = if neg { "-" } else { "" };
            ParseError::new(
                ParseErrorKind::IntOutOfRange(format!("{sign}{}", self.text(t))),
                start.span,
            )
        })?;
        Ok((value, start.span))
    }

    /// A thread number: `P3` or `3`.
    fn thread_number(&self, t: Token) -> Option<u64> {
        match t.tok {
            Tok::Int(n) => Some(n),
            Tok::Ident => {
                let digits = self.text(t).strip_prefix('P')?;
                if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
                    return None;
                }
                digits.parse().ok()
            }
            _ => None,
        }
    }
}

/// Applies a sign to a literal's magnitude, if the result fits an `i64`.
fn signed(mag: u64, neg: bool) -> Option<i64> {
    if neg {
        if mag == 1u64 << 63 {
            Some(i64::MIN)
        } else {
            i64::try_from(mag).ok().map(|v| -v)
        }
    } else {
        i64::try_from(mag).ok()
    }
}

/// Parses `src` (which must parse) and checks that its printed form parses
/// back to the same test, spans aside: the round trip every instruction
/// family's unit tests rely on.
#[cfg(test)]
pub(crate) fn parse_round_trip(src: &str) -> crate::ir::Test {
    let t = parse(src).unwrap_or_else(|e| panic!("{e}"));
    let printed = crate::print(&t);
    assert_eq!(
        crate::strip_spans(&parse(&printed).expect("reparses")),
        crate::strip_spans(&t),
        "{printed}"
    );
    t
}

#[cfg(test)]
mod tests;
