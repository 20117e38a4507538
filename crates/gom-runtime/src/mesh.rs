//! Mesh parts read in place: interleaved vertices behind a strided accessor, indices,
//! inverse binds, GBTM.

use std::borrow::Cow;
use std::sync::OnceLock;

use glam::{Affine3A, Vec3A};
use gom::layout::{Attribute, VertexLayout};
use gom::limits::MAX_U16_INDEXED_VERTICES;
use gom::{Bounds, SkinningMethod, Submesh, VertexFormat};

use crate::skin_blocks::SkinBlocks;
use crate::transform::affine_from_row_major;
use crate::Error;

/// A mesh part's triangle list, 16- or 32-bit.
#[derive(Debug, Clone, PartialEq)]
pub enum Indices<'a> {
    /// 16-bit indices.
    U16(Cow<'a, [u16]>),
    /// 32-bit indices.
    U32(Cow<'a, [u32]>),
}

impl Indices<'_> {
    /// The number of indices.
    pub fn len(&self) -> usize {
        match self {
            Indices::U16(i) => i.len(),
            Indices::U32(i) => i.len(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Index `i` widened to `u32`.
    pub fn get(&self, i: usize) -> Option<u32> {
        match self {
            Indices::U16(v) => v.get(i).map(|&x| u32::from(x)),
            Indices::U32(v) => v.get(i).copied(),
        }
    }
}

/// Reads `bytes` as a slice of `T` in place when aligned, else copies it.
pub(crate) fn cast_or_copy<T: bytemuck::Pod>(bytes: &[u8]) -> Cow<'_, [T]> {
    match bytemuck::try_cast_slice::<u8, T>(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => Cow::Owned(
            bytes
                .chunks_exact(std::mem::size_of::<T>())
                .map(bytemuck::pod_read_unaligned)
                .collect(),
        ),
    }
}

/// One mesh part ready for skinning and drawing. The fields are private: the vertex
/// layout, the indices and the skin were checked against each other when it was built.
#[derive(Debug, Clone)]
pub struct Mesh<'a> {
    pub(crate) name: Cow<'a, str>,
    pub(crate) format: VertexFormat,
    pub(crate) submeshes: Vec<Submesh>,
    pub(crate) bounds: Option<Bounds>,
    pub(crate) indices: Indices<'a>,
    vertex_count: usize,
    stride: usize,
    layout: VertexLayout,
    vertices: Cow<'a, [f32]>,
    inverse_bind: Cow<'a, [[f32; 16]]>,
    gbtm: Option<[f32; 16]>,
    /// Per bone, GOM's `G * inverseBind[b]` in glam form.
    bind_to_bone: Vec<Affine3A>,
    /// The skin block by block (see [`SkinBlocks`]); made on first use.
    skin_blocks: OnceLock<SkinBlocks>,
    /// How the bones carry the vertices (the `SKNX` extension; linear without it).
    skinning: SkinningMethod,
    /// Influences five to eight, six words a vertex packed as the skin attribute
    /// (bone-index pairs, then four weights); empty with four influences.
    skin_extra: Cow<'a, [f32]>,
    /// Per vertex, the dual-quaternion share of a blended mesh; else empty.
    dq_weights: Cow<'a, [f32]>,
}

/// The `SKNX` extension of a mesh as the runtime reads it (`docs/extensions.md` §3).
#[derive(Debug, Clone, Default)]
pub(crate) struct SkinExtension<'a> {
    pub method: SkinningMethod,
    /// Six words a vertex (see [`Mesh`]), or empty.
    pub extra: Cow<'a, [f32]>,
    /// One word a vertex for a blended mesh, or empty.
    pub dq: Cow<'a, [f32]>,
}

