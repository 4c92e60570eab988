//! Parsing an outcome given on the command line (`explain --outcome`): a
//! proposition in the syntax of a litmus condition, resolved against a
//! parsed test's registers and locations.
//!
//! `~` / `not` bind tightest, then `/\`, then `\/`; atoms are `T cmp T`
//! (`=` is `==`), `true`, `false` and parenthesized propositions; terms are
//! `P1:r0` / `1:r0` / `1:%r0`, a location (`x` or `[x]`), or an integer.

use ptxmc_frontend::ir::{AddrId, CmpOp, Prop, RegId, Term, Test, ThreadId};

/// Deepest nesting accepted.
const MAX_DEPTH: usize = 200;

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Word(String),
    Int(i64),
    Colon,
    LParen,
    RParen,
    LBracket,
    RBracket,
    And,
    Or,
    Not,
    Cmp(CmpOp),
}

fn lex(s: &str) -> Result<Vec<(usize, Tok)>, String> {
    let cs: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        let at = i + 1;
        let two = cs.get(i + 1).copied();
        let (tok, len) = match (c, two) {
            (c, _) if c.is_whitespace() => {
                i += 1;
                continue;
            }
            ('/', Some('\\')) => (Tok::And, 2),
            ('\\', Some('/')) => (Tok::Or, 2),
            ('&', Some('&')) => (Tok::And, 2),
            ('|', Some('|')) => (Tok::Or, 2),
            ('=', Some('=')) => (Tok::Cmp(CmpOp::Eq), 2),
            ('!', Some('=')) => (Tok::Cmp(CmpOp::Ne), 2),
            ('<', Some('=')) => (Tok::Cmp(CmpOp::Le), 2),
            ('>', Some('=')) => (Tok::Cmp(CmpOp::Ge), 2),
            ('=', _) => (Tok::Cmp(CmpOp::Eq), 1),
            ('<', _) => (Tok::Cmp(CmpOp::Lt), 1),
            ('>', _) => (Tok::Cmp(CmpOp::Gt), 1),
            ('~', _) | ('!', _) => (Tok::Not, 1),
            (':', _) => (Tok::Colon, 1),
            ('(', _) => (Tok::LParen, 1),
            (')', _) => (Tok::RParen, 1),
            ('[', _) => (Tok::LBracket, 1),
            (']', _) => (Tok::RBracket, 1),
            (c, _) if c.is_ascii_digit() || c == '-' => {
                let mut j = i + 1;
                while j < cs.len() && cs[j].is_ascii_alphanumeric() {
                    j += 1;
                }
                let text: String = cs[i..j].iter().collect();
                let v = parse_int(&text)
                    .ok_or_else(|| format!("column {at}: `{text}` is not an integer"))?;
                (Tok::Int(v), j - i)
            }
            (c, _) if c.is_alphanumeric() || matches!(c, '_' | '%' | '$' | '.') => {
                let mut j = i + 1;
                while j < cs.len()
                    && (cs[j].is_alphanumeric() || matches!(cs[j], '_' | '%' | '$' | '.'))
                {
                    j += 1;
                }
                (Tok::Word(cs[i..j].iter().collect()), j - i)
            }
            (c, _) => return Err(format!("column {at}: unexpected `{c}`")),
        };
        out.push((at, tok));
        i += len;
    }
    Ok(out)
}

fn parse_int(t: &str) -> Option<i64> {
    let (neg, body) = match t.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, t),
    };
    let v = match body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        Some(h) => i64::from_str_radix(h, 16).ok()?,
        None => body.parse::<i64>().ok()?,
    };
    Some(if neg { v.checked_neg()? } else { v })
}

struct P<'a> {
    toks: Vec<(usize, Tok)>,
    i: usize,
    test: &'a Test,
    len: usize,
}

