//! How a primitive's vertices are bound: skinned through its node's skin (with the
//! inverse binds and influences read and limited to four), or static geometry baked
//! into world space and rigidly bound to a moving node's bone (D7).

use gltf::accessor::Dimensions;
use gltf::mesh::Semantic;
use gom::math::{mul, transform_point, transform_vector};
use gom::{Mat4, SkinWeights, IDENTITY};

use super::super::convert::{det3, mirror_mat, normal_matrix, normalize3};
use super::primitive::{attribute, count_mismatch, Attributes, NodeBinding};
use super::Ctx;
use crate::gltf::GltfError;
use crate::optimize::skin::{limit_influences_to, split_influences, Influences};

/// A primitive's binding.
pub(super) struct Binding {
    /// Per-vertex weights, when skinned or rigidly bound.
    pub(super) skin: Option<Vec<SkinWeights>>,
    /// Slots 4..8 per vertex, when some vertex has more than four influences
    /// (`JOINTS_1`/`WEIGHTS_1`; the `SKNX` extension).
    pub(super) skin_extra: Option<Vec<SkinWeights>>,
    /// The part's inverse binds (empty when not skinned).
    pub(super) inverse_bind: Vec<Mat4>,
    /// Whether a mirroring transform was baked into the vertices.
    pub(super) flip: bool,
    /// The transform baked into the vertices, if any (morph deltas follow it).
    pub(super) baked: Option<Mat4>,
}

/// Binds the primitive's vertices (baking transforms into `attrs` where needed);
/// `None` when it cannot be drawn.
pub(super) fn bind(
    ctx: &mut Ctx<'_>,
    prim: &gltf::Primitive<'_>,
    object: &str,
    binding: &NodeBinding<'_>,
    default_ibnd: &[Mat4],
    attrs: &mut Attributes,
) -> Result<Option<Binding>, GltfError> {
    let skinned = binding.skin.as_ref().is_some_and(|s| s.joints().len() > 0)
        && prim.get(&Semantic::Joints(0)).is_some()
        && prim.get(&Semantic::Weights(0)).is_some();
    if !skinned {
        return Ok(Some(bind_static(ctx, object, binding, default_ibnd, attrs)));
    }
    let Some(skin) = &binding.skin else {
        return Ok(None);
    };
    let joints: Vec<usize> = skin.joints().map(|j| j.index()).collect();
    let joint_bones = binding.joint_bones;
    let mut inverse_bind = inverse_binds(ctx, skin, &joints, joint_bones, default_ibnd)?;
    let count = attrs.positions.len();
    let influences = influences(ctx, prim, skin, &joints, joint_bones, count)?;
    let (weights, extra) = limit_to_eight(ctx, object, influences, joint_bones);
    let mut flip = false;
    let mut baked = None;
    let all: Vec<SkinWeights> = weights
        .iter()
        .chain(extra.iter().flatten())
        .copied()
        .collect();
    if let Some(c) = uniform_bind_offset(ctx, object, skin, &all, &inverse_bind, binding) {
        bake(&c, attrs);
        flip = det3(&c) < 0.0;
        baked = Some(c);
        inverse_bind = default_ibnd.to_vec();
    }
    Ok(Some(Binding {
        skin: Some(weights),
        skin_extra: extra,
        inverse_bind,
        flip,
        baked,
    }))
}

/// Static geometry: the node's world matrix baked in; rigidly bound to the node's bone
/// when the node moves.
fn bind_static(
    ctx: &mut Ctx<'_>,
    object: &str,
    binding: &NodeBinding<'_>,
    default_ibnd: &[Mat4],
    attrs: &mut Attributes,
) -> Binding {
    let w = binding.world;
    bake(&w, attrs);
    let flip = det3(&w) < 0.0;
    let count = attrs.positions.len();
    if let Some(b) = binding.bone {
        return Binding {
            skin: Some(vec![
                SkinWeights {
                    bones: [b as u16, 0, 0, 0],
                    weights: [1.0, 0.0, 0.0, 0.0],
                };
                count
            ]),
            skin_extra: None,
            inverse_bind: default_ibnd.to_vec(),
            flip,
            baked: Some(w),
        };
    }
    if binding.skin.is_some() {
        ctx.report.report.warnings.push(format!(
            "{object}: the node has a skin but the primitive has no JOINTS_0/WEIGHTS_0; drawn with nodes[{}]'s transform",
            binding.node
        ));
    }
    Binding {
        skin: None,
        skin_extra: None,
        inverse_bind: Vec::new(),
        flip,
        baked: Some(w),
    }
}

