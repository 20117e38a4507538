//! `.tmd` models ("TMDL"): header, nodes, animations (scene block) and the mesh block.
//!
//! In-file pointers are the game's in-memory offsets: `fileOffset = raw + 0x3C - rawBase`.

use crate::bytes::field_text;
use crate::error::{Error, FileKind, Result};

mod read;
mod rules;
mod write;

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
    /// File offset of each channel (its `flags`), by animation then node.
    pub channel_offsets: Vec<Vec<usize>>,
    /// File offset of the first byte after the mesh block (where [`Tmd::trailing`]
    /// starts).
    pub trailing_offset: usize,
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
