//! The model's answers to whether a read that waits for a write not yet
//! added can still be served: which future writes the axioms rule out for
//! it, and when reading a write makes the reader synchronize. An explorer
//! that lets reads wait (DPOR's `satisfy.rs`, `exits.rs`) asks these and
//! keeps only its bookkeeping (which threads may still write what); the
//! arguments from chapter 8 are here, behind [`Waits`], implemented by
//! [`Chapter8`].

use super::{morally_strong, morally_strong_events, Chapter8};
use crate::event::{Event, EventId, EventKind};
use crate::execution::Execution;
use ptxmc_frontend::ir::{Proxy, VAddrId};
use smallvec::SmallVec;

/// What the model says about the writes a waiting read may still get.
pub(crate) trait Waits {
    /// Whether the RMW reads `r1` and `r2` of `g` (read halves of atomic
    /// instructions whose write halves follow; the caller knows that) cannot
    /// read from one write made as any of `writers` (writes without a value:
    /// the kinds of write a thread may still make).
    fn rmws_need_distinct_writers(
        &self,
        g: &Execution,
        r1: EventId,
        r2: EventId,
        writers: &mut dyn Iterator<Item = &Event>,
    ) -> bool;

    /// Whether the read `r` of `g` cannot read from any write that it
    /// precedes in base causality order, made by a thread all of whose
    /// accesses to `r`'s location are through `accesses` ((virtual address,
    /// proxy) pairs).
    fn causality_excludes_later(
        &self,
        g: &Execution,
        r: EventId,
        accesses: &mut dyn Iterator<Item = (VAddrId, Proxy)>,
    ) -> bool;

    /// The writes of `g` that an RMW read morally strong with the RMW `q`
    /// (an RMW as a thread may issue it) reads already, which `q` cannot read
    /// as well.
    fn writes_taken_by_strong_rmws(&self, g: &Execution, q: &Event) -> SmallVec<[EventId; 8]>;

    /// Whether the read `q` is an acquire that synchronizes with some
    /// writes it may read ([`Waits::synchronizes_when_read`]).
    fn acquires(&self, q: &Event) -> bool;

    /// Whether the read `q` synchronizes with the write `w` (a write without
    /// a value, as a thread may make it) when it reads it.
    fn synchronizes_when_read(&self, g: &Execution, q: &Event, w: &Event) -> bool;
}

impl Waits for Chapter8 {
    /// Two RMWs A and B morally strong with each other cannot read from the
    /// same write W when W is morally strong with both: W is then
    /// coherence-before both write halves (else a cycle `A.r -po-> A.w -co->
    /// W -rf-> A.r` of morally strong operations, 8.10.5), and whichever
    /// write half comes first in coherence lies between W and the other,
    /// which RMW atomicity forbids (8.10.3). (With a W that is not morally
    /// strong with them, coherence may leave W unordered with their writes:
    /// they may then share it.)
    fn rmws_need_distinct_writers(
        &self,
        g: &Execution,
        r1: EventId,
        r2: EventId,
        writers: &mut dyn Iterator<Item = &Event>,
    ) -> bool {
        if !morally_strong(g, r1, r2) {
            return false;
        }
        let (e1, e2) = (g.event(r1), g.event(r2));
        for w in writers {
            if !(morally_strong_events(w, e1, g.placements())
                && morally_strong_events(w, e2, g.placements()))
            {
                return false;
            }
        }
        true
    }

    /// When `r` and every access of the writing thread to `r`'s location use
    /// `r`'s address and the generic proxy, `r` preceding such a write in
    /// base causality order puts it before the write in proxy-preserved
    /// causality order (8.9.5), and the Causality axiom (8.10.6 item 1)
    /// forbids `r` reading from it.
    fn causality_excludes_later(
        &self,
        g: &Execution,
        r: EventId,
        accesses: &mut dyn Iterator<Item = (VAddrId, Proxy)>,
    ) -> bool {
        let ev = g.event(r);
        let (Some(loc), Proxy::Generic) = (ev.loc(), ev.proxy) else {
            return false;
        };
        for (va, p) in accesses {
            if va != loc.vaddr || p != Proxy::Generic {
                return false;
            }
        }
        true
    }

