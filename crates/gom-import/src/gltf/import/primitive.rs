//! glTF meshes → GOM mesh parts: primitives grouped by vertex layout, their attributes
//! and triangles read and mirrored (D2).

use gltf::accessor::Dimensions;
use gltf::mesh::{Mode, Semantic};
use gom::Mat4;

use super::super::convert::{mirror_tangent, mirror_vec3};
use super::skin::{bind, Binding};
use super::Ctx;
use crate::gltf::GltfError;

/// How the meshes of one node are placed.
pub(super) struct NodeBinding<'a> {
    pub(super) node: usize,
    /// The node's rest world matrix (GOM convention).
    pub(super) world: Mat4,
    /// The node's bone when the node moves (rigid binding).
    pub(super) bone: Option<usize>,
    /// The node's skin.
    pub(super) skin: Option<gltf::Skin<'a>>,
    /// Bind-pose world matrix of every bone.
    pub(super) bone_world: &'a [Mat4],
    /// The bone of each joint of the node's skin (empty without one).
    pub(super) joint_bones: &'a [u16],
}

/// One primitive, converted.
struct Prim {
    vertices: gom::Vertices,
    indices: Vec<u32>,
    material: i32,
    inverse_bind: Vec<Mat4>,
    /// Its morph targets, sparse, unnamed (`super::morph`).
    targets: Vec<gom::morph::MorphTarget>,
}

/// A primitive's vertex attributes, mirrored into GOM space (skin not yet read).
pub(super) struct Attributes {
    pub(super) positions: Vec<[f32; 3]>,
    pub(super) normals: Option<Vec<[f32; 3]>>,
    pub(super) tangents: Option<Vec<[f32; 4]>>,
    uv0: Option<Vec<[f32; 2]>>,
    uv1: Option<Vec<[f32; 2]>>,
    colors: Option<Vec<[u8; 4]>>,
}

