//! Parse errors: a typed kind, the source position, and a rendering with a caret line.

use crate::ir::Span;
use thiserror::Error;

/// Why a litmus file could not be parsed, and where.
///
/// `Display` is one line, `LINE:COL: message`; [`ParseError::render`] adds the
/// file name, the offending source line and a caret under the column.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("{span}: {kind}")]
pub struct ParseError {
    /// What went wrong.
    pub kind: ParseErrorKind,
    /// Where (1-based line and column, columns counted in characters).
    pub span: Span,
}

impl ParseError {
    /// Builds an error.
    pub fn new(kind: ParseErrorKind, span: Span) -> Self {
        ParseError { kind, span }
    }

    /// The instruction `instr` at `span` cannot be read, for `reason`.
    pub fn bad_instruction(instr: &str, reason: String, span: Span) -> Self {
        Self::new(
            ParseErrorKind::BadInstruction {
                instr: instr.into(),
                reason,
            },
            span,
        )
    }

    /// Renders the error for a terminal (three lines, no final newline):
    ///
    /// ```text
    /// file.litmus:3:16: error: expected `;` after instruction, found `ld.weak`
    ///  st.weak x, 1 | ld.weak r0, x
    ///                ^
    /// ```
    ///
    /// `src` must be the text that was parsed. Tabs of the source line are kept in
    /// the caret line so that the caret stays aligned.
    pub fn render(&self, file: &str, src: &str) -> String {
        let line_no = self.span.line.max(1) as usize;
        let line = src
            .split('\n')
            .nth(line_no - 1)
            .unwrap_or("")
            .trim_end_matches('\r');
        let mut caret = String::new();
        let before = self.span.col.max(1) as usize - 1;
        for c in line.chars().take(before) {
            caret.push(if c == '\t' { '\t' } else { ' ' });
        }
        // The column may lie past the end of the line (end of file, missing `;`).
        let shown = line.chars().count().min(before);
        for _ in shown..before {
            caret.push(' ');
        }
        caret.push('^');
        format!(
            "{file}:{}:{}: error: {}\n{line}\n{caret}",
            self.span.line, self.span.col, self.kind
        )
    }
}

