//! Reading a `.tmd`: the header, the scene block (claimed byte by byte) and the mesh block.

use super::{
    Animation, Channel, Key, Lod, Mesh, MeshBlock, Node, NodeLayout, Piece, ReadLayout, Tmd,
    TmdHeader, Vertex, MAX_NAME, NODE_SIZE, SCENE_START, TMD, VERTEX_SIZE,
};
use crate::bytes::Reader;
use crate::error::Result;

/// Marks byte ranges of the scene block as used, refusing overlaps; bounded by the
/// block's size, so nothing allocated from a range can exceed what the bytes justify.
struct Claims {
    bits: Vec<u64>,
    end: usize,
}

impl Claims {
    fn new(end: usize) -> Self {
        Claims {
            bits: vec![0; end.div_ceil(64)],
            end,
        }
    }

    fn claim(&mut self, r: &Reader, start: usize, len: usize, field: &'static str) -> Result<()> {
        let stop = start
            .checked_add(len)
            .filter(|&e| e <= self.end)
            .ok_or_else(|| {
                r.err_at(
                    field,
                    start,
                    format!(
                        "{len} bytes from here run past the end of the scene block at {}",
                        self.end
                    ),
                )
            })?;
        for i in start..stop {
            let (w, b) = (i / 64, 1u64 << (i % 64));
            if self.bits[w] & b != 0 {
                return Err(r.err_at(field, i, "overlaps another structure of the scene block"));
            }
            self.bits[w] |= b;
        }
        Ok(())
    }

    fn gaps(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut start = None;
        for i in 0..self.end {
            let used = self.bits[i / 64] & (1u64 << (i % 64)) != 0;
            match (used, start) {
                (false, None) => start = Some(i),
                (true, Some(s)) => {
                    out.push((s, i));
                    start = None;
                }
                _ => {}
            }
        }
        if let Some(s) = start {
            out.push((s, self.end));
        }
        out
    }
}

/// Reads a stored name length at the cursor, refusing more than [`MAX_NAME`].
fn read_name_length(r: &mut Reader) -> Result<u8> {
    let at = r.pos();
    let n = r.u8("nameLength")?;
    if usize::from(n) > MAX_NAME {
        return Err(r.err_at("nameLength", at, format!("{n} is more than {MAX_NAME}")));
    }
    Ok(n)
}

fn relocate(r: &Reader, raw: u32, raw_base: u32, field: &'static str, at: usize) -> Result<usize> {
    (u64::from(raw) + SCENE_START as u64)
        .checked_sub(u64::from(raw_base))
        .and_then(|o| usize::try_from(o).ok())
        .ok_or_else(|| {
            r.err_at(
                field,
                at,
                format!("pointer {raw:#x} lies before the scene block (rawBase {raw_base:#x})"),
            )
        })
}

/// The fixed header fields, the counts and the pointers, as read.
struct Header {
    fields: TmdHeader,
    scene_size: usize,
    node_count: usize,
    anim_count: usize,
    ptr_a: u32,
}

/// Where the header's pointers lead, relocated to file offsets.
struct Pointers {
    header_size: usize,
    node_raw: u32,
    anim_raw: u32,
    order_off: Option<usize>,
    node_off: usize,
    anim_off: Option<usize>,
}

