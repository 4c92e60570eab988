//! `ptxmc gen`'s generator (`ptxmc_frontend::diy`): classic shapes come out as
//! the expected litmus, the default family parses with distinct names, and
//! malformed cycles get clear errors.

use ptxmc_frontend::diy::{
    build, family, parse_cycle, shape, shape_family, Axes, Family, Litmus, Options, Placement,
    Vary, SHAPES,
};
use ptxmc_frontend::ir::Scope;
use std::collections::HashSet;
use std::sync::OnceLock;

/// The test of one cycle (the first, if `*` expands to several).
fn one(cycle: &str) -> Litmus {
    one_with(cycle, &Options::default())
}

fn one_with(cycle: &str, opts: &Options) -> Litmus {
    let cs = parse_cycle(cycle).unwrap_or_else(|e| panic!("{cycle}: {e}"));
    build(&cs[0], opts).unwrap_or_else(|e| panic!("{cycle}: {e}"))
}

/// The error of a malformed cycle, as printed.
fn error(cycle: &str) -> String {
    match parse_cycle(cycle) {
        Err(e) => e.to_string(),
        Ok(cs) => match cs.iter().find_map(|c| build(c, &Options::default()).err()) {
            Some(e) => e.to_string(),
            None => panic!("`{cycle}` was accepted"),
        },
    }
}