impl<'a> Mesh<'a> {
    /// Builds a mesh from interleaved vertex words (D7 layout) and the rest. Checks
    /// lengths, index ranges and skin bone indices (a slot with weight > 0 must name a
    /// bone below `bone_count`); the cost is O(chunks) when `check_contents` is false
    /// (for data the GOMB reader has already checked).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        name: Cow<'a, str>,
        format: VertexFormat,
        vertex_count: usize,
        vertices: Cow<'a, [f32]>,
        indices: Indices<'a>,
        submeshes: Vec<Submesh>,
        inverse_bind: Cow<'a, [[f32; 16]]>,
        gbtm: Option<[f32; 16]>,
        bounds: Option<Bounds>,
        bone_count: usize,
        check_contents: bool,
    ) -> Result<Self, Error> {
        let bad = |problem: String| Error::InvalidModel {
            location: format!("mesh \"{name}\""),
            problem,
        };
        let layout = VertexLayout::of(format);
        let stride = layout.stride() / 4;
        if !VertexFormat::all().contains(format) || !format.contains(VertexFormat::POSITION) {
            return Err(bad(format!(
                "vertex format {:#x} is not valid",
                format.bits()
            )));
        }
        if Some(vertices.len()) != vertex_count.checked_mul(stride) {
            return Err(bad("vertex data does not match the vertex count".into()));
        }
        let skin_at = layout.offset(Attribute::Skin).map(|b| b / 4);
        let skinned = skin_at.is_some();
        let expected_bones = if skinned { bone_count } else { 0 };
        if inverse_bind.len() != expected_bones {
            return Err(bad(format!(
                "{} inverse bind matrices for {} bones",
                inverse_bind.len(),
                expected_bones
            )));
        }
        if check_contents {
            for i in 0..indices.len() {
                if indices.get(i).is_some_and(|x| x as usize >= vertex_count) {
                    return Err(bad(format!("index {i} is out of range")));
                }
            }
            if let Some(so) = skin_at {
                for (v, words) in vertices.chunks_exact(stride.max(1)).enumerate() {
                    let (b, w) = skin_of(words, so);
                    for k in 0..4 {
                        if w[k] > 0.0 && b[k] as usize >= bone_count {
                            return Err(bad(format!(
                                "vertex {v} is bound to bone {} of {bone_count}",
                                b[k]
                            )));
                        }
                        if w[k].is_nan() || w[k] < 0.0 {
                            return Err(bad(format!("vertex {v} has a negative weight")));
                        }
                    }
                }
            }
        }
        let g = gbtm
            .as_ref()
            .map(affine_from_row_major)
            .unwrap_or(Affine3A::IDENTITY);
        let bind_to_bone = inverse_bind
            .iter()
            .map(|ib| affine_from_row_major(ib) * g)
            .collect();
        Ok(Mesh {
            name,
            format,
            submeshes,
            bounds,
            indices,
            vertex_count,
            stride,
            layout,
            vertices,
            inverse_bind,
            gbtm,
            bind_to_bone,
            skin_blocks: OnceLock::new(),
            skinning: SkinningMethod::Linear,
            skin_extra: Cow::Borrowed(&[]),
            dq_weights: Cow::Borrowed(&[]),
        })
    }

    /// The mesh with its `SKNX` extension: the lengths checked against the vertex
    /// count and the method, and, with `check_contents`, every extra influence (bone
    /// below the skeleton's count when weighted, weight not negative) and every
    /// dual-quaternion share (within [0, 1]).
    pub(crate) fn with_skinning(
        mut self,
        ext: SkinExtension<'a>,
        check_contents: bool,
    ) -> Result<Self, Error> {
        let bad = |problem: String| Error::InvalidModel {
            location: format!("mesh \"{}\"", self.name),
            problem,
        };
        let n = self.vertex_count;
        let blended = ext.method == SkinningMethod::Blended;
        let uses = ext.method != SkinningMethod::Linear || !ext.extra.is_empty();
        if uses && !self.is_skinned() {
            return Err(bad("a static mesh has a skinning extension".into()));
        }
        if !ext.extra.is_empty() && Some(ext.extra.len()) != n.checked_mul(6) {
            return Err(bad(
                "influences five to eight do not match the vertex count".into(),
            ));
        }
        // a blended mesh has one share a vertex (none when it has no vertex), any
        // other none
        let dq_len = if blended { n } else { 0 };
        if ext.dq.len() != dq_len {
            return Err(bad(
                "dual-quaternion weights do not match the method and vertex count".into(),
            ));
        }
        if check_contents {
            let bones = self.bone_count();
            for (v, words) in ext.extra.chunks_exact(6).enumerate() {
                let (b, w) = skin_of(words, 0);
                if (0..4).any(|k| {
                    w[k].is_nan() || w[k] < 0.0 || (w[k] > 0.0 && usize::from(b[k]) >= bones)
                }) {
                    return Err(bad(format!(
                        "vertex {v}: an influence past four is not valid"
                    )));
                }
            }
            if let Some(v) = ext.dq.iter().position(|&a| !gom::skinning::dq_weight_ok(a)) {
                return Err(bad(format!(
                    "vertex {v}: the dual-quaternion weight is not within [0, 1]"
                )));
            }
        }
        self.skinning = ext.method;
        self.skin_extra = ext.extra;
        self.dq_weights = ext.dq;
        Ok(self)
    }

    /// How the bones carry the vertices ([`SkinningMethod::Linear`] unless the mesh
    /// has the `SKNX` extension).
    #[inline]
    pub fn skinning(&self) -> SkinningMethod {
        self.skinning
    }

    /// Whether the mesh needs the `SKNX` extension's skinning: a method other than
    /// linear, or eight influences.
    #[inline]
    pub fn uses_skin_extension(&self) -> bool {
        self.skinning != SkinningMethod::Linear || !self.skin_extra.is_empty()
    }

    /// Influence slots per vertex: 8 with the extension's extra influences, 4 when
    /// skinned, else 0.
    pub fn influence_count(&self) -> usize {
        match (self.is_skinned(), self.skin_extra.is_empty()) {
            (true, false) => 8,
            (true, true) => 4,
            _ => 0,
        }
    }

    /// Influences five to eight of vertex `i`, when the mesh has them.
    pub fn skin_extra(&self, i: usize) -> Option<([u16; 4], [f32; 4])> {
        let start = i.checked_mul(6)?;
        let words = self.skin_extra.get(start..start.checked_add(6)?)?;
        Some(skin_of(words, 0))
    }

    /// The words of influences five to eight (six a vertex), empty without them.
    #[inline]
    pub(crate) fn skin_extra_words(&self) -> &[f32] {
        &self.skin_extra
    }

    /// Per vertex, the dual-quaternion share of a blended mesh (empty otherwise).
    #[inline]
    pub fn dq_weights(&self) -> &[f32] {
        &self.dq_weights
    }

    /// The skin block by block of [`SKIN_BLOCK`](crate::skin_blocks::SKIN_BLOCK)
    /// vertices (no block for a static mesh). Made by the first call, one pass over
    /// the skins, and kept with the mesh.
    pub(crate) fn skin_blocks(&self) -> &SkinBlocks {
        self.skin_blocks
            .get_or_init(|| match self.word_offset(Attribute::Skin) {
                Some(so) => SkinBlocks::new(&self.vertices, self.stride, so, self.bone_count()),
                None => SkinBlocks::default(),
            })
    }

    /// Copies a [`gom::MeshPart`], interleaving its streams in D7's layout.
    pub fn from_model(mesh: &gom::MeshPart, bone_count: usize) -> Result<Mesh<'static>, Error> {
        let v = &mesh.vertices;
        let n = v.len();
        let format = v.format();
        let bad = |what: &str| Error::InvalidModel {
            location: format!("mesh \"{}\"", mesh.name),
            problem: format!("the {what} stream does not have one entry per position"),
        };
        let same = |len: Option<usize>, what: &str| match len {
            Some(l) if l != n => Err(bad(what)),
            _ => Ok(()),
        };
        same(v.normals.as_ref().map(Vec::len), "normal")?;
        same(v.tangents.as_ref().map(Vec::len), "tangent")?;
        same(v.uv0.as_ref().map(Vec::len), "uv0")?;
        same(v.uv1.as_ref().map(Vec::len), "uv1")?;
        same(v.colors.as_ref().map(Vec::len), "colour")?;
        same(v.skin.as_ref().map(Vec::len), "skin")?;
        same(v.skin_extra.as_ref().map(Vec::len), "skinExtra")?;
        same(v.dq_weights.as_ref().map(Vec::len), "dqWeights")?;
        let stride = VertexLayout::of(format).stride() / 4;
        let mut words = Vec::with_capacity(n * stride);
        for i in 0..n {
            words.extend_from_slice(&v.positions[i]);
            if let Some(s) = &v.normals {
                words.extend_from_slice(&s[i]);
            }
            if let Some(s) = &v.tangents {
                words.extend_from_slice(&s[i]);
            }
            if let Some(s) = &v.uv0 {
                words.extend_from_slice(&s[i]);
            }
            if let Some(s) = &v.uv1 {
                words.extend_from_slice(&s[i]);
            }
            if let Some(s) = &v.colors {
                words.push(f32::from_bits(u32::from_le_bytes(s[i])));
            }
            if let Some(s) = &v.skin {
                words.extend(skin_words(&s[i]));
            }
        }
        let indices = if n <= MAX_U16_INDEXED_VERTICES as usize {
            Indices::U16(Cow::Owned(mesh.indices.iter().map(|&i| i as u16).collect()))
        } else {
            Indices::U32(Cow::Owned(mesh.indices.clone()))
        };
        // Indices above 65535 in a small mesh are out of range anyway: check first.
        if let Some(i) = mesh.indices.iter().position(|&i| i as usize >= n) {
            return Err(Error::InvalidModel {
                location: format!("mesh \"{}\"", mesh.name),
                problem: format!("index {i} is out of range"),
            });
        }
        Mesh::new(
            Cow::Owned(mesh.name.clone()),
            format,
            n,
            Cow::Owned(words),
            indices,
            mesh.submeshes.clone(),
            Cow::Owned(mesh.inverse_bind.clone()),
            mesh.mesh_bind_geo_to_model,
            mesh.bounds,
            bone_count,
            true,
        )?
        .with_skinning(
            SkinExtension {
                method: mesh.skinning,
                extra: Cow::Owned(v.skin_extra.iter().flatten().flat_map(skin_words).collect()),
                dq: Cow::Owned(v.dq_weights.clone().unwrap_or_default()),
            },
            true,
        )
    }

    /// Mesh name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Which attributes a vertex carries.
    #[inline]
    pub fn format(&self) -> VertexFormat {
        self.format
    }

    /// Submeshes (index ranges with a material each).
    pub fn submeshes(&self) -> &[Submesh] {
        &self.submeshes
    }

    /// Bounds of the bind-pose positions in model space, as stored.
    pub fn bounds(&self) -> Option<Bounds> {
        self.bounds
    }

    /// The triangle list; every index is below [`Mesh::vertex_count`].
    #[inline]
    pub fn indices(&self) -> &Indices<'a> {
        &self.indices
    }

    /// Whether vertices, indices and inverse binds are read in place from the file
    /// bytes (false when they were copied: built from a model, or misaligned bytes).
    pub fn is_in_place(&self) -> bool {
        let indices = match &self.indices {
            Indices::U16(i) => matches!(i, Cow::Borrowed(_)),
            Indices::U32(i) => matches!(i, Cow::Borrowed(_)),
        };
        indices
            && matches!(self.vertices, Cow::Borrowed(_))
            && matches!(self.inverse_bind, Cow::Borrowed(_))
    }

    /// The number of vertices.
    #[inline]
    pub fn vertex_count(&self) -> usize {
        self.vertex_count
    }

    /// The vertex stride in 4-byte words.
    #[inline]
    pub fn stride_words(&self) -> usize {
        self.stride
    }

    /// The vertex layout: where each attribute starts inside a vertex, in bytes.
    #[inline]
    pub fn layout(&self) -> VertexLayout {
        self.layout
    }

    /// Where attribute `a` starts inside a vertex, in 4-byte words (every GOM
    /// attribute is a multiple of 4 bytes, D7).
    #[inline]
    pub(crate) fn word_offset(&self, a: Attribute) -> Option<usize> {
        self.layout.offset(a).map(|b| b / 4)
    }

    /// The interleaved vertex data as 4-byte words (colour and bone-index words hold
    /// integer bits; read them with `f32::to_bits`).
    #[inline]
    pub fn vertex_words(&self) -> &[f32] {
        &self.vertices
    }

    /// The interleaved vertex words to change (copied first when borrowed): what
    /// [`crate::morph::Morpher`] morphs.
    pub(crate) fn vertex_words_mut(&mut self) -> &mut [f32] {
        self.vertices.to_mut()
    }

    /// The interleaved vertex data as bytes, ready for a GPU buffer.
    pub fn vertex_bytes(&self) -> &[u8] {
        bytemuck::cast_slice(&self.vertices)
    }

    /// The words of vertex `i`, or `None` past the end.
    #[inline]
    pub fn vertex(&self, i: usize) -> Option<&[f32]> {
        let start = i.checked_mul(self.stride)?;
        self.vertices.get(start..start.checked_add(self.stride)?)
    }

    /// The position of vertex `i` (geometry space).
    #[inline]
    pub fn position(&self, i: usize) -> Option<[f32; 3]> {
        let v = self.vertex(i)?;
        Some([*v.first()?, *v.get(1)?, *v.get(2)?])
    }

    /// The normal of vertex `i`, when the mesh has normals.
    pub fn normal(&self, i: usize) -> Option<[f32; 3]> {
        let v = self.vertex(i)?;
        let o = self.word_offset(Attribute::Normal)?;
        Some([*v.get(o)?, *v.get(o + 1)?, *v.get(o + 2)?])
    }

    /// The skin influences of vertex `i` (skeleton bone indices and weights).
    pub fn skin(&self, i: usize) -> Option<([u16; 4], [f32; 4])> {
        let v = self.vertex(i)?;
        let o = self.word_offset(Attribute::Skin)?;
        if v.len() < o + 6 {
            return None;
        }
        Some(skin_of(v, o))
    }

    /// Whether the mesh is skinned (vertex format bit 6).
    #[inline]
    pub fn is_skinned(&self) -> bool {
        self.layout.offset(Attribute::Skin).is_some()
    }

    /// The number of bones (inverse binds): the skeleton's for a skinned mesh, 0 for a
    /// static one.
    #[inline]
    pub fn bone_count(&self) -> usize {
        self.inverse_bind.len()
    }

    /// Inverse bind matrices as stored (GOM convention).
    pub fn inverse_bind(&self) -> &[[f32; 16]] {
        &self.inverse_bind
    }

    /// The GBTM matrix `G` (geometry to model at bind time), when present.
    pub fn gbtm(&self) -> Option<&[f32; 16]> {
        self.gbtm.as_ref()
    }

    /// Per bone, `G * inverseBind[b]` (GOM order) in glam form.
    #[inline]
    pub(crate) fn bind_to_bone(&self) -> &[Affine3A] {
        &self.bind_to_bone
    }

    /// `G` in glam form (the identity when absent).
    pub(crate) fn gbtm_affine(&self) -> Affine3A {
        self.gbtm
            .as_ref()
            .map(affine_from_row_major)
            .unwrap_or(Affine3A::IDENTITY)
    }
}