impl Tmd {
    /// Reads a model; strict on the layout, tolerant of open fields.
    pub fn read(data: &[u8]) -> Result<Tmd> {
        let mut r = Reader::new(data, TMD);
        let h = read_header(&mut r, data.len())?;
        let mesh_off = mesh_block_offset(&r, h.scene_size, data.len())?;
        let mut claims = Claims::new(mesh_off);
        let p = read_pointers(&mut r, &h, &mut claims)?;
        let node_layout = read_node_order(&mut r, p.order_off, h.node_count, &mut claims)?;
        let nodes = read_nodes(&mut r, p.node_off, h.node_count, &mut claims)?;
        let anim_offsets = read_animation_table(&mut r, &h, p.anim_off, &mut claims)?;
        let mut animations = Vec::with_capacity(h.anim_count);
        let mut channel_offsets = Vec::with_capacity(h.anim_count);
        for (i, &off) in anim_offsets.iter().enumerate() {
            let raw_base = h.fields.raw_base;
            let (animation, channels) =
                read_animation(&mut r, i, off, h.node_count, raw_base, &mut claims)?;
            animations.push(animation);
            channel_offsets.push(channels);
        }
        // mesh block: a dry walk checks every count against the bytes, then a real read
        r.seek(mesh_off, "sceneBlockSize")?;
        mesh_block(&mut r, h.node_count, true)?;
        r.seek(mesh_off, "sceneBlockSize")?;
        let (mesh, _) = mesh_block(&mut r, h.node_count, false)?;
        let trailing_offset = r.pos();
        let trailing = data[trailing_offset..].to_vec();
        let mut t = Tmd {
            header: h.fields,
            node_layout,
            nodes,
            animations,
            mesh,
            trailing,
            layout: Some(ReadLayout {
                header_size: p.header_size,
                ptr_a_raw: h.ptr_a,
                node_array_raw: p.node_raw,
                anim_table_raw: p.anim_raw,
                node_order_offset: p.order_off,
                node_array_offset: p.node_off,
                anim_table_offset: p.anim_off,
                animation_offsets: anim_offsets,
                channel_offsets,
                trailing_offset,
                mesh_block_offset: mesh_off,
                gaps: claims.gaps(),
            }),
            original: Some(data.to_vec()),
            read_digest: None,
        };
        t.read_digest = t.canonical_digest();
        Ok(t)
    }
}

/// Reads the fixed header up to and including `ptrA` (0x74), checking the sizes.
fn read_header(r: &mut Reader, file_len: usize) -> Result<Header> {
    if r.array::<4>("magic")? != *b"TMDL" {
        return Err(r.err_at("magic", 0, "is not \"TMDL\""));
    }
    let zero = r.u32("zero")?;
    let remaining = r.u32("fileSize-12")?;
    if remaining as usize != file_len.wrapping_sub(12) {
        return Err(r.err_at(
            "fileSize-12",
            8,
            format!("is {remaining}, but the file has {file_len} bytes"),
        ));
    }
    let tkl_name = r.array::<16>("tklName")?;
    let scene_size = r.u32("sceneBlockSize")? as usize;
    let raw_base = r.u32("rawBase")?;
    let u1 = r.u32("u1")?;
    let u2 = r.u32("u2")?;
    let mut zeros_2c = [0u32; 4];
    for z in &mut zeros_2c {
        *z = r.u32("zeros_0x2c")?;
    }
    let scene_copy = r.u32("sceneBlockSize (copy)")? as usize;
    if scene_copy != scene_size {
        return Err(r.err_at(
            "sceneBlockSize (copy)",
            0x3C,
            format!("is {scene_copy}, the header says {scene_size}"),
        ));
    }
    let node_count = r.u16("nodeCount")? as usize;
    let u3 = r.u16("u3")?;
    let anim_count = r.u16("animationCount")? as usize;
    let u4 = r.u16("u4")?;
    let reserved_48 = r.array::<44>("reserved")?;
    let ptr_a = r.u32("ptrA")?;
    Ok(Header {
        fields: TmdHeader {
            zero,
            tkl_name,
            raw_base,
            u1,
            u2,
            zeros_2c,
            u3,
            u4,
            reserved_48,
        },
        scene_size,
        node_count,
        anim_count,
        ptr_a,
    })
}

/// The mesh block's file offset, refused past the end of the file.
fn mesh_block_offset(r: &Reader, scene_size: usize, file_len: usize) -> Result<usize> {
    SCENE_START
        .checked_add(scene_size)
        .filter(|&m| m <= file_len)
        .ok_or_else(|| {
            r.err_at(
                "sceneBlockSize",
                0x1C,
                format!("{scene_size} puts the mesh block beyond the file's {file_len} bytes"),
            )
        })
}

