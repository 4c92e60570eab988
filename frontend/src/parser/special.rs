//! Special registers (`%tid.x`, `%ctaid.x`, `%laneid`, ...) read from the
//! thread's placement in the thread header (`P0@cta 1,gpu 0,tid 3,ntid 4`).
//!
//! Placements describe one-dimensional CTAs, clusters and grids: the `.x`
//! component comes from the placement, `.y`/`.z` are 0 (ids) or 1 (extents)
//! whenever `.x` is defined. `%ctaid.x` is the `cta` id and `%clusterid.x`
//! the `cluster` id (the CTA's own id when clusters are not named); `%tid.x`,
//! `%ntid.x`, `%nctaid.x`, `%cluster_ctaid.x`, `%cluster_nctaid.x` and
//! `%nclusterid.x` must be given as placement fields (`tid 3`); `%laneid` and
//! `%warpid` are `tid % 32` and `tid / 32` (warps of 32 threads). Anything
//! else is an error naming the field that would define it: never a silent 0.

use crate::ir::Placement;

/// The optional placement fields that define special registers.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct SpecialFields {
    pub tid: Option<u32>,
    pub ntid: Option<u32>,
    pub nctaid: Option<u32>,
    pub cluster_ctaid: Option<u32>,
    pub cluster_nctaid: Option<u32>,
    pub nclusterid: Option<u32>,
}

impl SpecialFields {
    /// The slot of field `name` (one of [`FIELDS`]).
    pub fn slot(&mut self, name: &str) -> Option<&mut Option<u32>> {
        Some(match name {
            "tid" => &mut self.tid,
            "ntid" => &mut self.ntid,
            "nctaid" => &mut self.nctaid,
            "cluster_ctaid" => &mut self.cluster_ctaid,
            "cluster_nctaid" => &mut self.cluster_nctaid,
            "nclusterid" => &mut self.nclusterid,
            _ => return None,
        })
    }
}

/// Whether `name` (with its `%`) is a special register this module reads.
pub(super) fn is_special(name: &str) -> bool {
    let Some(body) = name.strip_prefix('%') else {
        return false;
    };
    let base = body.split('.').next().unwrap_or("");
    matches!(
        base,
        "tid"
            | "ntid"
            | "ctaid"
            | "nctaid"
            | "clusterid"
            | "nclusterid"
            | "cluster_ctaid"
            | "cluster_nctaid"
            | "cluster_ctarank"
            | "cluster_nctarank"
            | "is_explicit_cluster"
            | "laneid"
            | "warpid"
            | "nwarpid"
            | "smid"
            | "nsmid"
            | "gridid"
            | "lanemask_eq"
            | "lanemask_le"
            | "lanemask_lt"
            | "lanemask_ge"
            | "lanemask_gt"
            | "clock"
            | "clock64"
            | "globaltimer"
            | "dynamic_smem_size"
            | "total_smem_size"
            | "aggr_smem_size"
    )
}

/// The value of special register `name` for a thread placed at `p` with
/// fields `f`, or the hint of what would define it.
pub(super) fn value(name: &str, p: Placement, f: &SpecialFields) -> Result<i64, String> {
    let body = name.strip_prefix('%').unwrap_or(name);
    let (base, comp) = match body.split_once('.') {
        Some((b, c)) => (b, Some(c)),
        None => (body, None),
    };
    let vector = |x: Option<u32>, field: &str, extent: bool| -> Result<i64, String> {
        let Some(x) = x else {
            return Err(format!("add `{field} N` to the placement"));
        };
        match comp {
            Some("x") => Ok(i64::from(x)),
            Some("y" | "z") => Ok(i64::from(extent)),
            _ => Err(format!("`{base}` takes a component `.x`, `.y` or `.z`")),
        }
    };
    match base {
        "tid" => vector(f.tid, "tid", false),
        "ntid" => vector(f.ntid, "ntid", true),
        "ctaid" => vector(Some(p.cta), "cta", false),
        "nctaid" => vector(f.nctaid, "nctaid", true),
        "clusterid" => vector(Some(p.cluster), "cluster", false),
        "nclusterid" => vector(f.nclusterid, "nclusterid", true),
        "cluster_ctaid" => vector(f.cluster_ctaid, "cluster_ctaid", false),
        "cluster_nctaid" => vector(f.cluster_nctaid, "cluster_nctaid", true),
        "laneid" | "warpid" if comp.is_none() => match f.tid {
            Some(t) if base == "laneid" => Ok(i64::from(t % 32)),
            Some(t) => Ok(i64::from(t / 32)),
            None => Err("add `tid N` to the placement".into()),
        },
        _ => Err("the checker has no placement field for it".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_come_from_the_placement_or_fail() {
        let p = Placement {
            cta: 2,
            cluster: 1,
            gpu: 0,
        };
        let f = SpecialFields {
            tid: Some(35),
            ntid: Some(64),
            ..SpecialFields::default()
        };
        assert_eq!(value("%tid.x", p, &f), Ok(35));
        assert_eq!(value("%tid.y", p, &f), Ok(0));
        assert_eq!(value("%ntid.x", p, &f), Ok(64));
        assert_eq!(value("%ntid.z", p, &f), Ok(1));
        assert_eq!(value("%ctaid.x", p, &f), Ok(2));
        assert_eq!(value("%clusterid.x", p, &f), Ok(1));
        assert_eq!(value("%laneid", p, &f), Ok(3));
        assert_eq!(value("%warpid", p, &f), Ok(1));
        assert!(value("%nctaid.x", p, &f).unwrap_err().contains("nctaid N"));
        assert!(value("%tid", p, &f).is_err());
        assert!(value("%smid", p, &f).is_err());
        let none = SpecialFields::default();
        assert!(value("%tid.x", p, &none).unwrap_err().contains("tid N"));
        assert!(value("%laneid", p, &none).is_err());
        assert!(is_special("%tid.x") && is_special("%laneid") && !is_special("tid.x"));
        assert!(!is_special("%r1") && !is_special("%rd1"));
    }
}
