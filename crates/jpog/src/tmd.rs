//! `.tmd` models ("TMDL"): header, nodes, animations (scene block) and the mesh block.
//!
//! In-file pointers are the game's in-memory offsets: `fileOffset = raw + 0x3C - rawBase`.

use crate::bytes::{check_name_field16, field_text, name_field16, to_u32, Reader, Writer};
use crate::error::{Error, FileKind, Result};
use crate::open::{hex, OpenField};

/// Size of one node record.
pub const NODE_SIZE: usize = 0xB0;
/// Size of one vertex.
pub const VERTEX_SIZE: usize = 40;
/// Longest node or animation name the game accepts.
pub const MAX_NAME: usize = 15;
/// Most nodes one piece's palette may hold.
pub const MAX_PALETTE: usize = 28;
/// Most indices one strip may hold (the game needs fewer than 32767).
pub const MAX_STRIP: usize = 32766;
/// Offset the scene block (and pointer relocation) starts at.
pub const SCENE_START: usize = 0x3C;

const TMD: FileKind = FileKind::Tmd;

/// The header fields that are stored as they are (sizes, counts and pointers are derived).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TmdHeader {
    /// u32 at 0x04 (0 in practice).
    pub zero: u32,
    /// 16-byte keyframe-library name field at 0x0C (bytes after the NUL kept).
    pub tkl_name: [u8; 16],
    /// The in-memory base of the pointers (u32 at 0x20).
    pub raw_base: u32,
    /// Open u32 at 0x24.
    pub u1: u32,
    /// Open u32 at 0x28.
    pub u2: u32,
    /// Four u32 at 0x2C (0 in practice).
    pub zeros_2c: [u32; 4],
    /// u16 at 0x42 (likely the count of non-animated bones).
    pub u3: u16,
    /// u16 at 0x46 (likely the most simultaneous animations).
    pub u4: u16,
    /// 44 bytes at 0x48 (0 in practice).
    pub reserved_48: [u8; 44],
}

impl TmdHeader {
    /// The keyframe-library name: text up to the first NUL.
    pub fn tkl_name(&self) -> String {
        field_text(&self.tkl_name)
    }
}

/// Which of the two header variants holds the node pointers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodeLayout {
    /// `ptrA` points at the node array right after the header (0x7C); the anim-table
    /// pointer sits at 0x78. The common case.
    Direct,
    /// `ptrA` points at an `i32[nodeCount]` table (meaning open), the node-array pointer
    /// sits at 0x78 and the anim-table pointer at 0x7C; the header is 0x80 bytes.
    Indexed {
        /// The table `ptrA` points at, kept verbatim.
        node_order: Vec<i32>,
    },
}

/// One node of the scene graph (0xB0 bytes).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Node {
    /// Local rest rotation quaternion (x, y, z, w).
    pub rest_rotation: [f32; 4],
    /// Model-space bind matrix, row-vector convention (translation in floats 12..14).
    pub bind: [f32; 16],
    /// Inverse bind matrix.
    pub inverse_bind: [f32; 16],
    /// Stored name length.
    pub name_length: u8,
    /// 15-byte name field (bytes after the name kept).
    pub name_field: [u8; 15],
    /// Parent node index, -1 for a root.
    pub parent: i16,
    /// Flag (likely: non-deforming / no-mesh bone).
    pub flag: u16,
    /// Local rest translation (pivot).
    pub rest_translation: [f32; 3],
}

/// Builds a (length, 15-byte field) name pair, refusing names over 15 bytes.
pub fn short_name(name: &str, record: &str) -> Result<(u8, [u8; 15])> {
    let b = name.as_bytes();
    if b.len() > MAX_NAME || b.contains(&0) {
        return Err(Error::refused(
            TMD,
            record,
            "name",
            format!(
                "{name:?} has {} bytes; names hold at most {MAX_NAME} and no NUL",
                b.len()
            ),
        ));
    }
    let mut f = [0u8; 15];
    f[..b.len()].copy_from_slice(b);
    Ok((b.len() as u8, f))
}

fn short_text(len: u8, field: &[u8; 15]) -> String {
    let n = (len as usize).min(15);
    field_text(&field[..n])
}

impl Node {
    /// The name (the stored length, cut at a NUL).
    pub fn name(&self) -> String {
        short_text(self.name_length, &self.name_field)
    }

    /// Sets the name; refused over 15 bytes.
    pub fn set_name(&mut self, name: &str) -> Result<()> {
        (self.name_length, self.name_field) = short_name(name, "node")?;
        Ok(())
    }
}

/// One key of a channel: a time and indices into the keyframe library.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Key {
    /// Time in seconds.
    pub time: f32,
    /// Index into the TKL translations.
    pub loc_index: u16,
    /// Index into the TKL rotations.
    pub rot_index: u16,
}

