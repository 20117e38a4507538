//! [`FileView`]: the strict, zero-copy view of a GOMB file, and the top-level walk.

use super::cursor::{check_known, le32, lef32, Chunk, Chunks};
use super::header::{
    check_entry, parse_header, HEADER_SIZE, OFF_CONVERTER_VERSION, OFF_TABLE_COUNT,
    OFF_VALIDATION_FLAGS,
};
use super::str0::{parse_str0, Strings};
use super::UnknownChunk;
use crate::error::{FourCc, Place, ReadError, ReadErrorKind};
use crate::limits::MAX_STRING_EXPANSION;
use crate::model::{
    Bounds, ClipFlags, Mat4, Material, Model, SkinningMethod, Submesh, ValidationFlags,
    VertexFormat,
};
use crate::validate::Finding;

/// The skeleton as it lies in the file (SKEL).
#[derive(Debug, Clone, Copy, Default)]
pub struct SkeletonView<'a> {
    /// Number of bones.
    pub bone_count: u32,
    /// `bone_count` × i32 LE: each bone's parent, −1 for a root.
    pub parents: &'a [u8],
    /// `bone_count` × u32 LE: STR0 index of each bone's name.
    pub name_ids: &'a [u8],
    /// `bone_count` × u32 LE: STR0 index of each bone's path.
    pub path_ids: &'a [u8],
    /// `bone_count` × 16 f32 LE, row-major (64 bytes each): bind-local matrices.
    pub bind_local: &'a [u8],
}

impl SkeletonView<'_> {
    /// Parent of bone `i` (−1 for a root, or when `i` is out of range).
    pub fn parent(&self, i: usize) -> i32 {
        self.parents
            .get(4 * i..4 * i + 4)
            .map_or(-1, |s| le32(s) as i32)
    }

    /// STR0 index of bone `i`'s name.
    pub fn name_id(&self, i: usize) -> u32 {
        self.name_ids.get(4 * i..4 * i + 4).map_or(u32::MAX, le32)
    }

    /// STR0 index of bone `i`'s path.
    pub fn path_id(&self, i: usize) -> u32 {
        self.path_ids.get(4 * i..4 * i + 4).map_or(u32::MAX, le32)
    }

    /// Bind-local matrix of bone `i` (identity when `i` is out of range).
    pub fn bind_local(&self, i: usize) -> Mat4 {
        mat_at(self.bind_local, i)
    }
}

/// Matrix `i` of an array of 64-byte row-major matrices (identity when out of range).
pub(crate) fn mat_at(bytes: &[u8], i: usize) -> Mat4 {
    let mut m = crate::model::IDENTITY;
    if let Some(s) = bytes.get(64 * i..64 * i + 64) {
        for (k, w) in s.chunks_exact(4).enumerate() {
            m[k] = lef32(w);
        }
    }
    m
}

/// One mesh part (MSH0 and its children) as it lies in the file.
#[derive(Debug, Clone)]
pub struct MeshView<'a> {
    /// The mesh's name.
    pub name: &'a str,
    /// The attributes each vertex carries.
    pub vertex_format: VertexFormat,
    /// Number of vertices.
    pub vertex_count: u32,
    /// Bytes per vertex.
    pub stride: u32,
    /// `vertex_count × stride` bytes, attributes interleaved in bit order (D7).
    pub vertex_data: &'a [u8],
    /// Number of indices.
    pub index_count: u32,
    /// 2 or 4.
    pub index_size: u32,
    /// `index_count × index_size` bytes, little-endian.
    pub index_data: &'a [u8],
    /// The submeshes (SUB0).
    pub submeshes: Vec<Submesh>,
    /// The skeleton's bone count for a skinned mesh, 0 for a static one.
    pub bone_count: u32,
    /// `bone_count` × 16 f32 LE (64 bytes each): inverse bind matrices.
    pub inverse_bind: &'a [u8],
    /// The bounds (BND0).
    pub bounds: Bounds,
    /// The geometry-to-model matrix (GBTM), when present.
    pub gbtm: Option<Mat4>,
    /// The skinning method (`SKNX`, `docs/extensions.md` §3; linear without it).
    pub skinning: SkinningMethod,
    /// Influences five to eight (`SKNX`): `vertex_count × 24` bytes, per vertex
    /// `u16 bones[4]` then `f32 weights[4]`; `None` with four influences.
    pub skin_extra: Option<&'a [u8]>,
    /// Per-vertex dual-quaternion shares of a blended mesh (`SKNX`):
    /// `vertex_count × 4` bytes of f32.
    pub dq_weights: Option<&'a [u8]>,
    /// File offset of the MSH0 chunk header.
    pub offset: u64,
    /// The morph targets (`MRPH`, `docs/extensions.md` §4); empty without.
    pub morph_targets: Vec<super::TargetView<'a>>,
}

