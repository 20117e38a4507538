//! glTF morph targets → GOM's (`docs/extensions.md` §4.4): each primitive's
//! POSITION, NORMAL and TANGENT target accessors (sparse or not, normalized types
//! decoded), mirrored into GOM space like the base attributes (D2), carried through
//! any node transform baked into the vertices, and stored sparsely: only the vertices
//! a target moves.

use gltf::accessor::Dimensions;
use gom::math::transform_vector;
use gom::morph::MorphTarget;
use gom::Mat4;

use super::super::convert::{mirror_vec3, normal_matrix};
use super::primitive::{attribute, Attributes};
use super::Ctx;
use crate::gltf::GltfError;

/// One target of a primitive, dense: a delta per vertex.
pub(super) struct Dense {
    positions: Vec<[f32; 3]>,
    normals: Option<Vec<[f32; 3]>>,
    tangents: Option<Vec<[f32; 3]>>,
}

/// The primitive's targets, dense and mirrored. Normal (tangent) deltas are kept when
/// the vertices have normals (tangents) and some target moves them; a target without
/// them then has zeros.
pub(super) fn read(
    ctx: &Ctx<'_>,
    prim: &gltf::Primitive<'_>,
    attrs: &Attributes,
) -> Result<Vec<Dense>, GltfError> {
    let count = attrs.positions.len();
    let normals = attrs.normals.is_some() && prim.morph_targets().any(|t| t.normals().is_some());
    let tangents = attrs.tangents.is_some() && prim.morph_targets().any(|t| t.tangents().is_some());
    let read = |acc: Option<gltf::Accessor<'_>>, what: &str| -> Result<_, GltfError> {
        let Some(acc) = acc else {
            return Ok(vec![[0.0; 3]; count]);
        };
        let d = attribute(ctx, &acc, &[Dimensions::Vec3], what, count)?;
        Ok((0..count)
            .map(|i| {
                let e = d.element(i);
                mirror_vec3([e[0] as f32, e[1] as f32, e[2] as f32])
            })
            .collect())
    };
    prim.morph_targets()
        .map(|t| {
            Ok(Dense {
                positions: read(t.positions(), "morph target POSITION")?,
                normals: normals
                    .then(|| read(t.normals(), "morph target NORMAL"))
                    .transpose()?,
                tangents: tangents
                    .then(|| read(t.tangents(), "morph target TANGENT"))
                    .transpose()?,
            })
        })
        .collect()
}

/// The bind attributes the deltas are relative to, kept before a transform is baked.
pub(super) struct Before {
    normals: Option<Vec<[f32; 3]>>,
    tangents: Option<Vec<[f32; 3]>>,
}

impl Before {
    /// What `attrs` holds now (only when there are targets).
    pub(super) fn of(attrs: &Attributes, targets: &[Dense]) -> Before {
        if targets.is_empty() {
            return Before {
                normals: None,
                tangents: None,
            };
        }
        Before {
            normals: attrs.normals.clone(),
            tangents: attrs
                .tangents
                .as_ref()
                .map(|t| t.iter().map(|t| [t[0], t[1], t[2]]).collect()),
        }
    }
}

/// Carries the deltas through `m`, the transform baked into the vertices: positions by
/// its 3x3; a normal delta by the normal matrix and a tangent delta by the 3x3, each
/// divided by the length the bind vector had once transformed (the baked bind vector
/// is renormalised, so `unit(n' + Σ w·dn')` is then exactly the transformed
/// `unit(n + Σ w·dn)`).
pub(super) fn transform(targets: &mut [Dense], m: &Mat4, before: &Before) {
    let nm = normal_matrix(m).unwrap_or(*m);
    let scaled = |d: &mut [[f32; 3]], base: Option<&Vec<[f32; 3]>>, x: &Mat4| {
        for (i, v) in d.iter_mut().enumerate() {
            let b = base.and_then(|b| b.get(i)).map(|b| transform_vector(x, *b));
            let len = b.map_or(1.0, |b| (b[0] * b[0] + b[1] * b[1] + b[2] * b[2]).sqrt());
            let t = transform_vector(x, *v);
            let s = if len > 0.0 && len.is_finite() {
                len
            } else {
                1.0
            };
            *v = t.map(|c| c / s);
        }
    };
    for t in targets {
        for p in t.positions.iter_mut() {
            *p = transform_vector(m, *p);
        }
        if let Some(n) = t.normals.as_mut() {
            scaled(n, before.normals.as_ref(), &nm);
        }
        if let Some(d) = t.tangents.as_mut() {
            scaled(d, before.tangents.as_ref(), m);
        }
    }
}