/// A mesh's primitives, as parts grouped by vertex layout and inverse binds, appended
/// to `out`.
#[allow(clippy::too_many_arguments)]
pub(super) fn mesh_parts(
    ctx: &mut Ctx<'_>,
    mesh: &gltf::Mesh<'_>,
    node: &gltf::Node<'_>,
    binding: &NodeBinding<'_>,
    default_ibnd: &[Mat4],
    out: &mut Vec<gom::MeshPart>,
) -> Result<(), GltfError> {
    let base_name = mesh
        .name()
        .or(node.name())
        .map(str::to_string)
        .unwrap_or_else(|| format!("mesh{}", mesh.index()));
    // The default morph weights: the node's, else the mesh's.
    let weights = node.weights().or(mesh.weights()).unwrap_or(&[]);
    let names = super::morph::names(
        mesh,
        mesh.primitives()
            .map(|p| p.morph_targets().len())
            .max()
            .unwrap_or(0),
    );
    // Groups of primitives sharing a vertex layout and inverse binds (rule M2).
    // Each group remembers the attribute accessors of its last primitive: a following
    // primitive with the same accessors shares its vertices instead of copying them.
    type Shared = Option<(Vec<(String, usize)>, u32)>;
    let mut groups: Vec<(gom::MeshPart, Shared)> = Vec::new();
    for prim in mesh.primitives() {
        let object = format!("meshes[{}].primitives[{}]", mesh.index(), prim.index());
        let Some(p) = primitive(ctx, &prim, &object, binding, default_ibnd)? else {
            continue;
        };
        let mut key: Vec<(String, usize)> = prim
            .attributes()
            .map(|(sem, a)| (format!("{sem:?}"), a.index()))
            .collect();
        for (k, t) in prim.morph_targets().enumerate() {
            for (what, a) in [
                ("P", t.positions()),
                ("N", t.normals()),
                ("T", t.tangents()),
            ] {
                key.extend(a.map(|a| (format!("target{k}{what}"), a.index())));
            }
        }
        // UVs transformed by the material's texture transform are its own.
        if let Some(m) = prim.material().index() {
            if ctx.uv_transforms.contains_key(&m) {
                key.push(("uvTransformOfMaterial".into(), m));
            }
        }
        key.sort();
        let format = p.vertices.format();
        let slot = groups.iter().position(|(g, _)| {
            g.vertices.format() == format
                && g.inverse_bind == p.inverse_bind
                && g.vertices.skin_extra.is_some() == p.vertices.skin_extra.is_some()
        });
        let slot = match slot {
            Some(s) => s,
            None => {
                let name = if groups.is_empty() {
                    base_name.clone()
                } else {
                    format!("{base_name}#{}", groups.len())
                };
                groups.push((
                    gom::MeshPart {
                        name,
                        inverse_bind: p.inverse_bind.clone(),
                        vertices: empty_like(&p.vertices),
                        ..Default::default()
                    },
                    None,
                ));
                groups.len() - 1
            }
        };
        let (part, shared) = &mut groups[slot];
        let offset32 = match shared {
            Some((k, off)) if *k == key => *off,
            _ => {
                let offset = part.vertices.len();
                let offset32 = u32::try_from(offset)
                    .ok()
                    .filter(|o| o.checked_add(p.vertices.len() as u32).is_some())
                    .ok_or_else(|| ctx.invalid(&object, "too many vertices in one mesh"))?;
                append(&mut part.vertices, p.vertices);
                super::morph::append(&mut part.morph_targets, p.targets, offset32);
                *shared = Some((key, offset32));
                offset32
            }
        };
        let start = part.indices.len() as u32;
        part.indices.extend(p.indices.iter().map(|i| i + offset32));
        part.submeshes.push(gom::Submesh {
            material_index: p.material,
            index_start: start,
            index_count: p.indices.len() as u32,
        });
    }
    out.extend(groups.into_iter().map(|(mut g, _)| {
        super::morph::finish(&mut g.morph_targets, &names, weights);
        g
    }));
    Ok(())
}

fn empty_like(v: &gom::Vertices) -> gom::Vertices {
    gom::Vertices {
        positions: Vec::new(),
        normals: v.normals.as_ref().map(|_| Vec::new()),
        tangents: v.tangents.as_ref().map(|_| Vec::new()),
        uv0: v.uv0.as_ref().map(|_| Vec::new()),
        uv1: v.uv1.as_ref().map(|_| Vec::new()),
        colors: v.colors.as_ref().map(|_| Vec::new()),
        skin: v.skin.as_ref().map(|_| Vec::new()),
        skin_extra: v.skin_extra.as_ref().map(|_| Vec::new()),
        dq_weights: v.dq_weights.as_ref().map(|_| Vec::new()),
    }
}

fn append(dst: &mut gom::Vertices, src: gom::Vertices) {
    dst.positions.extend(src.positions);
    if let (Some(d), Some(s)) = (dst.normals.as_mut(), src.normals) {
        d.extend(s);
    }
    if let (Some(d), Some(s)) = (dst.tangents.as_mut(), src.tangents) {
        d.extend(s);
    }
    if let (Some(d), Some(s)) = (dst.uv0.as_mut(), src.uv0) {
        d.extend(s);
    }
    if let (Some(d), Some(s)) = (dst.uv1.as_mut(), src.uv1) {
        d.extend(s);
    }
    if let (Some(d), Some(s)) = (dst.colors.as_mut(), src.colors) {
        d.extend(s);
    }
    if let (Some(d), Some(s)) = (dst.skin.as_mut(), src.skin) {
        d.extend(s);
    }
    if let (Some(d), Some(s)) = (dst.skin_extra.as_mut(), src.skin_extra) {
        d.extend(s);
    }
}

