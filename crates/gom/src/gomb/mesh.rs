//! MSH0 and its children VB0, IB0, SUB0, IBND, BND0, GBTM (D7).

use super::cursor::{check_known, le32, lef32, value, Chunk, Chunks, Cur};
use super::lanes::{Lanes, Offsets, BLOCK};
use super::sknx;
use super::str0::Strings;
use super::to_model::{decode_indices, push_vertex, streams, Decoded};
use super::view::{mat_at, misplaced, MeshView, SkeletonView, StringBudget};
use super::UnknownChunk;
use crate::bounds::{to_model_space, Containment};
use crate::error::{FourCc, Place, ReadError, ReadErrorKind};
use crate::layout::{Attribute, VertexLayout};
use crate::limits::{MAX_INDICES, MAX_VERTICES};
use crate::model::{Bounds, Mat4, SkinWeights, SkinningMethod, Submesh, VertexFormat, Vertices};
use crate::skinning::MESH_FLAG_SKINNING;
use crate::validate::{
    bind_pose_rule, bind_world_of, finite_bits, item, mark_used, push_findings, skin_structure,
    submesh_structure, submeshes_tally, tangent_w_ok, weights_rule, Finding, Tally,
};

/// What parsing meshes and clips needs from the rest of the file.
pub(crate) struct MeshCtx<'s, 'a> {
    pub strings: &'s Strings<'a>,
    pub skeleton: &'s SkeletonView<'a>,
    pub material_count: u32,
    /// Bind-world matrices, computed at the first skinned mesh.
    pub world: Option<Vec<Mat4>>,
    /// Scratch: bones used by the current mesh.
    pub used: Vec<bool>,
    pub budget: &'s mut StringBudget,
}

impl MeshCtx<'_, '_> {
    /// Checks that `id` names a string and counts it against the budget.
    pub fn name(
        &mut self,
        id: u32,
        at: usize,
        place: Place,
        field: &'static str,
    ) -> Result<(), ReadError> {
        if id >= self.strings.count() {
            return Err(ReadError {
                offset: at as u64,
                place,
                field,
                kind: ReadErrorKind::Value {
                    value: u64::from(id),
                    expected: "a string index below STR0's stringCount",
                },
            });
        }
        self.budget.add(self.strings, id)
    }
}

const CHILDREN: [FourCc; 8] = [
    FourCc::VB0,
    FourCc::IB0,
    FourCc::SUB0,
    FourCc::IBND,
    FourCc::BND0,
    FourCc::GBTM,
    FourCc::SKNX,
    FourCc::MRPH,
];

bitflags::bitflags! {
    /// MSH0's `flags` (D7); the other bits are reserved.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub(crate) struct MeshFlags: u32 {
        /// bit 0 `indices16`: IB0's index size is 2.
        const INDICES16 = 1 << 0;
        /// bit 1 `hasGBTM`: the mesh has a GBTM child.
        const HAS_GBTM = 1 << 1;
        /// bit 2: the mesh has a `SKNX` child (the skinning extension,
        /// docs/extensions.md §3).
        const SKINNING = MESH_FLAG_SKINNING;
        /// bit 3: the mesh's `MRPH` child has a non-zero default weight (the
        /// blend-shape extension, docs/extensions.md §4).
        const MORPH_DEFAULTS = crate::morph::MESH_FLAG_MORPH_DEFAULTS;
    }
}

/// MSH0's fixed fields, checked against each other and the skeleton.
struct MeshHeader<'a> {
    name: &'a str,
    format: VertexFormat,
    vertex_count: u32,
    index_count: u32,
    bone_count: u32,
    flags: MeshFlags,
    flags_at: usize,
    /// Where the children start.
    children_at: usize,
}

/// MSH0's children; all but GBTM and SKNX are required.
struct MeshChildren {
    vb0: Chunk,
    ib0: Chunk,
    sub0: Chunk,
    ibnd: Chunk,
    bnd0: Chunk,
    gbtm: Option<Chunk>,
    sknx: Option<Chunk>,
    mrph: Option<Chunk>,
}

