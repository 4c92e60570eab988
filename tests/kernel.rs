//! End-to-end tests of kernel mode (`docs/cli/kernel.md`): `ptxmc run` on
//! launch descriptions, with both strategies, and errors at `file:line:col`.

mod common;
use common::*;

#[test]
fn kernels_get_their_verdicts_with_both_strategies() {
    for strategy in ["dpor", "brute"] {
        let o = ptxmc(&[
            "run",
            "corpus/kernels",
            "--strategy",
            strategy,
            "--expect",
            "corpus/expected.csv",
            "--expect",
            "corpus/expected-Liveness.csv",
        ]);
        let out = stdout(&o);
        assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
        assert!(out.contains("Summary: 13 tests: 13 ok"), "{out}");
        assert!(
            out.contains("Observation mp-threadfence Always 1 0"),
            "{out}"
        );
        assert!(
            out.contains("Observation mp-volatile-nofence Sometimes 1 1"),
            "{out}"
        );
        assert!(out.contains("expectations: matched 26 of 26"), "{out}");
        // The miscompilation: broken in LLVM 22's PTX, correct as the source asks.
        assert!(
            out.contains("Observation mp-fetch-add-acq-rel.llvm22 Sometimes 1 1"),
            "{out}"
        );
        assert!(
            out.contains("Observation mp-fetch-add-acq-rel.intended Never 0 1"),
            "{out}"
        );
        // LLVM 22's release/acquire flag (st.release.sys / ld.acquire.sys) publishes the data.
        assert!(
            out.contains("Observation mp-acquire-release.llvm22 Always 1 0"),
            "{out}"
        );
        // Two noinline device functions (call.uni), inlined.
        assert!(
            out.contains("Observation mp-noinline-calls Always 1 0"),
            "{out}"
        );
        // The sample's threadFenceReduction reads stale partial sums without a
        // fence after the last ticket; with one it does not.
        assert!(
            out.contains("Observation threadfence-reduction Sometimes 6 18"),
            "{out}"
        );
        // The spinlock's CAS retry loop blocks instead of unrolling
        // (docs/model-notes.md "Waits"): its two executions, no loop bound.
        assert!(
            out.contains("Observation spinlock Always 2 0"),
            "spinlock: {out}"
        );
        for idiom in [
            "grid-barrier",
            "threadfence-reduction-acquire",
            "reduction-array-walk",
            "decoupled-lookback",
        ] {
            assert!(
                out.contains(&format!("Observation {idiom} Always 6 0")),
                "{idiom}: {out}"
            );
        }
    }
}

