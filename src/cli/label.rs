//! Naming events for people: positions (`P1:2`), the instruction as the
//! litmus file spells it, values (`x=1`). Shared by `explain` and `--graph`.

use ptxmc_checker::event::{Event, EventKind};
use ptxmc_frontend::ir::{BarrierKind, Sem, Test};

/// Names the events of executions of one test.
pub struct Labels<'a> {
    test: &'a Test,
    lines: Vec<&'a str>,
}

impl<'a> Labels<'a> {
    /// Labels for `test`, whose source text is `src`.
    pub fn new(test: &'a Test, src: &'a str) -> Self {
        Self {
            test,
            lines: src.lines().collect(),
        }
    }

    /// The instruction of `ev` as written in the source (`st.release.gpu y, 1`),
    /// or a spelling built from the event when the source has no such position.
    pub fn instr(&self, ev: &Event) -> String {
        let from_source = (ev.span.line > 0)
            .then(|| self.lines.get(ev.span.line as usize - 1))
            .flatten()
            .and_then(|line| {
                let start = ev.span.col.saturating_sub(1) as usize;
                let rest: String = line.chars().skip(start).collect();
                let end = rest.find([';', '|']).unwrap_or(rest.len());
                let text = rest[..end].trim().to_string();
                (!text.is_empty()).then_some(text)
            });
        from_source.unwrap_or_else(|| synthesized(ev))
    }

    /// The opcode of `ev`'s instruction: its first word (`st.release.gpu`).
    pub fn opcode(&self, ev: &Event) -> String {
        let i = self.instr(ev);
        // A label sharing the cell (`L0: ld ...`) is not part of the opcode.
        let i = match i.split_once(':') {
            Some((l, rest)) if !l.contains(char::is_whitespace) && !l.contains('.') => {
                rest.trim().to_string()
            }
            _ => i,
        };
        i.split_whitespace().next().unwrap_or_default().to_string()
    }

    /// `x=1` for a memory event (the location through the name it uses).
    pub fn access(&self, ev: &Event) -> Option<String> {
        let loc = ev.loc()?;
        let name = self
            .test
            .symbols
            .addrs
            .get(loc.addr.index())
            .map_or("?", String::as_str);
        Some(format!("{}={}", name, ev.value().unwrap_or(0)))
    }

    /// `P1:2` (thread and program-order index) or `W0` for an initial write.
    pub fn pos(&self, ev: &Event) -> String {
        match ev.thread {
            Some(t) => format!("P{}:{}", t.index(), ev.po_index),
            None => "W0".to_string(),
        }
    }

    /// `R`, `W`, `F` (fence) or `B` (barrier).
    pub fn letter(ev: &Event) -> &'static str {
        match ev.kind {
            EventKind::Read { .. } => "R",
            EventKind::Write { .. } => "W",
            EventKind::Fence(_) => "F",
            EventKind::Barrier { .. } => "B",
        }
    }

    /// A full description: `R P1:1 ld.weak r2, x` or `W0 (x=0)`.
    pub fn describe(&self, ev: &Event) -> String {
        if ev.is_init() {
            return format!("W0 ({})", self.access(ev).unwrap_or_default());
        }
        format!("{} {} {}", Self::letter(ev), self.pos(ev), self.instr(ev))
    }

    /// A short mention inside a path: `P0:1 st.release.gpu y` (position,
    /// opcode and location), or `W0 (x=0)`.
    pub fn mention(&self, ev: &Event) -> String {
        if ev.is_init() {
            return format!("W0 ({})", self.access(ev).unwrap_or_default());
        }
        let mut s = format!("{} {}", self.pos(ev), self.opcode(ev));
        if let Some(loc) = ev.loc() {
            if let Some(name) = self.test.symbols.addrs.get(loc.addr.index()) {
                s.push(' ');
                s.push_str(name);
            }
        }
        s
    }

    /// The node label of a picture: `W x=1 st.release.gpu`, `W0 x=0`, `F fence.sc.gpu`.
    pub fn node(&self, ev: &Event) -> String {
        if ev.is_init() {
            return format!("W0 {}", self.access(ev).unwrap_or_default());
        }
        match self.access(ev) {
            Some(a) => format!("{} {} {}", Self::letter(ev), a, self.opcode(ev)),
            None => format!("{} {}", Self::letter(ev), self.opcode(ev)),
        }
    }
}

