//! MSH0 and its children VB0, IB0, SUB0, IBND, BND0, GBTM (D7).

use super::cursor::{check_known, le32, lef32, Chunk, Chunks, Cur};
use super::str0::Strings;
use super::to_model::{decode_indices, push_vertex, Decoded, Layout};
use super::view::{mat_at, misplaced, MeshView, SkeletonView, StringBudget};
use super::UnknownChunk;
use crate::bounds::{to_model_space, Containment};
use crate::error::{FourCc, Place, ReadError};
use crate::limits::{MAX_INDICES, MAX_VERTICES};
use crate::model::{Bounds, Mat4, Submesh, VertexFormat, Vertices};
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
            return Err(ReadError::Value {
                offset: at as u64,
                place,
                field,
                value: u64::from(id),
                expected: "a string index below STR0's stringCount",
            });
        }
        self.budget.add(self.strings, id)
    }
}

fn value(
    at: usize,
    place: Place,
    field: &'static str,
    v: u32,
    expected: &'static str,
) -> ReadError {
    ReadError::Value {
        offset: at as u64,
        place,
        field,
        value: u64::from(v),
        expected,
    }
}

/// The attribute holding byte `off` of a vertex of format `f`.
fn attribute_at(f: VertexFormat, off: usize) -> &'static str {
    const NAMES: [&str; 7] = [
        "position",
        "normal",
        "tangent",
        "uv0",
        "uv1",
        "color0",
        "skin weights",
    ];
    let mut start = 0usize;
    for (k, (bit, size)) in VertexFormat::LAYOUT.iter().enumerate() {
        if f.contains(*bit) {
            if off < start + *size as usize {
                return NAMES[k];
            }
            start += *size as usize;
        }
    }
    "data"
}

const CHILDREN: [FourCc; 6] = [
    FourCc::VB0,
    FourCc::IB0,
    FourCc::SUB0,
    FourCc::IBND,
    FourCc::BND0,
    FourCc::GBTM,
];

