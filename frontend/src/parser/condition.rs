//! The tail of a test: `locations [...]`, `filter P`, and the final condition
//! (`exists` / `~exists` / `not exists` / `forall` P).
//!
//! Precedence: `~` / `not` bind tightest, then `/\`, then `\/`; both connectives
//! associate to the left. Atoms are `T cmp T` (`=` is `==`), `true`, `false` and
//! parenthesized propositions; terms are a location, `P1:r0` / `1:r0`, or an integer.

use super::{PResult, Parser};
use crate::error::{ParseError, ParseErrorKind};
use crate::ir::{CmpOp, Condition, Prop, Quantifier, Span, Term};
use crate::lexer::Tok;

/// Deepest nesting accepted in a proposition (`~`, parentheses, and connective
/// chains, which nest to the left): keeps recursion in the parser, the printer
/// and `Drop` well within a thread's stack.
pub(crate) const MAX_DEPTH: usize = 256;

impl Parser<'_> {
    /// `[locations [...]] [filter P] QUANTIFIER P [;]` and the end of the file.
    pub(super) fn tail(&mut self) -> PResult<Condition> {
        if self.at_word("locations") {
            self.bump();
            self.locations()?;
        }
        if self.at_word("filter") {
            self.bump();
            self.b.filter = Some(self.prop("filter", 0)?);
        }
        let quantifier = self.quantifier()?;
        let prop = self.prop("condition", 0)?;
        if self.at(Tok::Semi) {
            self.bump();
        }
        let t = self.peek();
        if t.tok != Tok::Eof {
            return Err(ParseError::new(
                ParseErrorKind::TrailingInput(self.describe(t)),
                t.span,
            ));
        }
        Ok(Condition { quantifier, prop })
    }

    /// `[t; t; ...]` (`;` or `,` separated, trailing separator allowed).
    fn locations(&mut self) -> PResult<()> {
        self.expect(Tok::LBracket, "`[` after `locations`")?;
        loop {
            match self.peek().tok {
                Tok::RBracket => {
                    self.bump();
                    return Ok(());
                }
                Tok::Semi | Tok::Comma => {
                    self.bump();
                }
                _ => {
                    let term = self.term("locations")?;
                    self.b.observed.push(term);
                    if !matches!(self.peek().tok, Tok::Semi | Tok::Comma | Tok::RBracket) {
                        return Err(self.expected("`;` or `]` in `locations [...]`"));
                    }
                }
            }
        }
    }

    fn quantifier(&mut self) -> PResult<Quantifier> {
        let t = self.peek();
        if t.tok == Tok::Tilde || self.at_word("not") {
            self.bump();
            if !self.at_word("exists") {
                return Err(self.expected(&format!("`exists` after {}", self.describe(t))));
            }
            self.bump();
            return Ok(Quantifier::NotExists);
        }
        if self.at_word("exists") {
            self.bump();
            return Ok(Quantifier::Exists);
        }
        if self.at_word("forall") {
            self.bump();
            return Ok(Quantifier::Forall);
        }
        Err(ParseError::new(
            ParseErrorKind::MissingCondition(self.describe(t)),
            t.span,
        ))
    }

    /// A disjunction.
    fn prop(&mut self, place: &'static str, depth: usize) -> PResult<Prop> {
        let mut terms = vec![self.conj(place, depth)?];
        if self.at(Tok::Or) {
            let depth = self.deeper(depth)?;
            while self.at(Tok::Or) {
                self.bump();
                terms.push(self.conj(place, depth)?);
            }
        }
        Ok(chain(terms, Prop::Or))
    }

    fn conj(&mut self, place: &'static str, depth: usize) -> PResult<Prop> {
        let mut terms = vec![self.unary(place, depth)?];
        if self.at(Tok::And) {
            let depth = self.deeper(depth)?;
            while self.at(Tok::And) {
                self.bump();
                terms.push(self.unary(place, depth)?);
            }
        }
        Ok(chain(terms, Prop::And))
    }

    /// One more level of nesting (a chain of connectives counts as one, see [`chain`]).
    fn deeper(&self, depth: usize) -> PResult<usize> {
        if depth + 1 >= MAX_DEPTH {
            return Err(ParseError::new(
                ParseErrorKind::TooDeep(MAX_DEPTH),
                self.peek().span,
            ));
        }
        Ok(depth + 1)
    }

    fn unary(&mut self, place: &'static str, depth: usize) -> PResult<Prop> {
        let t = self.peek();
        let is_cmp = |tok| {
            matches!(
                tok,
                Tok::Assign | Tok::EqEq | Tok::Ne | Tok::Lt | Tok::Le | Tok::Gt | Tok::Ge
            )
        };
        if t.tok == Tok::Tilde || (self.at_word("not") && !is_cmp(self.peek_at(1).tok)) {
            let depth = self.deeper(depth)?;
            self.bump();
            return Ok(Prop::Not(Box::new(self.unary(place, depth)?)));
        }
        if t.tok == Tok::LParen {
            let depth = self.deeper(depth)?;
            self.bump();
            let p = self.prop(place, depth)?;
            self.expect(Tok::RParen, "`)` or a connective (`/\\`, `\\/`)")?;
            return Ok(p);
        }
        if (self.at_word("true") || self.at_word("false")) && !is_cmp(self.peek_at(1).tok) {
            self.bump();
            return Ok(if self.text(t) == "true" {
                Prop::True
            } else {
                Prop::False
            });
        }
        let a = self.term(place)?;
        let op = match self.peek().tok {
            Tok::Assign | Tok::EqEq => CmpOp::Eq,
            Tok::Ne => CmpOp::Ne,
            Tok::Lt => CmpOp::Lt,
            Tok::Le => CmpOp::Le,
            Tok::Gt => CmpOp::Gt,
            Tok::Ge => CmpOp::Ge,
            _ => return Err(self.expected("a comparison (`==`, `!=`, `<`, `<=`, `>`, `>=`)")),
        };
        self.bump();
        let b = self.term(place)?;
        Ok(Prop::Cmp(op, a, b))
    }

    /// A location, `P1:r0` / `1:r0`, `[x]`, or an integer.
    fn term(&mut self, place: &'static str) -> PResult<Term> {
        let t = self.peek();
        if self.peek_at(1).tok == Tok::Colon && matches!(t.tok, Tok::Ident | Tok::Int(_)) {
            let Some(thread) = self.thread_number(t) else {
                return Err(self.expected("a thread such as `P0` before `:`"));
            };
            self.bump();
            self.bump();
            let (reg, _) = self.ident("a register name after `:`")?;
            let (th, r) = self.b.cond_reg(thread, reg, t.span, place)?;
            return Ok(Term::Reg(th, r));
        }
        match t.tok {
            Tok::Minus | Tok::Int(_) => Ok(Term::Const(self.integer("an integer")?.0)),
            Tok::Ident => {
                let name = self.location_name()?;
                self.final_location(name, t.span)
            }
            Tok::LBracket => {
                self.bump();
                let name = self.location_name()?;
                self.expect(Tok::RBracket, "`]`")?;
                self.final_location(name, t.span)
            }
            _ => Err(self.expected("a location, a register such as `P0:r0`, or an integer")),
        }
    }
}