/// A checked VB0: where its vertex data starts and the data.
struct VertexBuffer<'a> {
    data_at: usize,
    data: &'a [u8],
}

/// A checked IB0: the index size in bytes, where its data starts and the data.
struct IndexBuffer<'a> {
    size: u32,
    data_at: usize,
    data: &'a [u8],
}

pub(crate) fn parse_mesh<'a>(
    file: &'a [u8],
    c: &Chunk,
    index: usize,
    ctx: &mut MeshCtx<'_, 'a>,
    unknown: &mut Vec<UnknownChunk>,
    findings: &mut Vec<Finding>,
    decoded: Option<&mut Vec<Decoded>>,
) -> Result<MeshView<'a>, ReadError> {
    let h = parse_header(file, c, ctx)?;
    let kids = children(file, c, &h, unknown)?;
    let layout = VertexLayout::of(h.format);
    let vb = parse_vb0(file, &kids.vb0, &h, layout.stride() as u32)?;
    let ib = parse_ib0(file, &kids.ib0, &h)?;
    let submeshes = parse_sub0(file, &kids.sub0, h.index_count)?;
    let inverse_bind = parse_ibnd(file, &kids.ibnd, h.bone_count)?;
    let (bnd_at, bounds) = parse_bnd0(file, &kids.bnd0)?;
    let gbtm = parse_gbtm(file, kids.gbtm)?;
    let skinned = h.format.contains(VertexFormat::SKIN);
    let ext = kids
        .sknx
        .map(|ch| sknx::parse(file, &ch, skinned, h.vertex_count))
        .transpose()?;
    let morph_targets = kids
        .mrph
        .map(|ch| morph_targets(file, &ch, &h))
        .transpose()?
        .unwrap_or_default();

    // Vertices: finite floats, tangent w, skin structure, bounds, weight rules.
    let mut weights = Tally::default();
    if skinned {
        ctx.used.clear();
        ctx.used.resize(h.bone_count as usize, false);
    }
    let mut streams = decoded
        .as_ref()
        .map(|_| streams(&layout, h.vertex_count as usize));
    check_vertices(
        VertexCheck {
            layout,
            data: vb.data,
            data_at: vb.data_at,
            bone_count: h.bone_count,
            bnd_at,
            bounds,
            gbtm,
            weights_here: ext.is_none_or(|x| x.extra.is_none()),
        },
        &mut ctx.used,
        &mut weights,
        streams.as_mut().map(|v| (v, &layout)),
    )?;

    // Influences five to eight over all eight slots, dual-quaternion shares.
    if let Some(x) = &ext {
        let stride = layout.stride();
        let so = layout.offset(Attribute::Skin).unwrap_or(0);
        let first = |v: usize| {
            let (bones, weights) = skin_at(&vb.data[v * stride + so..]);
            SkinWeights { bones, weights }
        };
        let vb0 = sknx::Vb0Skin {
            first: &first,
            bone_count: h.bone_count,
        };
        sknx::check(x, &vb0, &mut ctx.used, &mut weights)?;
    }

    // Indices below vertexCount.
    check_indices(ib.data, ib.size, h.vertex_count, ib.data_at)?;

    let subs = submesh_findings(&submeshes, h.index_count, ctx.material_count);
    let bind = if skinned {
        bind_findings(ctx, inverse_bind)
    } else {
        Tally::default()
    };
    push_findings(findings, index, h.name, bind, weights, subs);
    if let (Some(out), Some(v)) = (decoded, streams) {
        out.push((v, decode_indices(ib.data, ib.size)));
    }

    Ok(MeshView {
        name: h.name,
        vertex_format: h.format,
        vertex_count: h.vertex_count,
        stride: layout.stride() as u32,
        vertex_data: vb.data,
        index_count: h.index_count,
        index_size: ib.size,
        index_data: ib.data,
        submeshes,
        bone_count: h.bone_count,
        inverse_bind,
        bounds,
        gbtm,
        skinning: ext.map_or(SkinningMethod::Linear, |x| x.method),
        skin_extra: ext.and_then(|x| x.extra),
        dq_weights: ext.and_then(|x| x.dq),
        offset: c.offset as u64,
        morph_targets,
    })
}