/// The kinds of parse errors.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParseErrorKind {
    /// The input holds nothing but whitespace and comments.
    #[error("empty input: expected a test header `PTX <name>`")]
    Empty,
    /// A character that starts no token.
    #[error("unexpected character {0}")]
    UnexpectedChar(String),
    /// `(*` without its `*)`.
    #[error("unterminated comment: `(*` has no matching `*)`")]
    UnterminatedComment,
    /// `"` without its closing `"`.
    #[error("unterminated string: `\"` has no matching `\"`")]
    UnterminatedString,
    /// An integer literal that does not fit.
    #[error("integer `{0}` does not fit in a signed 64-bit integer")]
    IntOutOfRange(String),
    /// The file does not start with `PTX`.
    #[error("expected `PTX` at the start of the test, found {0}")]
    ExpectedArch(String),
    /// `PTX` without a name.
    #[error("expected a test name after `PTX`")]
    MissingName,
    /// No `{` after the header.
    #[error("expected `{{` to open the initial state, found end of file")]
    MissingInitBlock,
    /// A token other than the one the grammar needs.
    #[error("expected {expected}, found {found}")]
    Expected {
        /// What the grammar needs here.
        expected: String,
        /// What is there (a quoted token or `end of file`).
        found: String,
    },
    /// An instruction mnemonic that is neither PTX nor the corpus dialect.
    #[error("unknown instruction `{0}`")]
    UnknownInstruction(String),
    /// A `.modifier` that the instruction does not take.
    #[error("unknown modifier `.{modifier}` in `{instr}`")]
    UnknownModifier {
        /// The whole mnemonic.
        instr: String,
        /// The modifier, without its dot.
        modifier: String,
    },
    /// Two modifiers of one category (two scopes, two semantics, ...).
    #[error("conflicting modifiers `.{first}` and `.{second}` in `{instr}`")]
    ConflictingModifiers {
        /// The whole mnemonic.
        instr: String,
        /// The first modifier.
        first: String,
        /// The second modifier.
        second: String,
    },
    /// A semantics the instruction cannot have (`ld.release`, `atom.weak`, ...).
    #[error("`{instr}` cannot have `.{sem}` semantics")]
    BadSemantics {
        /// The whole mnemonic.
        instr: String,
        /// The semantics, without its dot.
        sem: String,
    },
    /// A strong operation or fence without a scope.
    #[error("`{instr}` needs a scope (`.cta`, `.cluster`, `.gpu` or `.sys`)")]
    MissingScope {
        /// The whole mnemonic.
        instr: String,
    },
    /// `atom` / `red` without an operation.
    #[error("`{instr}` needs an operation such as `.add`, `.exch` or `.cas`")]
    MissingRmwOp {
        /// The whole mnemonic.
        instr: String,
    },
    /// Any other inconsistency inside one instruction.
    #[error("invalid `{instr}`: {reason}")]
    BadInstruction {
        /// The whole mnemonic.
        instr: String,
        /// Why.
        reason: String,
    },
    /// Wrong number of operands.
    #[error("`{instr}` takes {expected}, found {found}")]
    OperandCount {
        /// The whole mnemonic.
        instr: String,
        /// The accepted counts, in words (`2 operands`, `1 to 3 operands`).
        expected: &'static str,
        /// How many were given.
        found: usize,
    },
    /// An operand of the wrong form (a constant where a register is needed, ...).
    #[error("{what} of `{instr}` must be {expected}, found {found}")]
    BadOperand {
        /// The whole mnemonic.
        instr: String,
        /// Which operand (`destination`, `address`, ...).
        what: &'static str,
        /// What it must be.
        expected: &'static str,
        /// What it is.
        found: String,
    },
    /// A jump to a label that the thread does not define.
    #[error("label `{label}` is not defined in thread P{thread}")]
    UndefinedLabel {
        /// The label.
        label: String,
        /// The thread.
        thread: usize,
    },
    /// A label defined twice in one thread.
    #[error("label `{label}` is defined twice in thread P{thread}")]
    DuplicateLabel {
        /// The label.
        label: String,
        /// The thread.
        thread: usize,
    },
    /// `P0 ... | P0 ...` in the thread header row.
    #[error("duplicate thread header P{0}")]
    DuplicateThread(u64),
    /// Thread headers not numbered `P0, P1, ...` from left to right.
    #[error("expected thread header P{expected}, found P{found}")]
    ThreadOutOfOrder {
        /// The number the column needs.
        expected: u64,
        /// The number written.
        found: u64,
    },
    /// A thread header row without threads.
    #[error("the thread header row names no thread (expected `P0@cta 0,gpu 0 | ...`)")]
    NoThreads,
    /// `P0` without `@cta N,gpu N`.
    #[error("thread P{0} needs a placement, as in `P{0}@cta 0,gpu 0`")]
    MissingPlacement(u64),
    /// `cta` (or `gpu`, `cluster`) twice in one placement.
    #[error("`{field}` is given twice in the placement of thread P{thread}")]
    DuplicatePlacementField {
        /// The field.
        field: String,
        /// The thread.
        thread: u64,
    },
    /// A placement field other than `cta`, `cluster`, `gpu`.
    #[error("unknown placement field `{field}` for thread P{thread} (expected `cta`, `cluster`, `gpu`, `tid`, `ntid`, `nctaid`, `cluster_ctaid`, `cluster_nctaid` or `nclusterid`)")]
    UnknownPlacementField {
        /// The field.
        field: String,
        /// The thread.
        thread: u64,
    },
    /// A placement without `cta` or `gpu`.
    #[error("thread P{thread} has no `{field}` id in its placement")]
    MissingPlacementField {
        /// The missing field.
        field: &'static str,
        /// The thread.
        thread: u64,
    },
    /// Some threads name their cluster and others do not.
    #[error("thread P{named} names its cluster but thread P{unnamed} does not: either every thread names its cluster or none does")]
    MixedClusters {
        /// A thread with `cluster N`.
        named: usize,
        /// A thread without.
        unnamed: usize,
    },
    /// One CTA placed in two clusters.
    #[error("CTA {cta} of gpu {gpu} is in cluster {first} for P{first_thread} but in cluster {second} for P{second_thread}")]
    ClusterConflict {
        /// The CTA id.
        cta: u32,
        /// The GPU id.
        gpu: u32,
        /// The first cluster.
        first: u32,
        /// The thread that placed it first.
        first_thread: usize,
        /// The second cluster.
        second: u32,
        /// The thread that placed it second.
        second_thread: usize,
    },
    /// A non-empty cell right of the last thread's column.
    #[error("instruction in column {column} but there {}", only_threads(*.threads))]
    TooManyCells {
        /// The 0-based column.
        column: usize,
        /// The number of threads.
        threads: usize,
    },
    /// `P3:r0` in a test with fewer threads.
    #[error("register `{reg}` used in {place} for thread P{thread} but there {}", only_threads(*.threads))]
    RegOfMissingThread {
        /// The register.
        reg: String,
        /// The thread named.
        thread: u64,
        /// The number of threads.
        threads: usize,
        /// Where (`condition`, `filter`, `locations`, `the initial state`).
        place: &'static str,
    },
    /// `x=0; x=1;`.
    #[error("location `{0}` is declared twice in the initial state")]
    DuplicateLocation(String),
    /// `P0:r0=0; P0:r0=1;`.
    #[error("register `{reg}` of P{thread} is initialised twice")]
    DuplicateRegInit {
        /// The register.
        reg: String,
        /// The thread.
        thread: u64,
    },
    /// `y @ generic aliases x` where `x` was not declared before.
    #[error("`{alias}` aliases `{target}`, which is not declared before it in the initial state")]
    UndeclaredAliasTarget {
        /// The new name.
        alias: String,
        /// The name it aliases.
        target: String,
    },
    /// `y @ foo aliases x`.
    #[error("unknown proxy `{0}` (expected `generic`, `surface`, `texture` or `constant`)")]
    UnknownProxy(String),
    /// The file ends (or goes on) without a final condition.
    #[error(
        "expected the final condition (`exists`, `~exists`, `not exists` or `forall`), found {0}"
    )]
    MissingCondition(String),
    /// Tokens after the final condition.
    #[error("unexpected {0} after the final condition")]
    TrailingInput(String),
    /// A `kernel` or `stream` declaration that does not fit the test (8.9.4).
    #[error("{0}")]
    BadApi(String),
    /// A `tmap @ tensormap ...` or `s @ cluster ...` declaration that does
    /// not fit the test (`cp.async.bulk.tensor`, `.multicast::cluster`).
    #[error("{0}")]
    BadDeclaration(String),
    /// A `%name` (a register) where a location is needed.
    #[error("`{0}` is a register, not a memory location")]
    RegisterAsLocation(String),
    /// A register-held address (`[%rd1]`) that does not resolve to one location.
    #[error("cannot resolve the address `{text}` to a location: {reason}")]
    UnresolvedAddress {
        /// The address as written.
        text: String,
        /// Why.
        reason: String,
    },
    /// A `.local` or `.param` location used where its state space does not
    /// allow (issue 17, `docs/model-notes.md`).
    #[error("{0}")]
    BadSpaceUse(String),
    /// An address offset `[x+N]` outside the 32-bit signed immediate that a
    /// PTX address operand holds (PTX ISA 6.4.1).
    #[error("the offset {offset} of the address `{text}` is out of range: an address offset is a 32-bit signed immediate (at most 2147483647 bytes after a location's start)")]
    AddressOffsetOutOfRange {
        /// The address as written.
        text: String,
        /// The offset.
        offset: i64,
    },
    /// A register-held address whose computed offset from its location is
    /// past the 32-bit signed immediate of an address operand (PTX ISA
    /// 6.4.1), as [`Self::AddressOffsetOutOfRange`] is for `[x+N]`.
    #[error("cannot resolve the address `{text}` to a location: it is `{location}` + {offset}, an offset out of range (at most 2^31 - 1 = 2147483647 bytes after a location's start: an address offset is a 32-bit signed immediate)")]
    ComputedOffsetOutOfRange {
        /// The address as written.
        text: String,
        /// The location the value is an address in.
        location: String,
        /// The computed offset from the location's start.
        offset: i64,
    },
    /// A special register (`%tid.x`) that the thread's placement does not define.
    #[error("`{reg}` is not defined by the placement of P{thread}: {hint}")]
    UndefinedSpecialRegister {
        /// The register as written.
        reg: String,
        /// The thread.
        thread: usize,
        /// What would define it.
        hint: String,
    },
    /// A malformed `.reg` declaration.
    #[error("bad register declaration: {0}")]
    BadRegDecl(String),
    /// Dialect `ld R, V` (a move) whose source is a declared location.
    #[error("`ld` without semantics is a register move (`ld R, V`), but `{0}` is a location: write `ld.weak R, {0}` to load it")]
    MoveFromLocation(String),
    /// A number outside the range its place allows.
    #[error("{what} `{value}` is out of range ({range})")]
    OutOfRange {
        /// What the number is.
        what: &'static str,
        /// The number.
        value: String,
        /// The range, in words.
        range: &'static str,
    },
    /// A condition with absurdly deep nesting.
    #[error("condition is nested too deeply (more than {0} levels)")]
    TooDeep(usize),
}

