//! The in-memory GOM model: the hub every importer writes and every exporter reads.
//!
//! The types mirror the names of `docs/format.md` (`Skeleton`, `MeshPart`, `Submesh`, `Clip`,
//! `Track`, `inverse_bind`, `bind_local`). Vertex attributes are held as separate
//! streams (structure of arrays); the GOMB writer interleaves them in the bit order of
//! [`VertexFormat`] (decision D7).

/// A 4x4 `f32` matrix stored row-major, used with row vectors: `p' = p * M` (D1).
///
/// The translation is in the last row, elements 12, 13 and 14.
pub type Mat4 = [f32; 16];

/// The 4x4 identity matrix.
pub const IDENTITY: Mat4 = [
    1.0, 0.0, 0.0, 0.0, //
    0.0, 1.0, 0.0, 0.0, //
    0.0, 0.0, 1.0, 0.0, //
    0.0, 0.0, 0.0, 1.0,
];

/// A whole GOM file in memory.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Model {
    /// Header information (D3).
    pub header: Header,
    /// The skeleton; may have zero bones (D4).
    pub skeleton: Skeleton,
    /// The material table (MATL, D8); empty when the file has none.
    pub materials: Vec<Material>,
    /// Mesh parts (MSH0), in file order.
    pub meshes: Vec<MeshPart>,
    /// Animation clips (CLP0 inside ANIM), in file order.
    pub clips: Vec<Clip>,
}

/// Header fields that carry information (the fixed values of D3 are implied).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Header {
    /// SHA-256 of the source file's bytes.
    pub source_hash: [u8; 32],
    /// The converter that wrote the file, e.g. `gom 0.1.0`.
    pub converter_version: String,
    /// Validation flags as read from a file. Writers ignore this field and set each
    /// flag exactly when its check passes (D13).
    pub validation_flags: ValidationFlags,
}

bitflags::bitflags! {
    /// The header's `validationFlags` bit set (D3): one bit per check of
    /// [`crate::validate`], set exactly when the check passes. [`ValidationFlags::all`]
    /// is every bit GOM v1 defines; the others are reserved and refused by the readers.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash, PartialOrd, Ord)]
    pub struct ValidationFlags: u32 {
        /// bit 0: every skinned mesh's inverse binds match the skeleton's bind pose.
        const BIND_POSE_PASS = 1 << 0;
        /// bit 1: every skin weight follows the weight rules of D7.
        const WEIGHTS_PASS = 1 << 1;
        /// bit 2: submeshes cover their index ranges and name valid materials.
        const SUBMESH_MATERIALS_PASS = 1 << 2;
    }
}

/// The skeleton (SKEL): bones in index order; a parent always precedes its children.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Skeleton {
    /// Bones; the position in this list is the bone index.
    pub bones: Vec<Bone>,
}

/// One bone of the [`Skeleton`].
#[derive(Debug, Clone, PartialEq)]
pub struct Bone {
    /// Display name (not necessarily unique).
    pub name: String,
    /// Unique path, e.g. `root/hips/spine`, to tell bones of the same name apart.
    pub path: String,
    /// Parent bone index, or −1 for a root. Always less than this bone's own index.
    pub parent: i32,
    /// Bind-pose transform relative to the parent (model space for a root).
    pub bind_local: Mat4,
}

impl Bone {
    /// The parent index, or `None` for a root.
    pub fn parent_index(&self) -> Option<usize> {
        usize::try_from(self.parent).ok()
    }
}

/// A material (MATL, D8).
#[derive(Debug, Clone, PartialEq)]
pub struct Material {
    /// Material name.
    pub name: String,
    /// Path or URI of the base-colour texture, if any.
    pub base_color_texture: Option<String>,
    /// Linear RGBA multiplier of the base colour.
    pub base_color_factor: [f32; 4],
}

bitflags::bitflags! {
    /// The `vertexFormat` bit set (D7): which attributes a vertex carries.
    /// [`VertexFormat::all`] is every bit GOM v1 defines; the others are reserved and
    /// refused by the readers.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash, PartialOrd, Ord)]
    pub struct VertexFormat: u32 {
        /// bit 0: position, f32x3 (required).
        const POSITION = 1 << 0;
        /// bit 1: normal, f32x3.
        const NORMAL = 1 << 1;
        /// bit 2: tangent, f32x4 (w = ±1 handedness).
        const TANGENT = 1 << 2;
        /// bit 3: first texture coordinate set, f32x2.
        const UV0 = 1 << 3;
        /// bit 4: second texture coordinate set, f32x2 (extension).
        const UV1 = 1 << 4;
        /// bit 5: vertex colour, RGBA u8x4 unorm (extension).
        const COLOR0 = 1 << 5;
        /// bit 6: skin, bone indices u16x4 then weights f32x4.
        const SKIN = 1 << 6;
    }
}

