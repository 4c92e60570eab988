//! The test header (`PTX name`, doc strings, free text up to `{`) and the initial-state block.

use super::{PResult, Parser};
use crate::error::{ParseError, ParseErrorKind};
use crate::ir::{AddrKind, Proxy};
use crate::lexer::{Lexer, Tok};

use super::builder::PendingRegInit;

/// The header: the name after `PTX` and the quoted doc strings up to `{`.
pub(super) struct Header {
    pub name: String,
    pub docs: Vec<String>,
}

/// Scans `PTX name ...` up to (not including) the `{` of the initial state.
///
/// Everything between the name and `{` other than quoted strings and comments is
/// free text and is ignored (herd puts `Variant=...`-style lines there).
pub(super) fn parse_header(lx: &mut Lexer<'_>) -> PResult<Header> {
    lx.skip_trivia()?;
    if lx.peek().is_none() {
        return Err(ParseError::new(ParseErrorKind::Empty, lx.span()));
    }
    let (arch, span) = lx.raw_word();
    if arch != "PTX" {
        let found = if arch.is_empty() {
            match lx.peek() {
                Some(c) => crate::lexer::describe_char(c),
                None => "end of file".to_string(),
            }
        } else if let Some(c) = arch.chars().find(|c| !c.is_ascii_graphic()) {
            crate::lexer::describe_char(c)
        } else {
            let mut shown: String = arch.chars().take(30).collect();
            if shown.len() < arch.len() {
                shown.push_str("...");
            }
            format!("`{shown}`")
        };
        return Err(ParseError::new(ParseErrorKind::ExpectedArch(found), span));
    }
    lx.skip_trivia()?;
    let (name, span) = lx.raw_word();
    if name.is_empty() {
        return Err(ParseError::new(ParseErrorKind::MissingName, span));
    }
    let mut docs = Vec::new();
    loop {
        lx.skip_trivia()?;
        match lx.peek() {
            None => return Err(ParseError::new(ParseErrorKind::MissingInitBlock, lx.span())),
            Some('{') => break,
            Some('"') => docs.push(lx.string()?.0.to_string()),
            Some(_) => lx.skip_char(),
        }
    }
    Ok(Header {
        name: name.to_string(),
        docs,
    })
}

/// The proxy of `y @ PROXY aliases x`.
fn alias_proxy(word: &str) -> Option<Proxy> {
    word.parse().ok()
}

impl<'s> Parser<'s> {
    /// `{ entry; entry; ... }` (the last `;` is optional, empty entries are skipped).
    pub(super) fn init_block(&mut self) -> PResult<()> {
        self.expect(Tok::LBrace, "`{` to open the initial state")?;
        loop {
            match self.peek().tok {
                Tok::RBrace => {
                    self.bump();
                    return Ok(());
                }
                Tok::Semi => {
                    self.bump();
                }
                Tok::Eof => return Err(self.expected("`}` to close the initial state")),
                _ => {
                    self.init_entry()?;
                    if !self.at(Tok::RBrace) {
                        self.expect(Tok::Semi, "`;` after an initial-state entry")?;
                    }
                }
            }
        }
    }

    /// `x=V`, `P0:r1=V` / `0:r1=V`, `y @ proxy aliases x`, `m @ multimem`,
    /// or `l @ local {= V}` / `p @ param {= V}` (a `.local` location, a
    /// kernel parameter: `docs/model-notes.md`, issue 17).
    fn init_entry(&mut self) -> PResult<()> {
        let first = self.peek();
        let second = self.peek_at(1).tok;
        match (first.tok, second) {
            (Tok::Int(_) | Tok::Ident, Tok::Colon) => {
                let Some(thread) = self.thread_number(first) else {
                    return Err(self.expected("a thread such as `P0` before `:`"));
                };
                self.bump();
                self.bump();
                let (reg, _) = self.ident("a register name after `:`")?;
                if reg.is_empty() {
                    return Err(self.expected("a register name"));
                }
                self.expect(Tok::Assign, "`=` after the register")?;
                let (value, _) = self.integer("an integer initial value")?;
                self.b.pending_regs.push(PendingRegInit {
                    thread,
                    reg: reg.to_string(),
                    value,
                    span: first.span,
                });
                Ok(())
            }
            (Tok::Ident, Tok::At) => {
                let name = self.location_name()?;
                self.bump();
                if self.at_word("multimem") {
                    self.bump();
                    self.b.declare_multimem(name, first.span)?;
                    return self.multimem_members(name);
                }
                let aliases = self.peek_at(1);
                let aliases = aliases.tok == Tok::Ident && self.text(aliases) == "aliases";
                if self.at_word("tensormap") && !aliases {
                    self.bump();
                    return self.tensormap_decl(name, first.span);
                }
                if self.at_word("cluster") {
                    self.bump();
                    return self.cluster_decl(name, first.span);
                }
                if self.at_word("local") || self.at_word("param") {
                    let kind = if self.at_word("local") {
                        AddrKind::Local
                    } else {
                        AddrKind::Param
                    };
                    self.bump();
                    let value = if self.at(Tok::Assign) {
                        self.bump();
                        self.integer("an integer initial value")?.0
                    } else {
                        0
                    };
                    return self.b.declare_space(name, kind, value, first.span);
                }
                let (word, wspan) =
                    self.ident("a proxy (`generic`, `surface`, `texture` or `constant`)")?;
                let proxy = alias_proxy(word).ok_or_else(|| {
                    ParseError::new(ParseErrorKind::UnknownProxy(word.to_string()), wspan)
                })?;
                if !self.at_word("aliases") {
                    return Err(self.expected("`aliases`"));
                }
                self.bump();
                let target_tok = self.peek();
                let target = self.location_name()?;
                self.b
                    .declare_alias(name, proxy, target, first.span, target_tok.span)
            }
            (Tok::Ident, Tok::Ident)
                if matches!(self.text(first), "kernel" | "stream" | "graph" | "host") =>
            {
                self.api_entry()
            }
            (Tok::Ident, _) => {
                let name = self.location_name()?;
                self.expect(Tok::Assign, "`=` after the location name")?;
                let (value, _) = self.integer("an integer initial value")?;
                self.b.declare_location(name, value, first.span)
            }
            _ => Err(self
                .expected("an initial-state entry (`x=0`, `P0:r0=0` or `y @ generic aliases x`)")),
        }
    }

    /// A memory location name (an identifier that is not a `%register`).
    pub(super) fn location_name(&mut self) -> PResult<&'s str> {
        let t = self.expect(Tok::Ident, "a location name")?;
        let name = self.text(t);
        if name.starts_with('%') {
            return Err(ParseError::new(
                ParseErrorKind::RegisterAsLocation(name.to_string()),
                t.span,
            ));
        }
        Ok(name)
    }
}