pub(crate) fn parse_mesh<'a>(
    file: &'a [u8],
    c: &Chunk,
    index: usize,
    ctx: &mut MeshCtx<'_, 'a>,
    unknown: &mut Vec<UnknownChunk>,
    findings: &mut Vec<Finding>,
    decoded: Option<&mut Vec<Decoded>>,
) -> Result<MeshView<'a>, ReadError> {
    let place = c.place();
    if c.size % 16 != 0 {
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
    let fmt_at = cur.pos;
    let format = cur.u32("vertexFormat")?;
    if format & !VertexFormat::KNOWN != 0 {
        return Err(value(
            fmt_at,
            place,
            "vertexFormat",
            format,
            "only the bits 0..6 of D7",
        ));
    }
    let fmt = VertexFormat(format);
    if !fmt.contains(VertexFormat::POSITION) {
        return Err(value(
            fmt_at,
            place,
            "vertexFormat",
            format,
            "bit 0 (position) set",
        ));
    }
    let skinned = fmt.contains(VertexFormat::SKIN);
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
    let flags = cur.u32("flags")?;
    if flags & !3 != 0 {
        return Err(ReadError::Reserved {
            offset: flags_at as u64,
            place,
            field: "flags",
        });
    }
    cur.reserved(8, "reserved")?;

    // Children: any order, each known one at most once.
    let mut kids: [Option<Chunk>; 6] = [None; 6];
    for ch in Chunks::new(file, cur.pos, c.payload_end(), place) {
        let ch = ch?;
        if let Some(k) = CHILDREN.iter().position(|&f| f == ch.fourcc) {
            if kids[k].is_some() {
                return Err(ReadError::Duplicate {
                    offset: ch.offset as u64,
                    place: ch.place(),
                    field: "MSH0",
                });
            }
            check_known(&ch)?;
            kids[k] = Some(ch);
        } else if matches!(
            ch.fourcc,
            FourCc::STR0 | FourCc::SKEL | FourCc::MATL | FourCc::MSH0 | FourCc::ANIM | FourCc::CLP0
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
        kids[k].ok_or(ReadError::Missing {
            offset: c.offset as u64,
            place,
            field: f,
        })
    };
    let vb0 = need(0, "VB0 ")?;
    let ib0 = need(1, "IB0 ")?;
    let sub0 = need(2, "SUB0")?;
    let ibnd = need(3, "IBND")?;
    let bnd0 = need(4, "BND0")?;
    let gbtm_chunk = kids[5];
    if (flags & 2 != 0) != gbtm_chunk.is_some() {
        return Err(value(
            flags_at,
            place,
            "flags",
            flags,
            "bit 1 (hasGBTM) set exactly when a GBTM child is present",
        ));
    }

    // VB0
    let stride = fmt.stride();
    let mut v = vb0.cur(file);
    let at = v.pos;
    let n = v.u32("vertexCount")?;
    if n != vertex_count {
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
    if f != format {
        return Err(value(at, v.place, "vertexFormat", f, "MSH0's vertexFormat"));
    }
    v.reserved(4, "reserved")?;
    let data_at = v.pos;
    let vertex_data = v.take(u64::from(vertex_count) * u64::from(stride), "data")?;
    v.finish("data")?;

    // IB0
    let mut ib = ib0.cur(file);
    let at = ib.pos;
    let n = ib.u32("indexCount")?;
    if n != index_count {
        return Err(value(at, ib.place, "indexCount", n, "MSH0's indexCount"));
    }
    let at = ib.pos;
    let index_size = ib.u32("indexSizeBytes")?;
    if index_size != 2 && index_size != 4 {
        return Err(value(at, ib.place, "indexSizeBytes", index_size, "2 or 4"));
    }
    ib.reserved(8, "reserved")?;
    let idx_at = ib.pos;
    let index_data = ib.take(u64::from(index_count) * u64::from(index_size), "data")?;
    ib.finish("data")?;
    if (flags & 1 != 0) != (index_size == 2) {
        return Err(value(
            flags_at,
            place,
            "flags",
            flags,
            "bit 0 (indices16) set exactly when IB0.indexSizeBytes is 2",
        ));
    }

    // SUB0
    let mut sc = sub0.cur(file);
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
            return Err(ReadError::Rule {
                offset: off as u64,
                place: sc.place,
                field,
                reason: format!("submesh {k}: {reason}"),
            });
        }
        submeshes.push(s);
    }

    // IBND
    let mut bc = ibnd.cur(file);
    let at = bc.pos;
    let n = bc.u32("boneCount")?;
    if n != bone_count {
        return Err(value(at, bc.place, "boneCount", n, "MSH0's boneCount"));
    }
    let inverse_bind = bc.floats(16 * u64::from(n), "inverseBind")?;
    bc.finish("inverseBind")?;

    // BND0
    let mut bd = bnd0.cur(file);
    let bnd_at = bd.pos;
    let b = bd.floats(10, "bounds")?;
    bd.finish("sphereRadius")?;
    let bounds = Bounds {
        aabb_min: [lef32(b), lef32(&b[4..]), lef32(&b[8..])],
        aabb_max: [lef32(&b[12..]), lef32(&b[16..]), lef32(&b[20..])],
        sphere_center: [lef32(&b[24..]), lef32(&b[28..]), lef32(&b[32..])],
        sphere_radius: lef32(&b[36..]),
    };

    // GBTM
    let gbtm = match gbtm_chunk {
        Some(g) => {
            let mut gc: Cur<'_> = g.cur(file);
            let m = gc.floats(16, "meshBindGeoToModel")?;
            gc.finish("meshBindGeoToModel")?;
            Some(mat_at(m, 0))
        }
        None => None,
    };

    // Vertices: finite floats, tangent w, skin structure, bounds, weight rules.
    let mut weights = Tally::default();
    if skinned {
        ctx.used.clear();
        ctx.used.resize(bone_count as usize, false);
    }
    let layout = Layout::of(fmt);
    let mut streams = decoded
        .as_ref()
        .map(|_| layout.streams(vertex_count as usize));
    check_vertices(
        VertexCheck {
            fmt,
            stride: stride as usize,
            data: vertex_data,
            data_at,
            bone_count,
            bnd_at,
            bounds,
            gbtm,
        },
        &mut ctx.used,
        &mut weights,
        streams.as_mut().map(|v| (v, &layout)),
    )?;

    // Indices below vertexCount.
    check_indices(index_data, index_size, vertex_count, idx_at)?;

    let mut subs = Tally::default();
    submeshes_tally(
        submeshes.iter().copied(),
        index_count,
        ctx.material_count,
        &mut subs,
    );
    let mut bind = Tally::default();
    if skinned {
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
    }
    push_findings(findings, index, name, bind, weights, subs);
    if let (Some(out), Some(v)) = (decoded, streams) {
        out.push((v, decode_indices(index_data, index_size)));
    }

    Ok(MeshView {
        name,
        vertex_format: fmt,
        vertex_count,
        stride,
        vertex_data,
        index_count,
        index_size,
        index_data,
        submeshes,
        bone_count,
        inverse_bind,
        bounds,
        gbtm,
        offset: c.offset as u64,
    })
}