impl VertexFormat {
    /// Byte size of one vertex: the sum of the sizes of the attributes present
    /// (unknown bits count nothing; they are rejected elsewhere). See
    /// [`crate::layout::VertexLayout`] for the offsets.
    pub fn stride(self) -> u32 {
        crate::layout::VertexLayout::of(self).stride() as u32
    }
}

/// Up to four skin influences of one vertex (D7): skeleton bone indices and weights,
/// sorted by weight descending (ties by bone index ascending), unused slots 0 / 0.0.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SkinWeights {
    /// Skeleton bone indices.
    pub bones: [u16; 4],
    /// Weights, summing to 1.
    pub weights: [f32; 4],
}

/// The vertex attribute streams of a mesh part. Every present stream has
/// `positions.len()` entries.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Vertices {
    /// Positions in geometry space.
    pub positions: Vec<[f32; 3]>,
    /// Normals.
    pub normals: Option<Vec<[f32; 3]>>,
    /// Tangents, xyz plus handedness w = ±1.
    pub tangents: Option<Vec<[f32; 4]>>,
    /// First UV set (origin top-left, D2).
    pub uv0: Option<Vec<[f32; 2]>>,
    /// Second UV set.
    pub uv1: Option<Vec<[f32; 2]>>,
    /// RGBA8 vertex colours.
    pub colors: Option<Vec<[u8; 4]>>,
    /// Skin influences (the first four, D7).
    pub skin: Option<Vec<SkinWeights>>,
    /// Influences five to eight of each vertex (the `SKNX` extension,
    /// `docs/extensions.md` §3), continuing the order of `skin`: the eight slots
    /// together follow D7's weight rules. Present only on a mesh that uses more than
    /// four influences, and only with `skin`.
    pub skin_extra: Option<Vec<SkinWeights>>,
    /// Per vertex, the share of dual-quaternion skinning in [0, 1] (0 linear, 1 dual
    /// quaternion) of a mesh skinned with [`SkinningMethod::Blended`], and only then
    /// (the `SKNX` extension).
    pub dq_weights: Option<Vec<f32>>,
}

impl Vertices {
    /// The eight influence slots of vertex `i` (slots 4..8 unused without
    /// `skin_extra`; all unused without `skin`).
    pub fn influences(&self, i: usize) -> ([u16; 8], [f32; 8]) {
        let mut b = [0u16; 8];
        let mut w = [0.0f32; 8];
        for (k, s) in [&self.skin, &self.skin_extra].into_iter().enumerate() {
            if let Some(x) = s.as_ref().and_then(|s| s.get(i)) {
                b[4 * k..4 * k + 4].copy_from_slice(&x.bones);
                w[4 * k..4 * k + 4].copy_from_slice(&x.weights);
            }
        }
        (b, w)
    }

    /// The number of vertices.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// Whether there are no vertices.
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// The vertex format implied by the streams present.
    pub fn format(&self) -> VertexFormat {
        let mut f = VertexFormat::POSITION;
        if self.normals.is_some() {
            f |= VertexFormat::NORMAL;
        }
        if self.tangents.is_some() {
            f |= VertexFormat::TANGENT;
        }
        if self.uv0.is_some() {
            f |= VertexFormat::UV0;
        }
        if self.uv1.is_some() {
            f |= VertexFormat::UV1;
        }
        if self.colors.is_some() {
            f |= VertexFormat::COLOR0;
        }
        if self.skin.is_some() {
            f |= VertexFormat::SKIN;
        }
        f
    }
}

/// A range of a mesh part's index list drawn with one material (SUB0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Submesh {
    /// Index into [`Model::materials`], or −1 for none.
    pub material_index: i32,
    /// First index (a multiple of 3).
    pub index_start: u32,
    /// Number of indices (a non-zero multiple of 3).
    pub index_count: u32,
}

/// Bounds of a mesh part's bind-pose positions in model space (BND0).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Bounds {
    /// Box minimum.
    pub aabb_min: [f32; 3],
    /// Box maximum.
    pub aabb_max: [f32; 3],
    /// Sphere centre.
    pub sphere_center: [f32; 3],
    /// Sphere radius.
    pub sphere_radius: f32,
}

