//! Every corpus file parses, and round-trips through the printer: parse, print,
//! reparse gives the same IR (up to spans), and the printed text is a fixed point.
//!
//! The comparison sees only what the IR holds: a declaration part that the
//! parser uses up (a multimem address's locations, lowered into the
//! instructions) must be kept in the IR (`Test::multimem`), or a printer that
//! drops it passes here while a `multimem` instruction left unsupported reads
//! back with another reason.

use ptxmc_frontend::{parse, print, strip_spans};
use std::fs;
use std::path::{Path, PathBuf};

/// All `*.litmus` files under `dir`, sorted.
fn litmus_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "litmus") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Parses and round-trips one file; returns a description of the failure, if any.
fn check(path: &Path) -> Result<(), String> {
    let src = fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let file = path.display().to_string();
    let t = parse(&src).map_err(|e| e.render(&file, &src))?;
    let printed = print(&t);
    let t2 = parse(&printed).map_err(|e| {
        format!(
            "reparse of printed {file}:\n{}\n{printed}",
            e.render("<printed>", &printed)
        )
    })?;
    if strip_spans(&t) != strip_spans(&t2) {
        return Err(format!("{file}: IR changed through print/parse\n{printed}"));
    }
    let printed2 = print(&t2);
    if printed2 != printed {
        return Err(format!(
            "{file}: printing is not a fixed point\n--- first\n{printed}--- second\n{printed2}"
        ));
    }
    Ok(())
}

fn check_dir(dir: &Path, at_least: usize) {
    let files = litmus_files(dir);
    assert!(
        files.len() >= at_least,
        "expected at least {at_least} files under {}, found {}",
        dir.display(),
        files.len()
    );
    let failures: Vec<String> = files.iter().filter_map(|f| check(f).err()).collect();
    assert!(
        failures.is_empty(),
        "{} of {} files failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
    eprintln!(
        "{}: {} files parse and round-trip",
        dir.display(),
        files.len()
    );
}

#[test]
fn dat3m_corpus_parses_and_round_trips() {
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance/dat3m-ptx/litmus");
    if !dir.is_dir() {
        eprintln!("SKIP: {} not found", dir.display());
        return;
    }
    check_dir(&dir, 576);
}

/// Every test of `corpus/` (all folders), so that a new folder is checked
/// without being listed here.
#[test]
fn whole_corpus_parses_and_round_trips() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    check_dir(&dir, 400);
}

#[test]
fn spec_corpus_parses_and_round_trips() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/spec");
    check_dir(&dir, 12);
}

#[test]
fn async_corpus_parses_and_round_trips() {
    for (dir, at_least) in [
        ("async", 17),
        ("mbarrier", 11),
        ("clusters", 6),
        ("proxies", 16),
        ("idioms", 13),
        ("ptx", 13),
    ] {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../corpus")
            .join(dir);
        check_dir(&dir, at_least);
    }
}

/// Every fence kind's spelling reads back as that kind, and parses (in a
/// litmus test) to it, so the printer, the labels and the parser agree.
#[test]
fn fence_spellings_round_trip() {
    use ptxmc_frontend::ir::{FenceKind, Instr};
    for k in FenceKind::ALL {
        assert_eq!(k.to_string().parse::<FenceKind>(), Ok(k));
        let instr = match k {
            FenceKind::ProxyTensormapAcquire => format!("{k}.gpu [x], 128"),
            FenceKind::ProxyTensormapRelease => format!("{k}.gpu"),
            k if k.is_memory_fence() => format!("{k}.gpu"),
            k => k.to_string(),
        };
        let src = format!("PTX t\n{{ x=0; }}\n P0@cta 0,gpu 0 ;\n {instr} ;\nexists (x == 0)\n");
        let t = ptxmc_frontend::parse(&src).unwrap_or_else(|e| panic!("{instr}: {e}"));
        let kinds: Vec<FenceKind> = t.threads[0]
            .code
            .iter()
            .filter_map(|s| match s.instr {
                Instr::Fence { kind, .. } => Some(kind),
                _ => None,
            })
            .collect();
        assert_eq!(kinds, [k], "{instr}");
    }
    assert!("fence.proxyalias".parse::<FenceKind>().is_err());
}
