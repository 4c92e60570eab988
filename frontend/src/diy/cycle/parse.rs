//! Parsing the cycle language: annotations, edge names, brackets, and the
//! expansion of `*` directions ([`parse_cycle`]).

use super::*;
use crate::ir::Scope;

/// An annotation (the text after `:` or inside `[...]`), before it is applied.
#[derive(Clone, Default, Debug)]
struct Ann {
    text: String,
    sem: Option<Sem>,
    scope: Option<Scope>,
    rmw: Option<RmwOp>,
    proxy: Option<Proxy>,
    fence: Option<Fence>,
}

impl Ann {
    fn is_event_only(&self) -> bool {
        self.fence.is_none()
    }
}

fn parse_sem(t: &str) -> Option<Sem> {
    Some(match t {
        "weak" | "w" => Sem::Weak,
        "rlx" | "relaxed" => Sem::Rlx,
        "acq" | "acquire" => Sem::Acq,
        "rel" | "release" => Sem::Rel,
        "acqrel" | "acq_rel" => Sem::AcqRel,
        _ => return None,
    })
}

fn parse_proxy(t: &str) -> Option<Proxy> {
    Some(match t {
        "generic" => Proxy::Generic,
        "alias" => Proxy::Alias,
        "surface" => Proxy::Surface,
        "texture" => Proxy::Texture,
        "constant" => Proxy::Constant,
        _ => return None,
    })
}

/// Parses a fence kind and optional scope from `parts` (`sc`, `gpu` /
/// `proxy`, `alias`); returns the fence and how many parts it used.
fn parse_fence_parts(parts: &[&str]) -> Result<(Fence, usize), String> {
    let Some(&k) = parts.first() else {
        return Err("`fence` needs a kind: sc, acq_rel, acquire, release or proxy.P".into());
    };
    let (kind, mut used) = match k {
        "sc" => (FenceKind::Sc, 1),
        "acq_rel" | "acqrel" => (FenceKind::AcqRel, 1),
        "acquire" | "acq" => (FenceKind::Acquire, 1),
        "release" | "rel" => (FenceKind::Release, 1),
        "proxy" => {
            let kind = match parts.get(1).copied() {
                Some("alias") => FenceKind::ProxyAlias,
                Some("surface") => FenceKind::ProxySurface,
                Some("texture") => FenceKind::ProxyTexture,
                Some("constant") => FenceKind::ProxyConstant,
                Some(other) => {
                    return Err(format!(
                        "unknown proxy fence `proxy.{other}` (alias, surface, texture, constant)"
                    ))
                }
                None => return Err("`proxy` needs alias, surface, texture or constant".into()),
            };
            (kind, 2)
        }
        other => {
            return Err(format!(
                "unknown fence kind `{other}` (sc, acq_rel, acquire, release, proxy.P)"
            ))
        }
    };
    let mut scope = None;
    if kind.scoped() {
        if let Some(s) = parts.get(used).and_then(|p| parse_scope(p)) {
            scope = Some(s);
            used += 1;
        }
    }
    Ok((Fence { kind, scope }, used))
}

fn set_once<T: PartialEq + Copy>(
    slot: &mut Option<T>,
    v: T,
    what: &str,
    tok: &str,
) -> Result<(), String> {
    match slot {
        Some(old) if *old != v => Err(format!("two {what}s in one annotation (`{tok}`)")),
        _ => {
            *slot = Some(v);
            Ok(())
        }
    }
}

