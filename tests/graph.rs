//! End-to-end tests of `ptxmc run --graph`: witness pictures.

mod common;
use common::*;

#[test]
fn graph_writes_a_labelled_witness_picture() {
    let dir = scratch("graph-labels");
    let tests = dir.join("tests");
    std::fs::create_dir_all(&tests).expect("folder");
    std::fs::write(tests.join("mp3.litmus"), MP3).expect("write");
    std::fs::copy(
        root().join("corpus/spec/8.10.6-mp.litmus"),
        tests.join("spec-mp.litmus"),
    )
    .expect("copy");
    let pics = dir.join("pics");
    let o = ptxmc(&["run", s(&tests), "--graph", s(&pics), "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains("Graphs: 1 pictures in"),
        "{}",
        stdout(&o)
    );
    assert!(stdout(&o).contains("1 tests without a witness"));
    // The spec's MP is forbidden (~exists holds): no witness, no picture.
    assert!(!pics.join("spec-mp.dot").exists());
    let dot = std::fs::read_to_string(pics.join("mp3.dot")).expect("mp3.dot written");
    assert!(dot.starts_with("digraph \"MP3-rel-acq\""), "{dot}");
    for want in [
        "subgraph cluster_init",
        "subgraph cluster_P0",
        "subgraph cluster_P1",
        "subgraph cluster_P2",
        "label=\"W x=1 st.weak\"",
        "label=\"W y=1 st.release.gpu\"",
        "label=\"R y=1 ld.acquire.gpu\"",
        "label=\"R x=1 ld.weak\"",
        "label=\"R y=0 ld.relaxed.gpu\"",
        "label=\"W0 x=0\"",
        "label=\"po\"",
        "label=\"co\"",
        "label=\"fr\"",
        "label=\"rf,obs,sync,causality\"",
        "final state: 1:r0=1; 1:r1=1; 2:r2=0;",
        "non-po, non-transitive part",
    ] {
        assert!(dot.contains(want), "missing {want}:\n{dot}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn graph_without_dot_says_so_once_and_writes_dot_only() {
    let dir = scratch("graph-nodot");
    std::fs::write(dir.join("a.litmus"), MP3).expect("write");
    std::fs::write(dir.join("b.litmus"), MP_WEAK).expect("write");
    let pics = dir.join("pics");
    let empty = dir.join("empty-path");
    std::fs::create_dir_all(&empty).expect("folder");
    let o = ptxmc_env(
        &["run", s(&dir), "--graph", s(&pics), "-q"],
        &[("PATH", s(&empty))],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(
        err.matches("dot not found: wrote .dot files only").count(),
        1,
        "{err}"
    );
    assert!(pics.join("a.dot").exists() && pics.join("b.dot").exists());
    assert!(!pics.join("a.svg").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn graph_is_the_same_for_any_number_of_workers() {
    let dir = scratch("graph-jobs");
    std::fs::write(dir.join("a.litmus"), MP3).expect("write");
    std::fs::write(dir.join("b.litmus"), MP_WEAK).expect("write");
    let (p1, p4) = (dir.join("p1"), dir.join("p4"));
    for (p, j) in [(&p1, "1"), (&p4, "4")] {
        let o = ptxmc(&["run", s(&dir), "--graph", s(p), "-q", "-j", j]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    for f in ["a.dot", "b.dot"] {
        let a = std::fs::read_to_string(p1.join(f)).expect("dot");
        let b = std::fs::read_to_string(p4.join(f)).expect("dot");
        assert_eq!(a, b, "{f}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn graph_into_an_unwritable_place_exits_2() {
    let dir = scratch("graph-bad");
    let file = dir.join("a-file");
    std::fs::write(&file, "x").expect("write");
    let o = ptxmc(&["run", "corpus/spec/8.10.6-mp.litmus", "--graph", s(&file)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("a-file"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}
