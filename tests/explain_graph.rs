//! Pictures that Graphviz 2.43 (Debian's) renders: the ticket lock's witness
//! failed there with `newrank=true` (`trouble in init_rank`). Rendering is
//! checked when `dot` is installed and skipped, with a message, otherwise.

mod common;
use common::*;
use std::process::Command;

fn has_dot() -> bool {
    Command::new("dot").arg("-V").output().is_ok()
}

fn renders(dot_file: &std::path::Path) -> Result<(), String> {
    let o = Command::new("dot")
        .arg("-Tsvg")
        .arg(dot_file)
        .output()
        .map_err(|e| e.to_string())?;
    if o.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&o.stderr).into_owned())
    }
}

#[test]
fn the_ticket_lock_pictures_render() {
    let dir = scratch("explain-graph");
    let f = "corpus/idioms/ticketlock-relaxed-unlock.litmus";
    let o = ptxmc(&["run", f, "--graph", s(&dir.join("run"))]);
    assert!(
        o.status.success() || o.status.code() == Some(1),
        "{}",
        stderr(&o)
    );
    let o = ptxmc(&["explain", f, "--graph", s(&dir.join("explain"))]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("Graph: wrote"), "{}", stdout(&o));
    let pictures = [
        dir.join("run/ticketlock-relaxed-unlock.dot"),
        dir.join("explain/ticketlock-relaxed-unlock-allowed.dot"),
    ];
    for p in &pictures {
        let text = std::fs::read_to_string(p).expect("a picture");
        assert!(text.starts_with("digraph"), "{text}");
        assert!(!text.contains("newrank"), "{}", p.display());
    }
    if !has_dot() {
        eprintln!("skipped: Graphviz `dot` is not installed, the pictures were not rendered");
    } else {
        for p in &pictures {
            if let Err(e) = renders(p) {
                panic!("dot -Tsvg {}: {e}", p.display());
            }
            assert!(p.with_extension("svg").exists(), "{}", p.display());
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