/// Parses a dot-separated annotation such as `rel.gpu`, `rlx.cta.exch`,
/// `fence.sc.gpu`.
fn parse_ann(text: &str) -> Result<Ann, String> {
    let mut a = Ann {
        text: text.to_string(),
        ..Ann::default()
    };
    if text.is_empty() {
        return Err("empty annotation".into());
    }
    let parts: Vec<&str> = text.split('.').collect();
    let mut i = 0;
    while i < parts.len() {
        let t = parts[i];
        if t.is_empty() {
            return Err(format!("empty token in annotation `{text}`"));
        }
        if t == "fence" {
            let (f, used) = parse_fence_parts(&parts[i + 1..])?;
            if a.fence.is_some() {
                return Err(format!(
                    "one fence per edge (`{text}` names two); add another po edge for a second fence"
                ));
            }
            a.fence = Some(f);
            i += 1 + used;
            continue;
        }
        if let Some(s) = parse_sem(t) {
            set_once(&mut a.sem, s, "semantics", t)?;
        } else if let Some(s) = parse_scope(t) {
            set_once(&mut a.scope, s, "scope", t)?;
        } else if t == "exch" {
            set_once(&mut a.rmw, RmwOp::Exch, "RMW operation", t)?;
        } else if t == "add" {
            set_once(&mut a.rmw, RmwOp::Add, "RMW operation", t)?;
        } else if let Some(p) = parse_proxy(t) {
            set_once(&mut a.proxy, p, "proxy", t)?;
        } else if t == "sc" {
            return Err(
                "`sc` is a fence, not an access semantics: write `fence.sc.SCOPE` on a po edge"
                    .into(),
            );
        } else {
            return Err(format!(
                "unknown annotation `{t}` (semantics weak|rlx|acq|rel|acqrel, scope \
                 cta|cluster|gpu|sys, RMW exch|add, proxy alias|surface|texture|constant, \
                 or fence.KIND[.SCOPE])"
            ));
        }
        i += 1;
    }
    Ok(a)
}

/// A direction that may be a wildcard (`*`).
type DirPat = Option<Dir>;

fn parse_dir(c: char) -> Option<DirPat> {
    match c {
        'R' => Some(Some(Dir::R)),
        'W' => Some(Some(Dir::W)),
        '*' => Some(None),
        _ => None,
    }
}

/// An edge as written: kind and possibly wildcard directions.
#[derive(Clone, Debug)]
struct EdgePat {
    text: String,
    kind: EdgeKind,
    src: DirPat,
    tgt: DirPat,
    ann: Option<Ann>,
}

impl EdgePat {
    /// A `Fenced`/`Fences` edge whose fence is neither in its name nor in its annotation.
    fn lacks_fence(&self) -> bool {
        (self.text.starts_with("Fenced") || self.text.starts_with("Fences"))
            && matches!(self.kind, EdgeKind::Po { fence: None, .. })
            && !matches!(&self.ann, Some(a) if a.fence.is_some())
    }
}

const EDGE_HELP: &str = "edges are Pod/Pos + two of R,W,* (PodWR), Fenced/Fences.KIND.SCOPE.XY \
     (Fenced.sc.gpu.WR), DpData{d,s}W, DpCtrl{d,s}{R,W}, Rfi, Rfe, Fri, Fre, Wsi, Wse \
     (= Coi, Coe), Amo[.exch|.add]";

fn parse_two_dirs(s: &str) -> Option<(DirPat, DirPat)> {
    let mut it = s.chars();
    let (a, b) = (it.next()?, it.next()?);
    if it.next().is_some() {
        return None;
    }
    Some((parse_dir(a)?, parse_dir(b)?))
}