impl Bounds {
    /// Whether every value is finite: bounds of finite positions can still overflow
    /// f32 (a box or sphere spanning more than `f32::MAX`), and a model needs finite
    /// bounds to be written.
    pub fn is_finite(&self) -> bool {
        let all = [self.aabb_min, self.aabb_max, self.sphere_center];
        all.as_flattened().iter().all(|x| x.is_finite()) && self.sphere_radius.is_finite()
    }
}

/// A mesh part (MSH0 and its children).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MeshPart {
    /// Mesh name.
    pub name: String,
    /// Vertex streams; their presence defines the vertex format.
    pub vertices: Vertices,
    /// Triangle list (clockwise front faces, D2).
    pub indices: Vec<u32>,
    /// Submeshes, sorted by `index_start`, covering `indices` exactly.
    pub submeshes: Vec<Submesh>,
    /// Per skeleton bone, the inverse of its model-space bind matrix. One entry per
    /// skeleton bone for a skinned mesh, empty for a static one.
    pub inverse_bind: Vec<Mat4>,
    /// Geometry-to-model matrix at bind time (GBTM), when not baked into the vertices.
    pub mesh_bind_geo_to_model: Option<Mat4>,
    /// Bounds as read from a file. Writers always recompute them (D7), so this is
    /// informational; `None` for a model built in memory.
    pub bounds: Option<Bounds>,
    /// How the bones carry the vertices; anything but [`SkinningMethod::Linear`]
    /// needs the `SKNX` extension (`docs/extensions.md` §3).
    pub skinning: SkinningMethod,
    /// Morph targets (blend shapes, the `MRPH` extension, `docs/extensions.md` §4);
    /// empty for most meshes.
    pub morph_targets: Vec<crate::morph::MorphTarget>,
}

/// How a skinned mesh's vertices follow their bones (the `SKNX` extension; GOM v1
/// knows only [`SkinningMethod::Linear`]). The maths is in [`crate::skinning`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum SkinningMethod {
    /// Linear blend skinning: the weighted sum of the palette matrices (D1).
    #[default]
    Linear,
    /// Dual-quaternion skinning: the weighted, normalised sum of the palette's dual
    /// quaternions, with each bone's scale blended linearly and applied first.
    DualQuaternion,
    /// Per vertex, `(1 − α)` of the linear result plus `α` of the dual-quaternion
    /// one, with `α` from [`Vertices::dq_weights`] (FBX's blended skinning).
    Blended,
}

impl Model {
    /// The clip names, each in double quotes, separated by commas (`no clips` when
    /// there are none): how a message lists what a clip option could have named.
    pub fn clip_names_listed(&self) -> String {
        if self.clips.is_empty() {
            return "no clips".to_string();
        }
        let names: Vec<String> = self
            .clips
            .iter()
            .map(|c| format!("\"{}\"", c.name))
            .collect();
        names.join(", ")
    }
}

impl MeshPart {
    /// Whether the mesh is skinned (vertex format bit 6).
    pub fn is_skinned(&self) -> bool {
        self.vertices.skin.is_some()
    }

    /// Whether the mesh needs the `SKNX` extension: a method other than linear, or
    /// more than four influences.
    pub fn uses_skin_extension(&self) -> bool {
        self.skinning != SkinningMethod::Linear || self.vertices.skin_extra.is_some()
    }

    /// Influence slots per vertex: 8 with `skin_extra`, 4 when skinned, else 0.
    pub fn influence_count(&self) -> usize {
        match (&self.vertices.skin, &self.vertices.skin_extra) {
            (Some(_), Some(_)) => 8,
            (Some(_), None) => 4,
            _ => 0,
        }
    }
}

bitflags::bitflags! {
    /// Per-clip flags (CLP0 `flags`). [`ClipFlags::all`] is every bit GOM v1 defines;
    /// the others are reserved: the readers refuse them, and an extension may give one a
    /// meaning that v1 readers refuse (`docs/extensions.md`; bit 1 is
    /// [`crate::compressed::CLIP_FLAG_COMPRESSED`], which the GOMB reader takes off and
    /// the writer puts back, so a model's clip never holds it).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
    pub struct ClipFlags: u32 {
        /// bit 0: the root bone carries motion a game may extract.
        const HAS_ROOT_MOTION = 1 << 0;
    }
}