/// `are only 2 threads` / `is only 1 thread`.
fn only_threads(n: usize) -> String {
    if n == 1 {
        "is only 1 thread".to_string()
    } else {
        format!("are only {n} threads")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_is_one_line() {
        let e = ParseError::new(
            ParseErrorKind::UndefinedLabel {
                label: "LC05".into(),
                thread: 1,
            },
            Span { line: 7, col: 3 },
        );
        assert_eq!(
            e.to_string(),
            "7:3: label `LC05` is not defined in thread P1"
        );
    }

    #[test]
    fn render_puts_caret_under_column() {
        let src = "a\n\tbc d\n";
        let e = ParseError::new(ParseErrorKind::MissingName, Span { line: 2, col: 4 });
        assert_eq!(
            e.render("f.litmus", src),
            "f.litmus:2:4: error: expected a test name after `PTX`\n\tbc d\n\t  ^"
        );
    }

    #[test]
    fn render_past_end_of_line() {
        let src = "ab";
        let e = ParseError::new(ParseErrorKind::MissingName, Span { line: 1, col: 5 });
        assert!(e.render("f", src).ends_with("ab\n    ^"));
        let e = ParseError::new(ParseErrorKind::MissingName, Span { line: 9, col: 1 });
        assert!(e.render("f", src).ends_with("\n\n^"));
    }

    #[test]
    fn thread_counts_are_pluralised() {
        let k = ParseErrorKind::RegOfMissingThread {
            reg: "r9".into(),
            thread: 3,
            threads: 2,
            place: "condition",
        };
        assert_eq!(
            k.to_string(),
            "register `r9` used in condition for thread P3 but there are only 2 threads"
        );
        let k = ParseErrorKind::TooManyCells {
            column: 1,
            threads: 1,
        };
        assert_eq!(
            k.to_string(),
            "instruction in column 1 but there is only 1 thread"
        );
    }
}