fn parse_edge_base(base: &str) -> Result<(EdgeKind, DirPat, DirPat), String> {
    let com = |com, ext, s, t| Ok((EdgeKind::Com { com, ext }, Some(s), Some(t)));
    match base {
        "Rfi" => return com(Com::Rf, false, Dir::W, Dir::R),
        "Rfe" => return com(Com::Rf, true, Dir::W, Dir::R),
        "Fri" => return com(Com::Fr, false, Dir::R, Dir::W),
        "Fre" => return com(Com::Fr, true, Dir::R, Dir::W),
        "Wsi" | "Coi" => return com(Com::Ws, false, Dir::W, Dir::W),
        "Wse" | "Coe" => return com(Com::Ws, true, Dir::W, Dir::W),
        "Rf" | "Fr" | "Ws" | "Co" => {
            return Err(format!(
                "say whether `{base}` is internal or external: `{base}i` or `{base}e`"
            ))
        }
        _ => {}
    }
    if let Some(rest) = base
        .strip_prefix("Amo")
        .or_else(|| base.strip_prefix("Rmw"))
    {
        let op = match rest {
            "" | ".exch" => RmwOp::Exch,
            ".add" => RmwOp::Add,
            _ => {
                return Err(format!(
                    "unknown Amo operation `{rest}` (Amo.exch or Amo.add)"
                ))
            }
        };
        return Ok((EdgeKind::Amo { op }, Some(Dir::R), Some(Dir::W)));
    }
    for (prefix, same_loc) in [("Pod", false), ("Pos", true)] {
        if let Some(rest) = base.strip_prefix(prefix) {
            let (s, t) = parse_two_dirs(rest).ok_or_else(|| {
                format!("`{prefix}` needs two directions among R, W, * (e.g. {prefix}WR)")
            })?;
            return Ok((
                EdgeKind::Po {
                    same_loc,
                    fence: None,
                    dep: None,
                },
                s,
                t,
            ));
        }
    }
    for (prefix, same_loc) in [("Fenced", false), ("Fences", true)] {
        if let Some(rest) = base.strip_prefix(prefix) {
            let (fence, dirs) = if let Some(r) = rest.strip_prefix('.') {
                let parts: Vec<&str> = r.split('.').collect();
                let (dirs, spec) = parts.split_last().unwrap_or((&"", &[]));
                if spec.is_empty() {
                    return Err(format!(
                        "`{prefix}` needs a fence kind: {prefix}.sc.gpu.XY, {prefix}.acq_rel.cta.XY, \
                         {prefix}.proxy.alias.XY, ..."
                    ));
                }
                let (f, used) = parse_fence_parts(spec)?;
                if used != spec.len() {
                    return Err(format!(
                        "unexpected `{}` in the fence of `{base}` (write {prefix}.KIND.SCOPE.XY)",
                        spec[used..].join(".")
                    ));
                }
                (Some(f), *dirs)
            } else {
                (None, rest)
            };
            let (s, t) = parse_two_dirs(dirs).ok_or_else(|| {
                format!(
                    "`{prefix}` ends with two directions among R, W, * (e.g. {prefix}.sc.gpu.WR)"
                )
            })?;
            return Ok((
                EdgeKind::Po {
                    same_loc,
                    fence,
                    dep: None,
                },
                s,
                t,
            ));
        }
    }
    if base.starts_with("DpAddr") {
        return Err(
            "address dependencies cannot be written in the litmus dialect \
                    (no register-computed addresses); use DpData or DpCtrl"
                .into(),
        );
    }
    for (prefix, dep) in [("DpData", Dep::Data), ("DpCtrl", Dep::Ctrl)] {
        if let Some(rest) = base.strip_prefix(prefix) {
            let mut it = rest.chars();
            let same_loc = match it.next() {
                Some('d') => false,
                Some('s') => true,
                _ => {
                    return Err(format!(
                        "`{prefix}` needs d or s (new or same location) and a target \
                         direction, e.g. {prefix}dW"
                    ))
                }
            };
            let tgt = match (it.next().and_then(parse_dir), it.next()) {
                (Some(t), None) => t,
                _ => {
                    return Err(format!(
                        "`{prefix}` ends with one target direction among R, W, * (e.g. {prefix}dW)"
                    ))
                }
            };
            let tgt = match (dep, tgt) {
                (Dep::Data, Some(Dir::R)) => {
                    return Err("a data dependency targets a write (DpDatadW)".into())
                }
                (Dep::Data, _) => Some(Dir::W),
                (Dep::Ctrl, t) => t,
            };
            return Ok((
                EdgeKind::Po {
                    same_loc,
                    fence: None,
                    dep: Some(dep),
                },
                Some(Dir::R),
                tgt,
            ));
        }
    }
    Err(format!("unknown edge `{base}`; {EDGE_HELP}"))
}

/// An item of a cycle as written.
enum Item {
    Edge(EdgePat),
    Bracket(Ann),
}