/// A mesh's `MRPH`, checked against MSH0 and its flags bit 3.
fn morph_targets<'a>(
    file: &'a [u8],
    ch: &Chunk,
    h: &MeshHeader<'_>,
) -> Result<Vec<super::TargetView<'a>>, ReadError> {
    let side = super::morph::MeshSide {
        vertex_count: h.vertex_count,
        normals: h.format.contains(VertexFormat::NORMAL),
        tangents: h.format.contains(VertexFormat::TANGENT),
    };
    let targets = super::morph::parse_targets(file, ch, &side)?;
    let poses = targets.iter().any(|t| t.default_weight != 0.0);
    if poses != h.flags.contains(MeshFlags::MORPH_DEFAULTS) {
        return Err(value(
            h.flags_at,
            Place::Chunk(FourCc::MSH0),
            "flags",
            h.flags.bits(),
            "bit 3 (morph defaults) set exactly when an MRPH child has a non-zero default weight",
        ));
    }
    Ok(targets)
}

/// Reads and checks MSH0's fixed fields.
fn parse_header<'a>(
    file: &'a [u8],
    c: &Chunk,
    ctx: &mut MeshCtx<'_, 'a>,
) -> Result<MeshHeader<'a>, ReadError> {
    let place = c.place();
    if !c.size.is_multiple_of(16) {
        return Err(value(
            c.offset + 4,
            place,
            "size",
            c.size,
            "a multiple of 16 (MSH0 is a container)",
        ));
    }
    let mut cur = c.cur(file);
    let name_at = cur.pos;
    let name_id = cur.u32("meshNameId")?;
    ctx.name(name_id, name_at, place, "meshNameId")?;
    let name = ctx.strings.get(name_id).unwrap_or_default();
    let format = vertex_format(&mut cur)?;
    let vertex_count = cur.u32_at_most("vertexCount", MAX_VERTICES)?;
    let ic_at = cur.pos;
    let index_count = cur.u32_at_most("indexCount", MAX_INDICES)?;
    if index_count % 3 != 0 {
        return Err(value(
            ic_at,
            place,
            "indexCount",
            index_count,
            "a multiple of 3 (a triangle list)",
        ));
    }
    let bc_at = cur.pos;
    let bone_count = cur.u32("boneCount")?;
    let skinned = format.contains(VertexFormat::SKIN);
    let want_bones = if skinned { ctx.skeleton.bone_count } else { 0 };
    if bone_count != want_bones {
        return Err(value(
            bc_at,
            place,
            "boneCount",
            bone_count,
            "SKEL's boneCount for a skinned mesh, 0 for a static one",
        ));
    }
    let flags_at = cur.pos;
    let Some(flags) = MeshFlags::from_bits(cur.u32("flags")?) else {
        return Err(ReadError {
            offset: flags_at as u64,
            place,
            field: "flags",
            kind: ReadErrorKind::Reserved,
        });
    };
    cur.reserved(8, "reserved")?;
    Ok(MeshHeader {
        name,
        format,
        vertex_count,
        index_count,
        bone_count,
        flags,
        flags_at,
        children_at: cur.pos,
    })
}

/// Reads MSH0's `vertexFormat`: only bits GOM v1 defines, position present.
fn vertex_format(cur: &mut Cur<'_>) -> Result<VertexFormat, ReadError> {
    let at = cur.pos;
    let format = cur.u32("vertexFormat")?;
    let expected = match VertexFormat::from_bits(format) {
        None => "only the bits 0..6 of D7",
        Some(f) if !f.contains(VertexFormat::POSITION) => "bit 0 (position) set",
        Some(f) => return Ok(f),
    };
    Err(value(at, cur.place, "vertexFormat", format, expected))
}

