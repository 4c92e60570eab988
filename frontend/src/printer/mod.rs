//! The printer: IR back to litmus text that [`crate::parse`] reads back to the same IR.
//!
//! The layout is the corpus dialect's: header, one initial-state entry per line
//! (every address but the offsets `[x+N]` and the threads' `.local` copies, in
//! [`AddrId`] order; the parser numbers those two after the others, in an order
//! of their own, `parser/canonical.rs`, so that ids survive the round trip), the
//! thread table with padded columns (thread `i`'s `k`-th statement in row `k`),
//! then `locations`, `filter` and the condition. Instructions the dialect can
//! spell are printed in the dialect (`ld.acquire.gpu r1, y`); typed and vector
//! accesses in PTX spelling (`ld.relaxed.sys.global.b32 %r0, [x]`).

mod async_instr;
mod host;
mod instr;
mod words;

use crate::ir::{AddrId, AddrKind, CmpOp, Prop, Term, Test};
use std::fmt::Write;

/// Prints a test.
pub(crate) fn print(t: &Test) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "PTX {}", t.name);
    for d in &t.docs {
        let _ = writeln!(out, "\"{d}\"");
    }
    out.push_str("{\n");
    for (i, a) in t.addresses.iter().enumerate() {
        let name = addr(t, AddrId::new(i));
        let _ = match a.kind {
            AddrKind::Root => {
                let v = t.init_mem.get(a.phys.index()).copied().unwrap_or(0);
                writeln!(out, "{name}={v};")
            }
            AddrKind::GenericAlias(of) => {
                writeln!(out, "{name} @ generic aliases {};", addr(t, of))
            }
            AddrKind::ProxyAlias(p, of) => writeln!(out, "{name} @ {} aliases {};", p, addr(t, of)),
            AddrKind::Multimem => {
                let members = t.multimem.iter().find(|(m, _)| *m == AddrId::new(i));
                let names: Vec<String> = members
                    .map(|(_, ms)| ms.iter().map(|&m| addr(t, m)).collect())
                    .unwrap_or_default();
                if names.is_empty() {
                    writeln!(out, "{name} @ multimem;")
                } else {
                    writeln!(out, "{name} @ multimem {};", names.join(", "))
                }
            }
            AddrKind::Local | AddrKind::Param => {
                let v = t.init_mem.get(a.phys.index()).copied().unwrap_or(0);
                let space = if a.kind == AddrKind::Local {
                    "local"
                } else {
                    "param"
                };
                writeln!(out, "{name} @ {space} = {v};")
            }
            // `[x+N]` is written in the instructions only, and so is a
            // thread's copy of a `.local` location (as the location's name).
            AddrKind::Offset(..) | AddrKind::LocalCopy(..) => Ok(()),
        };
    }
    for d in &t.declarations {
        let _ = writeln!(out, "{d};");
    }
    for k in &t.api.kernels {
        let threads: Vec<String> = k
            .threads
            .iter()
            .map(|t| format!("P{}", t.index()))
            .collect();
        let _ = writeln!(out, "kernel {} = {};", k.name, threads.join(", "));
    }
    host::declarations(t, &mut out);
    for &(th, r, v) in &t.init_regs {
        let _ = writeln!(
            out,
            "P{}:{}={v};",
            th.index(),
            words::reg_name(t, th.index(), r)
        );
    }
    out.push_str("}\n");
    table(t, &mut out);
    if !t.observed.is_empty() {
        let terms: Vec<String> = t.observed.iter().map(|x| term(t, x)).collect();
        let _ = writeln!(out, "locations [{};]", terms.join("; "));
    }
    if let Some(f) = &t.filter {
        let _ = writeln!(out, "filter {}", top_prop(t, f));
    }
    let q = t.condition.quantifier;
    let _ = writeln!(out, "{q} {}", top_prop(t, &t.condition.prop));
    out
}

/// The thread header row and the instruction rows, columns padded to equal width.
fn table(t: &Test, out: &mut String) {
    let mut columns: Vec<Vec<String>> = Vec::with_capacity(t.threads.len());
    for (i, th) in t.threads.iter().enumerate() {
        let p = th.placement;
        let mut col = Vec::with_capacity(th.code.len() + 1);
        col.push(if th.explicit_cluster {
            format!("P{i}@cta {},cluster {},gpu {}", p.cta, p.cluster, p.gpu)
        } else {
            format!("P{i}@cta {},gpu {}", p.cta, p.gpu)
        });
        let mut via: words::Via = [None; 3];
        for s in &th.code {
            if let crate::ir::Instr::AddrReg {
                reg,
                offset,
                operand,
            } = s.instr
            {
                via[operand.index()] = Some((reg, offset));
                continue;
            }
            col.push(instr::stmt_via(t, i, &s.instr, std::mem::take(&mut via)));
        }
        columns.push(col);
    }
    columns_table(&columns, out);
}