fn tokenize(src: &str) -> Result<Vec<Item>, CycleError> {
    let mut items = Vec::new();
    let mut chars = src.char_indices().peekable();
    let mut edges = 0usize;
    while let Some(&(start, c)) = chars.peek() {
        if c.is_whitespace() || c == ',' {
            chars.next();
            continue;
        }
        if c == '[' {
            chars.next();
            let mut text = String::new();
            let mut closed = false;
            for (_, c) in chars.by_ref() {
                match c {
                    ']' => {
                        closed = true;
                        break;
                    }
                    '[' => {
                        return Err(CycleError {
                            edge: Some(edges + 1),
                            token: src[start..].chars().take(20).collect(),
                            message: "nested `[`".into(),
                        })
                    }
                    c if c.is_whitespace() => {}
                    c => text.push(c),
                }
            }
            if !closed {
                return Err(CycleError {
                    edge: Some(edges + 1),
                    token: src[start..].to_string(),
                    message: "`[` without a closing `]`".into(),
                });
            }
            let ann = parse_ann(&text).map_err(|m| CycleError {
                edge: Some(edges + 1),
                token: format!("[{text}]"),
                message: m,
            })?;
            if ann.fence.is_some() {
                return Err(CycleError {
                    edge: Some(edges + 1),
                    token: format!("[{text}]"),
                    message: "brackets annotate an event; a fence goes on a po edge \
                              (PodWR:fence.sc.gpu or Fenced.sc.gpu.WR)"
                        .into(),
                });
            }
            items.push(Item::Bracket(ann));
            continue;
        }
        let mut end = start;
        while let Some(&(i, c)) = chars.peek() {
            if c.is_whitespace() || c == '[' || c == ',' {
                break;
            }
            if c == ']' {
                return Err(CycleError {
                    edge: Some(edges + 1),
                    token: src[start..=i].to_string(),
                    message: "`]` without an opening `[`".into(),
                });
            }
            end = i + c.len_utf8();
            chars.next();
        }
        let text = &src[start..end];
        let (base, ann_text) = match text.split_once(':') {
            Some((b, a)) => (b, Some(a)),
            None => (text, None),
        };
        let (kind, s, t) = parse_edge_base(base).map_err(|m| CycleError::at(edges, text, m))?;
        let ann = match ann_text {
            None => None,
            Some(a) => Some(parse_ann(a).map_err(|m| CycleError::at(edges, text, m))?),
        };
        let pat = EdgePat {
            text: text.to_string(),
            kind,
            src: s,
            tgt: t,
            ann,
        };
        if pat.lacks_fence() {
            return Err(CycleError::at(
                edges,
                text,
                "a Fenced edge needs a fence: write Fenced.sc.gpu.WR or FencedWR:fence.sc.gpu",
            ));
        }
        items.push(Item::Edge(pat));
        edges += 1;
        if edges > MAX_EDGES {
            return Err(CycleError::whole(format!(
                "a cycle has at most {MAX_EDGES} edges"
            )));
        }
    }
    Ok(items)
}

fn merge_event(
    ev: &mut EventAnn,
    sem: Option<Sem>,
    scope: Option<Scope>,
    rmw: Option<RmwOp>,
    proxy: Option<Proxy>,
) -> Result<(), String> {
    if let Some(s) = sem {
        ev.sem = Some(ev.sem.map_or(s, |o| o.join(s)));
    }
    if let Some(s) = scope {
        match ev.scope {
            Some(o) if o != s => {
                return Err(format!(
                    "the event gets two scopes, {} and {}",
                    scope_str(o),
                    scope_str(s)
                ))
            }
            _ => ev.scope = Some(s),
        }
    }
    if let Some(r) = rmw {
        match ev.rmw {
            Some(o) if o != r => {
                return Err(format!(
                    "the event gets two RMW operations, {} and {}",
                    o.as_str(),
                    r.as_str()
                ))
            }
            _ => ev.rmw = Some(r),
        }
    }
    if let Some(p) = proxy {
        match ev.proxy {
            Some(o) if o != p => {
                return Err(format!(
                    "the event gets two proxies, {} and {}",
                    o.as_str(),
                    p.as_str()
                ))
            }
            _ => ev.proxy = Some(p),
        }
    }
    Ok(())
}