impl Parser<'_> {
    /// The final value of the location `name` as a term. A `.local`
    /// location has one copy per thread (PTX ISA 5.1.5): no one final value.
    fn final_location(&mut self, name: &str, span: crate::ir::Span) -> PResult<Term> {
        let a = self.b.addr(name);
        if self.b.address_kind(a) == Some(crate::ir::AddrKind::Local) {
            return Err(ParseError::new(
                ParseErrorKind::BadSpaceUse(format!(
                    "`{name}` is `.local` memory, one copy per thread (PTX ISA 5.1.5), with no one final value: load it into a register to test it"
                )),
                span,
            ));
        }
        Ok(Term::Mem(a))
    }
}

/// Parses `src` as a standalone proposition over the final values of `test`
/// (what `ptxmc explain --outcome` takes): the syntax of a condition's
/// proposition, every name resolved against the test's own locations and
/// registers; a name the test does not have is an error at its position.
pub(crate) fn standalone_prop(src: &str, test: &crate::ir::Test) -> PResult<Prop> {
    let toks = crate::lexer::Lexer::new(src).tokenize()?;
    let mut p = Parser {
        src,
        toks,
        pos: 0,
        b: super::builder::Builder::naming(test),
    };
    let prop = p.prop("the outcome", 0)?;
    let t = p.peek();
    if t.tok != Tok::Eof {
        return Err(ParseError::new(
            ParseErrorKind::TrailingInput(p.describe(t)),
            t.span,
        ));
    }
    let mut terms = Vec::new();
    prop.terms(&mut terms);
    for term in terms {
        let (name, what) = match term {
            Term::Mem(a) if a.index() >= test.symbols.addrs.len() => (
                p.b.addr_name(a).unwrap_or_default(),
                "a location of the test",
            ),
            Term::Reg(th, r)
                if test
                    .symbols
                    .regs
                    .get(th.index())
                    .is_none_or(|rs| r.index() >= rs.len()) =>
            {
                (
                    p.b.reg_name(th, r).to_string(),
                    "a register the thread uses",
                )
            }
            _ => continue,
        };
        // Where the unknown name is: the first identifier spelling it.
        let span = p
            .toks
            .iter()
            .find(|t| t.tok == Tok::Ident && crate::parser::builder::reg_key(p.text(**t)) == name)
            .map_or(Span::default(), |t| t.span);
        return Err(ParseError::new(
            ParseErrorKind::Expected {
                expected: what.to_string(),
                found: format!("`{name}`"),
            },
            span,
        ));
    }
    Ok(prop)
}

/// The tree of a flat chain of one connective. Up to [`CHAIN_GROUP`]
/// terms: folded to the left, as written (`a /\ b /\ c` is
/// `(a /\ b) /\ c`). A longer chain: its first term, then the others cut
/// into `CHAIN_GROUP - 1` runs of nearly equal length, each a chain of its
/// own, all folded to the left. A chain of `n` terms then nests about
/// `CHAIN_GROUP * log(n) / log(CHAIN_GROUP - 1)` deep, so that a flat
/// conjunction of any length is accepted and every recursive walk over the
/// condition stays shallow; and the printer, which writes a right operand of
/// the same connective in parentheses, prints the tree as a chain of at
/// most [`CHAIN_GROUP`] terms that parses back to the same tree.
fn chain(mut terms: Vec<Prop>, op: fn(Box<Prop>, Box<Prop>) -> Prop) -> Prop {
    let fold = |terms: Vec<Prop>| {
        let mut it = terms.into_iter();
        let first = it.next().unwrap_or(Prop::True);
        it.fold(first, |a, b| op(Box::new(a), Box::new(b)))
    };
    if terms.len() <= CHAIN_GROUP {
        return fold(terms);
    }
    let rest = terms.split_off(1);
    let runs = CHAIN_GROUP - 1;
    let (n, mut rest) = (rest.len(), rest.into_iter());
    for k in 0..runs {
        let len = n * (k + 1) / runs - n * k / runs;
        terms.push(chain(rest.by_ref().take(len).collect(), op));
    }
    fold(terms)
}

/// The most terms of a chain folded to the left as written.
const CHAIN_GROUP: usize = 16;