/// Reads an attribute of `count` elements.
pub(super) fn attribute(
    ctx: &Ctx<'_>,
    acc: &gltf::Accessor<'_>,
    dims: &[Dimensions],
    what: &str,
    count: usize,
) -> Result<crate::gltf::accessor::AccessorData, GltfError> {
    let data = ctx.buffers.read_typed(acc, dims, what)?;
    if data.count() != count {
        return Err(count_mismatch(ctx, acc, what, data.count(), count));
    }
    Ok(data)
}

/// The error for an attribute of `found` elements beside `count` positions.
pub(super) fn count_mismatch(
    ctx: &Ctx<'_>,
    acc: &gltf::Accessor<'_>,
    what: &str,
    found: usize,
    count: usize,
) -> GltfError {
    ctx.invalid(
        format!("accessors[{}]", acc.index()),
        format!("{what} has {found} elements but POSITION has {count}"),
    )
}

/// One primitive converted, or `None` (with a warning) when it draws no triangles.
#[allow(clippy::too_many_arguments)]
fn primitive(
    ctx: &mut Ctx<'_>,
    prim: &gltf::Primitive<'_>,
    object: &str,
    binding: &NodeBinding<'_>,
    default_ibnd: &[Mat4],
) -> Result<Option<Prim>, GltfError> {
    if !draws_triangles(ctx, prim, object) {
        return Ok(None);
    }
    let Some(pos_acc) = prim.get(&Semantic::Positions) else {
        ctx.report.report.warnings.push(format!(
            "{object}: no POSITION attribute; primitive skipped"
        ));
        return Ok(None);
    };
    let mut attrs = attributes(ctx, prim, &pos_acc, object)?;
    let mut targets = super::morph::read(ctx, prim, &attrs)?;
    let before = super::morph::Before::of(&attrs, &targets);
    transform_uvs(ctx, prim, &mut attrs);
    repair_uv_sets(ctx, object, &mut attrs);
    let count = attrs.positions.len();
    let mut tris = triangles(ctx, prim, object, count)?;
    if tris.is_empty() {
        ctx.report
            .report
            .warnings
            .push(format!("{object}: no triangles; primitive skipped"));
        return Ok(None);
    }
    let Some(Binding {
        skin,
        skin_extra,
        inverse_bind,
        flip,
        baked,
    }) = bind(ctx, prim, object, binding, default_ibnd, &mut attrs)?
    else {
        return Ok(None);
    };
    if let Some(m) = baked {
        super::morph::transform(&mut targets, &m, &before);
    }
    // D2: mirroring flips the winding; swap the 2nd and 3rd index (once more for a
    // mirroring node transform baked into the vertices).
    if !flip {
        for t in tris.iter_mut() {
            t.swap(1, 2);
        }
    }
    let indices: Vec<u32> = tris.into_iter().flatten().collect();
    if attrs.positions.iter().flatten().any(|v| !v.is_finite()) {
        return Err(ctx.invalid(object, "a position overflows f32 once transformed"));
    }
    Ok(Some(Prim {
        vertices: gom::Vertices {
            positions: attrs.positions,
            normals: attrs.normals,
            tangents: attrs.tangents,
            uv0: attrs.uv0,
            uv1: attrs.uv1,
            colors: attrs.colors,
            skin,
            skin_extra,
            dq_weights: None,
        },
        indices,
        material: prim.material().index().map_or(-1, |m| m as i32),
        inverse_bind,
        targets: super::morph::sparse(targets),
    }))
}

/// Bakes the base colour texture transform of the primitive's material
/// (`KHR_texture_transform`) into the UV set it reads.
fn transform_uvs(ctx: &Ctx<'_>, prim: &gltf::Primitive<'_>, attrs: &mut Attributes) {
    let Some(t) = prim
        .material()
        .index()
        .and_then(|m| ctx.uv_transforms.get(&m))
    else {
        return;
    };
    let set = match t.tex_coord {
        0 => attrs.uv0.as_mut(),
        1 => attrs.uv1.as_mut(),
        _ => None,
    };
    for uv in set.into_iter().flatten() {
        *uv = t.apply(*uv);
    }
}