/// Applies the annotation of edge `i` (`EDGE:ANN`) to the edge and its ends.
fn apply_edge_ann(c: &mut Cycle, i: usize, ann: &Ann, text: &str) -> Result<(), CycleError> {
    let n = c.edges.len();
    let j = (i + 1) % n;
    let e = c.edges[i];
    let err = |m: String| CycleError::at(i, text, m);
    let (src, tgt) = (e.src, e.tgt);
    // Which ends each part applies to.
    let mut to_src = (None, None, None, None);
    let mut to_tgt = (None, None, None, None);
    match &mut c.edges[i].kind {
        EdgeKind::Po { fence, .. } => {
            if let Some(f) = ann.fence {
                match fence {
                    Some(old) if *old != f => {
                        return Err(err(format!(
                            "the edge already has fence.{}; one fence per edge",
                            old.spec()
                        )))
                    }
                    _ => *fence = Some(f),
                }
            }
            if ann.rmw.is_some() || ann.proxy.is_some() {
                return Err(err(
                    "RMW and proxy annotations concern one event: write them in brackets \
                     before or after the edge, e.g. `PodWW [rel.gpu.exch] Rfe`"
                        .into(),
                ));
            }
            match ann.sem {
                Some(Sem::Rel) => {
                    if tgt != Dir::W {
                        return Err(err(
                            "`rel` on a po edge marks its target, which is a read here".into(),
                        ));
                    }
                    to_tgt = (ann.sem, ann.scope, None, None);
                }
                Some(Sem::Acq) => {
                    if src != Dir::R {
                        return Err(err(
                            "`acq` on a po edge marks its source, which is a write here".into(),
                        ));
                    }
                    to_src = (ann.sem, ann.scope, None, None);
                }
                Some(Sem::AcqRel) => {
                    return Err(err(
                        "`acqrel` is for RMWs: put it on an Amo edge or in brackets on an \
                         RMW event (`[acqrel.gpu.exch]`)"
                            .into(),
                    ))
                }
                s => {
                    to_src = (s, ann.scope, None, None);
                    to_tgt = to_src;
                }
            }
        }
        EdgeKind::Com { com, .. } => {
            if ann.fence.is_some() {
                return Err(err(
                    "a fence goes on a po edge (Pod/Pos/Fenced), not on a communication edge"
                        .into(),
                ));
            }
            if ann.rmw.is_some() || ann.proxy.is_some() {
                return Err(err(
                    "RMW and proxy annotations concern one event: write them in brackets, \
                     e.g. `Rfe [acq.gpu.add] PodRR`"
                        .into(),
                ));
            }
            let all = (ann.sem, ann.scope, None, None);
            match ann.sem {
                Some(Sem::Rel) => match com {
                    Com::Rf => to_src = all,
                    Com::Fr => to_tgt = all,
                    Com::Ws => {
                        to_src = all;
                        to_tgt = all;
                    }
                },
                Some(Sem::Acq) => match com {
                    Com::Rf => to_tgt = all,
                    Com::Fr => to_src = all,
                    Com::Ws => {
                        return Err(err("`acq` needs a read, and Ws joins two writes".into()))
                    }
                },
                Some(Sem::AcqRel) => {
                    return Err(err(
                        "`acqrel` is for RMWs: write it in brackets on an RMW event".into(),
                    ))
                }
                _ => {
                    to_src = all;
                    to_tgt = all;
                }
            }
        }
        EdgeKind::Amo { op } => {
            if ann.fence.is_some() {
                return Err(err("a fence goes on a po edge, not inside an Amo".into()));
            }
            if let Some(r) = ann.rmw {
                *op = r;
            }
            match ann.sem {
                Some(Sem::Weak) => {
                    return Err(err("an atomic RMW is always strong (`weak` on Amo)".into()))
                }
                Some(Sem::Acq) => to_src = (Some(Sem::Acq), ann.scope, None, ann.proxy),
                Some(Sem::Rel) => to_tgt = (Some(Sem::Rel), ann.scope, None, ann.proxy),
                Some(Sem::AcqRel) => {
                    to_src = (Some(Sem::Acq), ann.scope, None, ann.proxy);
                    to_tgt = (Some(Sem::Rel), ann.scope, None, ann.proxy);
                }
                _ => {}
            }
            // Scope and proxy concern the whole instruction.
            if to_src.1.is_none() {
                to_src.1 = ann.scope;
            }
            if to_tgt.1.is_none() {
                to_tgt.1 = ann.scope;
            }
            to_src.3 = ann.proxy;
            to_tgt.3 = ann.proxy;
            if let Some(Sem::Rlx) = ann.sem {
                to_src.0 = Some(Sem::Rlx);
                to_tgt.0 = Some(Sem::Rlx);
            }
        }
    }
    merge_event(&mut c.events[i], to_src.0, to_src.1, to_src.2, to_src.3).map_err(&err)?;
    merge_event(&mut c.events[j], to_tgt.0, to_tgt.1, to_tgt.2, to_tgt.3).map_err(&err)?;
    Ok(())
}

