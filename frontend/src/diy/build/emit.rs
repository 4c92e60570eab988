//! Emitting a resolved, rotated cycle as litmus text: declarations, thread
//! code, the final condition and the test's name.

use super::*;
use std::fmt::Write;

/// Emits the test of a rotated cycle (thread 0 starts at event 0).
pub(super) fn emit(
    edges: &[Edge],
    evs: &[Ev],
    shape: Option<&'static str>,
    opts: &Options,
) -> Result<Litmus, CycleError> {
    let n = edges.len();
    // Threads: a new one after each external edge.
    let mut threads: Vec<Vec<usize>> = vec![Vec::new()];
    for (i, edge) in edges.iter().enumerate() {
        if let Some(t) = threads.last_mut() {
            t.push(i);
        }
        if edge.external() && i + 1 < n {
            threads.push(Vec::new());
        }
    }
    // Locations: runs between location-changing edges.
    let changes: Vec<usize> = (0..n).filter(|&i| edges[i].changes_loc()).collect();
    let mut raw_loc = vec![0usize; n];
    let mut runs: Vec<Vec<usize>> = Vec::new();
    if changes.is_empty() {
        let p = (0..n)
            .find(|&i| {
                matches!(
                    edges[i].kind,
                    EdgeKind::Po { same_loc: true, .. } | EdgeKind::Amo { .. }
                )
            })
            .unwrap_or(0);
        runs.push((0..n).map(|k| (p + 1 + k) % n).collect());
    } else {
        let start = (changes[0] + 1) % n;
        let mut cur: Vec<usize> = Vec::new();
        for k in 0..n {
            let e = (start + k) % n;
            raw_loc[e] = runs.len();
            cur.push(e);
            if edges[e].changes_loc() {
                runs.push(std::mem::take(&mut cur));
            }
        }
        if !cur.is_empty() {
            runs.push(cur);
        }
    }
    if changes.is_empty() {
        raw_loc = vec![0; n];
    }
    // Renumber locations by first appearance in event order.
    let mut renum = vec![usize::MAX; runs.len()];
    let mut next_loc = 0;
    for &l in &raw_loc {
        if renum[l] == usize::MAX {
            renum[l] = next_loc;
            next_loc += 1;
        }
    }
    let loc: Vec<usize> = raw_loc.iter().map(|&l| renum[l]).collect();
    let nlocs = next_loc;
    // Values along each run, in coherence order.
    let mut rval = vec![0i64; n]; // value read (reads)
    let mut wval = vec![0i64; n]; // value written (writes)
    let mut wold = vec![0i64; n]; // value before a write (for atom.add on writes)
    let mut xval = vec![0i64; n]; // value written by a read that is an RMW
    let mut last = vec![0i64; nlocs];
    let mut nwrites = vec![0usize; nlocs];
    for run in &runs {
        let (mut cur, mut next) = (0i64, 1i64);
        for &e in run {
            match evs[e].dir {
                Dir::W => {
                    wold[e] = cur;
                    wval[e] = next;
                    cur = next;
                    next += 1;
                }
                Dir::R => {
                    rval[e] = cur;
                    if evs[e].rmw.is_some() {
                        xval[e] = next;
                        cur = next;
                        next += 1;
                    }
                }
            }
        }
        if let Some(&e) = run.first() {
            last[loc[e]] = next - 1;
            nwrites[loc[e]] = (next - 1) as usize;
        }
    }
    // Which reads the condition observes.
    let observed = |e: usize| -> bool {
        let inc = &edges[(e + n - 1) % n];
        let out = &edges[e];
        evs[e].dir == Dir::R
            && (evs[e].amo_r
                || matches!(inc.kind, EdgeKind::Com { com: Com::Rf, .. })
                || matches!(out.kind, EdgeKind::Com { com: Com::Fr, .. }))
    };
    // Code.
    let names: Vec<String> = (0..nlocs).map(loc_name).collect();
    let mut aliases: Vec<Vec<Proxy>> = vec![Vec::new(); nlocs];
    for e in 0..n {
        let p = evs[e].proxy;
        if p != Proxy::Generic && !aliases[loc[e]].contains(&p) {
            aliases[loc[e]].push(p);
        }
    }
    let mut code: Vec<Vec<String>> = Vec::new();
    let mut cond: Vec<String> = Vec::new();
    for (t, evs_t) in threads.iter().enumerate() {
        let mut lines: Vec<String> = Vec::new();
        let mut nreg = 0usize;
        let mut nlabel = 0usize;
        let mut reg_of = vec![usize::MAX; n];
        for (k, &e) in evs_t.iter().enumerate() {
            let ev = evs[e];
            let addr = format!("{}{}", names[loc[e]], alias_suffix(ev.proxy));
            // The po edge into this event: fence and dependency.
            let mut operand_reg: Option<(usize, i64)> = None; // (source reg, source value)
            if k > 0 {
                let prev = evs_t[k - 1];
                if let EdgeKind::Po { fence, dep, .. } = edges[prev].kind {
                    if let Some(f) = fence {
                        lines.push(format!("fence.{}", f.spec()));
                    }
                    match dep {
                        Some(Dep::Ctrl) => {
                            let r = reg_of[prev];
                            lines.push(format!("bne r{r}, {}, LC{nlabel:02}", rval[prev]));
                            lines.push(format!("LC{nlabel:02}:"));
                            nlabel += 1;
                        }
                        Some(Dep::Data) => operand_reg = Some((reg_of[prev], rval[prev])),
                        None => {}
                    }
                }
            }
            if ev.amo_w {
                continue;
            }
            // `o` is the immediate operand; with a data dependency it is
            // computed into a register from the source read.
            let operand = |o: i64, lines: &mut Vec<String>, nreg: &mut usize| -> String {
                match operand_reg {
                    Some((src, v)) => {
                        let r = *nreg;
                        *nreg += 1;
                        lines.push(format!("add r{r}, r{src}, {}", o - v));
                        format!("r{r}")
                    }
                    None => o.to_string(),
                }
            };
            match ev.dir {
                Dir::R => {
                    let r = nreg;
                    nreg += 1;
                    reg_of[e] = r;
                    if ev.amo_r {
                        let w = (e + 1) % n;
                        let sem = amo_sem(ev.sem, evs[w].sem);
                        let (op, o) = match edges[e].kind {
                            EdgeKind::Amo { op: RmwOp::Add } => ("add", wval[w] - rval[e]),
                            _ => ("exch", wval[w]),
                        };
                        lines.push(format!(
                            "atom.{}.{op} r{r}, {addr}, {o}",
                            qual(sem, ev.scope)
                        ));
                    } else if let Some(op) = ev.rmw {
                        let o = match op {
                            RmwOp::Exch => xval[e],
                            RmwOp::Add => xval[e] - rval[e],
                        };
                        lines.push(format!(
                            "atom.{}.{} r{r}, {addr}, {o}",
                            qual(ev.sem, ev.scope),
                            op.as_str()
                        ));
                    } else {
                        let mn = match ev.proxy {
                            Proxy::Surface => "suld",
                            Proxy::Texture => "tld",
                            Proxy::Constant => "cold",
                            _ => "ld",
                        };
                        lines.push(format!("{mn}.{} r{r}, {addr}", qual(ev.sem, ev.scope)));
                    }
                    if observed(e) {
                        cond.push(format!("{t}:r{r} == {}", rval[e]));
                    }
                }
                Dir::W => {
                    if let Some(op) = ev.rmw {
                        let o = match op {
                            RmwOp::Exch => wval[e],
                            RmwOp::Add => wval[e] - wold[e],
                        };
                        let v = operand(o, &mut lines, &mut nreg);
                        let r = nreg;
                        nreg += 1;
                        lines.push(format!(
                            "atom.{}.{} r{r}, {addr}, {v}",
                            qual(ev.sem, ev.scope),
                            op.as_str()
                        ));
                    } else {
                        let v = operand(wval[e], &mut lines, &mut nreg);
                        let mn = if ev.proxy == Proxy::Surface {
                            "sust"
                        } else {
                            "st"
                        };
                        lines.push(format!("{mn}.{} {addr}, {v}", qual(ev.sem, ev.scope)));
                    }
                }
            }
        }
        code.push(lines);
    }
    for l in 0..nlocs {
        if nwrites[l] >= 2 {
            cond.push(format!("{} == {}", names[l], last[l]));
        }
    }
    if cond.is_empty() {
        return Err(CycleError::whole(
            "the cycle constrains nothing observable (no read is observed and no location \
             has two writes)",
        ));
    }
    // Name.
    let nthreads = threads.len();
    let comps: Vec<String> = threads
        .iter()
        .map(|t| thread_component(t, edges, evs))
        .collect();
    let base = match shape {
        Some(s) => s.to_string(),
        None => edges
            .iter()
            .map(Edge::shape_key)
            .collect::<Vec<_>>()
            .join("-"),
    };
    let mut name = base;
    if nthreads >= 2 && !comps[0].contains('-') && comps.iter().all(|c| c == &comps[0]) {
        let _ = write!(name, "+{}s", comps[0]);
    } else {
        for c in &comps {
            let _ = write!(name, "+{c}");
        }
    }
    let placement = if nthreads >= 2 {
        opts.placement
    } else {
        Placement::Gpu
    };
    name.push_str(placement.suffix());
    // Canonical cycle text.
    let mut cyc: Vec<String> = Vec::new();
    for i in 0..n {
        let a = event_ann_text(&evs[i]);
        if !a.is_empty() {
            cyc.push(format!("[{a}]"));
        }
        cyc.push(edges[i].text());
    }
    let cycle = cyc.join(" ");
    // Text.
    let mut s = String::new();
    let _ = writeln!(s, "PTX {name}");
    let _ = writeln!(s, "\"{cycle}\"");
    let body_at = s.len();
    let _ = writeln!(s, "{{");
    for name in &names {
        let _ = writeln!(s, "{name}=0;");
    }
    for (l, al) in aliases.iter().enumerate() {
        for p in al {
            let kind = if *p == Proxy::Alias {
                "generic"
            } else {
                p.as_str()
            };
            let _ = writeln!(
                s,
                "{}{} @ {kind} aliases {};",
                names[l],
                alias_suffix(*p),
                names[l]
            );
        }
    }
    let _ = writeln!(s, "}}");
    let headers: Vec<String> = (0..nthreads)
        .map(|i| match placement {
            Placement::Cta => format!("P{i}@cta 0,gpu 0"),
            Placement::Cluster => format!("P{i}@cta {i},cluster 0,gpu 0"),
            Placement::Gpu => format!("P{i}@cta {i},gpu 0"),
            Placement::Sys => format!("P{i}@cta 0,gpu {i}"),
        })
        .collect();
    let columns: Vec<Vec<String>> = headers
        .into_iter()
        .zip(&code)
        .map(|(h, c)| std::iter::once(h).chain(c.iter().cloned()).collect())
        .collect();
    crate::printer::columns_table(&columns, &mut s);
    let _ = writeln!(s, "exists ({})", cond.join(" /\\ "));
    Ok(Litmus {
        name,
        shape,
        cycle,
        threads: nthreads,
        text: s,
        body_at,
    })
}