/// A second UV set without a first is read as the first (GOM's materials and a glTF
/// output's texture references assume set 0 exists when set 1 does), with a warning.
fn repair_uv_sets(ctx: &mut Ctx<'_>, object: &str, attrs: &mut Attributes) {
    if attrs.uv0.is_none() && attrs.uv1.is_some() {
        attrs.uv0 = attrs.uv1.take();
        ctx.report.report.warnings.push(format!(
            "{object}: TEXCOORD_1 without TEXCOORD_0; read as TEXCOORD_0"
        ));
    }
}

/// Whether the primitive holds triangles; warns when it is skipped (points, lines);
/// lists it in the report when it has morph targets.
fn draws_triangles(ctx: &mut Ctx<'_>, prim: &gltf::Primitive<'_>, object: &str) -> bool {
    let mode = prim.mode();
    if matches!(
        mode,
        Mode::Points | Mode::Lines | Mode::LineLoop | Mode::LineStrip
    ) {
        ctx.report.report.warnings.push(format!(
            "{object}: {mode:?} primitive skipped (GOM holds triangles only)"
        ));
        return false;
    }
    let targets = prim.morph_targets().count();
    if targets > 0 {
        ctx.report
            .morph_targets
            .push(format!("{object}: {targets} targets"));
    }
    true
}

/// Reads positions, normals, tangents, two UV sets and colours, mirrored into GOM
/// space; warns about the attributes GOM cannot hold.
fn attributes(
    ctx: &mut Ctx<'_>,
    prim: &gltf::Primitive<'_>,
    pos_acc: &gltf::Accessor<'_>,
    object: &str,
) -> Result<Attributes, GltfError> {
    let pos = ctx
        .buffers
        .read_typed(pos_acc, &[Dimensions::Vec3], "POSITION")?;
    let count = pos.count();
    if count > gom::limits::MAX_VERTICES as usize {
        return Err(ctx.invalid(object, format!("{count} vertices exceed GOM's limit")));
    }
    let positions: Vec<[f32; 3]> = (0..count)
        .map(|i| {
            let e = pos.element(i);
            mirror_vec3([e[0] as f32, e[1] as f32, e[2] as f32])
        })
        .collect();
    let normals = match prim.get(&Semantic::Normals) {
        Some(a) => {
            let d = attribute(ctx, &a, &[Dimensions::Vec3], "NORMAL", count)?;
            Some(
                (0..count)
                    .map(|i| {
                        let e = d.element(i);
                        mirror_vec3([e[0] as f32, e[1] as f32, e[2] as f32])
                    })
                    .collect::<Vec<_>>(),
            )
        }
        None => None,
    };
    let tangents = match prim.get(&Semantic::Tangents) {
        Some(a) => {
            let d = attribute(ctx, &a, &[Dimensions::Vec4], "TANGENT", count)?;
            Some(
                (0..count)
                    .map(|i| {
                        let e = d.element(i);
                        let w = if e[3] < 0.0 { -1.0 } else { 1.0 };
                        mirror_tangent([e[0] as f32, e[1] as f32, e[2] as f32, w])
                    })
                    .collect::<Vec<_>>(),
            )
        }
        None => None,
    };
    let uv0 = uv(ctx, prim, 0, count)?;
    let uv1 = uv(ctx, prim, 1, count)?;
    let colors = colors(ctx, prim, count)?;
    warn_ignored_attributes(ctx, prim, object);
    Ok(Attributes {
        positions,
        normals,
        tangents,
        uv0,
        uv1,
        colors,
    })
}