/// One node's channel in an animation.
#[derive(Debug, Clone, PartialEq)]
pub struct Channel {
    /// Flags: bit 0 = translation keys used (sure); bit 1 open.
    pub flags: u16,
    /// The keys.
    pub keys: Vec<Key>,
}

/// One animation.
#[derive(Debug, Clone, PartialEq)]
pub struct Animation {
    /// Stored name length.
    pub name_length: u8,
    /// 15-byte name field.
    pub name_field: [u8; 15],
    /// Likely: additive/overlay flag.
    pub overlay: u32,
    /// Open.
    pub unknown: u32,
    /// Used node count (equal to the node count in practice), kept as stored.
    pub used_node_count: u32,
    /// Duration in seconds.
    pub duration: f32,
    /// One channel per node, in node order.
    pub channels: Vec<Channel>,
}

impl Animation {
    /// The name.
    pub fn name(&self) -> String {
        short_text(self.name_length, &self.name_field)
    }
    /// Whether the name marks a looping animation ("_lp" suffix).
    pub fn is_looping(&self) -> bool {
        self.name().ends_with("_lp")
    }
}

/// One 40-byte vertex.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Vertex {
    /// Position.
    pub position: [f32; 3],
    /// Normal.
    pub normal: [f32; 3],
    /// Weights, /255.
    pub weights: [u8; 4],
    /// Palette slot × 3.
    pub bones: [u8; 4],
    /// Texture coordinates as stored (v negated).
    pub uv: [f32; 2],
}

/// One piece of a mesh: its palette, vertices (first piece only) and one strip.
#[derive(Debug, Clone, PartialEq)]
pub struct Piece {
    /// Stored "vertices required" (the public writers store max strip index + 1).
    pub verts_required: u32,
    /// Bounding box centre.
    pub box_center: [f32; 3],
    /// Bounding box extents.
    pub box_extents: [f32; 3],
    /// Node indices, at most 28.
    pub palette: Vec<u32>,
    /// Vertices (all of a mesh's vertices sit in its first piece).
    pub vertices: Vec<Vertex>,
    /// One triangle strip addressing the mesh's vertex list.
    pub strip: Vec<u16>,
}

impl Piece {
    /// Recomputes the derived fields from `mesh_vertices` (the mesh's vertex list) and the
    /// strip: `verts_required` = largest strip index + 1, the box = centre and half extents
    /// of the vertices the strip draws. Call after editing geometry.
    pub fn recompute_derived(&mut self, mesh_vertices: &[Vertex]) {
        self.verts_required = self
            .strip
            .iter()
            .map(|&s| u32::from(s) + 1)
            .max()
            .unwrap_or(0);
        let mut lo = [f32::INFINITY; 3];
        let mut hi = [f32::NEG_INFINITY; 3];
        for v in self
            .strip
            .iter()
            .filter_map(|&s| mesh_vertices.get(usize::from(s)))
        {
            for k in 0..3 {
                lo[k] = lo[k].min(v.position[k]);
                hi[k] = hi[k].max(v.position[k]);
            }
        }
        if lo[0] <= hi[0] {
            for k in 0..3 {
                self.box_center[k] = (lo[k] + hi[k]) * 0.5;
                self.box_extents[k] = (hi[k] - lo[k]) * 0.5;
            }
        }
    }
}

/// One mesh: a material and its pieces.
#[derive(Debug, Clone, PartialEq)]
pub struct Mesh {
    /// 32-byte material name field.
    pub material_field: [u8; 32],
    /// The pieces.
    pub pieces: Vec<Piece>,
}

impl Mesh {
    /// The material name.
    pub fn material(&self) -> String {
        field_text(&self.material_field)
    }
    /// Number of vertices (all pieces).
    pub fn vertex_count(&self) -> usize {
        self.pieces.iter().map(|p| p.vertices.len()).sum()
    }
    /// Iterates the mesh's vertex list (pieces concatenated).
    pub fn vertices(&self) -> impl Iterator<Item = &Vertex> {
        self.pieces.iter().flat_map(|p| p.vertices.iter())
    }
}

/// One level of detail.
#[derive(Debug, Clone, PartialEq)]
pub struct Lod {
    /// Shader type (likely 0 skin, 2 world, 4 grass).
    pub shader_type: u32,
    /// Bounding sphere (x, y, z, r).
    pub sphere: [f32; 4],
    /// The meshes.
    pub meshes: Vec<Mesh>,
}

/// The mesh block.
#[derive(Debug, Clone, PartialEq)]
pub struct MeshBlock {
    /// The LOD distance.
    pub lod_distance: f32,
    /// The LODs.
    pub lods: Vec<Lod>,
}

