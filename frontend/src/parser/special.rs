//! Special registers (`%tid.x`, `%ctaid.x`, `%laneid`, ...) read from the
//! thread's placement in the thread header (`P0@cta 1,gpu 0,tid 3,ntid 4`).
//!
//! The `.x` component of each vector register comes from the placement:
//! `%ctaid.x` is the `cta` id (or `ctaid_x` when the grid has more than one
//! dimension, where `cta` is the CTA's linear id) and `%clusterid.x` the
//! `cluster` id (the CTA's own id when clusters are not named); `%tid.x`,
//! `%ntid.x`, `%nctaid.x`, `%cluster_ctaid.x`, `%cluster_nctaid.x` and
//! `%nclusterid.x` must be given as placement fields (`tid 3`). The `.y` and
//! `.z` components of `%tid`, `%ntid`, `%ctaid` and `%nctaid` are the fields
//! `tid_y`, `ntid_z`, ... when given, and otherwise 0 (ids) or 1 (extents)
//! whenever `.x` is defined (a one-dimensional CTA or grid). `%laneid` and
//! `%warpid` are the linear thread id (`tid + ntid * (tid_y + ntid_y *
//! tid_z)`) modulo and divided by 32 (warps of 32 threads). Anything else is
//! an error naming the field that would define it: never a silent 0.

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
    /// `.y`/`.z` components and `%ctaid.x` of multi-dimensional launches.
    pub tid_y: Option<u32>,
    pub tid_z: Option<u32>,
    pub ntid_y: Option<u32>,
    pub ntid_z: Option<u32>,
    pub ctaid_x: Option<u32>,
    pub ctaid_y: Option<u32>,
    pub ctaid_z: Option<u32>,
    pub nctaid_y: Option<u32>,
    pub nctaid_z: Option<u32>,
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
            "tid_y" => &mut self.tid_y,
            "tid_z" => &mut self.tid_z,
            "ntid_y" => &mut self.ntid_y,
            "ntid_z" => &mut self.ntid_z,
            "ctaid_x" => &mut self.ctaid_x,
            "ctaid_y" => &mut self.ctaid_y,
            "ctaid_z" => &mut self.ctaid_z,
            "nctaid_y" => &mut self.nctaid_y,
            "nctaid_z" => &mut self.nctaid_z,
            _ => return None,
        })
    }
}

/// Whether `name` (with its `%`) is a special register this module reads.
pub(crate) fn is_special(name: &str) -> bool {
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
    // `[x, y, z]`: `.y`/`.z` default to 0 (ids) or 1 (extents) once `.x` is known.
    let vector = |xyz: [Option<u32>; 3], field: &str, extent: bool| -> Result<i64, String> {
        let Some(x) = xyz[0] else {
            return Err(format!("add `{field} N` to the placement"));
        };
        let or = |v: Option<u32>| i64::from(v.unwrap_or(u32::from(extent)));
        match comp {
            Some("x") => Ok(i64::from(x)),
            Some("y") => Ok(or(xyz[1])),
            Some("z") => Ok(or(xyz[2])),
            _ => Err(format!("`{base}` takes a component `.x`, `.y` or `.z`")),
        }
    };
    let flat = |x: Option<u32>| [x, None, None];
    match base {
        "tid" => vector([f.tid, f.tid_y, f.tid_z], "tid", false),
        "ntid" => vector([f.ntid, f.ntid_y, f.ntid_z], "ntid", true),
        "ctaid" => vector(
            [Some(f.ctaid_x.unwrap_or(p.cta)), f.ctaid_y, f.ctaid_z],
            "cta",
            false,
        ),
        "nctaid" => vector([f.nctaid, f.nctaid_y, f.nctaid_z], "nctaid", true),
        "clusterid" => vector(flat(Some(p.cluster)), "cluster", false),
        "nclusterid" => vector(flat(f.nclusterid), "nclusterid", true),
        "cluster_ctaid" => vector(flat(f.cluster_ctaid), "cluster_ctaid", false),
        "cluster_nctaid" => vector(flat(f.cluster_nctaid), "cluster_nctaid", true),
        "laneid" | "warpid" if comp.is_none() => {
            let Some(t) = f.tid else {
                return Err("add `tid N` to the placement".into());
            };
            let linear = if f.tid_y.is_some() || f.tid_z.is_some() {
                let (nx, ny) = (f.ntid, f.ntid_y.unwrap_or(1));
                let Some(nx) = nx else {
                    return Err("add `ntid N` to the placement (the linear thread id)".into());
                };
                let (y, z) = (f.tid_y.unwrap_or(0), f.tid_z.unwrap_or(0));
                u64::from(t) + u64::from(nx) * (u64::from(y) + u64::from(ny) * u64::from(z))
            } else {
                u64::from(t)
            };
            Ok(if base == "laneid" {
                (linear % 32) as i64
            } else {
                (linear / 32) as i64
            })
        }
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
        // A 2x3 CTA in a 4x2 grid: thread (1, 2) of CTA (3, 1), linear CTA 7.
        let p7 = Placement { cta: 7, ..p };
        let f = SpecialFields {
            tid: Some(1),
            tid_y: Some(2),
            ntid: Some(2),
            ntid_y: Some(3),
            ctaid_x: Some(3),
            ctaid_y: Some(1),
            nctaid: Some(4),
            nctaid_y: Some(2),
            ..SpecialFields::default()
        };
        assert_eq!(value("%tid.y", p7, &f), Ok(2));
        assert_eq!(value("%tid.z", p7, &f), Ok(0));
        assert_eq!(value("%ntid.y", p7, &f), Ok(3));
        assert_eq!(value("%ntid.z", p7, &f), Ok(1));
        assert_eq!(value("%ctaid.x", p7, &f), Ok(3));
        assert_eq!(value("%ctaid.y", p7, &f), Ok(1));
        assert_eq!(value("%nctaid.y", p7, &f), Ok(2));
        assert_eq!(value("%laneid", p7, &f), Ok(5));
        assert!(!is_special("%r1") && !is_special("%rd1"));
    }
}
