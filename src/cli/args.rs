//! Flags of every subcommand (clap derive): the "low" arguments.

use clap::{Parser, Subcommand, ValueEnum};
use ptxmc_checker::Strategy;
use std::path::PathBuf;

/// An exhaustive, stateless model checker for the PTX memory consistency model
/// (PTX ISA 9.4, chapter 8).
///
/// Reads PTX litmus tests (the herd/Dat3M dialect, or real PTX spelling) and
/// decides, for each, whether its final condition can hold and whether every
/// fair execution terminates.
#[derive(Parser, Debug)]
#[command(
    name = "ptxmc",
    version,
    about,
    long_about = "ptxmc reads PTX litmus tests (the herd/Dat3M dialect, or real PTX spelling), \
enumerates every execution the PTX memory consistency model (PTX ISA 9.4, chapter 8) allows, \
and reports for each test whether its final condition holds, which final states are \
reachable, and whether every fair execution terminates.\n\n\
Exit codes: 0 all good; 1 a verdict differs from an expectation (run, merge) or two result \
files differ (compare); 2 bad usage, or a file that cannot be read or parsed.",
    after_help = "Examples:
  ptxmc run corpus/ --expect corpus/expected.csv
  ptxmc run tests/ -j 8 --json results.jsonl --graph pictures/
  ptxmc explain corpus/spec/8.10.6-mp.litmus
  ptxmc run family/ --shard 2/8 --json shard-2.jsonl
  ptxmc merge shard-*.jsonl -o all.jsonl
  ptxmc compare old.jsonl new.jsonl