    /// The write halves of RMWs morally strong with `q` have their read
    /// halves' scope, proxy and address (8.7), so they are morally strong
    /// with `q` too: `q` reading the write such a read reads would put one of
    /// the two RMW writes between that write and the other in coherence
    /// (8.10.3).
    fn writes_taken_by_strong_rmws(&self, g: &Execution, q: &Event) -> SmallVec<[EventId; 8]> {
        g.ids()
            .filter(|&r| {
                let e = g.event(r);
                matches!(e.kind, EventKind::Read { rmw: true, .. })
                    && morally_strong_events(e, q, g.placements())
            })
            .filter_map(|r| g.rf().get(r.index()).copied().flatten())
            .collect()
    }

    /// A strong acquire read, not a reduction's (8.8: the acquire pattern's
    /// operation).
    fn acquires(&self, q: &Event) -> bool {
        matches!(q.kind, EventKind::Read { red: false, .. }) && q.is_strong() && q.sem.is_acquire()
    }

    /// A strong acquire read (not a reduction's) that reads a strong release
    /// write morally strong with it synchronizes with it: the release and
    /// acquire patterns of 8.8 (form 1, the operations themselves), observed
    /// through reads-from (8.9.2), make 8.9.4's synchronizes-with.
    fn synchronizes_when_read(&self, g: &Execution, q: &Event, w: &Event) -> bool {
        self.acquires(q)
            && w.is_strong()
            && w.sem.is_release()
            && morally_strong_events(w, q, g.placements())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Model;

    /// The three answers on the ticket lock's words, from its program:
    /// its `serving` RMWs need two writes, its release of `serving`
    /// synchronizes with the acquire spin read, and a plain read of `data`
    /// excludes the writes it precedes in causality.
    #[test]
    fn waits_on_a_ticket_lock() {
        let src = ptxmc_frontend::families::generate("ticket-lock", 2, "gpu").expect("a family");
        let test = ptxmc_frontend::parse(&src).expect("parses");
        let codes: Vec<_> = (0..test.threads.len())
            .map(|t| {
                crate::interp::ThreadCode::new(&test, ptxmc_frontend::ir::ThreadId::new(t))
                    .expect("code")
            })
            .collect();
        let mut g = crate::explore::candidate::empty_execution(&test);
        let model = Chapter8::new(&g);
        // Each thread's events as the interpreter makes them, every read
        // reading 0 (its ticket 0, so that thread 0 passes; thread 1 too,
        // which is enough for the shapes asked about here).
        let mut ids = vec![Vec::new(); codes.len()];
        for (t, code) in codes.iter().enumerate() {
            let mut st = crate::interp::ThreadState::<i64>::new(code, &test, 4);
            while let crate::interp::Next::Event(ev) = st.next(code) {
                let is_read = ev.is_read();
                let id = g.push_event(t, ev);
                st.commit(id, is_read.then_some(0));
                ids[t].push(id);
            }
        }
        let find = |t: usize, f: &dyn Fn(&Event) -> bool| {
            ids[t]
                .iter()
                .copied()
                .find(|&e| f(g.event(e)))
                .expect("an event")
        };
        let name = |e: &Event| e.loc().map(|l| test.addr_name(l.addr).to_string());
        let is = |n: &'static str| move |e: &Event| name(e).as_deref() == Some(n);
        let add0 = find(0, &|e| e.is_read() && e.is_rmw() && is("serving")(e));
        let add1 = find(1, &|e| e.is_read() && e.is_rmw() && is("serving")(e));
        let spin1 = find(1, &|e| e.is_read() && !e.is_rmw() && is("serving")(e));
        let release0 = find(0, &|e| e.is_write() && is("serving")(e));
        let data0 = find(0, &|e| e.is_read() && is("data")(e));
        let w = g.event(release0).clone();
        assert!(model.rmws_need_distinct_writers(&g, add0, add1, &mut std::iter::once(&w)));
        assert!(model.synchronizes_when_read(&g, g.event(spin1), &w));
        // A relaxed write (the ticket's FAA on `next`) does not.
        let faa = find(0, &|e| e.is_write() && is("next")(e));
        assert!(!model.synchronizes_when_read(&g, g.event(spin1), g.event(faa)));
        let loc = g.event(data0).loc().expect("a location");
        assert!(model.causality_excludes_later(
            &g,
            data0,
            &mut std::iter::once((loc.vaddr, Proxy::Generic))
        ));
        assert!(!model.causality_excludes_later(
            &g,
            data0,
            &mut std::iter::once((loc.vaddr, Proxy::Async))
        ));
    }
}