/// Reads the header variant's remaining pointers and relocates them.
fn read_pointers(r: &mut Reader, h: &Header, claims: &mut Claims) -> Result<Pointers> {
    let raw_base = h.fields.raw_base;
    let a_off = relocate(r, h.ptr_a, raw_base, "ptrA", 0x74)?;
    let (header_size, node_raw, anim_raw, order_off) = if a_off == 0x7C {
        let anim_raw = r.u32("animTablePtr")?;
        (0x7C, h.ptr_a, anim_raw, None)
    } else {
        let node_raw = r.u32("nodeArrayPtr")?;
        let anim_raw = r.u32("animTablePtr")?;
        (0x80, node_raw, anim_raw, Some(a_off))
    };
    claims.claim(r, 0, header_size, "header")?;
    let node_at = if order_off.is_some() { 0x78 } else { 0x74 };
    let node_off = relocate(r, node_raw, raw_base, "nodeArrayPtr", node_at)?;
    // with no animations the table pointer is not followed (its value is kept)
    let anim_at = header_size - 4;
    let anim_off = if h.anim_count == 0 {
        relocate(r, anim_raw, raw_base, "animTablePtr", anim_at).ok()
    } else {
        Some(relocate(r, anim_raw, raw_base, "animTablePtr", anim_at)?)
    };
    Ok(Pointers {
        header_size,
        node_raw,
        anim_raw,
        order_off,
        node_off,
        anim_off,
    })
}

/// Reads the node-order table of the indexed variant.
fn read_node_order(
    r: &mut Reader,
    order_off: Option<usize>,
    node_count: usize,
    claims: &mut Claims,
) -> Result<NodeLayout> {
    let Some(o) = order_off else {
        return Ok(NodeLayout::Direct);
    };
    r.record = "node order table".into();
    claims.claim(r, o, node_count * 4, "node order")?;
    r.seek(o, "ptrA")?;
    let mut v = Vec::with_capacity(node_count);
    for _ in 0..node_count {
        v.push(r.i32("node order")?);
    }
    Ok(NodeLayout::Indexed { node_order: v })
}

/// Reads the node array.
fn read_nodes(
    r: &mut Reader,
    node_off: usize,
    node_count: usize,
    claims: &mut Claims,
) -> Result<Vec<Node>> {
    r.record = "node array".into();
    claims.claim(r, node_off, node_count * NODE_SIZE, "nodes")?;
    r.seek(node_off, "nodeArrayPtr")?;
    let mut nodes = Vec::with_capacity(node_count);
    for i in 0..node_count {
        r.record = format!("node {i}");
        nodes.push(read_node(r, node_count)?);
    }
    Ok(nodes)
}

/// Reads one node record at the cursor.
fn read_node(r: &mut Reader, node_count: usize) -> Result<Node> {
    let at = r.pos();
    let rest_rotation = r.f32s::<4>("restRotation")?;
    let bind = r.f32s::<16>("bind")?;
    let inverse_bind = r.f32s::<16>("inverseBind")?;
    let name_length = read_name_length(r)?;
    let name_field = r.array::<15>("name")?;
    let parent = r.i16("parent")?;
    if parent < -1 || parent as isize >= node_count as isize {
        return Err(r.err_at(
            "parent",
            at + 0xA0,
            format!("{parent} is neither -1 nor a node index below {node_count}"),
        ));
    }
    let flag = r.u16("flag")?;
    let rest_translation = r.f32s::<3>("restTranslation")?;
    Ok(Node {
        rest_rotation,
        bind,
        inverse_bind,
        name_length,
        name_field,
        parent,
        flag,
        rest_translation,
    })
}