Run `ptxmc help COMMAND` for a command's flags; docs/cli/ has a page per command."
)]
pub struct Args {
    /// The subcommand.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Parse litmus files and print them back as litmus text (the IR, readable).
    #[command(
        long_about = "Parse litmus files and print each test's IR back as litmus text.\n\n\
Errors give file:line:col, the source line and a caret. Exit code 0 if every file parsed, \
2 if any failed (the other files are still parsed).",
        after_help = "Examples:
  ptxmc parse corpus/spec/8.10.6-mp.litmus
  ptxmc parse --quiet corpus/        # only errors and `parsed N, failed M`"
    )]
    Parse(ParseArgs),
    /// Check litmus files: herd7-style verdicts, final states, liveness.
    #[command(
        long_about = "Check litmus files: for each test, a herd7-style block (Test, States, Ok/No, \
Witnesses, Condition, Observation, Time) plus Executions and Liveness lines, then a summary.\n\n\
Batch work: a progress bar on a terminal (plain `N/M tests done` lines every few seconds \
otherwise; none with --quiet or --no-progress); --json streams one JSON object per test as \
it finishes and rewrites the file sorted by file path at the end; --resume skips the tests \
a previous (possibly killed) run already wrote; --shard K/N checks every N-th file, so that \
shards can run on many machines and be combined with `ptxmc merge`.\n\n\
Exit code 0 if all went well, 1 if a verdict differs from an --expect file, 2 if a file \
could not be read or parsed, or on bad usage.",
        after_help = "Examples:
  ptxmc run corpus/ --expect corpus/expected.csv --expect corpus/expected-Liveness.csv
  ptxmc run tests/ --json out.jsonl --timeout 60
  ptxmc run tests/ --resume out.jsonl              # after a kill: finish the rest
  ptxmc run tests/ --shard 3/8 --json shard-3.jsonl
  ptxmc run corpus/spec/8.10.6-mp.litmus --graph pictures/"
    )]
    Run(RunArgs),
    /// Print or write scalable benchmark families (readers-N, writers-N, sb-N, ...).
    #[command(
        long_about = "Print or write scalable benchmark families (readers-N, writers-N, SB, IRIW, \
MP chains, 2+2W, RMW counters, ticket and CAS locks), for measuring how the explorers scale.",
        after_help = "Examples:
  ptxmc family --list
  ptxmc family writers 3                  # print writers-3
  ptxmc family sb --sizes 2..8 --out dir  # write dir/sb-2.litmus ... dir/sb-8.litmus"
    )]
    Family(FamilyArgs),
    /// Generate diy7-style litmus families from cycles of relations.
    ///
    /// `ptxmc gen --out DIR` writes the classic shapes (MP, SB, LB, IRIW, WRC, ISA2, ...)
    /// over every variant axis, one NAME.litmus per test; `ptxmc gen --cycle
    /// "PodWW:rel.gpu Rfe PodRR:acq.cta Fre"` prints one test. See docs/cli/gen.md.
    Gen(super::gen_cmd::GenArgs),
    /// Explain an outcome: the axiom and cycle that forbid it, or an execution that allows it.
    #[command(
        long_about = "Explain an outcome of a test: enumerate every candidate execution (the \
reference enumerator, without pruning) whose final values give the outcome, and say either \
which axiom of chapter 8 rules each one out and the cycle that does it, in words, or which \
consistent execution allows the outcome.\n\n\
The outcome is the test's condition proposition by default (for a `forall` test, its \
negation: the outcome the test rules out), or --outcome.\n\n\
Exit code 0 when the outcome was explained (forbidden or allowed), 2 for a file that cannot \
be read or parsed, a bad --outcome, or a test the checker does not support.",
        after_help = "Examples:
  ptxmc explain corpus/spec/8.10.6-mp.litmus
  ptxmc explain mp.litmus --outcome \"P1:r0 == 1 /\\ P1:r1 == 0\"
  ptxmc explain sb.litmus --outcome \"0:r0 == 0 /\\ 1:r0 == 0\""
    )]
    Explain(ExplainArgs),
    /// Merge JSON Lines result files (shards) into one report, sorted by file.
    #[command(
        long_about = "Merge JSON Lines result files written by `ptxmc run --json` (for example \
the shards of a `--shard K/N` batch) into one report sorted by file path, and print the \
summary. A test present in several files must have the same result in each (time_ms aside), \
or the merge fails. A truncated last line (a killed run) is ignored with a warning.\n\n\
Exit code 0, 1 if a verdict differs from an --expect file, 2 on conflicting duplicates or \
unreadable files.",
        after_help = "Examples:
  ptxmc merge shard-1.jsonl shard-2.jsonl shard-3.jsonl -o all.jsonl
  ptxmc merge shard-*.jsonl --expect corpus/expected.csv
  ptxmc merge shard-*.jsonl -o -                  # merged lines on stdout"
    )]
    Merge(MergeArgs),
    /// Compare two JSON Lines result files: the tests whose verdicts differ.
    #[command(
        long_about = "Compare two JSON Lines result files (like herd's mcompare7): print each test \
whose verdict differs (status, condition_holds, liveness_holds, observation, or the set of \
final states), the tests only one file has, and the counts. The order of the lines does not \
matter; tests are matched by file path (or by test name with --by-name).\n\n\
Exit code 0 if the files agree, 1 if some test differs or is missing from one file, 2 on \
unreadable files.",
        after_help = "Examples:
  ptxmc compare before.jsonl after.jsonl
  ptxmc compare brute.jsonl dpor.jsonl --by-name"
    )]
    Compare(CompareArgs),
    /// Compare exploration strategies on the same tests: a table and an SVG plot.
    #[command(
        long_about = "Compare exploration strategies on the same tests: run each strategy on each \
test (family members generated as `ptxmc family` does, or litmus files and folders), each \
(test, strategy) in a child process of its own, one at a time, so that its time and peak \
memory are its own. Prints a Markdown table side by side (executions, blocked, time, \
executions/s, peak memory, status per strategy), the time ratio at the largest size every \
strategy finished, and writes an SVG plot of time and executions against size (log scale) \
with --svg. A run that reaches --timeout shows as `>S s (limit)` in the table and as a \
hollow marker at the limit in the plot; larger sizes of that family are then skipped for \
that strategy.\n\n\
GenMC: when a `genmc` binary is on PATH (or given by --genmc PATH), each family member that \
has a C11 mirror (readers, writers, sb, sb-fence-sc, iriw, 2+2w, counter, ticket-lock, \
cas-lock) is also checked by GenMC, in its own column group, and a table of whole-process \
wall times and their ratio follows. Without GenMC, bench says so and runs ptxmc alone. With \
--repeat R each run is repeated R times, the tools alternating run by run, and the medians \
are shown.\n\n\
Exit code 0, 1 if two strategies that both finished disagree on a test (executions or \
verdict), 2 on bad usage or a test that cannot be read or parsed.",
        after_help = "Examples:
  ptxmc bench readers writers --sizes 2..8 --svg scaling.svg
  ptxmc bench counter:2..6 --strategy brute,dpor --timeout 60 --json counter.jsonl
  ptxmc bench corpus/spec/ --strategy dpor -j 2
  ptxmc bench ticket-lock:3..8 --strategy dpor --repeat 5 --genmc /opt/genmc/genmc"
    )]
    Bench(BenchArgs),
    /// List the readings of the model that `--model NAME` chooses from.
    #[command(
        long_about = "List the readings of the model: for each, its name, one line, and the \
sections of chapter 8 it concerns. `ptxmc run --model NAME` checks under one; \
`ptxmc run --model A,B` lists the tests whose verdicts differ between readings. \
docs/model-notes.md (\"Readings\") gives the argument for each."
    )]
    Models,
    /// Internal: check one test for `ptxmc bench` and print one JSON line.
    #[command(hide = true, name = "bench-one")]
    BenchOne(BenchOneArgs),
}