fn sem(s: Sem) -> String {
    format!(".{s}")
}

fn scope(ev: &Event) -> String {
    ev.scope.map(|s| format!(".{s}")).unwrap_or_default()
}

/// An instruction spelling built from the event alone (no source position).
fn synthesized(ev: &Event) -> String {
    match ev.kind {
        EventKind::Read { rmw: true, .. } | EventKind::Write { rmw: true, .. } => {
            format!("atom{}{}", sem(ev.sem), scope(ev))
        }
        EventKind::Read { .. } => format!("ld{}{}", sem(ev.sem), scope(ev)),
        EventKind::Write { .. } => format!("st{}{}", sem(ev.sem), scope(ev)),
        EventKind::Fence(k) => format!("{k}{}", scope(ev)),
        EventKind::Barrier { kind, id, .. } => match kind {
            BarrierKind::Sync | BarrierKind::Arrive | BarrierKind::Red => format!("{kind} {id}"),
            // The cluster barriers name no barrier.
            BarrierKind::ClusterArrive
            | BarrierKind::ClusterArriveRelaxed
            | BarrierKind::ClusterWait => kind.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxmc_checker::event::{AsyncOrder, EventKind};
    use ptxmc_frontend::ir::{FenceKind, Proxy, Scope, Span};

    fn fence(kind: FenceKind, scope: Option<Scope>) -> Event {
        Event {
            thread: None,
            po_index: 0,
            kind: EventKind::Fence(kind),
            sem: Sem::Weak,
            scope,
            proxy: Proxy::Generic,
            span: Span::default(),
            instr: 0,
            addr_deps: Default::default(),
            data_deps: Default::default(),
            ctrl_deps: Default::default(),
            async_order: AsyncOrder::default(),
        }
    }

    #[test]
    fn a_fence_without_a_source_position_is_labelled_in_ptx_spelling() {
        assert_eq!(
            synthesized(&fence(FenceKind::ProxyAlias, None)),
            "fence.proxy.alias"
        );
        assert_eq!(
            synthesized(&fence(FenceKind::Sc, Some(Scope::Gpu))),
            "fence.sc.gpu"
        );
        for k in FenceKind::ALL {
            assert_eq!(synthesized(&fence(k, None)), k.spelling());
        }
    }

    #[test]
    fn barriers_and_accesses_without_a_source_position_are_labelled_in_ptx_spelling() {
        let mut b = fence(FenceKind::Sc, None);
        b.kind = EventKind::Barrier {
            kind: BarrierKind::Red,
            instance: 0,
            id: 1,
            count: None,
        };
        assert_eq!(synthesized(&b), "bar.red 1");
        b.kind = EventKind::Barrier {
            kind: BarrierKind::ClusterArriveRelaxed,
            instance: 0,
            id: 0,
            count: None,
        };
        assert_eq!(synthesized(&b), "barrier.cluster.arrive.relaxed");
        let mut r = fence(FenceKind::Sc, Some(Scope::Cluster));
        r.kind = EventKind::Read {
            loc: ptxmc_checker::event::Location {
                phys: ptxmc_frontend::ir::PhysId(0),
                vaddr: ptxmc_frontend::ir::VAddrId(0),
                addr: ptxmc_frontend::ir::AddrId(0),
            },
            value: 0,
            rmw: false,
            red: false,
        };
        r.sem = Sem::AcqRel;
        assert_eq!(synthesized(&r), "ld.acq_rel.cluster");
    }
}