/// The targets, sparse: the vertices where some delta is not zero.
pub(super) fn sparse(targets: Vec<Dense>) -> Vec<MorphTarget> {
    targets
        .into_iter()
        .map(|t| {
            let moved = |i: usize| {
                let nz = |v: &[f32; 3]| v.iter().any(|&c| c != 0.0);
                nz(&t.positions[i])
                    || t.normals.as_ref().is_some_and(|n| nz(&n[i]))
                    || t.tangents.as_ref().is_some_and(|d| nz(&d[i]))
            };
            let indices: Vec<u32> = (0..t.positions.len())
                .filter(|&i| moved(i))
                .map(|i| i as u32)
                .collect();
            let pick = |v: &Vec<[f32; 3]>| indices.iter().map(|&i| v[i as usize]).collect();
            MorphTarget {
                positions: pick(&t.positions),
                normals: t.normals.as_ref().map(pick),
                tangents: t.tangents.as_ref().map(pick),
                indices,
                ..Default::default()
            }
        })
        .collect()
}

/// Appends a primitive's targets (its vertices start at `offset` in the part) to the
/// part's; a side without normal or tangent deltas gets zeros when the other has them.
pub(super) fn append(part: &mut Vec<MorphTarget>, prim: Vec<MorphTarget>, offset: u32) {
    if part.len() < prim.len() {
        part.resize_with(prim.len(), MorphTarget::default);
    }
    let has_n = part.iter().chain(&prim).any(|t| t.normals.is_some());
    let has_t = part.iter().chain(&prim).any(|t| t.tangents.is_some());
    for (dst, src) in part.iter_mut().zip(prim) {
        let n = src.indices.len();
        dst.indices.extend(src.indices.iter().map(|i| i + offset));
        dst.positions.extend(src.positions);
        let extend = |d: &mut Option<Vec<[f32; 3]>>, s: Option<Vec<[f32; 3]>>, on: bool, len| {
            if !on {
                return;
            }
            let d = d.get_or_insert_with(|| vec![[0.0; 3]; len]);
            d.extend(s.unwrap_or_else(|| vec![[0.0; 3]; n]));
        };
        let before = dst.indices.len() - n;
        extend(&mut dst.normals, src.normals, has_n, before);
        extend(&mut dst.tangents, src.tangents, has_t, before);
    }
    for t in part.iter_mut() {
        let len = t.indices.len();
        if has_n && t.normals.is_none() {
            t.normals = Some(vec![[0.0; 3]; len]);
        }
        if has_t && t.tangents.is_none() {
            t.tangents = Some(vec![[0.0; 3]; len]);
        }
    }
}

/// The target names of a mesh: `extras.targetNames` where given (made unique), else
/// `target<k>`.
pub(super) fn names(mesh: &gltf::Mesh<'_>, count: usize) -> Vec<String> {
    let given: Vec<String> = mesh
        .extras()
        .as_ref()
        .and_then(|raw| serde_json::from_str::<serde_json::Value>(raw.get()).ok())
        .and_then(|v| v.get("targetNames").cloned())
        .and_then(|v| serde_json::from_value(v).ok())
        .unwrap_or_default();
    let mut out: Vec<String> = Vec::with_capacity(count);
    for k in 0..count {
        let mut name = given
            .get(k)
            .filter(|n| !n.is_empty() && !n.contains('\0'))
            .cloned()
            .unwrap_or_else(|| format!("target{k}"));
        if out.contains(&name) {
            name = format!("{name}#{k}");
        }
        out.push(name);
    }
    out
}

/// Names and default weights onto a part's targets.
pub(super) fn finish(part: &mut [MorphTarget], names: &[String], weights: &[f32]) {
    for (k, t) in part.iter_mut().enumerate() {
        t.name = names
            .get(k)
            .cloned()
            .unwrap_or_else(|| format!("target{k}"));
        t.default_weight = weights
            .get(k)
            .copied()
            .filter(|w| w.is_finite())
            .unwrap_or(0.0);
    }
}