/// `ptxmc bench`.
#[derive(Parser, Debug)]
pub struct BenchArgs {
    /// Families (`readers`, `readers:2..6`, `writers-3`; see `ptxmc family
    /// --list`) or litmus files and folders.
    #[arg(required = true, value_name = "FAMILY|PATH")]
    pub specs: Vec<String>,
    /// Strategies to compare, comma-separated, in table order.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_values_t = StrategyArg::all(),
        value_name = "LIST"
    )]
    pub strategy: Vec<StrategyArg>,
    /// Worker threads of each check (the DPOR explorer splits a test across them).
    #[arg(short = 'j', long, default_value_t = 1, value_name = "N")]
    pub jobs: usize,
    /// Time limit of each (test, strategy) check, in seconds.
    #[arg(
        long,
        default_value_t = 10.0,
        value_name = "SECS",
        allow_negative_numbers = true
    )]
    pub timeout: f64,
    /// Sizes of the families given without their own (`readers` but not `readers:2..4`).
    #[arg(long, default_value = "2..8", value_name = "A..B")]
    pub sizes: String,
    /// Scope of the strong operations of generated families.
    #[arg(long, value_enum, default_value_t = ScopeArg::Gpu)]
    pub scope: ScopeArg,
    /// Loop bound for loops that are not side-effect-free spin loops.
    #[arg(long, default_value_t = 2, value_name = "N")]
    pub unroll: u32,
    /// Write the plot of time and executions against size to FILE (SVG).
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Write one JSON object per (test, strategy) to FILE (JSON Lines).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Keep running the larger sizes of a family for a strategy that reached the limit.
    #[arg(long)]
    pub keep_going: bool,
    /// Reading of the model ptxmc checks under (`ptxmc models`); `failed-cas-read` also
    /// chooses GenMC's CAS mirror of `cas-lock`.
    #[arg(long, value_name = "NAME", default_value = "spec")]
    pub model: String,
    /// Run each (test, tool) R times, alternating the tools run by run, and report medians.
    #[arg(long, default_value_t = 1, value_name = "R")]
    pub repeat: usize,
    /// The GenMC binary to run next to ptxmc on the C11 mirrors of the families (default:
    /// `genmc` on PATH, if there is one).
    #[arg(long, value_name = "PATH")]
    pub genmc: Option<PathBuf>,
    /// Do not run GenMC even when it is on PATH.
    #[arg(long, conflicts_with = "genmc")]
    pub no_genmc: bool,
    /// A flag for GenMC, instead of its defaults (`-rc11 --disable-sr --disable-estimation`);
    /// repeat it for several (`--genmc-arg=-imm --genmc-arg=--disable-sr`).
    #[arg(long, value_name = "FLAG", allow_hyphen_values = true)]
    pub genmc_arg: Vec<String>,
}

/// `ptxmc bench-one` (internal, run by `ptxmc bench` in a child process).
#[derive(Parser, Debug)]
pub struct BenchOneArgs {
    /// Explorer.
    #[arg(long, value_enum)]
    pub strategy: StrategyArg,
    /// Worker threads.
    #[arg(short = 'j', long, default_value_t = 1)]
    pub jobs: usize,
    /// Time limit in seconds.
    #[arg(long)]
    pub timeout: Option<f64>,
    /// Loop bound.
    #[arg(long, default_value_t = 2)]
    pub unroll: u32,
    /// Family name (with --n and --scope).
    #[arg(long)]
    pub family: Option<String>,
    /// Family size.
    #[arg(long, default_value_t = 0)]
    pub n: usize,
    /// Scope of the family.
    #[arg(long, value_enum, default_value_t = ScopeArg::Gpu)]
    pub scope: ScopeArg,
    /// A litmus file instead of a family.
    #[arg(long)]
    pub file: Option<PathBuf>,
    /// Reading of the model.
    #[arg(long, default_value = "spec")]
    pub model: String,
}

/// Scope of the strong operations of a generated family.
#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
pub enum ScopeArg {
    /// `.cta`
    Cta,
    /// `.gpu`
    Gpu,
    /// `.sys`
    Sys,
}