/// Finds MSH0's children (any order, each known one at most once), records unknown
/// ones and checks that the required ones and GBTM match the header.
fn children(
    file: &[u8],
    c: &Chunk,
    h: &MeshHeader<'_>,
    unknown: &mut Vec<UnknownChunk>,
) -> Result<MeshChildren, ReadError> {
    let place = c.place();
    let mut kids: [Option<Chunk>; 8] = [None; 8];
    for ch in Chunks::new(file, h.children_at, c.payload_end(), place) {
        let ch = ch?;
        if let Some(k) = CHILDREN.iter().position(|&f| f == ch.fourcc) {
            if kids[k].is_some() {
                return Err(ReadError {
                    offset: ch.offset as u64,
                    place: ch.place(),
                    field: "MSH0",
                    kind: ReadErrorKind::Duplicate,
                });
            }
            check_known(&ch)?;
            kids[k] = Some(ch);
        } else if matches!(
            ch.fourcc,
            FourCc::STR0
                | FourCc::SKEL
                | FourCc::MATL
                | FourCc::MSH0
                | FourCc::ANIM
                | FourCc::CLP0
                | FourCc::CLPZ
                | FourCc::MWGT
                | FourCc::CLPA
                | FourCc::EVNT
        ) {
            return Err(misplaced(&ch, "inside MSH0"));
        } else {
            unknown.push(UnknownChunk {
                fourcc: ch.fourcc.0,
                offset: ch.offset as u64,
                size: ch.size,
                parent: Some(FourCc::MSH0.0),
            });
        }
    }
    let need = |k: usize, f: &'static str| {
        kids[k].ok_or(ReadError {
            offset: c.offset as u64,
            place,
            field: f,
            kind: ReadErrorKind::Missing,
        })
    };
    let found = MeshChildren {
        vb0: need(0, "VB0 ")?,
        ib0: need(1, "IB0 ")?,
        sub0: need(2, "SUB0")?,
        ibnd: need(3, "IBND")?,
        bnd0: need(4, "BND0")?,
        gbtm: kids[5],
        sknx: kids[6],
        mrph: kids[7],
    };
    if h.flags.contains(MeshFlags::SKINNING) != found.sknx.is_some() {
        return Err(value(
            h.flags_at,
            place,
            "flags",
            h.flags.bits(),
            "bit 2 (skinning extension) set exactly when a SKNX child is present",
        ));
    }
    if h.flags.contains(MeshFlags::MORPH_DEFAULTS) && found.mrph.is_none() {
        return Err(value(
            h.flags_at,
            place,
            "flags",
            h.flags.bits(),
            "bit 3 (morph defaults) only with an MRPH child",
        ));
    }
    if h.flags.contains(MeshFlags::HAS_GBTM) != found.gbtm.is_some() {
        return Err(value(
            h.flags_at,
            place,
            "flags",
            h.flags.bits(),
            "bit 1 (hasGBTM) set exactly when a GBTM child is present",
        ));
    }
    Ok(found)
}

/// Reads VB0: counts, stride and format agree with MSH0; the vertex data.
fn parse_vb0<'a>(
    file: &'a [u8],
    ch: &Chunk,
    h: &MeshHeader<'_>,
    stride: u32,
) -> Result<VertexBuffer<'a>, ReadError> {
    let mut v = ch.cur(file);
    let at = v.pos;
    let n = v.u32("vertexCount")?;
    if n != h.vertex_count {
        return Err(value(at, v.place, "vertexCount", n, "MSH0's vertexCount"));
    }
    let at = v.pos;
    let s = v.u32("stride")?;
    if s != stride {
        return Err(value(
            at,
            v.place,
            "stride",
            s,
            "the stride its vertex format implies",
        ));
    }
    let at = v.pos;
    let f = v.u32("vertexFormat")?;
    if f != h.format.bits() {
        return Err(value(at, v.place, "vertexFormat", f, "MSH0's vertexFormat"));
    }
    v.reserved(4, "reserved")?;
    let data_at = v.pos;
    let data = v.take(u64::from(h.vertex_count) * u64::from(stride), "data")?;
    v.finish("data")?;
    Ok(VertexBuffer { data_at, data })
}