/// Where things were found in the file read (absent for built models).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadLayout {
    /// Header size (0x7C or 0x80).
    pub header_size: usize,
    /// Stored `ptrA`.
    pub ptr_a_raw: u32,
    /// Stored node-array pointer.
    pub node_array_raw: u32,
    /// Stored anim-table pointer.
    pub anim_table_raw: u32,
    /// File offset of the node-order table (indexed variant).
    pub node_order_offset: Option<usize>,
    /// File offset of the node array.
    pub node_array_offset: usize,
    /// File offset of the animation pointer table (`None` when it lies before the scene
    /// block, which is only accepted without animations).
    pub anim_table_offset: Option<usize>,
    /// File offset of each animation record.
    pub animation_offsets: Vec<usize>,
    /// File offset of the mesh block.
    pub mesh_block_offset: usize,
    /// Scene-block byte ranges no known structure claims (kept only in the original bytes).
    pub gaps: Vec<(usize, usize)>,
}

/// A parsed model. Equality compares the content (header, nodes, animations, meshes,
/// trailing bytes), not where things were found or the bytes it came from.
#[derive(Debug, Clone)]
pub struct Tmd {
    /// Header fields kept as stored.
    pub header: TmdHeader,
    /// Pointer variant.
    pub node_layout: NodeLayout,
    /// Nodes.
    pub nodes: Vec<Node>,
    /// Animations.
    pub animations: Vec<Animation>,
    /// The mesh block.
    pub mesh: MeshBlock,
    /// Bytes after the mesh block, kept verbatim.
    pub trailing: Vec<u8>,
    /// Where things were found, for files that were read.
    pub layout: Option<ReadLayout>,
    original: Option<Vec<u8>>,
    read_digest: Option<u64>,
}

impl PartialEq for Tmd {
    fn eq(&self, o: &Self) -> bool {
        self.header == o.header
            && self.node_layout == o.node_layout
            && self.nodes == o.nodes
            && self.animations == o.animations
            && self.mesh == o.mesh
            && self.trailing == o.trailing
    }
}

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