impl ScopeArg {
    /// The scope.
    pub fn scope(self) -> ptxmc_frontend::ir::Scope {
        use ptxmc_frontend::ir::Scope;
        match self {
            ScopeArg::Cta => Scope::Cta,
            ScopeArg::Gpu => Scope::Gpu,
            ScopeArg::Sys => Scope::Sys,
        }
    }

    /// The scope as PTX spells it (`cta`, `gpu`, `sys`).
    pub fn name(self) -> &'static str {
        self.scope().spelling()
    }
}

/// `ptxmc family`.
#[derive(Parser, Debug)]
pub struct FamilyArgs {
    /// Family name (see --list); `all` for every family.
    pub name: Option<String>,
    /// One size N.
    pub n: Option<usize>,
    /// A range of sizes `A..B` (inclusive), instead of N.
    #[arg(long, value_name = "A..B")]
    pub sizes: Option<String>,
    /// Scope of the strong operations.
    #[arg(long, value_enum, default_value_t = ScopeArg::Gpu)]
    pub scope: ScopeArg,
    /// Write files into DIR instead of printing.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// List the families.
    #[arg(long)]
    pub list: bool,
}

/// `ptxmc parse`.
#[derive(Parser, Debug)]
pub struct ParseArgs {
    /// Litmus files or folders (searched recursively for *.litmus).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Print only errors and the summary line `parsed N, failed M`.
    #[arg(short, long)]
    pub quiet: bool,
}

/// Exploration strategy (see docs/model-notes.md): the names, help lines
/// and order come from the checker's registry (`Strategy::ALL`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct StrategyArg(pub Strategy);

impl StrategyArg {
    /// The default explorer of `run` and `explain`.
    pub const DEFAULT: StrategyArg = StrategyArg(Strategy::Dpor);

    /// Every registered strategy (the default of `bench --strategy`).
    pub fn all() -> Vec<StrategyArg> {
        Strategy::ALL.iter().map(|&s| StrategyArg(s)).collect()
    }

    /// Every strategy a user can name (`Strategy::NAMED`, `estimate` too).
    pub fn named() -> Vec<StrategyArg> {
        Strategy::NAMED.iter().map(|&s| StrategyArg(s)).collect()
    }
}

impl ValueEnum for StrategyArg {
    fn value_variants<'a>() -> &'a [Self] {
        static ALL: std::sync::OnceLock<Vec<StrategyArg>> = std::sync::OnceLock::new();
        ALL.get_or_init(StrategyArg::named)
    }
    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.0.name()).help(self.0.about()))
    }
}

