//! `bar.red` (8.9.4 item 2) adds no execution: its hidden contribution stores
//! and loads have one possible writer each, so a program checks to the same
//! number of executions (and blocked ones) as the same program with
//! `bar.sync` on the same barrier, under both explorers.

use ptxmc_checker::{check, Options, Status, Strategy};

/// A message-passing test with `BAR` as both threads' barrier instruction
/// (with `%r1` its destination when it reduces), and a racing relaxed pair
/// before it, so that there is more than one execution.
fn program(bar: &str) -> String {
    format!(
        "PTX bar-red-count\n{{ x=0; y=0; }}\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n \
         st.global.u32 [x], 1 | ld.relaxed.gpu.global.u32 %r2, [y] ;\n \
         st.relaxed.gpu.global.u32 [y], 1 | mov.pred %p1, 1 ;\n \
         mov.pred %p1, 1 | {bar} ;\n \
         {bar} | ld.global.u32 %r0, [x] ;\nexists (1:%r0 == 0)\n"
    )
}

#[test]
fn bar_red_has_the_executions_of_bar_sync() {
    let sync = ptxmc_frontend::parse(&program("bar.sync 1")).expect("parses");
    for red in [
        "bar.red.popc.u32 %r1, 1, %p1",
        "barrier.cta.red.and.pred %p2, 1, !%p1",
        "bar.red.or.pred %p2, 1, 2, %p1",
    ] {
        let test = ptxmc_frontend::parse(&program(red)).expect("parses");
        for strategy in [Strategy::Brute, Strategy::Dpor] {
            let opts = Options {
                strategy,
                check_duplicates: true,
                ..Options::default()
            };
            let (a, b) = (check(&sync, &opts), check(&test, &opts));
            assert_eq!(
                (a.status.clone(), b.status.clone()),
                (Status::Ok, Status::Ok)
            );
            assert_eq!(
                (a.stats.executions, a.stats.blocked),
                (b.stats.executions, b.stats.blocked),
                "{red} under {strategy:?}"
            );
            assert!(a.stats.executions > 1, "the race gives several executions");
            assert_eq!(b.stats.duplicates, 0);
        }
    }
}