/// The descriptor of one event: `weak`, `rlx.gpu`, `rel.cta.exch`, `weak.alias`.
fn event_desc(ev: &Ev) -> String {
    let mut s = ev.sem.short().to_string();
    if let Some(sc) = ev.scope {
        s.push('.');
        s.push_str(scope_str(sc));
    }
    if let Some(r) = ev.rmw {
        s.push('.');
        s.push_str(r.as_str());
    }
    if ev.proxy != Proxy::Generic {
        s.push('.');
        s.push_str(ev.proxy.as_str());
    }
    s
}

fn is_plain(ev: &Ev, sem: Sem, scope: Option<Scope>) -> bool {
    ev.sem == sem && ev.scope == scope
}

/// The name component of a thread: a short template (`po`, `rlx.gpu`,
/// `rel.gpu`, `acq.cta`, `ra.gpu`, `fence.sc.gpu`, `data`, `ctrl`, with `.exch`/`.add`
/// when its strong writes/reads are RMWs) when the thread is one, else the
/// events and po annotations joined by `-`.
fn thread_component(t: &[usize], edges: &[Edge], evs: &[Ev]) -> String {
    if let Some(c) = template(t, edges, evs) {
        return c;
    }
    let mut parts: Vec<String> = Vec::new();
    for (k, &e) in t.iter().enumerate() {
        if k > 0 {
            if let EdgeKind::Po { fence, dep, .. } = edges[t[k - 1]].kind {
                match dep {
                    Some(Dep::Data) => parts.push("data".into()),
                    Some(Dep::Ctrl) => parts.push("ctrl".into()),
                    None => {}
                }
                if let Some(f) = fence {
                    parts.push(format!("fence.{}", f.spec()));
                }
            }
        }
        let ev = &evs[e];
        if ev.amo_w {
            continue;
        }
        if ev.amo_r {
            let w = &evs[(e + 1) % edges.len()];
            let mut d = format!("amo.{}", amo_sem(ev.sem, w.sem).short());
            if let Some(sc) = ev.scope {
                d.push('.');
                d.push_str(scope_str(sc));
            }
            if let EdgeKind::Amo { op } = edges[e].kind {
                d.push('.');
                d.push_str(op.as_str());
            }
            if ev.proxy != Proxy::Generic {
                d.push('.');
                d.push_str(ev.proxy.as_str());
            }
            parts.push(d);
        } else {
            parts.push(event_desc(ev));
        }
    }
    parts.join("-")
}