#[test]
fn a_bad_launch_is_an_error_at_the_ptx_position() {
    let d = scratch("kernel-bad");
    std::fs::write(
        d.join("k.ptx"),
        ".version 8.0\n.visible .entry k()\n{\n\tld.global.u32 \t%r1, [%rd9];\n\tret;\n}\n",
    )
    .expect("scratch file");
    std::fs::write(
        d.join("k.launch"),
        "KERNEL k\nmodule k.ptx\nexists (x == 0)\n",
    )
    .expect("scratch file");
    let o = ptxmc(&["run", d.join("k.launch").to_str().expect("utf-8 path")]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    let all = format!("{}{}", stdout(&o), stderr(&o));
    assert!(
        all.contains("k.ptx:4:22: cannot resolve the address `[%rd9]`"),
        "{all}"
    );
}

/// Golden errors (`tests/golden/kernel/`): each `NAME.launch` (with its
/// module) is refused with exit code 2 and the one line of `NAME.expected`,
/// `file:line:col: reason`.
#[test]
fn bad_kernels_get_their_golden_errors() {
    let dir = root().join("tests/golden/kernel");
    let mut launches: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/golden/kernel")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "launch"))
        .collect();
    launches.sort();
    assert!(launches.len() >= 4, "{launches:?}");
    for l in launches {
        let rel = l.strip_prefix(root()).expect("inside the repository");
        let o = ptxmc(&["run", rel.to_str().expect("utf-8 path")]);
        assert_eq!(
            o.status.code(),
            Some(2),
            "{}: {}",
            rel.display(),
            stdout(&o)
        );
        let want = std::fs::read_to_string(l.with_extension("expected")).expect("NAME.expected");
        let err = stderr(&o);
        assert_eq!(err.trim_end(), want.trim_end(), "{}", rel.display());
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
}

/// The `.ptx` files of `corpus/kernels/` are the compiler's output for their
/// `.cu` sources (command in `corpus/kernels/README.md`): regenerated and
/// compared when `clang-19` is installed, skipped visibly otherwise.
#[test]
fn kernel_ptx_files_match_the_compiler_output() {
    let clang = std::process::Command::new("clang-19")
        .arg("--version")
        .output();
    if !clang.is_ok_and(|o| o.status.success()) {
        eprintln!("SKIP: clang-19 not installed; corpus/kernels/*.ptx not regenerated");
        return;
    }
    let dir = root().join("corpus/kernels");
    let out = scratch("kernel-regen");
    let mut sources: Vec<_> = std::fs::read_dir(&dir)
        .expect("corpus/kernels")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "cu"))
        .collect();
    sources.sort();
    assert!(sources.len() >= 4, "{sources:?}");
    for cu in sources {
        let ptx = out.join(cu.with_extension("ptx").file_name().expect("file name"));
        let mut clang = std::process::Command::new("clang-19");
        clang
            .args([
                "-x",
                "cuda",
                "--cuda-device-only",
                "-nocudainc",
                "-nocudalib",
            ])
            .args(["--cuda-gpu-arch=sm_90", "-O2", "-S"]);
        if cu.to_string_lossy().ends_with(".llvm22.cu") {
            // LLVM 22's NVPTX backend from llvmlite 0.50.0 (corpus/kernels/README.md).
            let probe = std::process::Command::new("python3")
                .args([
                    "-c",
                    "import llvmlite; assert llvmlite.__version__ == '0.50.0'",
                ])
                .output();
            if !probe.is_ok_and(|o| o.status.success()) {
                eprintln!(
                    "SKIP: llvmlite 0.50.0 not installed; {} not regenerated",
                    cu.display()
                );
                continue;
            }
            let ll = ptx.with_extension("ll");
            let o = clang.arg("-emit-llvm").arg(&cu).arg("-o").arg(&ll).output();
            assert!(
                o.is_ok_and(|o| o.status.success()),
                "clang-19 -emit-llvm {}",
                cu.display()
            );
            let o = std::process::Command::new("python3")
                .args(["-c", LLVM22])
                .arg(&ll)
                .arg(&ptx)
                .output()
                .expect("python3 runs");
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        } else {
            let o = clang
                .arg(&cu)
                .arg("-o")
                .arg(&ptx)
                .output()
                .expect("clang-19 runs");
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        }
        let got = std::fs::read_to_string(&ptx).expect("compiled");
        let want = std::fs::read_to_string(cu.with_extension("ptx")).expect("committed .ptx");
        assert_eq!(
            got,
            want,
            "{} differs from the compiler output",
            cu.display()
        );
    }
}

/// `.ll` to `.ptx` with LLVM 22's NVPTX backend (llvmlite 0.50.0).
const LLVM22: &str = "import sys, llvmlite.binding as l
l.initialize_all_targets()
l.initialize_all_asmprinters()
tm = l.Target.from_triple('nvptx64-nvidia-cuda').create_target_machine(cpu='sm_90', opt=2)
open(sys.argv[2], 'w').write(tm.emit_assembly(l.parse_assembly(open(sys.argv[1]).read())))";

#[test]
fn every_command_reads_launch_files() {
    // `parse`, `run --model A,B` and `explain` take launch files as `run` does.
    let o = ptxmc(&["parse", "corpus/kernels", "--quiet"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("parsed 13, failed 0"), "{}", stdout(&o));
    let o = ptxmc(&["run", "corpus/kernels", "--model", "spec,dat3m", "-q"]);
    let out = stdout(&o);
    assert!(!stderr(&o).contains("parse error"), "{}", stderr(&o));
    assert!(
        out.contains("Models spec, dat3m: 0 of 13 tests differ"),
        "{out}"
    );
    let o = ptxmc(&[
        "explain",
        "corpus/kernels/mp-fetch-add-acq-rel.llvm22.launch",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("Allowed"), "{}", stdout(&o));
}
