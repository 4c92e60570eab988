//! The canonical numbering of a parsed test's addresses, so that the
//! printer's text reads back to the same ids ([`crate::print`]).
//!
//! The parser numbers addresses as it meets them: the initial state's in
//! order, then a location the initial state does not declare on its first
//! use, an offset `[x+N]` on its first use (in the thread table, when a
//! register-held address is resolved, or in the condition) and a thread's
//! copy of a `.local` location when the accesses are rewritten. The printer
//! declares every location of its own (and every alias) in the initial
//! state, in id order, and writes offsets and copies in the instructions
//! only, where the order of first uses need not be the source's (a cell
//! that lowers to no statement or to several moves the rows after it). So
//! the finished test is renumbered: the addresses the printer declares keep
//! their order and come first, then the `.local` copies by location and
//! thread, then the offsets by base and offset; physical locations and
//! virtual addresses are renumbered in the order the new address list first
//! names them. A test whose addresses are in that order already is
//! unchanged, and so is every address the initial state declares (they are
//! first, in order), which the values `mov.u64 %rd1, x` leaves in registers
//! ([`crate::ir::address_value`]) name.

use crate::ir::{
    AddrId, AddrKind, AddrOperand, AsyncInstr, Instr, PhysId, Prop, Term, Test, VAddrId, WgmmaA,
};

/// Where an address goes in the canonical order: the printer's
/// declarations first (in their order), then copies, then offsets.
fn rank(t: &Test, new_of: &[Option<AddrId>], a: usize) -> (u8, u32, u32) {
    let new = |b: AddrId| {
        new_of
            .get(b.index())
            .copied()
            .flatten()
            .map_or(u32::MAX, |n| n.0)
    };
    match t.addresses[a].kind {
        AddrKind::LocalCopy(l, th) => (1, new(l), th.0),
        AddrKind::Offset(base, off) => (2, new(base), off),
        _ => (0, 0, 0),
    }
}

/// Renumbers the addresses of `t` in the canonical order (the module
/// comment), rewriting every id.
pub(super) fn canonical_addresses(t: &mut Test) {
    let n = t.addresses.len();
    let mut new_of: Vec<Option<AddrId>> = vec![None; n];
    let mut order: Vec<usize> = Vec::with_capacity(n);
    // Three passes, each placing the addresses of one rank: a copy's
    // location and an offset's base are placed before it.
    for pass in 0..3u8 {
        let mut these: Vec<(u32, u32, usize)> = (0..n)
            .filter_map(|a| {
                let (r, k1, k2) = rank(t, &new_of, a);
                (r == pass).then_some((k1, k2, a))
            })
            .collect();
        if pass > 0 {
            these.sort_unstable();
        }
        for (_, _, a) in these {
            new_of[a] = Some(AddrId::new(order.len()));
            order.push(a);
        }
    }
    let renumbered = order.iter().enumerate().all(|(i, &a)| i == a);
    let phys_map = first_seen(order.iter().map(|&a| t.addresses[a].phys.index()), t.n_phys);
    let vaddr_map = first_seen(
        order.iter().map(|&a| t.addresses[a].vaddr.index()),
        t.n_vaddr,
    );
    let phys_same = phys_map.iter().enumerate().all(|(i, &p)| i == p);
    let vaddr_same = vaddr_map.iter().enumerate().all(|(i, &v)| i == v);
    if renumbered && phys_same && vaddr_same {
        return;
    }
    // invariant: every address got a new id in one of the passes (the
    // ranks are 0, 1 and 2).
    let map = |a: AddrId| new_of.get(a.index()).copied().flatten().unwrap_or(a);
    let old = std::mem::take(&mut t.addresses);
    t.addresses = order
        .iter()
        .map(|&a| {
            let mut ad = old[a];
            ad.kind = match ad.kind {
                AddrKind::GenericAlias(of) => AddrKind::GenericAlias(map(of)),
                AddrKind::ProxyAlias(p, of) => AddrKind::ProxyAlias(p, map(of)),
                AddrKind::Offset(b, off) => AddrKind::Offset(map(b), off),
                AddrKind::LocalCopy(l, th) => AddrKind::LocalCopy(map(l), th),
                k => k,
            };
            ad.phys = PhysId::new(phys_map[ad.phys.index()]);
            ad.vaddr = VAddrId::new(vaddr_map[ad.vaddr.index()]);
            ad
        })
        .collect();
    let names = std::mem::take(&mut t.symbols.addrs);
    t.symbols.addrs = order.iter().map(|&a| names[a].clone()).collect();
    let mut init = vec![0; t.init_mem.len()];
    for (p, &v) in t.init_mem.iter().enumerate() {
        if let Some(slot) = phys_map.get(p).and_then(|&q| init.get_mut(q)) {
            *slot = v;
        }
    }
    t.init_mem = init;
    for th in &mut t.threads {
        for s in &mut th.code {
            map_instr(&mut s.instr, &map);
        }
    }
    for (mc, members) in &mut t.multimem {
        *mc = map(*mc);
        for m in members {
            *m = map(*m);
        }
    }
    for term in &mut t.observed {
        map_term(term, &map);
    }
    if let Some(f) = &mut t.filter {
        map_prop(f, &map);
    }
    map_prop(&mut t.condition.prop, &map);
}

/// `old -> new` for ids `0..count`, numbered in the order `seen` first
/// names them; ids it never names follow, in their order.
fn first_seen(seen: impl Iterator<Item = usize>, count: u32) -> Vec<usize> {
    let count = count as usize;
    let mut map = vec![usize::MAX; count];
    let mut next = 0;
    for i in seen.chain(0..count) {
        if let Some(slot) = map.get_mut(i) {
            if *slot == usize::MAX {
                *slot = next;
                next += 1;
            }
        }
    }
    map
}

/// Rewrites the addresses an instruction names.
fn map_instr(instr: &mut Instr, map: &impl Fn(AddrId) -> AddrId) {
    for operand in AddrOperand::ALL {
        if let Some(a) = instr.address_mut(operand) {
            *a = map(*a);
        }
    }
    if let Instr::Async(AsyncInstr::WgmmaMma { a, b, .. }) = instr {
        b.1 = map(b.1);
        if let WgmmaA::Desc(_, at) = a {
            *at = map(*at);
        }
    }
}

fn map_term(term: &mut Term, map: &impl Fn(AddrId) -> AddrId) {
    if let Term::Mem(a) = term {
        *a = map(*a);
    }
}

fn map_prop(p: &mut Prop, map: &impl Fn(AddrId) -> AddrId) {
    match p {
        Prop::True | Prop::False => {}
        Prop::Cmp(_, a, b) => {
            map_term(a, map);
            map_term(b, map);
        }
        Prop::Not(q) => map_prop(q, map),
        Prop::And(a, b) | Prop::Or(a, b) => {
            map_prop(a, map);
            map_prop(b, map);
        }
    }
}