/// Reads IB0: count and index size agree with MSH0; the index data.
fn parse_ib0<'a>(
    file: &'a [u8],
    ch: &Chunk,
    h: &MeshHeader<'_>,
) -> Result<IndexBuffer<'a>, ReadError> {
    let mut ib = ch.cur(file);
    let at = ib.pos;
    let n = ib.u32("indexCount")?;
    if n != h.index_count {
        return Err(value(at, ib.place, "indexCount", n, "MSH0's indexCount"));
    }
    let at = ib.pos;
    let size = ib.u32("indexSizeBytes")?;
    if size != 2 && size != 4 {
        return Err(value(at, ib.place, "indexSizeBytes", size, "2 or 4"));
    }
    ib.reserved(8, "reserved")?;
    let data_at = ib.pos;
    let data = ib.take(u64::from(h.index_count) * u64::from(size), "data")?;
    ib.finish("data")?;
    if h.flags.contains(MeshFlags::INDICES16) != (size == 2) {
        return Err(value(
            h.flags_at,
            Place::Chunk(FourCc::MSH0),
            "flags",
            h.flags.bits(),
            "bit 0 (indices16) set exactly when IB0.indexSizeBytes is 2",
        ));
    }
    Ok(IndexBuffer {
        size,
        data_at,
        data,
    })
}

/// Reads SUB0's table; each submesh's range is checked against `index_count`.
fn parse_sub0(file: &[u8], ch: &Chunk, index_count: u32) -> Result<Vec<Submesh>, ReadError> {
    let mut sc = ch.cur(file);
    let n = sc.u32("submeshCount")?;
    let sub_at = sc.pos;
    let table = sc.take(u64::from(n) * 12, "submeshes")?;
    sc.finish("submeshes")?;
    let mut submeshes = Vec::with_capacity(n as usize);
    for (k, e) in table.chunks_exact(12).enumerate() {
        let s = Submesh {
            material_index: le32(e) as i32,
            index_start: le32(&e[4..]),
            index_count: le32(&e[8..]),
        };
        if let Some((field, reason)) = submesh_structure(&s, index_count) {
            let off = sub_at + 12 * k + if field == "indexStart" { 4 } else { 8 };
            return Err(ReadError {
                offset: off as u64,
                place: sc.place,
                field,
                kind: ReadErrorKind::Rule {
                    reason: format!("submesh {k}: {reason}"),
                },
            });
        }
        submeshes.push(s);
    }
    Ok(submeshes)
}

/// Reads IBND: one finite matrix per bone of MSH0's `boneCount`.
fn parse_ibnd<'a>(file: &'a [u8], ch: &Chunk, bone_count: u32) -> Result<&'a [u8], ReadError> {
    let mut bc = ch.cur(file);
    let at = bc.pos;
    let n = bc.u32("boneCount")?;
    if n != bone_count {
        return Err(value(at, bc.place, "boneCount", n, "MSH0's boneCount"));
    }
    let inverse_bind = bc.floats(16 * u64::from(n), "inverseBind")?;
    bc.finish("inverseBind")?;
    Ok(inverse_bind)
}

/// Reads BND0: where its payload starts and the bounds.
fn parse_bnd0(file: &[u8], ch: &Chunk) -> Result<(usize, Bounds), ReadError> {
    let mut bd = ch.cur(file);
    let bnd_at = bd.pos;
    let b = bd.floats(10, "bounds")?;
    bd.finish("sphereRadius")?;
    let bounds = Bounds {
        aabb_min: [lef32(b), lef32(&b[4..]), lef32(&b[8..])],
        aabb_max: [lef32(&b[12..]), lef32(&b[16..]), lef32(&b[20..])],
        sphere_center: [lef32(&b[24..]), lef32(&b[28..]), lef32(&b[32..])],
        sphere_radius: lef32(&b[36..]),
    };
    Ok((bnd_at, bounds))
}

/// Reads the optional GBTM matrix.
fn parse_gbtm(file: &[u8], ch: Option<Chunk>) -> Result<Option<Mat4>, ReadError> {
    let Some(g) = ch else {
        return Ok(None);
    };
    let mut gc: Cur<'_> = g.cur(file);
    let m = gc.floats(16, "meshBindGeoToModel")?;
    gc.finish("meshBindGeoToModel")?;
    Ok(Some(mat_at(m, 0)))
}

