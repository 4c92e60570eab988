//! The lexer: litmus source text to spanned tokens.
//!
//! Trivia are whitespace, `(* ... *)` comments (which nest, as in OCaml and herd)
//! and `//` line comments. Identifiers take PTX's dotted form as one token
//! (`ld.global.relaxed.sys.u32`, `fence.proxy.async::shared::cta`, `%r0`,
//! `$L__BB0_1`); numbers are decimal or `0x` hexadecimal; `/\` and `\/` are the
//! connectives of conditions. The header of a test (`PTX name` and free text up
//! to `{`) is not tokenized: [`Lexer::raw_word`], [`Lexer::string`] and
//! [`Lexer::skip_char`] scan it.

use crate::error::{ParseError, ParseErrorKind};
use crate::ir::Span;

/// Token kinds. The text of a token is `src[start..end]`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    /// A (possibly dotted) identifier or mnemonic.
    Ident,
    /// An integer literal, by magnitude (the sign is a separate [`Tok::Minus`]).
    Int(u64),
    /// A numeric literal that is not an integer (`1.5`, `0f3F800000`).
    Number,
    /// A `"quoted string"`.
    Str,
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `[`
    LBracket,
    /// `]`
    RBracket,
    /// `|`
    Pipe,
    /// `;`
    Semi,
    /// `,`
    Comma,
    /// `:`
    Colon,
    /// `@`
    At,
    /// `~`
    Tilde,
    /// `!`
    Bang,
    /// `+`
    Plus,
    /// `-`
    Minus,
    /// `=`
    Assign,
    /// `==`
    EqEq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `/\`
    And,
    /// `\/`
    Or,
    /// End of input (always the last token).
    Eof,
}

/// A token with its byte range and its source positions.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Token {
    /// The kind.
    pub tok: Tok,
    /// Byte offset of the first character.
    pub start: usize,
    /// Byte offset after the last character.
    pub end: usize,
    /// Position of the first character.
    pub span: Span,
    /// Position just after the last character.
    pub end_span: Span,
}

/// A cursor over the source that tracks lines and columns.
pub(crate) struct Lexer<'s> {
    src: &'s str,
    pos: usize,
    line: u32,
    col: u32,
}

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || c == '$'
}

fn is_ident_continue(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

/// How an unexpected character is shown in a message.
pub(crate) fn describe_char(c: char) -> String {
    if c.is_ascii_graphic() {
        format!("`{c}`")
    } else if c.is_control() || c.is_whitespace() || c == '\u{FFFD}' {
        format!("U+{:04X}", c as u32)
    } else {
        format!("`{c}` (U+{:04X})", c as u32)
    }
}

impl<'s> Lexer<'s> {
    /// A lexer at the start of `src`.
    pub fn new(src: &'s str) -> Self {
        Lexer {
            src,
            pos: 0,
            line: 1,
            col: 1,
        }
    }

    /// The current position.
    pub fn span(&self) -> Span {
        Span {
            line: self.line,
            col: self.col,
        }
    }

    /// The next character, if any.
    pub fn peek(&self) -> Option<char> {
        self.src[self.pos..].chars().next()
    }

    fn peek2(&self) -> Option<char> {
        let mut it = self.src[self.pos..].chars();
        it.next();
        it.next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        if c == '\n' {
            self.line = self.line.saturating_add(1);
            self.col = 1;
        } else {
            self.col = self.col.saturating_add(1);
        }
        Some(c)
    }

    /// Skips one character (header free text).
    pub fn skip_char(&mut self) {
        self.bump();
    }

    /// Skips whitespace and comments.
    pub fn skip_trivia(&mut self) -> Result<(), ParseError> {
        loop {
            match (self.peek(), self.peek2()) {
                (Some(c), _) if c.is_whitespace() => {
                    self.bump();
                }
                (Some('('), Some('*')) => self.comment()?,
                (Some('/'), Some('/')) => {
                    while let Some(c) = self.peek() {
                        if c == '\n' {
                            break;
                        }
                        self.bump();
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    /// A `(* ... *)` comment, nested ones included.
    fn comment(&mut self) -> Result<(), ParseError> {
        let start = self.span();
        self.bump();
        self.bump();
        let mut depth = 1usize;
        loop {
            match (self.peek(), self.peek2()) {
                (None, _) => {
                    return Err(ParseError::new(ParseErrorKind::UnterminatedComment, start));
                }
                (Some('*'), Some(')')) => {
                    self.bump();
                    self.bump();
                    depth -= 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                (Some('('), Some('*')) => {
                    self.bump();
                    self.bump();
                    depth += 1;
                }
                _ => {
                    self.bump();
                }
            }
        }
    }

    /// A run of characters up to whitespace, `{` or `"` (the header's `PTX` and name).
    pub fn raw_word(&mut self) -> (&'s str, Span) {
        let span = self.span();
        let start = self.pos;
        while let Some(c) = self.peek() {
            if c.is_whitespace() || c == '{' || c == '"' {
                break;
            }
            self.bump();
        }
        (&self.src[start..self.pos], span)
    }

    /// A `"..."` string at the cursor; returns its contents (without quotes).
    pub fn string(&mut self) -> Result<(&'s str, Span), ParseError> {
        let span = self.span();
        self.bump();
        let start = self.pos;
        loop {
            match self.bump() {
                None => return Err(ParseError::new(ParseErrorKind::UnterminatedString, span)),
                Some('"') => return Ok((&self.src[start..self.pos - 1], span)),
                Some(_) => {}
            }
        }
    }

    /// Tokenizes the rest of the input; the last token is [`Tok::Eof`].
    pub fn tokenize(mut self) -> Result<Vec<Token>, ParseError> {
        let mut out = Vec::new();
        loop {
            let t = self.next_token()?;
            out.push(t);
            if t.tok == Tok::Eof {
                return Ok(out);
            }
        }
    }

    fn next_token(&mut self) -> Result<Token, ParseError> {
        self.skip_trivia()?;
        let start = self.pos;
        let span = self.span();
        let Some(c) = self.peek() else {
            return Ok(self.token(Tok::Eof, start, span));
        };
        let next = self.peek2();
        let tok = match c {
            '"' => {
                self.string()?;
                Tok::Str
            }
            c if is_ident_start(c) => {
                self.ident_rest();
                Tok::Ident
            }
            // A directive in a thread (`.reg .b32 %r<4>`).
            '.' if next.is_some_and(|n| n.is_ascii_alphabetic()) => {
                self.bump();
                self.ident_rest();
                Tok::Ident
            }
            '%' if next.is_some_and(is_ident_start) => {
                self.bump();
                self.ident_rest();
                Tok::Ident
            }
            c if c.is_ascii_digit() => self.number(start, span)?,
            _ => {
                self.bump();
                match (c, next) {
                    ('=', Some('=')) => self.two(Tok::EqEq),
                    ('!', Some('=')) => self.two(Tok::Ne),
                    ('<', Some('=')) => self.two(Tok::Le),
                    ('>', Some('=')) => self.two(Tok::Ge),
                    ('/', Some('\\')) => self.two(Tok::And),
                    ('\\', Some('/')) => self.two(Tok::Or),
                    ('=', _) => Tok::Assign,
                    ('!', _) => Tok::Bang,
                    ('<', _) => Tok::Lt,
                    ('>', _) => Tok::Gt,
                    ('{', _) => Tok::LBrace,
                    ('}', _) => Tok::RBrace,
                    ('(', _) => Tok::LParen,
                    (')', _) => Tok::RParen,
                    ('[', _) => Tok::LBracket,
                    (']', _) => Tok::RBracket,
                    ('|', _) => Tok::Pipe,
                    (';', _) => Tok::Semi,
                    (',', _) => Tok::Comma,
                    (':', _) => Tok::Colon,
                    ('@', _) => Tok::At,
                    ('~', _) => Tok::Tilde,
                    ('+', _) => Tok::Plus,
                    ('-', _) => Tok::Minus,
                    _ => {
                        return Err(ParseError::new(
                            ParseErrorKind::UnexpectedChar(describe_char(c)),
                            span,
                        ))
                    }
                }
            }
        };
        Ok(self.token(tok, start, span))
    }

    fn two(&mut self, tok: Tok) -> Tok {
        self.bump();
        tok
    }

    fn token(&self, tok: Tok, start: usize, span: Span) -> Token {
        Token {
            tok,
            start,
            end: self.pos,
            span,
            end_span: self.span(),
        }
    }

    /// The rest of an identifier: word characters, `.word` and `::word`.
    fn ident_rest(&mut self) {
        self.bump();
        loop {
            match (self.peek(), self.peek2()) {
                (Some(c), _) if is_ident_continue(c) => {
                    self.bump();
                }
                (Some('.'), Some(d)) if is_ident_continue(d) => {
                    self.bump();
                }
                (Some(':'), Some(':')) => {
                    let rest = &self.src[self.pos + 2..];
                    if rest.chars().next().is_some_and(is_ident_continue) {
                        self.bump();
                        self.bump();
                    } else {
                        return;
                    }
                }
                _ => return,
            }
        }
    }

    /// A numeric literal: `123`, `0x1F`, or another word starting with a digit.
    fn number(&mut self, start: usize, span: Span) -> Result<Tok, ParseError> {
        while let (Some(c), d) = (self.peek(), self.peek2()) {
            if is_ident_continue(c) || (c == '.' && d.is_some_and(is_ident_continue)) {
                self.bump();
            } else {
                break;
            }
        }
        let text = &self.src[start..self.pos];
        let hex = text
            .strip_prefix("0x")
            .or_else(|| text.strip_prefix("0X"))
            .filter(|h| !h.is_empty() && h.chars().all(|c| c.is_ascii_hexdigit()));
        let parsed = if let Some(h) = hex {
            u64::from_str_radix(h, 16)
        } else if text.chars().all(|c| c.is_ascii_digit()) {
            text.parse::<u64>()
        } else {
            return Ok(Tok::Number);
        };
        parsed
            .map(Tok::Int)
            .map_err(|_| ParseError::new(ParseErrorKind::IntOutOfRange(text.to_string()), span))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<Tok> {
        Lexer::new(src)
            .tokenize()
            .expect("lexes")
            .into_iter()
            .map(|t| t.tok)
            .collect()
    }

    fn texts(src: &str) -> Vec<String> {
        Lexer::new(src)
            .tokenize()
            .expect("lexes")
            .into_iter()
            .map(|t| src[t.start..t.end].to_string())
            .collect()
    }

    #[test]
    fn dotted_mnemonics_are_one_token() {
        assert_eq!(
            texts("ld.global.relaxed.sys.u32 %r0, [x];"),
            [
                "ld.global.relaxed.sys.u32",
                "%r0",
                ",",
                "[",
                "x",
                "]",
                ";",
                ""
            ]
        );
        assert_eq!(
            texts("fence.proxy.async::shared::cta st.shared::cluster.b32"),
            [
                "fence.proxy.async::shared::cta",
                "st.shared::cluster.b32",
                ""
            ]
        );
    }

    #[test]
    fn thread_registers_split_at_single_colon() {
        assert_eq!(texts("P1:r0 1:r2"), ["P1", ":", "r0", "1", ":", "r2", ""]);
        assert_eq!(texts("LC00:"), ["LC00", ":", ""]);
    }

    #[test]
    fn connectives_and_comparisons() {
        use Tok::*;
        assert_eq!(
            kinds(r"~(a /\ b \/ c) == != <= >= < > = !"),
            [
                Tilde, LParen, Ident, And, Ident, Or, Ident, RParen, EqEq, Ne, Le, Ge, Lt, Gt,
                Assign, Bang, Eof
            ]
        );
    }

    #[test]
    fn numbers() {
        assert_eq!(
            kinds("0x1F 42 -7"),
            [
                Tok::Int(31),
                Tok::Int(42),
                Tok::Minus,
                Tok::Int(7),
                Tok::Eof
            ]
        );
        assert_eq!(
            kinds("1.5 0f3F800000"),
            [Tok::Number, Tok::Number, Tok::Eof]
        );
        let e = Lexer::new("99999999999999999999").tokenize().unwrap_err();
        assert!(matches!(e.kind, ParseErrorKind::IntOutOfRange(_)));
    }

    #[test]
    fn comments_nest_and_line_comments_end_at_newline() {
        assert_eq!(texts("a (* b (* c *) d *) e // f\ng"), ["a", "e", "g", ""]);
        let e = Lexer::new("a (* b").tokenize().unwrap_err();
        assert_eq!(
            e.to_string(),
            "1:3: unterminated comment: `(*` has no matching `*)`"
        );
    }

    #[test]
    fn strings_and_spans() {
        let toks = Lexer::new("x\n  \"doc\nmore\" y")
            .tokenize()
            .expect("lexes");
        assert_eq!(toks[1].tok, Tok::Str);
        assert_eq!(toks[1].span, Span { line: 2, col: 3 });
        assert_eq!(toks[2].span, Span { line: 3, col: 7 });
        let e = Lexer::new("\"abc").tokenize().unwrap_err();
        assert!(matches!(e.kind, ParseErrorKind::UnterminatedString));
    }

    #[test]
    fn unexpected_characters_are_named() {
        let e = Lexer::new("x # y").tokenize().unwrap_err();
        assert_eq!(e.to_string(), "1:3: unexpected character `#`");
        let e = Lexer::new("\u{0}").tokenize().unwrap_err();
        assert_eq!(e.to_string(), "1:1: unexpected character U+0000");
        let e = Lexer::new("%").tokenize().unwrap_err();
        assert_eq!(e.to_string(), "1:1: unexpected character `%`");
    }
}