/// The inverse bind of every bone: the skin's own for its joints (the first where a
/// node is listed twice), the rest pose's inverse for the others.
fn inverse_binds(
    ctx: &mut Ctx<'_>,
    skin: &gltf::Skin<'_>,
    joints: &[usize],
    joint_bones: &[u16],
    default_ibnd: &[Mat4],
) -> Result<Vec<Mat4>, GltfError> {
    let mut inverse_bind = default_ibnd.to_vec();
    let ibms = read_inverse_binds(ctx, skin, joints.len())?;
    let mut set = vec![false; inverse_bind.len()];
    for (j, m) in ibms.iter().enumerate() {
        let b = joint_bones[j] as usize;
        if set[b] && inverse_bind[b] != *m {
            ctx.report.report.warnings.push(format!(
                "skins[{}]: nodes[{}] is listed twice with different inverse binds; the first is kept",
                skin.index(),
                joints[j]
            ));
            continue;
        }
        set[b] = true;
        inverse_bind[b] = *m;
    }
    Ok(inverse_bind)
}

/// The first `joints` inverse bind matrices of `skin`, mirrored into GOM's space
/// (identities when it has none).
pub(super) fn read_inverse_binds(
    ctx: &Ctx<'_>,
    skin: &gltf::Skin<'_>,
    joints: usize,
) -> Result<Vec<Mat4>, GltfError> {
    let Some(a) = skin.inverse_bind_matrices() else {
        return Ok(vec![IDENTITY; joints]);
    };
    let d = ctx
        .buffers
        .read_typed(&a, &[Dimensions::Mat4], "inverseBindMatrices")?;
    if d.count() < joints {
        return Err(ctx.invalid(
            format!("accessors[{}]", a.index()),
            format!(
                "inverseBindMatrices has {} matrices for {joints} joints of skins[{}]",
                d.count(),
                skin.index()
            ),
        ));
    }
    Ok((0..joints)
        .map(|j| {
            let e = d.element(j);
            mirror_mat(&std::array::from_fn(|i| e[i] as f32))
        })
        .collect())
}

/// The offset every matrix of `offsets` shares (within rounding), or `None` when they
/// differ.
pub(super) fn shared_offset(offsets: &[Mat4]) -> Option<Mat4> {
    let c = offsets.first().copied().unwrap_or(IDENTITY);
    offsets
        .iter()
        .all(|o| {
            o.iter()
                .zip(&c)
                .all(|(x, y)| (x - y).abs() <= 1e-5 * (1.0 + y.abs()))
        })
        .then_some(c)
}

/// Every vertex's (bone, weight) pairs over all `JOINTS_n` / `WEIGHTS_n` sets, weights
/// of one bone summed.
fn influences(
    ctx: &Ctx<'_>,
    prim: &gltf::Primitive<'_>,
    skin: &gltf::Skin<'_>,
    joints: &[usize],
    joint_bones: &[u16],
    count: usize,
) -> Result<Vec<Vec<(u16, f64)>>, GltfError> {
    let mut influences: Vec<Vec<(u16, f64)>> = vec![Vec::new(); count];
    let mut set_index = 0u32;
    while let (Some(ja), Some(wa)) = (
        prim.get(&Semantic::Joints(set_index)),
        prim.get(&Semantic::Weights(set_index)),
    ) {
        let jd = ctx.buffers.read_uints(&ja, Dimensions::Vec4, "JOINTS")?;
        let wd = attribute(ctx, &wa, &[Dimensions::Vec4], "WEIGHTS", count)?;
        if jd.count() != count {
            return Err(count_mismatch(ctx, &ja, "JOINTS", jd.count(), count));
        }
        for (v, inf) in influences.iter_mut().enumerate() {
            let (je, we) = (jd.element(v), wd.element(v));
            for k in 0..4 {
                let w = we[k];
                if w <= 0.0 {
                    continue;
                }
                let j = je[k] as usize;
                let Some(&b) = joint_bones.get(j) else {
                    return Err(ctx.invalid(
                        format!("accessors[{}]", ja.index()),
                        format!(
                            "vertex {v}: joint {j} is not below the joint count {} of skins[{}]",
                            joints.len(),
                            skin.index()
                        ),
                    ));
                };
                match inf.iter_mut().find(|(bb, _)| *bb == b) {
                    Some(e) => e.1 += w,
                    None => inf.push((b, w)),
                }
            }
        }
        set_index += 1;
    }
    Ok(influences)
}