/// Reads the animation pointer table and claims every animation record.
fn read_animation_table(
    r: &mut Reader,
    h: &Header,
    anim_off: Option<usize>,
    claims: &mut Claims,
) -> Result<Vec<usize>> {
    r.record = "animation table".into();
    if let (Some(off), true) = (anim_off, h.anim_count > 0) {
        claims.claim(r, off, h.anim_count * 4, "animation table")?;
        r.seek(off, "animTablePtr")?;
    }
    let mut anim_offsets = Vec::with_capacity(h.anim_count);
    for i in 0..h.anim_count {
        let at = r.pos();
        let raw = r.u32("animation pointer")?;
        r.record = format!("animation table entry {i}");
        let off = relocate(r, raw, h.fields.raw_base, "animation pointer", at)?;
        r.record = format!("animation {i}");
        claims.claim(r, off, 32 + h.node_count * 4, "animation record")?;
        anim_offsets.push(off);
        r.record = "animation table".into();
    }
    Ok(anim_offsets)
}

/// Reads animation `i` at file offset `off` with its channels; also returns each
/// channel's file offset.
fn read_animation(
    r: &mut Reader,
    i: usize,
    off: usize,
    node_count: usize,
    raw_base: u32,
    claims: &mut Claims,
) -> Result<(Animation, Vec<usize>)> {
    r.record = format!("animation {i}");
    r.seek(off, "animation pointer")?;
    let name_length = read_name_length(r)?;
    let name_field = r.array::<15>("name")?;
    let overlay = r.u32("overlay")?;
    let unknown = r.u32("unknown")?;
    let used_node_count = r.u32("usedNodeCount")?;
    let duration = r.f32("duration")?;
    let table = r.pos();
    // first pass: locate and claim every channel before allocating
    let mut offsets = Vec::new();
    for n in 0..node_count {
        r.record = format!("animation {i} channel {n}");
        let c = seek_channel(r, table + n * 4, raw_base)?;
        r.u16("flags")?;
        let kc = r.u16("keyCount")? as usize;
        claims.claim(r, c, 4 + kc * 8, "channel")?;
        offsets.push(c);
    }
    let mut channels = Vec::with_capacity(node_count);
    for (n, &c) in offsets.iter().enumerate() {
        r.record = format!("animation {i} channel {n}");
        r.seek(c, "channel pointer")?;
        channels.push(read_channel(r)?);
    }
    let animation = Animation {
        name_length,
        name_field,
        overlay,
        unknown,
        used_node_count,
        duration,
        channels,
    };
    Ok((animation, offsets))
}

/// Follows the channel pointer stored at `slot`; returns the channel's offset, sought.
fn seek_channel(r: &mut Reader, slot: usize, raw_base: u32) -> Result<usize> {
    r.seek(slot, "channel pointer")?;
    let raw = r.u32("channel pointer")?;
    let c = relocate(r, raw, raw_base, "channel pointer", slot)?;
    r.seek(c, "channel pointer")?;
    Ok(c)
}

/// Reads one channel (flags, key count, keys) at the cursor.
fn read_channel(r: &mut Reader) -> Result<Channel> {
    let flags = r.u16("flags")?;
    let kc = r.u16("keyCount")? as usize;
    let mut keys = Vec::with_capacity(kc);
    for _ in 0..kc {
        keys.push(Key {
            time: r.f32("key time")?,
            loc_index: r.u16("locIndex")?,
            rot_index: r.u16("rotIndex")?,
        });
    }
    Ok(Channel { flags, keys })
}