/// The submesh/material check (D13) of one mesh.
fn submesh_findings(submeshes: &[Submesh], index_count: u32, material_count: u32) -> Tally {
    let mut subs = Tally::default();
    submeshes_tally(
        submeshes.iter().copied(),
        index_count,
        material_count,
        &mut subs,
    );
    subs
}

/// The bind-pose check (D13) of one skinned mesh, over the bones it uses.
fn bind_findings(ctx: &mut MeshCtx<'_, '_>, inverse_bind: &[u8]) -> Tally {
    let mut bind = Tally::default();
    let sk = ctx.skeleton;
    let world = ctx.world.get_or_insert_with(|| {
        bind_world_of(sk.bone_count as usize, |i| (sk.parent(i), sk.bind_local(i)))
    });
    bind_pose_rule(
        world,
        &ctx.used,
        |b| Some(mat_at(inverse_bind, b)),
        &mut bind,
    );
    bind
}

struct VertexCheck<'a> {
    layout: VertexLayout,
    data: &'a [u8],
    data_at: usize,
    bone_count: u32,
    bnd_at: usize,
    bounds: Bounds,
    gbtm: Option<Mat4>,
    /// Whether VB0's four slots are the whole skin, so that the weight rules apply
    /// to them here (with eight influences, `SKNX` applies them to all eight).
    weights_here: bool,
}

/// The exponent bits of an `f32`: all set for an infinity or a NaN.
const EXPONENT: u32 = 0x7F80_0000;

/// Checks every vertex (finite floats, tangent w, bounds, skin structure, weight
/// rules) and marks the bones the skin uses.
///
/// Without decoding, blocks of [`BLOCK`] vertices first go through a fast pass that
/// only answers "all good": one vectorised sweep for finiteness, then the block's
/// positions, tangent w and skins copied into one array per field and the rules
/// evaluated over the arrays without branches (`lanes.rs`). A block that is not all
/// good goes through the exact per-vertex checks, which find the first error and
/// count the findings as before.
fn check_vertices(
    vc: VertexCheck<'_>,
    used: &mut [bool],
    weights: &mut Tally,
    mut out: Option<(&mut Vertices, &VertexLayout)>,
) -> Result<(), ReadError> {
    let rules = VertexRules::new(&vc);
    let stride = rules.stride;
    let mask = rules.finite_mask(BLOCK);
    let mut lanes = Lanes::new();
    for (k, block) in vc.data.chunks(stride * BLOCK).enumerate() {
        if !rules.block_ok(block, &mask, &mut lanes, used) {
            for (j, vx) in block.chunks_exact(stride).enumerate() {
                rules.vertex(k * BLOCK + j, vx, used, weights)?;
            }
        }
        if let Some((o, l)) = out.as_mut() {
            for vx in block.chunks_exact(stride) {
                push_vertex(o, l, vx);
            }
        }
    }
    Ok(())
}

/// What the vertex checks need, derived once per mesh.
struct VertexRules<'v> {
    vc: &'v VertexCheck<'v>,
    stride: usize,
    /// Byte size of the leading float attributes (position … uv1).
    float_bytes: usize,
    /// Byte offset of the tangent's w.
    tangent_w: Option<usize>,
    /// Byte offset of the skin.
    skin_at: Option<usize>,
    cont: Containment,
}

impl<'v> VertexRules<'v> {
    fn new(vc: &'v VertexCheck<'v>) -> Self {
        let l = &vc.layout;
        VertexRules {
            vc,
            stride: l.stride(),
            float_bytes: l.float_bytes(),
            tangent_w: l.offset(Attribute::Tangent).map(|t| t + 12),
            skin_at: l.offset(Attribute::Skin),
            cont: Containment::new(&vc.bounds),
        }
    }

