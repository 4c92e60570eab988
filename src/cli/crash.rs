//! Tests that took the process down: `--resume` checks each test that a
//! previous run marked as started but never recorded (see
//! [`super::sink::Markers`]) in a child process of the same binary, so that
//! a test that crashes again (a stack overflow aborts the whole process)
//! ends as a `crash` record naming it instead of taking the batch down on
//! every resume.

use super::args::RunArgs;
use super::results::Record;
use super::sink::beside;
use std::path::Path;
use std::process::Command;

/// The record of `file`, checked in a child `ptxmc run` with the options of
/// `args`: the child's own record when it ends normally, a `crash` record
/// when it dies (or writes nothing).
pub fn recheck(file: &Path, args: &RunArgs, results: &Path) -> Record {
    let tmp = beside(results, &format!(".recheck-{}", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    let exe = std::env::current_exe();
    let mut why = String::new();
    let mut record = None;
    match exe {
        Err(e) => why = format!("cannot start a child process: {e}"),
        Ok(exe) => {
            let mut c = Command::new(exe);
            c.arg("run")
                .arg(file)
                .arg("--json")
                .arg(&tmp)
                .args(["--quiet", "--no-progress", "-j", "1", "--strategy"])
                .arg(args.strategy.0.name())
                .arg("--model")
                .arg(args.model.join(","))
                .arg("--unroll")
                .arg(args.unroll.to_string());
            if let Some(t) = args.timeout {
                c.arg("--timeout").arg(t.to_string());
            }
            if let Some(m) = args.max_executions {
                c.arg("--max-executions").arg(m.to_string());
            }
            if let Some(m) = &args.max_memory {
                c.arg("--max-memory").arg(m);
            }
            if args.check_duplicates {
                c.arg("--check-duplicates");
            }
            match c.output() {
                Err(e) => why = format!("cannot start a child process: {e}"),
                Ok(o) => {
                    let line = std::fs::read_to_string(&tmp)
                        .ok()
                        .and_then(|s| s.lines().next().map(str::to_string));
                    match line.map(|l| Record::parse(&l)) {
                        Some(Ok(r)) if o.status.code().is_some() => record = Some(r),
                        _ => why = ended(&o.status),
                    }
                }
            }
        }
    }
    for suffix in ["", ".running", ".lock"] {
        let _ = std::fs::remove_file(beside(&tmp, suffix));
    }
    record.unwrap_or_else(|| crash_record(file, &why))
}

/// How a child process ended, in words.
fn ended(status: &std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            let name = match sig {
                6 => " (SIGABRT: an abort, e.g. a stack overflow)",
                9 => " (SIGKILL: killed, e.g. out of memory)",
                11 => " (SIGSEGV)",
                _ => "",
            };
            return format!("the checking process was ended by signal {sig}{name}");
        }
    }
    format!("the checking process ended ({status}) without a result")
}

/// A `crash` record: the fields of a `read-error` record, with the reason.
pub fn crash_record(file: &Path, why: &str) -> Record {
    let path = file.display().to_string();
    let name = file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let q = |s: &str| serde_json::Value::from(s).to_string();
    let message =
        format!("{path}: this test took the process down twice (checked again alone): {why}");
    let line = format!(
        "{{\"file\":{},\"name\":{},\"status\":\"crash\",\"message\":{},\
         \"condition_holds\":null,\"liveness_holds\":null,\"observation\":null,\
         \"positive\":null,\"negative\":null,\"executions\":null,\"time_ms\":0.0}}",
        q(&path),
        q(&name),
        q(&message)
    );
    // The line is built from JSON strings: it parses.
    Record::parse(&line).unwrap_or_else(|_| Record::fresh(serde_json::Value::Null, line))
}