fn template(t: &[usize], edges: &[Edge], evs: &[Ev]) -> Option<String> {
    if t.iter()
        .any(|&e| evs[e].amo_r || evs[e].amo_w || evs[e].proxy != Proxy::Generic)
    {
        return None;
    }
    if let [e] = t {
        return Some(event_desc(&evs[*e]));
    }
    let [s, tt] = t else { return None };
    let (sv, tv) = (&evs[*s], &evs[*tt]);
    let EdgeKind::Po { fence, dep, .. } = edges[*s].kind else {
        return None;
    };
    // RMW suffix: every strong write an exch, or every strong read an add.
    let rmws: Vec<&Ev> = [sv, tv].into_iter().filter(|e| e.rmw.is_some()).collect();
    let strong = |d: Dir| {
        [sv, tv]
            .into_iter()
            .filter(move |e| e.dir == d && e.sem != Sem::Weak)
    };
    let suffix = if rmws.is_empty() {
        ""
    } else if rmws
        .iter()
        .all(|e| e.dir == Dir::W && e.rmw == Some(RmwOp::Exch))
        && strong(Dir::W).all(|e| e.rmw == Some(RmwOp::Exch))
    {
        ".exch"
    } else if rmws
        .iter()
        .all(|e| e.dir == Dir::R && e.rmw == Some(RmwOp::Add))
        && strong(Dir::R).all(|e| e.rmw == Some(RmwOp::Add))
    {
        ".add"
    } else {
        return None;
    };
    let weak = |e: &Ev| is_plain(e, Sem::Weak, None);
    let core = match (fence, dep) {
        (None, None) => {
            if weak(sv) && weak(tv) {
                "po".to_string()
            } else if sv.sem == Sem::Rlx && tv.sem == Sem::Rlx && sv.scope == tv.scope {
                format!("rlx.{}", scope_str(sv.scope?))
            } else if tv.dir == Dir::W && tv.sem == Sem::Rel && weak(sv) {
                format!("rel.{}", scope_str(tv.scope?))
            } else if sv.dir == Dir::R && sv.sem == Sem::Acq && weak(tv) {
                format!("acq.{}", scope_str(sv.scope?))
            } else if sv.dir == Dir::R
                && tv.dir == Dir::W
                && sv.sem == Sem::Acq
                && tv.sem == Sem::Rel
                && sv.scope == tv.scope
            {
                format!("ra.{}", scope_str(sv.scope?))
            } else {
                return None;
            }
        }
        (Some(f), None) => {
            let s = f.scope?;
            let want = |e: &Ev, d: Dir| {
                if e.dir == d {
                    is_plain(e, Sem::Rlx, Some(s))
                } else {
                    weak(e)
                }
            };
            if f.kind.scoped() && want(sv, Dir::R) && want(tv, Dir::W) {
                format!("fence.{}", f.spec())
            } else {
                return None;
            }
        }
        (None, Some(d)) if weak(sv) && weak(tv) => match d {
            Dep::Data => "data".to_string(),
            Dep::Ctrl => "ctrl".to_string(),
        },
        _ => return None,
    };
    Some(format!("{core}{suffix}"))
}