impl P<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.i).map(|(_, t)| t)
    }
    fn at(&self) -> String {
        match self.toks.get(self.i) {
            Some((c, _)) => format!("column {c}"),
            None => format!("column {} (end)", self.len + 1),
        }
    }
    fn prop(&mut self, d: usize) -> Result<Prop, String> {
        let mut p = self.conj(d)?;
        while self.peek() == Some(&Tok::Or) {
            self.i += 1;
            let r = self.conj(d + 1)?;
            p = Prop::Or(Box::new(p), Box::new(r));
        }
        Ok(p)
    }
    fn conj(&mut self, d: usize) -> Result<Prop, String> {
        let mut p = self.unary(d)?;
        while self.peek() == Some(&Tok::And) {
            self.i += 1;
            let r = self.unary(d + 1)?;
            p = Prop::And(Box::new(p), Box::new(r));
        }
        Ok(p)
    }
    fn unary(&mut self, d: usize) -> Result<Prop, String> {
        if d > MAX_DEPTH {
            return Err(format!("{}: the proposition nests too deeply", self.at()));
        }
        let is_word = |t: Option<&Tok>, w: &str| matches!(t, Some(Tok::Word(x)) if x == w);
        let next_is_cmp = matches!(self.toks.get(self.i + 1).map(|(_, t)| t), Some(Tok::Cmp(_)));
        match self.peek() {
            Some(Tok::Not) => {
                self.i += 1;
                return Ok(Prop::Not(Box::new(self.unary(d + 1)?)));
            }
            t if is_word(t, "not") && !next_is_cmp => {
                self.i += 1;
                return Ok(Prop::Not(Box::new(self.unary(d + 1)?)));
            }
            Some(Tok::LParen) => {
                self.i += 1;
                let p = self.prop(d + 1)?;
                if self.peek() != Some(&Tok::RParen) {
                    return Err(format!("{}: expected `)`", self.at()));
                }
                self.i += 1;
                return Ok(p);
            }
            t if (is_word(t, "true") || is_word(t, "false")) && !next_is_cmp => {
                let v = is_word(t, "true");
                self.i += 1;
                return Ok(if v { Prop::True } else { Prop::False });
            }
            _ => {}
        }
        let a = self.term()?;
        let op = match self.peek() {
            Some(Tok::Cmp(op)) => *op,
            _ => {
                return Err(format!(
                    "{}: expected a comparison (`==`, `!=`, `<`, `<=`, `>`, `>=`)",
                    self.at()
                ))
            }
        };
        self.i += 1;
        let b = self.term()?;
        Ok(Prop::Cmp(op, a, b))
    }
    fn term(&mut self) -> Result<Term, String> {
        let here = self.at();
        match self.peek().cloned() {
            Some(Tok::Int(v)) if self.toks.get(self.i + 1).map(|(_, t)| t) != Some(&Tok::Colon) => {
                self.i += 1;
                Ok(Term::Const(v))
            }
            Some(Tok::Int(_)) | Some(Tok::Word(_))
                if self.toks.get(self.i + 1).map(|(_, t)| t) == Some(&Tok::Colon) =>
            {
                let thread = match self.peek() {
                    Some(Tok::Int(v)) => usize::try_from(*v).ok(),
                    Some(Tok::Word(w)) => w
                        .strip_prefix('P')
                        .or_else(|| w.strip_prefix('p'))
                        .and_then(|n| n.parse().ok()),
                    _ => None,
                };
                let Some(t) = thread.filter(|&t| t < self.test.threads.len()) else {
                    return Err(format!(
                        "{here}: no such thread (the test has P0..P{})",
                        self.test.threads.len().saturating_sub(1)
                    ));
                };
                self.i += 2;
                let Some(Tok::Word(reg)) = self.peek().cloned() else {
                    return Err(format!("{}: expected a register name after `:`", self.at()));
                };
                self.i += 1;
                let name = reg.trim_start_matches('%');
                let regs = self.test.symbols.regs.get(t).map_or(&[][..], Vec::as_slice);
                match regs.iter().position(|r| r == name) {
                    Some(r) => Ok(Term::Reg(ThreadId::new(t), RegId::new(r))),
                    None => Err(format!("{here}: P{t} has no register `{reg}`")),
                }
            }
            Some(Tok::Word(w)) => {
                self.i += 1;
                self.location(&w, &here)
            }
            Some(Tok::LBracket) => {
                self.i += 1;
                let Some(Tok::Word(w)) = self.peek().cloned() else {
                    return Err(format!("{}: expected a location after `[`", self.at()));
                };
                self.i += 1;
                if self.peek() != Some(&Tok::RBracket) {
                    return Err(format!("{}: expected `]`", self.at()));
                }
                self.i += 1;
                self.location(&w, &here)
            }
            _ => Err(format!(
                "{here}: expected a register such as `P0:r0`, a location, or an integer"
            )),
        }
    }
    fn location(&self, w: &str, here: &str) -> Result<Term, String> {
        match self.test.symbols.addrs.iter().position(|a| a == w) {
            Some(a) => Ok(Term::Mem(AddrId::new(a))),
            None => Err(format!("{here}: the test has no location `{w}`")),
        }
    }
}

/// Parses `s` as a proposition over `test`'s final values.
pub fn parse(s: &str, test: &Test) -> Result<Prop, String> {
    let toks = lex(s)?;
    let mut p = P {
        toks,
        i: 0,
        test,
        len: s.chars().count(),
    };
    let prop = p.prop(0)?;
    if p.i < p.toks.len() {
        return Err(format!(
            "{}: unexpected input after the proposition",
            p.at()
        ));
    }
    Ok(prop)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MP: &str = "PTX MP\n{ x=0; y=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.weak x, 1 | ld.acquire.gpu r0, y ;\n st.release.gpu y, 1 | ld.weak %r1, x ;\n~exists (1:r0 == 1 /\\ 1:r1 == 0)\n";

    #[test]
    fn parses_what_conditions_say() {
        let t = ptxmc_frontend::parse(MP).expect("parses");
        let p = parse("P1:r0 == 1 /\\ 1:%r1 = 0", &t).expect("parses");
        assert_eq!(p, t.condition.prop);
        assert!(parse("~(x == 1) \\/ [y] != -2 /\\ true", &t).is_ok());
        for bad in [
            "P2:r0 == 1",
            "P1:r9 == 1",
            "z == 1",
            "1:r0 ==",
            "(1:r0 == 1",
            "1:r0 == 1 )",
            "1:r0 == 1 #",
            "",
        ] {
            assert!(parse(bad, &t).is_err(), "{bad}");
        }
        let deep = format!("{}x == 1{}", "(".repeat(5000), ")".repeat(5000));
        assert!(parse(&deep, &t).is_err());
    }
}