/// The texture coordinates of set `set`, if present.
fn uv(
    ctx: &Ctx<'_>,
    prim: &gltf::Primitive<'_>,
    set: u32,
    count: usize,
) -> Result<Option<Vec<[f32; 2]>>, GltfError> {
    match prim.get(&Semantic::TexCoords(set)) {
        Some(a) => {
            let d = attribute(ctx, &a, &[Dimensions::Vec2], "TEXCOORD", count)?;
            Ok(Some(
                (0..count)
                    .map(|i| {
                        let e = d.element(i);
                        [e[0] as f32, e[1] as f32]
                    })
                    .collect(),
            ))
        }
        None => Ok(None),
    }
}

/// `COLOR_0` as 8-bit RGBA (alpha 255 for RGB colours), if present.
fn colors(
    ctx: &Ctx<'_>,
    prim: &gltf::Primitive<'_>,
    count: usize,
) -> Result<Option<Vec<[u8; 4]>>, GltfError> {
    let Some(a) = prim.get(&Semantic::Colors(0)) else {
        return Ok(None);
    };
    let d = attribute(
        ctx,
        &a,
        &[Dimensions::Vec3, Dimensions::Vec4],
        "COLOR_0",
        count,
    )?;
    let q = |v: f64| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
    Ok(Some(
        (0..count)
            .map(|i| {
                let e = d.element(i);
                let a = if e.len() == 4 { q(e[3]) } else { 255 };
                [q(e[0]), q(e[1]), q(e[2]), a]
            })
            .collect::<Vec<_>>(),
    ))
}

/// Warns about the attributes GOM has no place for (UV sets past 1, colour sets past
/// 0, application-specific attributes).
fn warn_ignored_attributes(ctx: &mut Ctx<'_>, prim: &gltf::Primitive<'_>, object: &str) {
    for (sem, _) in prim.attributes() {
        let ignored = match &sem {
            Semantic::TexCoords(s) | Semantic::Colors(s) => {
                *s >= if matches!(sem, Semantic::TexCoords(_)) {
                    2
                } else {
                    1
                }
            }
            Semantic::Extras(_) => true,
            _ => false,
        };
        if ignored {
            ctx.report
                .report
                .warnings
                .push(format!("{object}: attribute {sem:?} ignored"));
        }
    }
}

/// The primitive's triangles in glTF winding: the indices (or the vertices in order)
/// read as a list, strip or fan, every index checked against `count`.
fn triangles(
    ctx: &mut Ctx<'_>,
    prim: &gltf::Primitive<'_>,
    object: &str,
    count: usize,
) -> Result<Vec<[u32; 3]>, GltfError> {
    let raw: Vec<u32> = match prim.indices() {
        Some(a) => {
            let d = ctx.buffers.read_uints(&a, Dimensions::Scalar, "indices")?;
            let mut v = Vec::with_capacity(d.values.len());
            for (k, &x) in d.values.iter().enumerate() {
                if x as usize >= count {
                    return Err(ctx.invalid(
                        format!("accessors[{}]", a.index()),
                        format!("index {x} at position {k} is not below the vertex count {count}"),
                    ));
                }
                v.push(x as u32);
            }
            v
        }
        None => (0..count as u32).collect(),
    };
    Ok(match prim.mode() {
        Mode::TriangleStrip => (0..raw.len().saturating_sub(2))
            .map(|i| {
                if i % 2 == 0 {
                    [raw[i], raw[i + 1], raw[i + 2]]
                } else {
                    [raw[i + 1], raw[i], raw[i + 2]]
                }
            })
            .collect(),
        Mode::TriangleFan => (0..raw.len().saturating_sub(2))
            .map(|i| [raw[i + 1], raw[i + 2], raw[0]])
            .collect(),
        _ => {
            if !raw.len().is_multiple_of(3) {
                ctx.report.report.warnings.push(format!(
                    "{object}: {} indices is not a multiple of 3; the last {} dropped",
                    raw.len(),
                    raw.len() % 3
                ));
            }
            raw.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect()
        }
    })
}