/// Writes `columns` (one per thread: its header cell, then one cell per
/// statement) as the rows of a litmus thread table, each column padded to
/// its widest cell. Shared by the printer and the generators.
pub(crate) fn columns_table(columns: &[Vec<String>], out: &mut String) {
    let widths: Vec<usize> = columns
        .iter()
        .map(|c| c.iter().map(|s| s.chars().count()).max().unwrap_or(0))
        .collect();
    let rows = columns.iter().map(Vec::len).max().unwrap_or(1);
    for row in 0..rows {
        let mut line = String::new();
        for (c, col) in columns.iter().enumerate() {
            let cell = col.get(row).map_or("", String::as_str);
            let sep = if c + 1 == columns.len() { ';' } else { '|' };
            let pad = widths[c] - cell.chars().count();
            let _ = write!(line, " {cell}{} {sep}", " ".repeat(pad));
        }
        if columns.is_empty() {
            line.push_str(" ;");
        }
        out.push_str(&line);
        out.push('\n');
    }
}

/// The name of an address (a placeholder if the IR is inconsistent).
pub(super) fn addr(t: &Test, a: AddrId) -> String {
    // A thread's copy of a `.local` location is written as the location
    // (`l`, `l+4`): the thread that accesses it picks the copy.
    match t.addresses.get(a.index()).map(|ad| ad.kind) {
        Some(AddrKind::LocalCopy(l, _)) => return addr(t, l),
        Some(AddrKind::Offset(b, off))
            if matches!(
                t.addresses.get(b.index()).map(|ad| ad.kind),
                Some(AddrKind::LocalCopy(..))
            ) =>
        {
            return format!("{}+{off}", addr(t, b));
        }
        _ => {}
    }
    t.symbols
        .addrs
        .get(a.index())
        .cloned()
        .unwrap_or_else(|| format!("addr{}", a.index()))
}

fn term(t: &Test, x: &Term) -> String {
    match *x {
        Term::Const(c) => c.to_string(),
        Term::Reg(th, r) => format!("P{}:{}", th.index(), words::reg_name(t, th.index(), r)),
        Term::Mem(a) => addr(t, a),
    }
}

fn cmp(op: CmpOp) -> &'static str {
    op.symbol()
}

/// A proposition in parentheses, as the corpus writes conditions.
fn top_prop(t: &Test, p: &Prop) -> String {
    match p {
        Prop::True | Prop::False | Prop::Not(_) => prop(t, p, Prec::Or),
        _ => format!("({})", prop(t, p, Prec::Or)),
    }
}

/// Binding strength of a context: what may appear without parentheses.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Prec {
    /// Anything.
    Or,
    /// Conjunctions and tighter.
    And,
    /// Atoms and negations only.
    Unary,
}

/// Prints `p` in a context of strength `ctx`; connectives associate to the left,
/// so a right operand of equal strength gets parentheses.
fn prop(t: &Test, p: &Prop, ctx: Prec) -> String {
    let (s, own) = match p {
        Prop::True => ("true".to_string(), Prec::Unary),
        Prop::False => ("false".to_string(), Prec::Unary),
        Prop::Cmp(op, a, b) => (
            format!("{} {} {}", term(t, a), cmp(*op), term(t, b)),
            Prec::Unary,
        ),
        Prop::Not(q) => {
            let inner = match **q {
                Prop::True | Prop::False | Prop::Not(_) => prop(t, q, Prec::Unary),
                _ => format!("({})", prop(t, q, Prec::Or)),
            };
            (format!("~{inner}"), Prec::Unary)
        }
        Prop::And(a, b) => (
            format!("{} /\\ {}", prop(t, a, Prec::And), prop(t, b, Prec::Unary)),
            Prec::And,
        ),
        Prop::Or(a, b) => (
            format!("{} \\/ {}", prop(t, a, Prec::Or), prop(t, b, Prec::And)),
            Prec::Or,
        ),
    };
    if own < ctx {
        format!("({s})")
    } else {
        s
    }
}

#[cfg(test)]
mod tests;