/// Code rows of the test, one string per thread (instructions joined by `; `).
fn threads(t: &Litmus) -> Vec<String> {
    let lines: Vec<&str> = t.text.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.trim_start().starts_with("P0@"))
        .expect("thread header");
    let rows: Vec<Vec<String>> = lines[start + 1..]
        .iter()
        .take_while(|l| !l.starts_with("exists"))
        .map(|l| {
            l.trim_end()
                .trim_end_matches(';')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect();
    let n = lines[start].split('|').count();
    (0..n)
        .map(|i| {
            rows.iter()
                .filter_map(|r| r.get(i).filter(|c| !c.is_empty()).cloned())
                .collect::<Vec<_>>()
                .join("; ")
        })
        .collect()
}

fn condition(t: &Litmus) -> &str {
    t.text
        .lines()
        .find(|l| l.starts_with("exists"))
        .expect("condition")
}

#[test]
fn mp_is_message_passing() {
    let t = one("PodWW Rfe PodRR Fre");
    assert_eq!(t.name, "MP+pos");
    assert_eq!(t.shape, Some("MP"));
    assert_eq!(t.threads, 2);
    assert_eq!(
        threads(&t),
        ["st.weak x, 1; st.weak y, 1", "ld.weak r0, y; ld.weak r1, x"]
    );
    assert_eq!(condition(&t), "exists (1:r0 == 1 /\\ 1:r1 == 0)");
    let expected = "\
PTX MP+pos
\"PodWW Rfe PodRR Fre\"
{
x=0;
y=0;
}
 P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;
 st.weak x, 1   | ld.weak r0, y  ;
 st.weak y, 1   | ld.weak r1, x  ;
exists (1:r0 == 1 /\\ 1:r1 == 0)
";
    assert_eq!(t.text, expected);
    ptxmc_frontend::parse(&t.text).expect("parses");
}

#[test]
fn annotated_names_and_code() {
    let t = one("PodWW:rel.gpu Rfe PodRR:acq.cta Fre");
    assert_eq!(t.name, "MP+rel.gpu+acq.cta");
    assert_eq!(
        threads(&t),
        [
            "st.weak x, 1; st.release.gpu y, 1",
            "ld.acquire.cta r0, y; ld.weak r1, x"
        ]
    );
    // The doc string is the exact cycle.
    assert_eq!(t.cycle, "PodWW [rel.gpu] Rfe [acq.cta] PodRR Fre");

    let t = one("Fenced.sc.gpu.WR Fre Fenced.sc.gpu.WR Fre");
    assert_eq!(t.name, "SB+fence.sc.gpus");
    assert_eq!(
        threads(&t),
        [
            "st.weak x, 1; fence.sc.gpu; ld.weak r0, y",
            "st.weak y, 1; fence.sc.gpu; ld.weak r0, x"
        ]
    );
    assert_eq!(condition(&t), "exists (0:r0 == 0 /\\ 1:r0 == 0)");
    // `PodWR:fence.sc.gpu` is the same edge.
    assert_eq!(
        one("PodWR:fence.sc.gpu Fre FencedWR:fence.sc Fre").text,
        t.text
    );

    // Placement: suffix and thread headers.
    let t = one_with(
        "Fenced.sc.gpu.WR Fre Fenced.sc.gpu.WR Fre",
        &Options {
            placement: Placement::Sys,
            default_scope: Scope::Gpu,
        },
    );
    assert_eq!(t.name, "SB+fence.sc.gpus-sys");
    assert!(t.text.contains(" P0@cta 0,gpu 0 | P1@cta 0,gpu 1 ;"));
    let t = one_with(
        "PodWW Rfe PodRR Fre",
        &Options {
            placement: Placement::Cluster,
            default_scope: Scope::Gpu,
        },
    );
    assert_eq!(t.name, "MP+pos-cluster");
    assert!(t
        .text
        .contains("P0@cta 0,cluster 0,gpu 0 | P1@cta 1,cluster 0,gpu 0"));

    // Default scope for unscoped strong accesses; a scope alone means relaxed.
    let t = one_with(
        "PodWW:rel Rfe PodRR:cta Fre",
        &Options {
            placement: Placement::Cta,
            default_scope: Scope::Sys,
        },
    );
    assert_eq!(t.name, "MP+rel.sys+rlx.cta-cta");
    assert_eq!(threads(&t)[1], "ld.relaxed.cta r0, y; ld.relaxed.cta r1, x");
}

/// Expected threads and condition of every classic shape (plain accesses).
#[test]
fn classic_shapes() {
    let cases: &[(&str, &[&str], &str)] = &[
        (
            "MP",
            &["st.weak x, 1; st.weak y, 1", "ld.weak r0, y; ld.weak r1, x"],
            "1:r0 == 1 /\\ 1:r1 == 0",
        ),
        (
            "SB",
            &["st.weak x, 1; ld.weak r0, y", "st.weak y, 1; ld.weak r0, x"],
            "0:r0 == 0 /\\ 1:r0 == 0",
        ),
        (
            "LB",
            &["ld.weak r0, x; st.weak y, 1", "ld.weak r0, y; st.weak x, 1"],
            "0:r0 == 1 /\\ 1:r0 == 1",
        ),
        (
            "IRIW",
            &[
                "st.weak x, 1",
                "ld.weak r0, x; ld.weak r1, y",
                "st.weak y, 1",
                "ld.weak r0, y; ld.weak r1, x",
            ],
            "1:r0 == 1 /\\ 1:r1 == 0 /\\ 3:r0 == 1 /\\ 3:r1 == 0",
        ),
        (
            "WRC",
            &[
                "st.weak x, 1",
                "ld.weak r0, x; st.weak y, 1",
                "ld.weak r0, y; ld.weak r1, x",
            ],
            "1:r0 == 1 /\\ 2:r0 == 1 /\\ 2:r1 == 0",
        ),
        (
            "ISA2",
            &[
                "st.weak x, 1; st.weak y, 1",
                "ld.weak r0, y; st.weak z, 1",
                "ld.weak r0, z; ld.weak r1, x",
            ],
            "1:r0 == 1 /\\ 2:r0 == 1 /\\ 2:r1 == 0",
        ),
        (
            "RWC",
            &[
                "st.weak x, 1",
                "ld.weak r0, x; ld.weak r1, y",
                "st.weak y, 1; ld.weak r0, x",
            ],
            "1:r0 == 1 /\\ 1:r1 == 0 /\\ 2:r0 == 0",
        ),
        (
            "2+2W",
            &["st.weak x, 2; st.weak y, 1", "st.weak y, 2; st.weak x, 1"],
            "x == 2 /\\ y == 2",
        ),
        (
            "R",
            &["st.weak x, 1; st.weak y, 1", "st.weak y, 2; ld.weak r0, x"],
            "1:r0 == 0 /\\ y == 2",
        ),
        (
            "S",
            &["st.weak x, 2; st.weak y, 1", "ld.weak r0, y; st.weak x, 1"],
            "1:r0 == 1 /\\ x == 2",
        ),
        (
            "CoRR",
            &["st.weak x, 1", "ld.weak r0, x; ld.weak r1, x"],
            "1:r0 == 1 /\\ 1:r1 == 0",
        ),
        (
            "CoWR",
            &["st.weak x, 2; ld.weak r0, x", "st.weak x, 1"],
            "0:r0 == 0 /\\ x == 2",
        ),
        (
            "CoRW",
            &["st.weak x, 2", "ld.weak r0, x; st.weak x, 1"],
            "1:r0 == 2 /\\ x == 2",
        ),
        ("CoWW", &["st.weak x, 2; st.weak x, 1"], "x == 2"),
        ("CoRW1", &["ld.weak r0, x; st.weak x, 1"], "0:r0 == 1"),
        ("CoWR0", &["st.weak x, 1; ld.weak r0, x"], "0:r0 == 0"),
    ];
    assert_eq!(cases.len(), SHAPES.len());
    for (name, code, cond) in cases {
        let (_, c) = shape(name).expect("known shape");
        let t = build(&c, &Options::default()).unwrap();
        assert_eq!(t.shape, Some(*name), "{name}");
        assert!(t.name.starts_with(&format!("{name}+")), "{}", t.name);
        assert_eq!(threads(&t), *code, "{name}");
        assert_eq!(condition(&t), format!("exists ({cond})"), "{name}");
        ptxmc_frontend::parse(&t.text).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn rotations_give_the_same_test() {
    for (name, cycle, _) in SHAPES {
        let edges: Vec<&str> = cycle.split_whitespace().collect();
        let reference = one(cycle);
        for r in 1..edges.len() {
            let rotated: Vec<&str> = edges[r..].iter().chain(&edges[..r]).copied().collect();
            let t = one(&rotated.join(" "));
            assert_eq!(t.text, reference.text, "{name} rotated by {r}");
        }
    }
    // A symmetric shape: either thread first gives one name.
    assert_eq!(
        one("PodWR:fence.sc.gpu Fre PodWR Fre").name,
        one("PodWR Fre PodWR:fence.sc.gpu Fre").name
    );
}

#[test]
fn rmws_dependencies_proxies() {
    // A release write as atom.exch, an acquire read as atom.add of a fresh value.
    let t = one("PodWW [rel.gpu.exch] Rfe [acq.gpu.add] PodRR Fre");
    assert_eq!(t.name, "MP+rel.gpu.exch+acq.gpu.add");
    assert_eq!(
        threads(&t),
        [
            "st.weak x, 1; atom.release.gpu.exch r0, y, 1",
            "atom.acquire.gpu.add r0, y, 1; ld.weak r1, x"
        ]
    );
    assert_eq!(condition(&t), "exists (1:r0 == 1 /\\ 1:r1 == 0 /\\ y == 2)");
    // An Amo step: the RMW reads the other write and is coherence-before it.
    let t = one("Rfe Amo:acqrel.gpu Wse");
    assert_eq!(threads(&t)[0], "atom.acq_rel.gpu.exch r0, x, 1");
    assert_eq!(condition(&t), "exists (0:r0 == 2 /\\ x == 2)");
    let t = one("Rfe Amo.add Wse");
    assert_eq!(threads(&t)[0], "atom.relaxed.gpu.add r0, x, -1");
    // Data dependencies compute the value; control dependencies branch.
    let t = one("DpDatadW Rfe DpCtrldW Rfe");
    // (LB is symmetric: the thread whose component sorts first comes first.)
    assert_eq!(t.name, "LB+ctrl+data");
    assert_eq!(
        threads(&t),
        [
            "ld.weak r0, x; bne r0, 1, LC00; LC00:; st.weak y, 1",
            "ld.weak r0, y; add r1, r0, 0; st.weak x, r1"
        ]
    );
    // Proxies: a generic alias, a texture load and an alias proxy fence.
    let t = one("PodWW [weak.alias] Rfe Fenced.proxy.alias.RR [texture] Fre");
    assert!(t.text.contains("y_a @ generic aliases y;"));
    assert!(t.text.contains("x_t @ texture aliases x;"));
    assert_eq!(
        threads(&t),
        [
            "st.weak x, 1; st.weak y_a, 1",
            "ld.weak r0, y; fence.proxy.alias; tld.weak r1, x_t"
        ]
    );
    for t in [
        one("PodWW [rel.gpu.exch] Rfe [acq.gpu.add] PodRR Fre"),
        one("Rfe Amo:acqrel.gpu Wse"),
        one("DpDatadW Rfe DpCtrldW Rfe"),
        one("PodWW [weak.alias] Rfe Fenced.proxy.alias.RR [texture] Fre"),
        one("PodWW [rlx.sys.surface] Rfe [surface.acq.sys] PodRR Fre"),
    ] {
        ptxmc_frontend::parse(&t.text).unwrap_or_else(|e| panic!("{}: {e}", t.name));
    }
}

#[test]
fn wildcards_expand() {
    let cs = parse_cycle("Pod** Fre Pod** Fre").unwrap();
    assert_eq!(cs.len(), 1, "only PodWR fits before and after Fre");
    let cs = parse_cycle("Rfe Pod** Rfe Pod**").unwrap();
    let names: Vec<String> = cs
        .iter()
        .map(|c| build(c, &Options::default()).unwrap().name)
        .collect();
    assert_eq!(names, ["LB+pos"]);
    let cs = parse_cycle("PodW* Rfe PodR* Fre").unwrap();
    assert_eq!(cs.len(), 1);
    let cs = parse_cycle("Rfe PodR* Pod*W Wse").unwrap();
    assert_eq!(cs.len(), 2); // R->R->W and R->W->W
}

#[test]
fn malformed_cycles_are_explained() {
    let cases: &[(&str, &str)] = &[
        ("", "empty cycle"),
        ("PodWW", "at least two edges"),
        (
            "PodWW Rfe PodRR",
            "edge 1 `PodWW`: starts with a write but edge 3 `PodRR` ends with a read",
        ),
        (
            "PodWW Rfe PodWR Fre",
            "edge 3 `PodWR`: starts with a write but edge 2 `Rfe` ends with a read",
        ),
        (
            "PodXW Rfe PodRR Fre",
            "edge 1 `PodXW`: `Pod` needs two directions",
        ),
        (
            "PodWW Rf PodRR Fre",
            "edge 2 `Rf`: say whether `Rf` is internal or external",
        ),
        ("PodWW Foo PodRR Fre", "edge 2 `Foo`: unknown edge"),
        (
            "PodWW:foo Rfe PodRR Fre",
            "edge 1 `PodWW:foo`: unknown annotation `foo`",
        ),
        (
            "PodWW:acq.gpu Rfe PodRR Fre",
            "edge 1 `PodWW:acq.gpu`: `acq` on a po edge marks its source, which is a write",
        ),
        (
            "PodWW Rfe PodRR:rel Fre",
            "edge 3 `PodRR:rel`: `rel` on a po edge marks its target, which is a read",
        ),
        (
            "PodWW Rfe PodRR:gpu.cta Fre",
            "two scopes in one annotation",
        ),
        (
            "PodWW:rel.gpu [rel.cta] Rfe PodRR Fre",
            "edge 2 `[rel.cta]`: the event gets two scopes, gpu and cta",
        ),
        (
            "PodWW [acq.gpu] Rfe PodRR Fre",
            "edge 2 `Rfe`: its source event (a write): a write cannot be `acq`",
        ),
        (
            "FencedWR Fre PodWR Fre",
            "edge 1 `FencedWR`: a Fenced edge needs a fence",
        ),
        ("Fenced.WR Fre PodWR Fre", "`Fenced` needs a fence kind"),
        ("Fenced.foo.WR Fre PodWR Fre", "unknown fence kind `foo`"),
        (
            "PodWW Rfe PodRR Fre:fence.sc.gpu",
            "edge 4 `Fre:fence.sc.gpu`: a fence goes on a po edge",
        ),
        ("PodWW [rel.gpu Rfe PodRR Fre", "`[` without a closing `]`"),
        ("PodWW rel.gpu] Rfe PodRR Fre", "`]` without an opening `[`"),
        (
            "DpAddrdW Rfe DpDatadW Rfe",
            "address dependencies cannot be written",
        ),
        (
            "DpDatadR Rfe PodRW Rfe",
            "a data dependency targets a write",
        ),
        ("Rfe Fre", "a cycle on one location needs a Pos"),
        ("PodWW PodWW", "a cycle needs a communication edge"),
        (
            "PodWW Rfe PosRR Fre",
            "edge 1 `PodWW`: the only edge that moves to a new location",
        ),
        (
            "PodWW Rfe PodRR Fri",
            "edge 2 `Rfe`: the only external edge: its two ends would be in one thread",
        ),
        (
            "PodWW [texture] Rfe PodRR Fre",
            "texture accesses are loads only",
        ),
        (
            "PodWW Rfe PodRR Fre:exch",
            "RMW and proxy annotations concern one event",
        ),
        ("Rfe Amo:weak Wse", "an atomic RMW is always strong"),
        ("PodWR Fre PodWR:acqrel.gpu Fre", "`acqrel` is for RMWs"),
        ("Pod*R Fre PodWW Fre", "ends with a write"),
    ];
    for (cycle, want) in cases {
        let got = error(cycle);
        assert!(
            got.contains(want),
            "`{cycle}`: expected an error containing\n  {want}\ngot\n  {got}"
        );
    }
}

/// The default family, generated once for the tests below.
fn default_family() -> &'static Family {
    static FAM: OnceLock<Family> = OnceLock::new();
    FAM.get_or_init(|| shape_family(&["all"], &Axes::all()).expect("family"))
}

#[test]
fn default_family_is_large_distinct_and_parses() {
    let fam = default_family();
    let n = fam.tests.len();
    assert!(n >= 2000, "only {n} tests");
    assert_eq!(fam.same_text, 0, "two names for one test");
    let names: HashSet<&str> = fam.tests.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names.len(), n, "names are not distinct");
    let bodies: HashSet<&str> = fam.tests.iter().map(|t| t.body()).collect();
    assert_eq!(bodies.len(), n, "tests are not distinct");
    for s in SHAPES {
        assert!(
            fam.tests.iter().any(|t| t.shape == Some(s.0)),
            "no {} test",
            s.0
        );
    }
    for want in [
        "MP+pos",
        "MP+rel.gpu+acq.gpu",
        "MP+rel.cta+acq.cta-cta",
        "MP+rel.gpu+acq.gpu-sys",
        "MP+fence.acq_rel.clusters-cluster",
        "MP+rel.gpu.exch+acq.gpu",
        "MP+rel.gpu+acq.gpu.add",
        "SB+fence.sc.gpus",
        "LB+datas",
        "IRIW+rlx.sys+fence.sc.sys+rlx.sys+fence.sc.sys-sys",
        "ISA2+rel.gpu+ra.gpu+acq.gpu",
        "CoRR+rlx.ctas-cta",
    ] {
        assert!(names.contains(want), "{want} missing");
    }
    // Every test parses (split over threads: this is most of the time).
    let workers = std::thread::available_parallelism().map_or(2, |p| p.get());
    let chunk = n.div_ceil(workers);
    std::thread::scope(|s| {
        for part in fam.tests.chunks(chunk) {
            s.spawn(move || {
                for t in part {
                    if let Err(e) = ptxmc_frontend::parse(&t.text) {
                        panic!("{} does not parse: {e}\n{}", t.name, t.text);
                    }
                }
            });
        }
    });
}

#[test]
fn doc_string_cycle_regenerates_the_test() {
    // Every 11th test of the default family (all of them take a while in debug).
    for t in default_family().tests.iter().step_by(11) {
        let placement = Placement::ALL
            .into_iter()
            .find(|p| *p != Placement::Gpu && t.name.ends_with(&format!("-{}", p.as_str())))
            .unwrap_or(Placement::Gpu);
        let cs = parse_cycle(&t.cycle).unwrap_or_else(|e| panic!("{}: {e}", t.cycle));
        assert_eq!(cs.len(), 1);
        let again = build(
            &cs[0],
            &Options {
                placement,
                default_scope: Scope::Cta,
            },
        )
        .unwrap();
        assert_eq!(again.text, t.text, "{}", t.cycle);
    }
}

#[test]
fn axes_select_the_product() {
    let (_, mp) = shape("MP").unwrap();
    let axes = Axes {
        sems: vec![],
        fences: vec![],
        deps: vec![],
        scopes: vec![Scope::Gpu],
        mixed_scopes: false,
        rmws: vec![ptxmc_frontend::diy::RmwAxis::None],
        placements: vec![Placement::Gpu],
    };
    // No ordering variant: the cycle as it is.
    let f = family(std::slice::from_ref(&mp), &axes, &Vary::ALL, Scope::Gpu).unwrap();
    assert_eq!(f.tests.len(), 1);
    // Release/acquire, each thread at either of two scopes.
    let axes = Axes {
        sems: vec![ptxmc_frontend::diy::SemAxis::Ra],
        scopes: vec![Scope::Cta, Scope::Gpu],
        mixed_scopes: true,
        ..axes
    };
    let f = family(std::slice::from_ref(&mp), &axes, &Vary::ALL, Scope::Gpu).unwrap();
    let names: Vec<&str> = f.tests.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "MP+rel.cta+acq.cta",
            "MP+rel.cta+acq.gpu",
            "MP+rel.gpu+acq.cta",
            "MP+rel.gpu+acq.gpu",
        ]
    );
    // A cycle as written unless asked to vary.
    let cs = parse_cycle("PodWW:rel.gpu Rfe PodRR:acq.cta Fre").unwrap();
    let gpu_only = Axes {
        placements: vec![Placement::Gpu],
        ..Axes::all()
    };
    let f = family(&cs, &gpu_only, &Vary::NONE, Scope::Gpu).unwrap();
    assert_eq!(f.tests.len(), 1);
    assert_eq!(f.tests[0].name, "MP+rel.gpu+acq.cta");
    let f = family(
        &cs,
        &Axes::all(),
        &Vary {
            placement: true,
            ..Vary::NONE
        },
        Scope::Gpu,
    )
    .unwrap();
    let names: Vec<&str> = f.tests.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "MP+rel.gpu+acq.cta-cta",
            "MP+rel.gpu+acq.cta-cluster",
            "MP+rel.gpu+acq.cta",
            "MP+rel.gpu+acq.cta-sys",
        ]
    );
}