struct VertexCheck<'a> {
    fmt: VertexFormat,
    stride: usize,
    data: &'a [u8],
    data_at: usize,
    bone_count: u32,
    bnd_at: usize,
    bounds: Bounds,
    gbtm: Option<Mat4>,
}

fn check_vertices(
    vc: VertexCheck<'_>,
    used: &mut [bool],
    weights: &mut Tally,
    mut out: Option<(&mut Vertices, &Layout)>,
) -> Result<(), ReadError> {
    let f = vc.fmt;
    let vb0 = Place::Chunk(FourCc::VB0);
    // Float attributes (position, normal, tangent, uv0, uv1) come first, contiguous.
    let mut float_bytes = 12;
    let mut tangent_w = None;
    if f.contains(VertexFormat::NORMAL) {
        float_bytes += 12;
    }
    if f.contains(VertexFormat::TANGENT) {
        tangent_w = Some(float_bytes + 12);
        float_bytes += 16;
    }
    if f.contains(VertexFormat::UV0) {
        float_bytes += 8;
    }
    if f.contains(VertexFormat::UV1) {
        float_bytes += 8;
    }
    let skin_at = if f.contains(VertexFormat::SKIN) {
        Some(vc.stride - 24)
    } else {
        None
    };
    let cont = Containment::new(&vc.bounds);
    let g = vc.gbtm.as_ref();
    for (v, vx) in vc.data.chunks_exact(vc.stride).enumerate() {
        let base = vc.data_at + v * vc.stride;
        let mut all = true;
        for w in vx[..float_bytes].chunks_exact(4) {
            all &= finite_bits(le32(w));
        }
        if !all {
            let k = vx[..float_bytes]
                .chunks_exact(4)
                .position(|w| !finite_bits(le32(w)))
                .unwrap_or(0);
            return Err(ReadError::NotFinite {
                offset: (base + 4 * k) as u64,
                place: vb0,
                field: attribute_at(f, 4 * k),
            });
        }
        if let Some(t) = tangent_w {
            if !tangent_w_ok(lef32(&vx[t..])) {
                return Err(ReadError::Rule {
                    offset: (base + t) as u64,
                    place: vb0,
                    field: "tangent",
                    reason: format!("vertex {v}: tangent w is not +1 or -1"),
                });
            }
        }
        let q = to_model_space([lef32(vx), lef32(&vx[4..]), lef32(&vx[8..])], g);
        if !cont.in_box(q) || !cont.in_sphere(q) {
            let (off, field) = if cont.in_box(q) {
                (36, "sphereRadius")
            } else {
                (0, "aabbMin")
            };
            return Err(ReadError::Rule {
                offset: (vc.bnd_at + off) as u64,
                place: Place::Chunk(FourCc::BND0),
                field,
                reason: format!("vertex {v} lies outside the bounds"),
            });
        }
        if let Some(s) = skin_at {
            let sk = &vx[s..s + 24];
            let bones = [
                u16::from_le_bytes([sk[0], sk[1]]),
                u16::from_le_bytes([sk[2], sk[3]]),
                u16::from_le_bytes([sk[4], sk[5]]),
                u16::from_le_bytes([sk[6], sk[7]]),
            ];
            let mut wb = [0u32; 4];
            for k in 0..4 {
                wb[k] = le32(&sk[8 + 4 * k..]);
            }
            if let Some(k) = wb.iter().position(|&b| !finite_bits(b)) {
                return Err(ReadError::NotFinite {
                    offset: (base + s + 8 + 4 * k) as u64,
                    place: vb0,
                    field: "skin weights",
                });
            }
            let w = wb.map(f32::from_bits);
            if let Some((k, reason)) = skin_structure(bones, w, vc.bone_count) {
                return Err(ReadError::Rule {
                    offset: (base + s + 2 * k) as u64,
                    place: vb0,
                    field: "skin",
                    reason: format!("vertex {v}, slot {k}: {reason}"),
                });
            }
            if let Some(reason) = weights_rule(bones, w) {
                weights.fail(item(v), || format!("vertex {v}: {reason}"));
            }
            mark_used(used, bones, w);
        }
        if let Some((o, l)) = out.as_mut() {
            push_vertex(o, l, vx);
        }
    }
    Ok(())
}

fn check_indices(data: &[u8], size: u32, vertex_count: u32, at: usize) -> Result<(), ReadError> {
    let bad = |k: usize, x: u32| ReadError::Rule {
        offset: (at + k * size as usize) as u64,
        place: Place::Chunk(FourCc::IB0),
        field: "data",
        reason: format!("index {k} is {x}, not below the vertex count {vertex_count}"),
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