/// `ptxmc run`.
#[derive(Parser, Debug)]
pub struct RunArgs {
    /// Litmus files or folders (searched recursively for *.litmus).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Explorer to use.
    #[arg(long, value_enum, default_value_t = StrategyArg::DEFAULT)]
    pub strategy: StrategyArg,
    /// Reading of the model (`ptxmc models` lists them). Two or more,
    /// comma-separated: check every test under each and list the tests whose
    /// verdicts differ.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "spec",
        value_name = "NAME[,NAME...]"
    )]
    pub model: Vec<String>,
    /// Loop bound for loops that are not side-effect-free spin loops.
    #[arg(long, default_value_t = 2, value_name = "N")]
    pub unroll: u32,
    /// Write one JSON object per test (JSON Lines) to FILE, as each test
    /// finishes; at the end of the run the file is rewritten sorted by file path.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Resume a killed run: read the JSON Lines FILE a previous run wrote
    /// (ignoring a truncated last line), skip the tests it has (by file path),
    /// and append the new results to it (or to --json FILE2, which then gets
    /// the old results too). A FILE that does not exist yet is an empty start.
    #[arg(long, value_name = "FILE")]
    pub resume: Option<PathBuf>,
    /// Check only shard K of N (1-based): the files whose index in the sorted
    /// file list is K-1 modulo N. Deterministic, so N machines can each take one.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    /// Explore only part K of N (1-based) of each test's exploration tree
    /// and write a partial result with --json; `ptxmc merge` of the N parts
    /// gives the undivided result (docs/scale-out.md).
    #[arg(long, value_name = "K/N")]
    pub split: Option<String>,
    /// Write a Graphviz picture of a witness execution of each test into DIR:
    /// DIR/<file stem>.dot, and DIR/<file stem>.svg when `dot` is on PATH. A
    /// witness satisfies an `exists` condition or violates a `forall`/`~exists`
    /// one; tests without one get no picture.
    #[arg(long, value_name = "DIR")]
    pub graph: Option<PathBuf>,
    /// Compare verdicts with a Dat3M-style CSV (`path,0|1` rows); repeatable.
    /// A CSV whose file name contains `Liveness` gives liveness verdicts.
    #[arg(long, value_name = "CSV")]
    pub expect: Vec<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(short = 'j', long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Per-test time limit in seconds (status `limit` when reached).
    #[arg(long, value_name = "SECS", allow_negative_numbers = true)]
    pub timeout: Option<f64>,
    /// Per-test limit on complete executions (status `limit` when reached).
    #[arg(long, value_name = "N")]
    pub max_executions: Option<u64>,
    /// Limit on the process's resident memory (bytes, or with a unit: 512M,
    /// 2G): a test being explored when it is passed stops with status
    /// `limit` and the reason `memory`, instead of the process being ended.
    #[arg(long, value_name = "SIZE")]
    pub max_memory: Option<String>,
    /// Seed of the random walks of `--strategy estimate` (same seed, same estimate).
    #[arg(long, value_name = "N", default_value_t = ptxmc_checker::explore::estimate::DEFAULT_SEED)]
    pub seed: u64,
    /// Hash every complete execution and count duplicates (must be 0).
    #[arg(long)]
    pub check_duplicates: bool,
    /// Print only mismatches, errors and the summary (and no progress).
    #[arg(short, long)]
    pub quiet: bool,
    /// No progress bar or progress lines on stderr.
    #[arg(long)]
    pub no_progress: bool,
    /// Seconds between the plain progress lines printed when stderr is not a terminal.
    #[arg(
        long,
        value_name = "SECS",
        default_value_t = 5.0,
        allow_negative_numbers = true
    )]
    pub progress_interval: f64,
    /// Also print the run's figures for scripts, one `stats.KEY: VALUE` line
    /// each (tests, jobs, executions, wall time, peak memory, time per
    /// phase; docs/cli/run.md lists them).
    #[arg(long)]
    pub stats: bool,
    /// Exit with 1 unless every test has a verdict, every claim holds and
    /// no liveness is violated: a failed claim (`No`), a liveness violation,
    /// or a test without a verdict (unsupported, limit, undefined, a file
    /// that cannot be read or parsed) fails the run. For CI jobs verifying
    /// idioms.
    #[arg(long)]
    pub require_ok: bool,
    /// No warning on stderr before a check estimated to take more than ten
    /// minutes (looked for, by a few random walks, in runs of at most 8
    /// tests without --timeout).
    #[arg(long)]
    pub no_estimate_warning: bool,
}

/// `ptxmc explain`.
#[derive(Parser, Debug)]
pub struct ExplainArgs {
    /// The litmus file.
    pub test: PathBuf,
    /// The outcome to explain, as a proposition over final values in the
    /// condition syntax (`P1:r0 == 1 /\ P1:r1 == 0`, `1:r0=1`, `x == 2`, `~`,
    /// `\/`, parentheses). Default: the test's condition proposition (for
    /// `forall`, its negation).
    #[arg(long, value_name = "PROP")]
    pub outcome: Option<String>,
    /// Loop bound for loops that are not side-effect-free spin loops.
    #[arg(long, default_value_t = 2, value_name = "N")]
    pub unroll: u32,
    /// Time limit in seconds, for every phase (the verdict, the reasons, the
    /// blocked execution); the answer comes by then with what is known.
    #[arg(long, value_name = "SECS", allow_negative_numbers = true)]
    pub timeout: Option<f64>,
    /// Print every reason and existential choice, not only the first few.
    #[arg(long)]
    pub all: bool,
    /// Write the picture of the allowed (or blocked) execution as Graphviz
    /// DOT (and SVG when `dot` is installed) into DIR.
    #[arg(long, value_name = "DIR")]
    pub graph: Option<std::path::PathBuf>,
}

/// `ptxmc merge`.
#[derive(Parser, Debug)]
pub struct MergeArgs {
    /// JSON Lines result files (`ptxmc run --json`).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Write the merged JSON Lines to OUT (`-` for stdout, the summary then
    /// goes to stderr).
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Compare verdicts with a Dat3M-style CSV, as `ptxmc run --expect`; repeatable.
    #[arg(long, value_name = "CSV")]
    pub expect: Vec<PathBuf>,
}

/// `ptxmc compare`.
#[derive(Parser, Debug)]
pub struct CompareArgs {
    /// The first JSON Lines result file.
    pub a: PathBuf,
    /// The second JSON Lines result file.
    pub b: PathBuf,
    /// Match tests by test name instead of file path.
    #[arg(long)]
    pub by_name: bool,
    /// Print only the counts.
    #[arg(short, long)]
    pub quiet: bool,
}
