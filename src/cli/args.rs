//! Flags of every subcommand (clap derive): the "low" arguments.

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// An exhaustive, stateless model checker for the PTX memory consistency model
/// (PTX ISA 9.4, chapter 8).
///
/// Reads PTX litmus tests (the herd/Dat3M dialect, or real PTX spelling) and
/// decides, for each, whether its final condition can hold and whether every
/// fair execution terminates.
#[derive(Parser, Debug)]
#[command(name = "ptxmc", version, about, long_about = None)]
pub struct Args {
    /// The subcommand.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Parse litmus files and print them back as litmus text (the IR, readable).
    ///
    /// Exit code 0 if every file parsed, 2 if any failed.
    Parse(ParseArgs),
    /// Check litmus files: herd7-style verdicts, final states, liveness.
    ///
    /// Exit code 0 if all went well, 1 if a verdict differs from an --expect file,
    /// 2 if a file could not be read or parsed.
    Run(RunArgs),
    /// Print or write scalable benchmark families (readers-N, writers-N, sb-N, ...).
    ///
    /// `ptxmc family --list` lists them; `ptxmc family writers 3` prints one test;
    /// `ptxmc family writers --sizes 2..8 --out DIR` writes `DIR/writers-2.litmus` ...
    Family(FamilyArgs),
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

/// Exploration strategy (see docs/model-notes.md).
#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
pub enum StrategyArg {
    /// The reference enumerator: every candidate execution, filtered by the model.
    Brute,
    /// Optimal dynamic partial-order reduction.
    Dpor,
}

/// `ptxmc run`.
#[derive(Parser, Debug)]
pub struct RunArgs {
    /// Litmus files or folders (searched recursively for *.litmus).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Explorer to use.
    #[arg(long, value_enum, default_value_t = StrategyArg::Dpor)]
    pub strategy: StrategyArg,
    /// Loop bound for loops that are not side-effect-free spin loops.
    #[arg(long, default_value_t = 2, value_name = "N")]
    pub unroll: u32,
    /// Write one JSON object per test (JSON Lines) to FILE.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Compare verdicts with a Dat3M-style CSV (`path,0|1` rows); repeatable.
    /// A CSV whose file name contains `Liveness` gives liveness verdicts.
    #[arg(long, value_name = "CSV")]
    pub expect: Vec<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(short = 'j', long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Per-test time limit in seconds (status `limit` when reached).
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
    /// Per-test limit on complete executions (status `limit` when reached).
    #[arg(long, value_name = "N")]
    pub max_executions: Option<u64>,
    /// Hash every complete execution and count duplicates (must be 0).
    #[arg(long)]
    pub check_duplicates: bool,
    /// Print only mismatches, errors and the summary.
    #[arg(short, long)]
    pub quiet: bool,
    /// Print the statistics summary in `key=value` form too.
    #[arg(long)]
    pub stats: bool,
}