/// Parses a cycle. `*` directions (`Pod**`, `DpCtrld*`) expand to every
/// assignment under which consecutive edges agree, so the result may hold
/// several cycles (in a stable order: `R` before `W`).
pub fn parse_cycle(src: &str) -> Result<Vec<Cycle>, CycleError> {
    let items = tokenize(src)?;
    // Collect edges and the brackets before each edge (pre[i] annotates event i);
    // brackets after the last edge annotate event 0.
    let mut edges: Vec<EdgePat> = Vec::new();
    let mut pre: Vec<Vec<Ann>> = vec![Vec::new()];
    for it in items {
        match it {
            Item::Edge(e) => {
                edges.push(e);
                pre.push(Vec::new());
            }
            Item::Bracket(a) => pre.last_mut().map(|p| p.push(a)).unwrap_or(()),
        }
    }
    let n = edges.len();
    if n == 0 {
        return Err(CycleError::whole(format!("empty cycle; {EDGE_HELP}")));
    }
    if n < 2 {
        return Err(CycleError::at(
            0,
            &edges[0].text,
            "a cycle needs at least two edges",
        ));
    }
    let trailing = pre.pop().unwrap_or_default();
    pre[0].extend(trailing);
    // Expand wildcards: the direction of event i is edges[i].src and
    // edges[i-1].tgt; both must agree.
    let mut choices: Vec<Vec<Dir>> = Vec::with_capacity(n);
    for i in 0..n {
        let prev = (i + n - 1) % n;
        let a = edges[i].src;
        let b = edges[prev].tgt;
        let opts: Vec<Dir> = [Dir::R, Dir::W]
            .into_iter()
            .filter(|d| !matches!(a, Some(x) if x != *d) && !matches!(b, Some(x) if x != *d))
            .collect();
        if opts.is_empty() {
            let end = |d: DirPat| match d {
                Some(Dir::R) => "a read",
                Some(Dir::W) => "a write",
                None => "anything",
            };
            return Err(CycleError {
                edge: Some(i + 1),
                token: edges[i].text.clone(),
                message: format!(
                    "starts with {} but edge {} `{}` ends with {}",
                    end(a),
                    prev + 1,
                    edges[prev].text,
                    end(b)
                ),
            });
        }
        choices.push(opts);
    }
    let total: usize = choices.iter().map(Vec::len).product();
    let mut out = Vec::with_capacity(total);
    for k in 0..total {
        let mut rem = k;
        let mut dirs = vec![Dir::R; n];
        for i in (0..n).rev() {
            let m = choices[i].len();
            dirs[i] = choices[i][rem % m];
            rem /= m;
        }
        let mut c = Cycle {
            edges: (0..n)
                .map(|i| Edge {
                    kind: edges[i].kind,
                    src: dirs[i],
                    tgt: dirs[(i + 1) % n],
                })
                .collect(),
            events: vec![EventAnn::default(); n],
        };
        for (i, e) in edges.iter().enumerate() {
            if let Some(ann) = &e.ann {
                apply_edge_ann(&mut c, i, ann, &e.text)?;
            }
        }
        for (i, anns) in pre.iter().enumerate() {
            for a in anns {
                debug_assert!(a.is_event_only());
                merge_event(&mut c.events[i], a.sem, a.scope, a.rmw, a.proxy).map_err(|m| {
                    CycleError {
                        edge: Some(i + 1),
                        token: format!("[{}]", a.text),
                        message: m,
                    }
                })?;
            }
        }
        out.push(c);
    }
    Ok(out)
}