/// Refuses a name length over [`MAX_NAME`] in a model to be written.
fn check_name_length(record: &str, n: u8) -> Result<()> {
    if usize::from(n) > MAX_NAME {
        return Err(Error::refused(
            TMD,
            record,
            "nameLength",
            format!("is {n}, at most {MAX_NAME}"),
        ));
    }
    Ok(())
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

impl Tmd {
    /// Reads a model; strict on the layout, tolerant of open fields.
    pub fn read(data: &[u8]) -> Result<Tmd> {
        let mut r = Reader::new(data, TMD);
        if r.array::<4>("magic")? != *b"TMDL" {
            return Err(r.err_at("magic", 0, "is not \"TMDL\""));
        }
        let zero = r.u32("zero")?;
        let remaining = r.u32("fileSize-12")?;
        if remaining as usize != data.len().wrapping_sub(12) {
            return Err(r.err_at(
                "fileSize-12",
                8,
                format!("is {remaining}, but the file has {} bytes", data.len()),
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
        let mesh_off = SCENE_START
            .checked_add(scene_size)
            .filter(|&m| m <= data.len())
            .ok_or_else(|| {
                r.err_at(
                    "sceneBlockSize",
                    0x1C,
                    format!(
                        "{scene_size} puts the mesh block beyond the file's {} bytes",
                        data.len()
                    ),
                )
            })?;
        let a_off = relocate(&r, ptr_a, raw_base, "ptrA", 0x74)?;
        let mut claims = Claims::new(mesh_off);
        let (header_size, node_raw, anim_raw, order_off) = if a_off == 0x7C {
            let anim_raw = r.u32("animTablePtr")?;
            (0x7C, ptr_a, anim_raw, None)
        } else {
            let node_raw = r.u32("nodeArrayPtr")?;
            let anim_raw = r.u32("animTablePtr")?;
            (0x80, node_raw, anim_raw, Some(a_off))
        };
        claims.claim(&r, 0, header_size, "header")?;
        let node_off = relocate(
            &r,
            node_raw,
            raw_base,
            "nodeArrayPtr",
            if order_off.is_some() { 0x78 } else { 0x74 },
        )?;
        // with no animations the table pointer is not followed (its value is kept)
        let anim_off = if anim_count == 0 {
            relocate(&r, anim_raw, raw_base, "animTablePtr", header_size - 4).ok()
        } else {
            Some(relocate(
                &r,
                anim_raw,
                raw_base,
                "animTablePtr",
                header_size - 4,
            )?)
        };

        // node-order table (indexed variant)
        let node_layout = match order_off {
            None => NodeLayout::Direct,
            Some(o) => {
                r.record = "node order table".into();
                claims.claim(&r, o, node_count * 4, "node order")?;
                r.seek(o, "ptrA")?;
                let mut v = Vec::with_capacity(node_count);
                for _ in 0..node_count {
                    v.push(r.i32("node order")?);
                }
                NodeLayout::Indexed { node_order: v }
            }
        };

        // nodes
        r.record = "node array".into();
        claims.claim(&r, node_off, node_count * NODE_SIZE, "nodes")?;
        r.seek(node_off, "nodeArrayPtr")?;
        let mut nodes = Vec::with_capacity(node_count);
        for i in 0..node_count {
            r.record = format!("node {i}");
            let at = r.pos();
            let rest_rotation = r.f32s::<4>("restRotation")?;
            let bind = r.f32s::<16>("bind")?;
            let inverse_bind = r.f32s::<16>("inverseBind")?;
            let name_length = read_name_length(&mut r)?;
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
            nodes.push(Node {
                rest_rotation,
                bind,
                inverse_bind,
                name_length,
                name_field,
                parent,
                flag,
                rest_translation,
            });
        }

        // animations
        r.record = "animation table".into();
        if let (Some(off), true) = (anim_off, anim_count > 0) {
            claims.claim(&r, off, anim_count * 4, "animation table")?;
            r.seek(off, "animTablePtr")?;
        }
        let mut anim_offsets = Vec::with_capacity(anim_count);
        for i in 0..anim_count {
            let at = r.pos();
            let raw = r.u32("animation pointer")?;
            r.record = format!("animation table entry {i}");
            let off = relocate(&r, raw, raw_base, "animation pointer", at)?;
            r.record = format!("animation {i}");
            claims.claim(&r, off, 32 + node_count * 4, "animation record")?;
            anim_offsets.push(off);
            r.record = "animation table".into();
        }
        let mut animations = Vec::with_capacity(anim_count);
        for (i, &off) in anim_offsets.iter().enumerate() {
            r.record = format!("animation {i}");
            r.seek(off, "animation pointer")?;
            let name_length = read_name_length(&mut r)?;
            let name_field = r.array::<15>("name")?;
            let overlay = r.u32("overlay")?;
            let unknown = r.u32("unknown")?;
            let used_node_count = r.u32("usedNodeCount")?;
            let duration = r.f32("duration")?;
            let table = r.pos();
            // first pass: locate and claim every channel before allocating
            for n in 0..node_count {
                r.record = format!("animation {i} channel {n}");
                r.seek(table + n * 4, "channel pointer")?;
                let raw = r.u32("channel pointer")?;
                let c = relocate(&r, raw, raw_base, "channel pointer", table + n * 4)?;
                r.seek(c, "channel pointer")?;
                r.u16("flags")?;
                let kc = r.u16("keyCount")? as usize;
                claims.claim(&r, c, 4 + kc * 8, "channel")?;
            }
            let mut channels = Vec::with_capacity(node_count);
            for n in 0..node_count {
                r.record = format!("animation {i} channel {n}");
                r.seek(table + n * 4, "channel pointer")?;
                let raw = r.u32("channel pointer")?;
                let c = relocate(&r, raw, raw_base, "channel pointer", table + n * 4)?;
                r.seek(c, "channel pointer")?;
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
                channels.push(Channel { flags, keys });
            }
            animations.push(Animation {
                name_length,
                name_field,
                overlay,
                unknown,
                used_node_count,
                duration,
                channels,
            });
        }

        // mesh block: a dry walk checks every count against the bytes, then a real read
        r.seek(mesh_off, "sceneBlockSize")?;
        mesh_block(&mut r, node_count, true)?;
        r.seek(mesh_off, "sceneBlockSize")?;
        let (mesh, _) = mesh_block(&mut r, node_count, false)?;
        let trailing = data[r.pos()..].to_vec();
        Ok(Tmd {
            header: TmdHeader {
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
            node_layout,
            nodes,
            animations,
            mesh,
            trailing,
            layout: Some(ReadLayout {
                header_size,
                ptr_a_raw: ptr_a,
                node_array_raw: node_raw,
                anim_table_raw: anim_raw,
                node_order_offset: order_off,
                node_array_offset: node_off,
                anim_table_offset: anim_off,
                animation_offsets: anim_offsets,
                mesh_block_offset: mesh_off,
                gaps: claims.gaps(),
            }),
            original: Some(data.to_vec()),
            read_digest: None,
        })
        .map(|mut t| {
            t.read_digest = t.canonical_digest();
            t
        })
    }
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

/// File offsets of every structure in the canonical layout of a model.
struct Plan {
    header_size: usize,
    order_off: usize,
    node_off: usize,
    table_off: usize,
    anim_offs: Vec<usize>,
    mesh_off: usize,
}

fn add(a: usize, b: usize) -> Result<usize> {
    a.checked_add(b).ok_or_else(|| {
        Error::refused(
            TMD,
            "model",
            "size",
            "the model is too large for 32-bit offsets",
        )
    })
}

impl Tmd {
    /// A new, empty model (one root-less node list, no LODs), for building from scratch.
    pub fn new(tkl_name: &str) -> Result<Tmd> {
        let name = name_field16(TMD, tkl_name, "header", "tklName")?;
        Ok(Tmd {
            header: TmdHeader {
                zero: 0,
                tkl_name: name,
                raw_base: 0x0003_5000,
                u1: 0,
                u2: 0,
                zeros_2c: [0; 4],
                u3: 0,
                u4: 1,
                reserved_48: [0; 44],
            },
            node_layout: NodeLayout::Direct,
            nodes: Vec::new(),
            animations: Vec::new(),
            mesh: MeshBlock {
                lod_distance: 0.0,
                lods: Vec::new(),
            },
            trailing: Vec::new(),
            layout: None,
            original: None,
            read_digest: None,
        })
    }

    fn plan(&self) -> Result<Plan> {
        let n = self.nodes.len();
        let header_size = match self.node_layout {
            NodeLayout::Direct => 0x7C,
            NodeLayout::Indexed { .. } => 0x80,
        };
        let order_off = header_size;
        let node_off = match &self.node_layout {
            NodeLayout::Direct => header_size,
            NodeLayout::Indexed { node_order } => add(order_off, node_order.len() * 4)?,
        };
        let table_off = add(node_off, n * NODE_SIZE)?;
        let mut at = add(table_off, self.animations.len() * 4)?;
        let mut anim_offs = Vec::with_capacity(self.animations.len());
        for a in &self.animations {
            anim_offs.push(at);
            at = add(at, 32 + a.channels.len() * 4)?;
            for c in &a.channels {
                at = add(at, 4 + c.keys.len() * 8)?;
            }
        }
        Ok(Plan {
            header_size,
            order_off,
            node_off,
            table_off,
            anim_offs,
            mesh_off: at,
        })
    }

    /// The stored pointer for file offset `off`; `lenient` (hashing only) wraps instead of
    /// refusing, so that any model that was read can be fingerprinted.
    fn raw(&self, off: usize, lenient: bool) -> Result<u32> {
        if lenient {
            return Ok((off as u64)
                .wrapping_add(u64::from(self.header.raw_base))
                .wrapping_sub(SCENE_START as u64) as u32);
        }
        (off as u64 + u64::from(self.header.raw_base))
            .checked_sub(SCENE_START as u64)
            .and_then(|v| u32::try_from(v).ok())
            .ok_or_else(|| {
                Error::refused(TMD, "header", "rawBase", "pointers do not fit in 32 bits")
            })
    }

    /// Lays the model out in the public writers' order into `w`.
    fn emit(&self, w: &mut Writer) -> Result<()> {
        let p = self.plan()?;
        let h = &self.header;
        let lenient = w.is_hasher();
        let count16 = |n: usize, field: &'static str| {
            u16::try_from(n).map_err(|_| {
                Error::refused(TMD, "header", field, format!("{n} does not fit in 16 bits"))
            })
        };
        let scene = p.mesh_off - SCENE_START;
        let scene32 = to_u32(TMD, scene, "header", "sceneBlockSize")?;
        w.bytes(b"TMDL");
        w.u32(h.zero);
        // the total size is known only at the end: count it first
        let total = add(p.mesh_off, self.mesh_size()?)?;
        let total = add(total, self.trailing.len())?;
        w.u32(to_u32(TMD, total - 12, "header", "fileSize-12")?);
        w.bytes(&h.tkl_name);
        w.u32(scene32);
        w.u32(h.raw_base);
        w.u32(h.u1);
        w.u32(h.u2);
        for z in h.zeros_2c {
            w.u32(z);
        }
        w.u32(scene32);
        w.u16(count16(self.nodes.len(), "nodeCount")?);
        w.u16(h.u3);
        w.u16(count16(self.animations.len(), "animationCount")?);
        w.u16(h.u4);
        w.bytes(&h.reserved_48);
        match &self.node_layout {
            NodeLayout::Direct => {
                w.u32(self.raw(p.node_off, lenient)?);
                w.u32(self.raw(p.table_off, lenient)?);
            }
            NodeLayout::Indexed { node_order } => {
                w.u32(self.raw(p.order_off, lenient)?);
                w.u32(self.raw(p.node_off, lenient)?);
                w.u32(self.raw(p.table_off, lenient)?);
                for &v in node_order {
                    w.i32(v);
                }
            }
        }
        debug_assert!(p.header_size <= p.node_off);
        for n in &self.nodes {
            w.f32s(&n.rest_rotation);
            w.f32s(&n.bind);
            w.f32s(&n.inverse_bind);
            w.u8(n.name_length);
            w.bytes(&n.name_field);
            w.i16(n.parent);
            w.u16(n.flag);
            w.f32s(&n.rest_translation);
        }
        for &off in &p.anim_offs {
            w.u32(self.raw(off, lenient)?);
        }
        for (i, (a, &off)) in self.animations.iter().zip(&p.anim_offs).enumerate() {
            w.u8(a.name_length);
            w.bytes(&a.name_field);
            w.u32(a.overlay);
            w.u32(a.unknown);
            w.u32(a.used_node_count);
            w.f32(a.duration);
            let mut c_off = off + 32 + a.channels.len() * 4;
            for c in &a.channels {
                w.u32(self.raw(c_off, lenient)?);
                c_off += 4 + c.keys.len() * 8;
            }
            for (k, c) in a.channels.iter().enumerate() {
                w.u16(c.flags);
                let kc = u16::try_from(c.keys.len()).map_err(|_| {
                    Error::refused(
                        TMD,
                        format!("animation {i} channel {k}"),
                        "keyCount",
                        "more than 65535 keys",
                    )
                })?;
                w.u16(kc);
                for key in &c.keys {
                    w.f32(key.time);
                    w.u16(key.loc_index);
                    w.u16(key.rot_index);
                }
            }
        }
        let m = &self.mesh;
        w.u32(to_u32(TMD, m.lods.len(), "mesh block", "lodCount")?);
        w.f32(m.lod_distance);
        for (l, lod) in m.lods.iter().enumerate() {
            w.u32(to_u32(
                TMD,
                lod.meshes.len(),
                &format!("lod {l}"),
                "meshCount",
            )?);
            w.u32(lod.shader_type);
            w.f32s(&lod.sphere);
            for (mi, mesh) in lod.meshes.iter().enumerate() {
                let rec = format!("lod {l} mesh {mi}");
                let strips: usize = mesh.pieces.iter().map(|p| p.strip.len()).sum();
                w.u32(to_u32(TMD, mesh.pieces.len(), &rec, "pieceCount")?);
                w.u32(to_u32(TMD, strips, &rec, "totalStripIndices")?);
                w.u32(to_u32(TMD, mesh.vertex_count(), &rec, "totalVertices")?);
                w.bytes(&mesh.material_field);
                for pc in &mesh.pieces {
                    w.u32(to_u32(TMD, pc.strip.len(), &rec, "stripIndexCount")?);
                    w.u32(to_u32(TMD, pc.vertices.len(), &rec, "vertexCount")?);
                    w.u32(to_u32(TMD, pc.palette.len(), &rec, "paletteCount")?);
                    w.u32(pc.verts_required);
                    w.f32s(&pc.box_center);
                    w.f32s(&pc.box_extents);
                    for &v in &pc.palette {
                        w.u32(v);
                    }
                    for v in &pc.vertices {
                        w.f32s(&v.position);
                        w.f32s(&v.normal);
                        w.bytes(&v.weights);
                        w.bytes(&v.bones);
                        w.f32s(&v.uv);
                    }
                    for &s in &pc.strip {
                        w.u16(s);
                    }
                }
            }
        }
        w.bytes(&self.trailing);
        Ok(())
    }

    fn mesh_size(&self) -> Result<usize> {
        let mut n = 8usize;
        for lod in &self.mesh.lods {
            n = add(n, 24)?;
            for m in &lod.meshes {
                n = add(n, 44)?;
                for p in &m.pieces {
                    n = add(
                        n,
                        40 + p.palette.len() * 4
                            + p.vertices.len() * VERTEX_SIZE
                            + p.strip.len() * 2,
                    )?;
                }
            }
        }
        Ok(n)
    }

    fn canonical_digest(&self) -> Option<u64> {
        let mut w = Writer::hasher();
        self.emit(&mut w).ok()?;
        Some(w.digest())
    }

    /// Whether the model differs from the file it was read from (true for new models).
    pub fn is_modified(&self) -> bool {
        match (&self.original, &self.layout) {
            (Some(_), Some(_)) => {
                self.read_digest.is_none() || self.canonical_digest() != self.read_digest
            }
            _ => true,
        }
    }

    /// Writes the model. An unmodified model gives back the bytes it was read from
    /// (gaps and block order included); anything else is laid out again in the public
    /// writers' order (header, nodes, animation table, each animation followed by its
    /// channels, mesh block, trailing bytes) with sizes and pointers recomputed, after
    /// passing [`Tmd::validate`]. Scene-block gaps are not carried into a new layout.
    pub fn write(&self) -> Result<Vec<u8>> {
        if let Some(o) = &self.original {
            if !self.is_modified() {
                return Ok(o.clone());
            }
        }
        self.validate()?;
        let mut w = Writer::default();
        self.emit(&mut w)?;
        Ok(w.buf)
    }

    /// Checks the game's rules for a model to be written: names of at most 15 bytes,
    /// parents in range without cycles, one channel per node in every animation, palettes
    /// of at most 28 nodes in range, strips of fewer than 32767 indices in range, every
    /// vertex in a mesh's first piece and drawn by one piece only, bone bytes that are
    /// palette slot × 3 within that piece's palette for every weighted slot.
    pub fn validate(&self) -> Result<()> {
        let n = self.nodes.len();
        if n > usize::from(u16::MAX) || self.animations.len() > usize::from(u16::MAX) {
            return Err(Error::refused(
                TMD,
                "header",
                "nodeCount/animationCount",
                "more than 65535",
            ));
        }
        check_name_field16(TMD, &self.header.tkl_name, "header", "tklName")?;
        if let NodeLayout::Indexed { node_order } = &self.node_layout {
            if node_order.len() != n {
                return Err(Error::refused(
                    TMD,
                    "node order table",
                    "length",
                    format!("{} entries for {n} nodes", node_order.len()),
                ));
            }
        }
        for (i, node) in self.nodes.iter().enumerate() {
            let rec = format!("node {i}");
            check_name_length(&rec, node.name_length)?;
            if node.parent < -1 || node.parent as isize >= n as isize {
                return Err(Error::refused(
                    TMD,
                    rec,
                    "parent",
                    format!("{} is not -1 or a node index", node.parent),
                ));
            }
        }
        crate::scene::check_acyclic(&self.nodes)?;
        for (i, a) in self.animations.iter().enumerate() {
            let rec = format!("animation {i}");
            check_name_length(&rec, a.name_length)?;
            if a.channels.len() != n {
                return Err(Error::refused(
                    TMD,
                    rec,
                    "channels",
                    format!("{} channels for {n} nodes", a.channels.len()),
                ));
            }
            for (k, c) in a.channels.iter().enumerate() {
                if c.keys.len() > usize::from(u16::MAX) {
                    return Err(Error::refused(
                        TMD,
                        format!("{rec} channel {k}"),
                        "keyCount",
                        "more than 65535 keys",
                    ));
                }
            }
        }
        for (l, lod) in self.mesh.lods.iter().enumerate() {
            for (mi, mesh) in lod.meshes.iter().enumerate() {
                let vcount = mesh.vertex_count();
                let mut owner: Vec<Option<usize>> = vec![None; vcount];
                let all: Vec<&Vertex> = mesh.vertices().collect();
                for (pi, pc) in mesh.pieces.iter().enumerate() {
                    let rec = format!("lod {l} mesh {mi} piece {pi}");
                    if pi > 0 && !pc.vertices.is_empty() {
                        return Err(Error::refused(
                            TMD,
                            rec,
                            "vertexCount",
                            "only a mesh's first piece carries vertices",
                        ));
                    }
                    if pc.palette.len() > MAX_PALETTE {
                        return Err(Error::refused(
                            TMD,
                            rec,
                            "paletteCount",
                            format!("{} nodes, at most {MAX_PALETTE}", pc.palette.len()),
                        ));
                    }
                    if let Some(&v) = pc.palette.iter().find(|&&v| v as usize >= n) {
                        return Err(Error::refused(
                            TMD,
                            rec,
                            "palette",
                            format!("node {v} but the model has {n}"),
                        ));
                    }
                    if pc.strip.len() > MAX_STRIP {
                        return Err(Error::refused(
                            TMD,
                            rec,
                            "stripIndexCount",
                            format!("{} indices, at most {MAX_STRIP}", pc.strip.len()),
                        ));
                    }
                    for &s in &pc.strip {
                        let s = s as usize;
                        let Some(v) = all.get(s) else {
                            return Err(Error::refused(
                                TMD,
                                rec,
                                "strip",
                                format!("index {s} but the mesh has {vcount} vertices"),
                            ));
                        };
                        match owner[s] {
                            Some(o) if o != pi => {
                                return Err(Error::refused(TMD, rec, "strip", format!("vertex {s} is also drawn by piece {o}; a vertex belongs to one piece")));
                            }
                            Some(_) => continue,
                            None => owner[s] = Some(pi),
                        }
                        for k in 0..4 {
                            if v.weights[k] != 0
                                && (v.bones[k] % 3 != 0
                                    || usize::from(v.bones[k] / 3) >= pc.palette.len())
                            {
                                return Err(Error::refused(TMD, rec, "bones", format!("vertex {s} slot {k} has bone byte {} which is not 3 × a slot of this piece's {}-node palette", v.bones[k], pc.palette.len())));
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// The fields whose meaning is open, with their stored values, plus scene-block gaps.
    pub fn open_fields(&self) -> Vec<OpenField> {
        let h = &self.header;
        let mut out = vec![
            OpenField::new("header", "zero", 4, h.zero.to_string()),
            OpenField::new("header", "u1", 0x24, h.u1.to_string()),
            OpenField::new("header", "u2", 0x28, h.u2.to_string()),
            OpenField::new("header", "zeros_0x2c", 0x2C, format!("{:?}", h.zeros_2c)),
            OpenField::new("header", "u3", 0x42, h.u3.to_string()),
            OpenField::new("header", "u4", 0x46, h.u4.to_string()),
        ];
        let tl = crate::bytes::field_bytes(&h.tkl_name).len();
        if tl + 1 < 16 && h.tkl_name[tl + 1..].iter().any(|&b| b != 0) {
            out.push(OpenField::new(
                "header",
                "tklName bytes after NUL",
                0x0C + tl + 1,
                hex(&h.tkl_name[tl + 1..]),
            ));
        }
        if h.reserved_48.iter().any(|&b| b != 0) {
            out.push(OpenField::new(
                "header",
                "reserved 0x48",
                0x48,
                hex(&h.reserved_48),
            ));
        }
        if let NodeLayout::Indexed { node_order } = &self.node_layout {
            let at = self
                .layout
                .as_ref()
                .and_then(|l| l.node_order_offset)
                .unwrap_or(0x80);
            out.push(OpenField::new(
                "node order table",
                "i32[nodeCount]",
                at,
                format!("{node_order:?}"),
            ));
        }
        let node_at = self.layout.as_ref().map_or(0x7C, |l| l.node_array_offset);
        for (i, n) in self.nodes.iter().enumerate() {
            out.push(OpenField::new(
                format!("node {i}"),
                "flag",
                node_at + i * NODE_SIZE + 0xA2,
                n.flag.to_string(),
            ));
        }
        for (i, a) in self.animations.iter().enumerate() {
            let at = self
                .layout
                .as_ref()
                .and_then(|l| l.animation_offsets.get(i).copied())
                .unwrap_or(0);
            out.push(OpenField::new(
                format!("animation {i}"),
                "unknown",
                at + 20,
                a.unknown.to_string(),
            ));
            for (k, c) in a.channels.iter().enumerate() {
                if c.flags & !1 != 0 {
                    out.push(OpenField::new(
                        format!("animation {i} channel {k}"),
                        "flags (bit 1 and up)",
                        0,
                        format!("{:#06x}", c.flags),
                    ));
                }
            }
        }
        // Each LOD record's shaderType sits 4 bytes into the record; records follow
        // each other from 8 bytes into the mesh block (lodCount, lodDistance). Offsets
        // are known for a file that was read; an edited model reports 0.
        let mut lod_at = self.layout.as_ref().map(|lay| lay.mesh_block_offset + 8);
        for (l, lod) in self.mesh.lods.iter().enumerate() {
            out.push(OpenField::new(
                format!("lod {l}"),
                "shaderType",
                lod_at.map_or(0, |at| at + 4),
                lod.shader_type.to_string(),
            ));
            lod_at = lod_at.map(|at| at.saturating_add(lod_record_size(lod)));
        }
        if let Some(lay) = &self.layout {
            for &(s, e) in &lay.gaps {
                out.push(OpenField::new(
                    "scene block",
                    "unclaimed bytes",
                    s,
                    format!("{} bytes", e - s),
                ));
            }
        }
        if !self.trailing.is_empty() {
            out.push(OpenField::new(
                "end",
                "trailing bytes",
                0,
                format!("{} bytes", self.trailing.len()),
            ));
        }
        out
    }
}

/// Bytes one LOD record takes in the mesh block: its 24-byte header, then each mesh's
/// 44-byte header and pieces (40-byte header, palette, 40-byte vertices, u16 strip).
fn lod_record_size(lod: &Lod) -> usize {
    let piece =
        |p: &Piece| 40 + 4 * p.palette.len() + VERTEX_SIZE * p.vertices.len() + 2 * p.strip.len();
    24 + lod
        .meshes
        .iter()
        .map(|m| 44 + m.pieces.iter().map(piece).sum::<usize>())
        .sum::<usize>()
}