impl MeshView<'_> {
    /// Index `k` (0 when out of range).
    pub fn index(&self, k: usize) -> u32 {
        if self.index_size == 2 {
            self.index_data
                .get(2 * k..2 * k + 2)
                .map_or(0, |s| u32::from(u16::from_le_bytes([s[0], s[1]])))
        } else {
            self.index_data.get(4 * k..4 * k + 4).map_or(0, le32)
        }
    }

    /// Inverse bind matrix of bone `b` (identity when out of range).
    pub fn inverse_bind(&self, b: usize) -> Mat4 {
        mat_at(self.inverse_bind, b)
    }
}

/// One animation clip (CLP0) as it lies in the file.
#[derive(Debug, Clone)]
pub struct ClipView<'a> {
    /// The clip's name.
    pub name: &'a str,
    /// Length in seconds.
    pub duration: f32,
    /// Keys per second the clip was sampled at.
    pub sample_rate: f32,
    /// The root-motion bone, −1 for none.
    pub root_bone_index: i32,
    /// Clip flags.
    pub flags: ClipFlags,
    /// The tracks, strictly ascending by bone (none for a compressed clip).
    pub tracks: Vec<TrackView<'a>>,
    /// File offset of the CLP0 chunk header.
    pub offset: u64,
    /// A compressed clip's samples (`CLPZ`, `docs/extensions.md`): the checked layout
    /// and the payload.
    pub compressed: Option<(crate::compressed::Layout, &'a [u8])>,
    /// The morph weight tracks (`MWGT`, `docs/extensions.md` §4); empty without.
    pub weight_tracks: Vec<super::WeightTrackView<'a>>,
    /// What the clip carries beyond v1's tracks (`CLPA` and `EVNT`, `docs/extensions.md` §5 and §6).
    pub extras: crate::ClipExtras,
}

/// One track of a [`ClipView`].
#[derive(Debug, Clone, Copy)]
pub struct TrackView<'a> {
    /// Skeleton bone index.
    pub bone: u32,
    /// Number of keys (at least 1).
    pub key_count: u32,
    /// `key_count × 44` bytes, exactly the layout of [`crate::Key`].
    pub key_data: &'a [u8],
}

impl TrackView<'_> {
    /// Key `k` (default when out of range).
    pub fn key(&self, k: usize) -> crate::model::Key {
        match self.key_data.get(44 * k..44 * k + 44) {
            Some(s) => super::to_model::decode_key(s),
            None => crate::model::Key::default(),
        }
    }
}

/// Counts the string bytes a model copied from the file would hold (each use counted)
/// and refuses a file whose strings would expand beyond [`MAX_STRING_EXPANSION`] times
/// its size (D12).
pub(crate) struct StringBudget {
    used: u64,
    limit: u64,
    at: u64,
}

impl StringBudget {
    pub fn add(&mut self, strings: &Strings<'_>, id: u32) -> Result<(), ReadError> {
        self.used += strings.len_of(id);
        if self.used > self.limit {
            return Err(ReadError {
                offset: self.at,
                place: Place::Chunk(FourCc::STR0),
                field: "data",
                kind: ReadErrorKind::Limit {
                    value: self.used,
                    limit: self.limit,
                },
            });
        }
        Ok(())
    }
}

/// A zero-copy, fully checked view of GOMB bytes: every structural rule of D3–D13 has
/// been checked by [`FileView::parse`], so every slice and value in it can be trusted.
#[derive(Debug, Clone)]
pub struct FileView<'a> {
    pub(crate) bytes: &'a [u8],
    pub(crate) source_hash: [u8; 32],
    pub(crate) converter_version: &'a str,
    pub(crate) validation_flags: ValidationFlags,
    pub(crate) strings: Strings<'a>,
    pub(crate) skeleton: SkeletonView<'a>,
    pub(crate) materials: Vec<Material>,
    pub(crate) meshes: Vec<MeshView<'a>>,
    pub(crate) clips: Vec<ClipView<'a>>,
    pub(crate) unknown: Vec<UnknownChunk>,
    pub(crate) findings: Vec<Finding>,
}

