//! Asynchronous operations and `mbarrier` instructions (8.9.1.1) in PTX spelling.

use super::words::{access_mods, space_mod, Ctx};
use crate::ir::{AddrOperand, AsyncInstr, MbarrierUpdate, RmwOp, Scope, Sem, StateSpace, WgmmaA};

/// `.relaxed.sys` / `.release.cluster` / `` for weak.
fn sem_scope(sem: Sem, scope: Option<Scope>) -> String {
    match (sem, scope) {
        (Sem::Relaxed | Sem::Acquire | Sem::Release | Sem::AcqRel, Some(s)) => {
            format!(".{sem}.{s}")
        }
        (Sem::Relaxed | Sem::Acquire | Sem::Release | Sem::AcqRel, None) => format!(".{sem}"),
        _ => String::new(),
    }
}

fn space(s: StateSpace) -> String {
    match s {
        StateSpace::Shared => ".shared::cta".into(),
        other => space_mod(other, true),
    }
}

/// One asynchronous or `mbarrier` instruction.
pub(super) fn stmt(c: &Ctx<'_>, a: &AsyncInstr) -> String {
    match a {
        AsyncInstr::Copy {
            bulk,
            sem,
            scope,
            dst,
            dst_space,
            src,
            src_space,
            size,
            mbar,
            reduce,
            // A part of a split copy prints as a copy of its own (only the
            // checker's rewritten tests have parts; PTX has no spelling).
            continued: _,
        } => {
            let base = match (bulk, reduce) {
                (_, Some(RmwOp::Float(f))) => format!("cp.reduce.async.bulk.{}", f.rmw_words()),
                (_, Some(RmwOp::Elements(e))) => format!("cp.reduce.async.bulk.{}", e.words()),
                (_, Some(op)) => format!("cp.reduce.async.bulk.{}", op),
                (true, None) => "cp.async.bulk".into(),
                (false, None) => "cp.async.ca".into(),
            };
            let completion = match (bulk, mbar) {
                (_, Some(_)) => ".mbarrier::complete_tx::bytes",
                (true, None) => ".bulk_group",
                (false, None) => "",
            };
            let mut s = format!(
                "{base}{}{}{completion}{} {}, {}, {size}",
                space(*dst_space),
                space(*src_space),
                sem_scope(*sem, *scope),
                c.addr(*dst),
                c.addr_of(AddrOperand::Source, *src),
            );
            if let Some(m) = mbar {
                s += &format!(", {}", c.addr_of(AddrOperand::Mbarrier, *m));
            }
            s
        }
        AsyncInstr::StAsync {
            sem,
            scope,
            access,
            addr,
            src,
            mbar,
        } => format!(
            "st.async{}.shared::cluster.mbarrier::complete_tx::bytes{} {}, {}, {}",
            sem_scope(*sem, *scope),
            access_mods(*access, false),
            c.addr(*addr),
            c.val(*src),
            c.addr_of(AddrOperand::Mbarrier, *mbar)
        ),
        AsyncInstr::Commit { bulk } => {
            format!("cp.async{}.commit_group", if *bulk { ".bulk" } else { "" })
        }
        AsyncInstr::Wait {
            bulk,
            pending,
            all,
            read,
        } => match (bulk, all) {
            (false, true) => "cp.async.wait_all".into(),
            (false, false) => format!("cp.async.wait_group {pending}"),
            (true, _) => format!(
                "cp.async.bulk.wait_group{} {pending}",
                if *read { ".read" } else { "" }
            ),
        },
        AsyncInstr::CpAsyncArrive { mbar, noinc } => format!(
            "cp.async.mbarrier.arrive{}.shared::cta.b64 {}",
            if *noinc { ".noinc" } else { "" },
            c.addr_of(AddrOperand::Mbarrier, *mbar)
        ),
        AsyncInstr::MbarrierInit { mbar, count } => {
            format!(
                "mbarrier.init.shared::cta.b64 {}, {count}",
                c.addr_of(AddrOperand::Mbarrier, *mbar)
            )
        }
        AsyncInstr::MbarrierUpdate {
            kind,
            sem,
            scope,
            space: sp,
            dst,
            mbar,
            count,
            tx,
            no_complete,
        } => {
            let word = match kind {
                MbarrierUpdate::Arrive => "arrive",
                MbarrierUpdate::ArriveExpectTx => "arrive.expect_tx",
                MbarrierUpdate::ExpectTx => "expect_tx",
                MbarrierUpdate::CompleteTx => "complete_tx",
                MbarrierUpdate::ArriveDrop => "arrive_drop",
                MbarrierUpdate::ArriveDropExpectTx => "arrive_drop.expect_tx",
            };
            let mut ops = Vec::new();
            if matches!(
                kind,
                MbarrierUpdate::Arrive
                    | MbarrierUpdate::ArriveExpectTx
                    | MbarrierUpdate::ArriveDrop
                    | MbarrierUpdate::ArriveDropExpectTx
            ) {
                ops.push(dst.map_or_else(|| "_".to_string(), |r| c.reg(r)));
            }
            ops.push(c.addr_of(AddrOperand::Mbarrier, *mbar));
            match kind {
                MbarrierUpdate::Arrive | MbarrierUpdate::ArriveDrop
                    if *count != 1 || *no_complete =>
                {
                    ops.push(count.to_string())
                }
                MbarrierUpdate::Arrive | MbarrierUpdate::ArriveDrop => {}
                _ => ops.push(tx.to_string()),
            }
            format!(
                "mbarrier.{word}{}{}{}.b64 {}",
                if *no_complete { ".noComplete" } else { "" },
                sem_scope(*sem, Some(*scope)),
                space(*sp),
                ops.join(", ")
            )
        }
        AsyncInstr::MbarrierWait {
            try_wait,
            sem,
            scope,
            dst,
            mbar,
            parity,
            x,
        } => format!(
            "mbarrier.{}{}{}.shared::cta.b64 {}, {}, {}",
            if *try_wait { "try_wait" } else { "test_wait" },
            if *parity { ".parity" } else { "" },
            sem_scope(*sem, Some(*scope)),
            c.reg(*dst),
            c.addr_of(AddrOperand::Mbarrier, *mbar),
            c.val(*x)
        ),
        AsyncInstr::WgmmaFence => "wgmma.fence.sync.aligned".into(),
        AsyncInstr::WgmmaCommit => "wgmma.commit_group.sync.aligned".into(),
        AsyncInstr::WgmmaWait { pending } => format!("wgmma.wait_group.sync.aligned {pending}"),
        AsyncInstr::WgmmaMma {
            shape,
            dst,
            a,
            b,
            scale_d,
            imms,
            sparse,
        } => {
            let regs = |rs: &[crate::ir::RegId]| {
                let v: Vec<String> = rs.iter().map(|r| c.reg(*r)).collect();
                format!("{{{}}}", v.join(", "))
            };
            let a = match a {
                WgmmaA::Desc(r, _) => c.reg(*r),
                WgmmaA::Regs(rs) => regs(rs),
            };
            let (sp, meta) = match sparse {
                Some(sp) => (".sp", format!(", {}, {}", c.val(sp.meta), sp.selector)),
                None => ("", String::new()),
            };
            let mut s = format!(
                "wgmma.mma_async{sp}.sync.aligned{shape} {}, {a}, {}{meta}, {}",
                regs(dst),
                c.reg(b.0),
                c.val(*scale_d)
            );
            for i in imms {
                s += &format!(", {i}");
            }
            s
        }
    }
}