/// At most eight influences per vertex (the dropped ones counted in the report),
/// split into the first four and, when some vertex has more, slots 4..8; a vertex
/// without weight is bound to the skin's first joint.
fn limit_to_eight(
    ctx: &mut Ctx<'_>,
    object: &str,
    influences: Vec<Vec<(u16, f64)>>,
    joint_bones: &[u16],
) -> (Vec<SkinWeights>, Option<Vec<SkinWeights>>) {
    let fallback = joint_bones.first().copied().unwrap_or(0);
    let mut unweighted = 0usize;
    let mut out = Vec::with_capacity(influences.len());
    let max = gom::limits::MAX_SKIN_INFLUENCES;
    for inf in influences {
        let i = limit_influences_to(&inf, max, &mut ctx.report.report.dropped_influences);
        out.push(i.unwrap_or_else(|| {
            unweighted += 1;
            Influences {
                first: SkinWeights {
                    bones: [fallback, 0, 0, 0],
                    weights: [1.0, 0.0, 0.0, 0.0],
                },
                extra: SkinWeights::default(),
            }
        }));
    }
    if unweighted > 0 {
        ctx.report.report.warnings.push(format!(
            "{object}: {unweighted} vertices have no weight; bound to the skin's first joint"
        ));
    }
    split_influences(&out)
}

/// The matrix `C` to bake into the vertices when the inverse binds of every bone used
/// all differ from the rest pose by the same `C` (IBM[b] * restWorld[b] = C, e.g. a
/// mesh bound under a different root transform): the GBTM case of D7, after which
/// the rest pose's inverses hold and the bind pose check passes. `None` when the
/// offsets are the identity or differ (the latter with a warning: `bind_pose::plan`
/// rebinds the skeleton for such skins, so only rounding or a singular inverse bind
/// leaves one).
fn uniform_bind_offset(
    ctx: &mut Ctx<'_>,
    object: &str,
    skin: &gltf::Skin<'_>,
    weights: &[SkinWeights],
    inverse_bind: &[Mat4],
    binding: &NodeBinding<'_>,
) -> Option<Mat4> {
    let mut used = vec![false; inverse_bind.len()];
    for sw in weights {
        for k in 0..4 {
            if sw.weights[k] > 0.0 {
                used[usize::from(sw.bones[k])] = true;
            }
        }
    }
    let offsets: Vec<Mat4> = (0..inverse_bind.len())
        .filter(|&b| used[b])
        .map(|b| mul(&inverse_bind[b], &binding.bone_world[b]))
        .collect();
    let c = offsets.first().copied()?;
    let uniform = shared_offset(&offsets).is_some();
    let identity = c.iter().zip(&IDENTITY).all(|(x, y)| (x - y).abs() <= 1e-6);
    if uniform && !identity {
        return Some(c);
    }
    if !uniform {
        ctx.report.report.warnings.push(format!(
            "{object}: the inverse binds of skins[{}] do not match the nodes' rest pose; the bind pose check will fail",
            skin.index()
        ));
    }
    None
}

/// Transforms geometry by `m`: points by `m`, normals by its inverse-transpose,
/// tangents by its 3x3 (both renormalised, tangent w kept).
fn bake(m: &Mat4, attrs: &mut Attributes) {
    for p in attrs.positions.iter_mut() {
        *p = transform_point(m, *p);
    }
    if let Some(nm) = attrs.normals.as_mut() {
        let n = normal_matrix(m).unwrap_or(*m);
        for v in nm.iter_mut() {
            let t = transform_vector(&n, *v);
            *v = normalize3(t.map(f64::from)).unwrap_or(t);
        }
    }
    if let Some(tg) = attrs.tangents.as_mut() {
        for v in tg.iter_mut() {
            let t = transform_vector(m, [v[0], v[1], v[2]]);
            let t = normalize3(t.map(f64::from)).unwrap_or(t);
            *v = [t[0], t[1], t[2], v[3]];
        }
    }
}