/// Reads (or, when `dry`, only walks and checks) the mesh block at the cursor.
fn mesh_block(r: &mut Reader, node_count: usize, dry: bool) -> Result<(MeshBlock, ())> {
    r.record = "mesh block".into();
    let lod_count = r.u32("lodCount")? as usize;
    let lod_distance = r.f32("lodDistance")?;
    r.check_count(lod_count, 24, "lodCount")?;
    let mut lods = Vec::with_capacity(if dry { 0 } else { lod_count });
    for l in 0..lod_count {
        r.record = format!("lod {l}");
        let mesh_count = r.u32("meshCount")? as usize;
        let shader_type = r.u32("shaderType")?;
        let sphere = r.f32s::<4>("sphere")?;
        r.check_count(mesh_count, 44, "meshCount")?;
        let mut meshes = Vec::with_capacity(if dry { 0 } else { mesh_count });
        for m in 0..mesh_count {
            r.record = format!("lod {l} mesh {m}");
            let at = r.pos();
            let piece_count = r.u32("pieceCount")? as usize;
            let total_strip = r.u32("totalStripIndices")? as usize;
            let total_verts = r.u32("totalVertices")? as usize;
            let material_field = r.array::<32>("materialName")?;
            r.check_count(piece_count, 40, "pieceCount")?;
            let mut pieces = Vec::with_capacity(if dry { 0 } else { piece_count });
            let (mut strip_sum, mut vert_sum) = (0usize, 0usize);
            for p in 0..piece_count {
                r.record = format!("lod {l} mesh {m} piece {p}");
                let pat = r.pos();
                let strip_count = r.u32("stripIndexCount")? as usize;
                let vertex_count = r.u32("vertexCount")? as usize;
                let palette_count = r.u32("paletteCount")? as usize;
                let verts_required = r.u32("verticesRequired")?;
                let box_center = r.f32s::<3>("boxCenter")?;
                let box_extents = r.f32s::<3>("boxExtents")?;
                r.check_count(palette_count, 4, "paletteCount")?;
                let mut palette = Vec::with_capacity(if dry { 0 } else { palette_count });
                for _ in 0..palette_count {
                    let q = r.pos();
                    let v = r.u32("palette")?;
                    if v as usize >= node_count {
                        return Err(r.err_at(
                            "palette",
                            q,
                            format!("node {v} but the model has {node_count} nodes"),
                        ));
                    }
                    if !dry {
                        palette.push(v);
                    }
                }
                r.check_count(vertex_count, VERTEX_SIZE, "vertexCount")?;
                let mut vertices = Vec::with_capacity(if dry { 0 } else { vertex_count });
                if dry {
                    r.bytes(vertex_count * VERTEX_SIZE, "vertices")?;
                } else {
                    for _ in 0..vertex_count {
                        vertices.push(Vertex {
                            position: r.f32s::<3>("position")?,
                            normal: r.f32s::<3>("normal")?,
                            weights: r.array::<4>("weights")?,
                            bones: r.array::<4>("bones")?,
                            uv: r.f32s::<2>("uv")?,
                        });
                    }
                }
                vert_sum = vert_sum.saturating_add(vertex_count);
                strip_sum = strip_sum.saturating_add(strip_count);
                r.check_count(strip_count, 2, "stripIndexCount")?;
                let mut strip = Vec::with_capacity(if dry { 0 } else { strip_count });
                let strip_at = r.pos();
                for k in 0..strip_count {
                    let v = r.u16("strip")?;
                    if dry && v as usize >= total_verts {
                        return Err(r.err_at(
                            "strip",
                            strip_at + 2 * k,
                            format!("index {v} but the mesh has {total_verts} vertices"),
                        ));
                    }
                    if !dry {
                        strip.push(v);
                    }
                }
                let _ = pat;
                if !dry {
                    pieces.push(Piece {
                        verts_required,
                        box_center,
                        box_extents,
                        palette,
                        vertices,
                        strip,
                    });
                }
            }
            r.record = format!("lod {l} mesh {m}");
            if strip_sum != total_strip {
                return Err(r.err_at(
                    "totalStripIndices",
                    at + 4,
                    format!("is {total_strip} but the pieces hold {strip_sum}"),
                ));
            }
            if vert_sum != total_verts {
                return Err(r.err_at(
                    "totalVertices",
                    at + 8,
                    format!("is {total_verts} but the pieces hold {vert_sum}"),
                ));
            }
            if !dry {
                meshes.push(Mesh {
                    material_field,
                    pieces,
                });
            }
        }
        if !dry {
            lods.push(Lod {
                shader_type,
                sphere,
                meshes,
            });
        }
    }
    Ok((MeshBlock { lod_distance, lods }, ()))
}