    /// Per word of `vertices` vertices: [`EXPONENT`] for a float word (the float
    /// attributes and the skin weights), 0 for an integer word (colour, bone indices).
    fn finite_mask(&self, vertices: usize) -> Vec<u32> {
        let words = self.stride / 4;
        let one: Vec<u32> = (0..words)
            .map(|k| {
                let float = 4 * k < self.float_bytes
                    || self
                        .skin_at
                        .is_some_and(|s| 4 * k >= s + 8 && 4 * k < s + 24);
                if float {
                    EXPONENT
                } else {
                    0
                }
            })
            .collect();
        one.repeat(vertices)
    }

    /// Whether every vertex of `block` passes every check (marking the bones used).
    /// False says only that the exact checks must look at the block.
    fn block_ok(&self, block: &[u8], mask: &[u32], lanes: &mut Lanes, used: &mut [bool]) -> bool {
        // A word is not finite when its exponent bits are all set; integer words
        // have a zero mask and never match.
        let not_finite = block.chunks_exact(4).zip(mask).fold(0u32, |acc, (w, &m)| {
            acc | u32::from(le32(w) & m == EXPONENT)
        });
        if not_finite != 0 {
            return false;
        }
        lanes.load(
            block,
            &Offsets {
                stride: self.stride,
                tangent_w: self.tangent_w,
                skin: self.skin_at,
            },
        );
        let inside = match self.vc.gbtm.as_ref() {
            None => lanes.inside(&self.cont),
            Some(g) => block.chunks_exact(self.stride).all(|vx| {
                let q = to_model_space([lef32(vx), lef32(&vx[4..]), lef32(&vx[8..])], Some(g));
                self.cont.in_box(q) & self.cont.in_sphere(q)
            }),
        };
        let tangents = self.tangent_w.is_none() || lanes.tangents_ok();
        let skins =
            self.skin_at.is_none() || (self.vc.weights_here && lanes.skins_ok(self.vc.bone_count));
        let ok = inside & tangents & skins;
        if ok && self.skin_at.is_some() {
            lanes.mark_used(used);
        }
        ok
    }

    /// The exact checks of vertex `v` (bytes `vx`): the first error, in the order
    /// finite floats, tangent w, bounds, skin; a weight-rule finding is counted.
    fn vertex(
        &self,
        v: usize,
        vx: &[u8],
        used: &mut [bool],
        weights: &mut Tally,
    ) -> Result<(), ReadError> {
        let vc = self.vc;
        let l = &vc.layout;
        let vb0 = Place::Chunk(FourCc::VB0);
        let base = vc.data_at + v * self.stride;
        let float_bytes = self.float_bytes;
        if let Some(k) = vx[..float_bytes]
            .chunks_exact(4)
            .position(|w| !finite_bits(le32(w)))
        {
            return Err(ReadError {
                offset: (base + 4 * k) as u64,
                place: vb0,
                field: l.attribute_at(4 * k).map_or("data", Attribute::name),
                kind: ReadErrorKind::NotFinite,
            });
        }
        if let Some(t) = self.tangent_w {
            if !tangent_w_ok(lef32(&vx[t..])) {
                return Err(ReadError {
                    offset: (base + t) as u64,
                    place: vb0,
                    field: "tangent",
                    kind: ReadErrorKind::Rule {
                        reason: format!("vertex {v}: tangent w is not +1 or -1"),
                    },
                });
            }
        }
        let q = to_model_space(
            [lef32(vx), lef32(&vx[4..]), lef32(&vx[8..])],
            vc.gbtm.as_ref(),
        );
        let cont = &self.cont;
        if !cont.in_box(q) || !cont.in_sphere(q) {
            let (off, field) = if cont.in_box(q) {
                (36, "sphereRadius")
            } else {
                (0, "aabbMin")
            };
            return Err(ReadError {
                offset: (vc.bnd_at + off) as u64,
                place: Place::Chunk(FourCc::BND0),
                field,
                kind: ReadErrorKind::Rule {
                    reason: format!("vertex {v} lies outside the bounds"),
                },
            });
        }
        if let Some(s) = self.skin_at {
            let sk = &vx[s..s + 24];
            let (bones, w) = skin_at(sk);
            if let Some(k) = w.iter().position(|w| !finite_bits(w.to_bits())) {
                return Err(ReadError {
                    offset: (base + s + 8 + 4 * k) as u64,
                    place: vb0,
                    field: "skin weights",
                    kind: ReadErrorKind::NotFinite,
                });
            }
            if let Some((k, reason)) = skin_structure(bones, w, vc.bone_count) {
                return Err(ReadError {
                    offset: (base + s + 2 * k) as u64,
                    place: vb0,
                    field: "skin",
                    kind: ReadErrorKind::Rule {
                        reason: format!("vertex {v}, slot {k}: {reason}"),
                    },
                });
            }
            if let Some(reason) = weights_rule(bones, w).filter(|_| vc.weights_here) {
                weights.fail(item(v), || format!("vertex {v}: {reason}"));
            }
            mark_used(used, bones, w);
        }
        Ok(())
    }
}