/// The six words of a skin attribute: bone-index pairs, then the four weights.
fn skin_words(s: &gom::SkinWeights) -> [f32; 6] {
    let b = s.bones;
    let pair = |x: u16, y: u16| f32::from_bits(u32::from(x) | (u32::from(y) << 16));
    let w = s.weights;
    [pair(b[0], b[1]), pair(b[2], b[3]), w[0], w[1], w[2], w[3]]
}

/// Bone indices and weights of a vertex whose skin starts at word `o`. The caller
/// guarantees `words.len() >= o + 6`.
#[inline(always)]
pub(crate) fn skin_of(words: &[f32], o: usize) -> ([u16; 4], [f32; 4]) {
    let s = &words[o..o + 6];
    let i01 = s[0].to_bits();
    let i23 = s[1].to_bits();
    (
        [
            (i01 & 0xFFFF) as u16,
            (i01 >> 16) as u16,
            (i23 & 0xFFFF) as u16,
            (i23 >> 16) as u16,
        ],
        [s[2], s[3], s[4], s[5]],
    )
}

/// Reads three words as a point.
#[inline(always)]
pub(crate) fn vec3a_at(words: &[f32], o: usize) -> Vec3A {
    let s = &words[o..o + 3];
    Vec3A::new(s[0], s[1], s[2])
}
