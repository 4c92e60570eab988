//! Communication order (8.9.7): reads-from, coherence and from-reads.

use crate::event::EventId;
use crate::execution::Execution;
use crate::relation::BitMatrix;

/// Reads-from as a relation `W -> R` (8.9.7 item 1): R returns the value W wrote.
pub(crate) fn reads_from(exec: &Execution) -> BitMatrix {
    let mut rf = BitMatrix::new(exec.len());
    for r in exec.ids() {
        if let Some(w) = exec.rf()[r.index()] {
            rf.insert(w, r);
        }
    }
    rf
}

/// From-reads `rf^-1 ; co` (8.9.7 item 3): R precedes W when R reads from a
/// write W' that precedes W in coherence order.
pub(crate) fn from_reads(exec: &Execution, co: &BitMatrix) -> BitMatrix {
    let mut fr = BitMatrix::new(exec.len());
    for r in exec.ids() {
        if let Some(w0) = exec.rf()[r.index()] {
            for w in co.successors(w0) {
                fr.insert(r, w);
            }
        }
    }
    fr
}

/// Communication order (8.9.7): `rf ∪ co ∪ fr`.
pub(crate) fn communication(rf: &BitMatrix, co: &BitMatrix, fr: &BitMatrix) -> BitMatrix {
    let mut com = rf.clone();
    com.union_with(co);
    com.union_with(fr);
    com
}

/// The writes a read returns bytes of (8.10.3). With complete overlap only
/// (no mixed sizes yet) this is the single write of `rf`.
pub(crate) fn byte_sources(exec: &Execution, r: EventId) -> impl Iterator<Item = EventId> {
    exec.rf()[r.index()].into_iter()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::testutil::*;

    #[test]
    fn from_reads_follows_coherence_from_the_write_read() {
        let mut b = ExecBuilder::new(1);
        let t0 = b.thread(cta(0));
        let t1 = b.thread(cta(0));
        let w1 = b.st(t0, b.loc(0), 1, RLX_SYS);
        let w2 = b.st(t0, b.loc(0), 2, RLX_SYS);
        let r = b.ld(t1, b.loc(0), RLX_SYS);
        b.rf(r, w1);
        b.co(w1, w2);
        let exec = b.build();
        let rf = reads_from(&exec);
        assert!(rf.contains(w1, r) && !rf.contains(w2, r));
        let fr = from_reads(&exec, exec.co());
        assert!(fr.contains(r, w2));
        assert!(!fr.contains(r, w1));
        let com = communication(&rf, exec.co(), &fr);
        assert!(com.contains(w1, r) && com.contains(w1, w2) && com.contains(r, w2));
        assert_eq!(byte_sources(&exec, r).collect::<Vec<_>>(), vec![w1]);
    }
}