/// The bone indices and weights of a 24-byte skin attribute.
#[inline]
fn skin_at(sk: &[u8]) -> ([u16; 4], [f32; 4]) {
    // Spelled out: `[0, 1, 2, 3].map(..)` was left as a call per vertex.
    let b = |k: usize| u16::from_le_bytes([sk[2 * k], sk[2 * k + 1]]);
    let w = |k: usize| lef32(&sk[8 + 4 * k..]);
    ([b(0), b(1), b(2), b(3)], [w(0), w(1), w(2), w(3)])
}

fn check_indices(data: &[u8], size: u32, vertex_count: u32, at: usize) -> Result<(), ReadError> {
    let bad = |k: usize, x: u32| ReadError {
        offset: (at + k * size as usize) as u64,
        place: Place::Chunk(FourCc::IB0),
        field: "data",
        kind: ReadErrorKind::Rule {
            reason: format!("index {k} is {x}, not below the vertex count {vertex_count}"),
        },
    };
    let first_bad =
        |it: &mut dyn Iterator<Item = u32>| it.enumerate().find(|&(_, x)| x >= vertex_count);
    // The maximum first (a tight loop), the position only when it fails.
    let max = if size == 2 {
        data.chunks_exact(2)
            .map(|s| u16::from_le_bytes([s[0], s[1]]))
            .max()
            .map(u32::from)
    } else {
        data.chunks_exact(4).map(le32).max()
    };
    if max.is_some_and(|m| m >= vertex_count) {
        let found = if size == 2 {
            first_bad(
                &mut data
                    .chunks_exact(2)
                    .map(|s| u32::from(u16::from_le_bytes([s[0], s[1]]))),
            )
        } else {
            first_bad(&mut data.chunks_exact(4).map(le32))
        };
        let (k, x) = found.unwrap_or((0, 0));
        return Err(bad(k, x));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gomb::lanes;

    #[test]
    fn skin_ok_is_both_rules() {
        // Every combination of these weights and bones, against a 3-bone skeleton:
        // sums off by more and less than the tolerance, ties, zeros, negatives,
        // bones past the skeleton and repeated bones.
        let ws = [0.0f32, 0.1, 0.25, 0.5, 1.0, -0.1, 0.499_999_9];
        let bs = [0u16, 1, 2, 5];
        let mut agree = 0;
        let mut passed = 0;
        for i in 0..ws.len().pow(4) {
            let w = [0, 1, 2, 3].map(|k| ws[i / ws.len().pow(k) % ws.len()]);
            for j in 0..bs.len().pow(4) {
                let b = [0, 1, 2, 3].map(|k| bs[j / bs.len().pow(k as u32) % bs.len()]);
                let want = skin_structure(b, w, 3).is_none() && weights_rule(b, w).is_none();
                let (b32, wi) = (b.map(i32::from), w.map(|x| x.to_bits() as i32));
                assert_eq!(
                    lanes::skin_ok(b32, wi, 3),
                    want,
                    "bones {b:?}, weights {w:?}"
                );
                agree += 1;
                passed += usize::from(want);
            }
        }
        // Both outcomes occur.
        assert!(passed > 0 && passed < agree, "{passed} of {agree}");
    }
}
