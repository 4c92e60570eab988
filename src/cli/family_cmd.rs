//! `ptxmc family`: print or write benchmark families.

use super::args::FamilyArgs;
use super::{EXIT_ERROR, EXIT_OK};
use ptxmc_frontend::families::{generate, FAMILIES};
use std::io::Write;

fn parse_sizes(s: &str) -> Option<(usize, usize)> {
    let (a, b) = s.split_once("..")?;
    let (a, b) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
    (a <= b).then_some((a, b))
}

/// Runs the subcommand; returns the exit code.
pub fn run(args: &FamilyArgs) -> u8 {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.list || args.name.is_none() {
        for (name, doc, min) in FAMILIES {
            let _ = writeln!(out, "{name:<14} N >= {min}: {doc}");
        }
        return EXIT_OK;
    }
    let scope = args.scope.name();
    let name = args.name.as_deref().unwrap_or_default();
    let names: Vec<&str> = if name == "all" {
        FAMILIES.iter().map(|f| f.0).collect()
    } else if FAMILIES.iter().any(|f| f.0 == name) {
        vec![name]
    } else {
        eprintln!("error: unknown family `{name}` (see `ptxmc family --list`)");
        return EXIT_ERROR;
    };
    let (lo, hi) = match (&args.sizes, args.n) {
        (Some(s), None) => match parse_sizes(s) {
            Some(r) => r,
            None => {
                eprintln!("error: --sizes expects A..B with A <= B, found `{s}`");
                return EXIT_ERROR;
            }
        },
        (None, Some(n)) => (n, n),
        (None, None) => {
            eprintln!("error: give a size N or --sizes A..B");
            return EXIT_ERROR;
        }
        (Some(_), Some(_)) => {
            eprintln!("error: give either a size N or --sizes, not both");
            return EXIT_ERROR;
        }
    };
    if let Some(dir) = &args.out {
        if let Err(e) = std::fs::create_dir_all(dir) {
            eprintln!("error: {}: {}", dir.display(), e);
            return EXIT_ERROR;
        }
    }
    for fam in names {
        let min = FAMILIES.iter().find(|f| f.0 == fam).map_or(1, |f| f.2);
        for n in lo.max(min)..=hi {
            let Some(text) = generate(fam, n, scope) else {
                continue;
            };
            match &args.out {
                None => {
                    let _ = writeln!(out, "{text}");
                }
                Some(dir) => {
                    let path = dir.join(format!("{fam}-{n}.litmus"));
                    if let Err(e) = std::fs::write(&path, text) {
                        eprintln!("error: {}: {}", path.display(), e);
                        return EXIT_ERROR;
                    }
                }
            }
        }
    }
    EXIT_OK
}