/// Where the known chunks of the top level are.
#[derive(Default)]
struct TopLevel {
    str0: Option<Chunk>,
    skel: Option<Chunk>,
    matl: Option<Chunk>,
    anim: Option<Chunk>,
    unknown: usize,
}

fn once(slot: &mut Option<Chunk>, c: Chunk) -> Result<(), ReadError> {
    if slot.is_some() {
        return Err(ReadError {
            offset: c.offset as u64,
            place: c.place(),
            field: "file",
            kind: ReadErrorKind::Duplicate,
        });
    }
    check_known(&c)?;
    *slot = Some(c);
    Ok(())
}

pub(crate) fn misplaced(c: &Chunk, where_: &'static str) -> ReadError {
    ReadError {
        offset: c.offset as u64,
        place: c.place(),
        field: "fourcc",
        kind: ReadErrorKind::Misplaced { where_ },
    }
}

impl<'a> FileView<'a> {
    /// Checks `bytes` against every structural rule of D3–D13 and returns the view,
    /// with the findings of the validation checks whose flags are clear.
    pub fn parse(bytes: &'a [u8]) -> Result<FileView<'a>, ReadError> {
        Self::parse_decoding(bytes, None)
    }

    /// [`FileView::parse`], also decoding each mesh's streams into `decoded` during the
    /// checking pass (so that [`super::read`] walks the vertex data once).
    pub(crate) fn parse_decoding(
        bytes: &'a [u8],
        mut decoded: Option<&mut Vec<super::to_model::Decoded>>,
    ) -> Result<FileView<'a>, ReadError> {
        let h = parse_header(bytes)?;
        let top_chunks = || Chunks::new(bytes, HEADER_SIZE, h.chunks_end, Place::Header);
        let mut top = TopLevel::default();
        let mut count = 0u32;
        for c in top_chunks() {
            let c = c?;
            if h.table_offset != 0 {
                if count >= h.table_count {
                    return Err(ReadError {
                        offset: OFF_TABLE_COUNT as u64,
                        place: Place::Header,
                        field: "chunkTableCount",
                        kind: ReadErrorKind::Value {
                            value: u64::from(h.table_count),
                            expected: "the number of top-level chunks",
                        },
                    });
                }
                check_entry(bytes, &h, count, &c)?;
            }
            count += 1;
            match c.fourcc {
                FourCc::STR0 => once(&mut top.str0, c)?,
                FourCc::SKEL => once(&mut top.skel, c)?,
                FourCc::MATL => once(&mut top.matl, c)?,
                FourCc::ANIM => once(&mut top.anim, c)?,
                FourCc::MSH0 => {
                    check_known(&c)?;
                }
                FourCc::VB0
                | FourCc::IB0
                | FourCc::SUB0
                | FourCc::IBND
                | FourCc::BND0
                | FourCc::GBTM
                | FourCc::SKNX
                | FourCc::MRPH => {
                    return Err(misplaced(&c, "at top level (it belongs inside MSH0)"))
                }
                FourCc::CLP0 | FourCc::CLPZ | FourCc::CLPA | FourCc::EVNT | FourCc::MWGT => {
                    return Err(misplaced(&c, "at top level (it belongs inside ANIM)"))
                }
                _ => top.unknown += 1,
            }
        }
        if h.table_offset != 0 && count != h.table_count {
            return Err(ReadError {
                offset: OFF_TABLE_COUNT as u64,
                place: Place::Header,
                field: "chunkTableCount",
                kind: ReadErrorKind::Value {
                    value: u64::from(h.table_count),
                    expected: "the number of top-level chunks",
                },
            });
        }
        let missing = |field| ReadError {
            offset: HEADER_SIZE as u64,
            place: Place::File,
            field,
            kind: ReadErrorKind::Missing,
        };
        let str0 = top.str0.ok_or_else(|| missing("STR0"))?;
        let skel = top.skel.ok_or_else(|| missing("SKEL"))?;

        let strings = parse_str0(bytes, &str0)?;
        let mut budget = StringBudget {
            used: 0,
            limit: MAX_STRING_EXPANSION * bytes.len() as u64,
            at: strings.data_offset as u64,
        };
        if h.converter_version_str >= strings.count() {
            return Err(ReadError {
                offset: OFF_CONVERTER_VERSION as u64,
                place: Place::Header,
                field: "converterVersionStr",
                kind: ReadErrorKind::Value {
                    value: u64::from(h.converter_version_str),
                    expected: "a string index below STR0's stringCount",
                },
            });
        }
        budget.add(&strings, h.converter_version_str)?;
        let converter_version = strings.get(h.converter_version_str).unwrap_or_default();

        let skeleton = super::skel::parse_skel(bytes, &skel, &strings)?;
        for i in 0..skeleton.bone_count as usize {
            budget.add(&strings, skeleton.name_id(i))?;
            budget.add(&strings, skeleton.path_id(i))?;
        }
        let materials = match &top.matl {
            Some(c) => super::skel::parse_matl(bytes, c, &strings, &mut budget)?,
            None => Vec::new(),
        };

        let mut unknown = Vec::with_capacity(top.unknown);
        let mut findings = Vec::new();
        let mut meshes = Vec::new();
        let mut ctx = super::mesh::MeshCtx {
            strings: &strings,
            skeleton: &skeleton,
            material_count: materials.len() as u32,
            world: None,
            used: Vec::new(),
            budget: &mut budget,
        };
        let mut clips = Vec::new();
        for c in top_chunks() {
            let c = c?;
            match c.fourcc {
                FourCc::MSH0 => {
                    let index = meshes.len();
                    let m = super::mesh::parse_mesh(
                        bytes,
                        &c,
                        index,
                        &mut ctx,
                        &mut unknown,
                        &mut findings,
                        decoded.as_deref_mut(),
                    )?;
                    meshes.push(m);
                }
                FourCc::ANIM => {
                    clips = super::anim::parse_anim(bytes, &c, &mut ctx, &mut unknown)?;
                }
                FourCc::STR0 | FourCc::SKEL | FourCc::MATL => {}
                f => unknown.push(UnknownChunk {
                    fourcc: f.0,
                    offset: c.offset as u64,
                    size: c.size,
                    parent: None,
                }),
            }
        }

        let target_count = |m: u32| meshes.get(m as usize).map(|m| m.morph_targets.len());
        for c in &clips {
            super::morph::check_places(&c.weight_tracks, target_count)?;
        }
        findings.extend(crate::validate::clip_names_finding(
            clips.iter().map(|c: &ClipView<'_>| c.name),
        ));
        let flags = h.validation_flags;
        if let Some(f) = findings.iter().find(|f| flags.intersects(f.check.flag())) {
            return Err(ReadError {
                offset: OFF_VALIDATION_FLAGS as u64,
                place: Place::Header,
                field: "validationFlags",
                kind: ReadErrorKind::FlagClaim {
                    flag: f.check.name(),
                    finding: f.message.clone(),
                },
            });
        }

        Ok(FileView {
            bytes,
            source_hash: h.source_hash,
            converter_version,
            validation_flags: flags,
            strings,
            skeleton,
            materials,
            meshes,
            clips,
            unknown,
            findings,
        })
    }

    /// The file's bytes.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// SHA-256 of the source file (header `sourceHash`).
    pub fn source_hash(&self) -> [u8; 32] {
        self.source_hash
    }

    /// The converter version string.
    pub fn converter_version(&self) -> &'a str {
        self.converter_version
    }

    /// The header's validation flags.
    pub fn validation_flags(&self) -> ValidationFlags {
        self.validation_flags
    }

    /// STR0 string `id`.
    pub fn string(&self, id: u32) -> Option<&'a str> {
        self.strings.get(id)
    }

    /// The skeleton.
    pub fn skeleton(&self) -> &SkeletonView<'a> {
        &self.skeleton
    }

    /// The material table (empty without MATL).
    pub fn materials(&self) -> &[Material] {
        &self.materials
    }

    /// The mesh parts, in file order.
    pub fn meshes(&self) -> &[MeshView<'a>] {
        &self.meshes
    }

    /// The clips, in file order.
    pub fn clips(&self) -> &[ClipView<'a>] {
        &self.clips
    }

    /// Chunks skipped because their FourCC is unknown, in file order.
    pub fn unknown_chunks(&self) -> &[UnknownChunk] {
        &self.unknown
    }

    /// Findings of the validation checks whose flags are clear (D13).
    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    /// Copies the file into a [`Model`].
    pub fn to_model(&self) -> Model {
        super::to_model::to_model(self, Vec::new())
    }
}