impl ClipFlags {
    /// Whether the clip has root motion.
    pub fn has_root_motion(self) -> bool {
        self.contains(Self::HAS_ROOT_MOTION)
    }
}

/// One key of a [`Track`]: 44 bytes in the file, laid out exactly as in memory.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Key {
    /// Time in seconds from the clip start.
    pub time: f32,
    /// Local translation.
    pub translation: [f32; 3],
    /// Local rotation quaternion (x, y, z, w), unit length.
    pub rotation: [f32; 4],
    /// Local scale.
    pub scale: [f32; 3],
}

/// The keys of one bone in one clip.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Track {
    /// Skeleton bone index.
    pub bone: u32,
    /// Keys, strictly ascending in time.
    pub keys: Vec<Key>,
}

/// An animation clip (CLP0).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Clip {
    /// Clip name.
    pub name: String,
    /// Length in seconds.
    pub duration: f32,
    /// Rate the clip was sampled at, in keys per second.
    pub sample_rate: f32,
    /// The root-motion bone, or −1 for none.
    pub root_bone_index: i32,
    /// Clip flags.
    pub flags: ClipFlags,
    /// Tracks sorted by bone index, at most one per bone. For a compressed clip, the
    /// decoded keys: one per frame for every bone with a stored channel.
    pub tracks: Vec<Track>,
    /// A compressed clip's `CLPZ` payload (`docs/extensions.md`); the writers write it
    /// as it is, and `tracks` must be what it decodes to
    /// ([`crate::compressed::decoded_tracks`]).
    pub compressed: Option<Vec<u8>>,
    /// Morph target weights over the clip (the `MWGT` extension,
    /// `docs/extensions.md` §4), sorted by (mesh, target).
    pub weight_tracks: Vec<crate::morph::WeightTrack>,
    /// What the clip carries beyond v1's tracks (extensions, `docs/extensions.md`).
    pub extras: crate::ClipExtras,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compressed::CLIP_FLAG_COMPRESSED;

    #[test]
    fn flag_bits_are_the_numbers_of_docs_format_md() {
        // Every named flag, in definition order: position, normal, tangent, uv0, uv1,
        // color0, skin; bindPosePass, weightsPass, submeshMaterialsPass; HasRootMotion.
        let vertex: Vec<u32> = VertexFormat::all().iter().map(|f| f.bits()).collect();
        assert_eq!(vertex, [1, 2, 4, 8, 16, 32, 64]);
        let checks: Vec<u32> = ValidationFlags::all().iter().map(|f| f.bits()).collect();
        assert_eq!(checks, [1, 2, 4]);
        let clip: Vec<u32> = ClipFlags::all().iter().map(|f| f.bits()).collect();
        assert_eq!(clip, [1]);
    }

    #[test]
    fn every_clip_extension_has_its_own_reserved_clp0_bit() {
        // docs/extensions.md: compressed bit 1, weight tracks bit 3, additive bit 4.
        let bits = [
            CLIP_FLAG_COMPRESSED,
            crate::morph::CLIP_FLAG_WEIGHT_TRACKS,
            crate::additive::CLIP_FLAG_ADDITIVE,
        ];
        assert_eq!(bits.map(|b| b.bits()), [1 << 1, 1 << 3, 1 << 4]);
        for (i, a) in bits.iter().enumerate() {
            assert!(
                !ClipFlags::all().intersects(*a),
                "bit {i} is reserved in v1"
            );
            for b in &bits[i + 1..] {
                assert!(!a.intersects(*b), "two extensions share a CLP0 bit");
            }
        }
    }

    #[test]
    fn the_compressed_bit_is_reserved_in_v1_and_survives_as_raw_bits() {
        assert_eq!(CLIP_FLAG_COMPRESSED.bits(), 2);
        assert!(!ClipFlags::all().intersects(CLIP_FLAG_COMPRESSED));
        assert_eq!(ClipFlags::from_bits(3), None, "v1 refuses bit 1");
        let raw = ClipFlags::from_bits_retain(3);
        assert!(raw.contains(CLIP_FLAG_COMPRESSED) && raw.has_root_motion());
        assert_eq!(
            raw.difference(CLIP_FLAG_COMPRESSED),
            ClipFlags::HAS_ROOT_MOTION
        );
        assert_eq!(
            crate::compressed::encode::clip_flags(true).bits(),
            3,
            "a compressed clip with root motion"
        );
    }
}
