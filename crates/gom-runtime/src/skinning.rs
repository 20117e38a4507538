//! CPU skinning into caller-provided buffers (D1).
//!
//! Four paths compute the same thing: [`SkinPath::Scalar`] (plain `f32`, the
//! reference), [`SkinPath::Vec4`] (glam's four-lane vectors: SSE2 or NEON) and, on
//! x86-64 CPUs with AVX2 and FMA, [`SkinPath::Avx2Fma`] (eight vertices a block), and
//! with AVX-512, [`SkinPath::Avx512`] (sixteen vertices a block, transposed to a
//! structure of arrays). [`skin`] takes the fastest the CPU has; [`skin_with`] picks
//! one.

/// The [`ext::lanes::Io`] of a vector path: loads and stores through the calling
/// module's `soa` and `store3` (registers of `$lanes` floats), and `$blend`.
#[cfg(target_arch = "x86_64")]
macro_rules! lanes_io {
    ($lanes:expr, $blend:expr) => {
        super::ext::lanes::Io {
            load: |v: &[f32], stride: usize, o: usize| {
                let [x, y, z, _] = soa(v, stride, o);
                [bytemuck::cast(x), bytemuck::cast(y), bytemuck::cast(z)]
            },
            store: |o: &mut [f32], k: usize, [x, y, z]: [[f32; $lanes]; 3]| {
                let v = [bytemuck::cast(x), bytemuck::cast(y), bytemuck::cast(z)];
                store3(o, k, &v)
            },
            blend: $blend,
        }
    };
}

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
mod ext;
mod scalar;
mod wide4;
mod wide4_bones;

use glam::{Affine3A, Mat3A};
use gom::layout::Attribute;

use crate::mesh::Mesh;
use crate::palette::{PackedBone, Palette};
use crate::skin_blocks::{SkinBlock, SkinBlocks, Weights16};
use crate::Error;

/// Where skinned attributes go. Every buffer holds one entry per vertex. Leave a
/// buffer out to skip that attribute.
#[derive(Debug, Default)]
pub struct SkinTargets<'o> {
    /// Model-space positions.
    pub positions: Option<&'o mut [[f32; 3]]>,
    /// Unit normals.
    pub normals: Option<&'o mut [[f32; 3]]>,
    /// Unit tangents, w (handedness) copied.
    pub tangents: Option<&'o mut [[f32; 4]]>,
}

/// The caller's buffers as flat floats, as the vector paths store them.
pub(crate) struct Flat<'o> {
    pub p: Option<&'o mut [f32]>,
    pub n: Option<&'o mut [f32]>,
    pub t: Option<&'o mut [f32]>,
}

impl<'o> From<SkinTargets<'o>> for Flat<'o> {
    fn from(out: SkinTargets<'o>) -> Self {
        Flat {
            p: out.positions.map(bytemuck::cast_slice_mut),
            n: out.normals.map(bytemuck::cast_slice_mut),
            t: out.tangents.map(bytemuck::cast_slice_mut),
        }
    }
}

/// An instruction-set path of the skinning loop. Every path gives the same results
/// within 10⁻⁶ relative (only the order of the floating-point operations differs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkinPath {
    /// One vertex at a time in plain `f32` arithmetic.
    Scalar,
    /// glam's four-lane vectors (SSE2 on x86-64, NEON on aarch64), four normals
    /// renormalised together.
    Vec4,
    /// AVX2 and FMA, eight vertices a block (x86-64 CPUs that have both).
    Avx2Fma,
    /// AVX-512F, sixteen vertices a block as a structure of arrays (x86-64 CPUs that
    /// have it).
    Avx512,
}

impl SkinPath {
    /// Every path, slowest first.
    pub const ALL: [SkinPath; 4] = [
        SkinPath::Scalar,
        SkinPath::Vec4,
        SkinPath::Avx2Fma,
        SkinPath::Avx512,
    ];

    /// Whether this CPU can run the path.
    pub fn is_supported(self) -> bool {
        match self {
            SkinPath::Scalar | SkinPath::Vec4 => true,
            #[cfg(target_arch = "x86_64")]
            SkinPath::Avx2Fma => avx2::available(),
            #[cfg(target_arch = "x86_64")]
            SkinPath::Avx512 => avx512::available(),
            #[cfg(not(target_arch = "x86_64"))]
            SkinPath::Avx2Fma | SkinPath::Avx512 => false,
        }
    }

    /// The fastest path this CPU supports (what [`skin`] uses).
    pub fn best() -> SkinPath {
        SkinPath::ALL
            .into_iter()
            .rev()
            .find(|p| p.is_supported())
            .unwrap_or(SkinPath::Scalar)
    }
}

/// What every path reads: the vertex layout (in words) and the palette.
#[derive(Clone, Copy)]
pub(crate) struct Job<'a> {
    pub stride: usize,
    /// Word offsets of the skin, normal and tangent (0 when absent and not asked).
    pub so: usize,
    pub no: usize,
    pub to: usize,
    pub pal: &'a [Affine3A],
    /// The normal matrices; empty when not needed (rigid palette or no normals).
    pub nrm: &'a [Mat3A],
    pub rigid: bool,
    /// The palette's packed columns (see [`Palette`]), one entry per bone.
    pub packed: &'a [PackedBone],
    /// `pal.len() - 1`: bone indices are clamped to it (a slot past it has weight 0).
    pub last: usize,
    /// The mesh's [`SkinBlock`]s from the first vertex of the words skinned (empty:
    /// every block uses four slots and clamps). A path asks each whether its indices
    /// are below the length of the palette it reads
    /// ([`SkinBlock::indices_below`]), so no pairing of blocks and palette made here
    /// can make an unchecked read go past the palette.
    pub blocks: &'a [SkinBlock],
    /// The by-bone weights that `blocks` point into (all of the mesh's).
    pub by_bone: &'a SkinBlocks,
    /// Every float of `packed` is finite, so that blocks may blend by bone (see
    /// `Palette::finite`).
    pub finite: bool,
}

impl<'j> Job<'j> {
    /// Block `b`'s distinct bones and their weights when it is kept by bone (see
    /// [`crate::skin_blocks`]) and the palette is finite.
    pub fn by_bone_of(&self, b: SkinBlock) -> Option<(&'j [u16], &'j [Weights16])> {
        if b.bones() == 0 || !self.finite {
            return None;
        }
        let range = b.first() as usize..b.first() as usize + usize::from(b.bones());
        Some((
            self.by_bone.bones.get(range.clone())?,
            self.by_bone.weights.get(range)?,
        ))
    }
}

/// Runs `blocks` on the whole blocks of `lanes` vertices of `words` and `out` (none
/// without a packed palette), then the scalar path on the rest: the frame of every
/// vector path.
pub(crate) fn whole_blocks_then_scalar(
    job: &Job<'_>,
    words: &[f32],
    out: SkinTargets<'_>,
    lanes: usize,
    blocks: impl FnOnce(&[f32], SkinTargets<'_>),
) {
    let whole = if job.packed.is_empty() {
        0
    } else {
        words.len() / job.stride / lanes * lanes
    };
    let (head, tail) = split_targets(out, whole);
    let (head_words, tail_words) = words.split_at(whole * job.stride);
    blocks(head_words, head);
    scalar::skin(job, tail_words, tail);
}

/// Splits every buffer of `out` at vertex `at`.
pub(crate) fn split_targets(out: SkinTargets<'_>, at: usize) -> (SkinTargets<'_>, SkinTargets<'_>) {
    fn cut<T>(b: Option<&mut [T]>, at: usize) -> (Option<&mut [T]>, Option<&mut [T]>) {
        match b {
            Some(b) => {
                let (x, y) = b.split_at_mut(at.min(b.len()));
                (Some(x), Some(y))
            }
            None => (None, None),
        }
    }
    let (p0, p1) = cut(out.positions, at);
    let (n0, n1) = cut(out.normals, at);
    let (t0, t1) = cut(out.tangents, at);
    (
        SkinTargets {
            positions: p0,
            normals: n0,
            tangents: t0,
        },
        SkinTargets {
            positions: p1,
            normals: n1,
            tangents: t1,
        },
    )
}

/// Skins `mesh` with `palette` (computed for this mesh) into `out`, on the fastest
/// path the CPU has ([`SkinPath::best`]).
///
/// Skinned meshes: `p' = Σ w_k · (p * G * palette[b_k])` for up to four influences;
/// normals use each influence's inverse-transposed 3x3 and are renormalised; tangents
/// use the 3x3 itself, are renormalised and keep w. Meshes with the `SKNX` extension
/// (eight influences, dual-quaternion or blended skinning) are skinned as the `ext`
/// module says, on every path.
/// Static meshes are transformed by `G` (copied when there is none). Nothing is
/// allocated.
pub fn skin(mesh: &Mesh, palette: &Palette, out: SkinTargets<'_>) -> Result<(), Error> {
    skin_with(mesh, palette, out, SkinPath::best())
}

/// [`skin`] on the given path; a path the CPU lacks falls back to [`SkinPath::best`].
pub fn skin_with(
    mesh: &Mesh,
    palette: &Palette,
    out: SkinTargets<'_>,
    path: SkinPath,
) -> Result<(), Error> {
    let n = mesh.vertex_count();
    let check = |buffer: &'static str, len: Option<usize>| match len {
        Some(l) if l != n => Err(Error::BufferLength {
            buffer,
            expected: n,
            found: l,
        }),
        _ => Ok(()),
    };
    check("positions", out.positions.as_ref().map(|b| b.len()))?;
    check("normals", out.normals.as_ref().map(|b| b.len()))?;
    check("tangents", out.tangents.as_ref().map(|b| b.len()))?;
    let missing = |attribute| Error::MissingAttribute {
        mesh: mesh.name.to_string(),
        attribute,
    };
    let no = match (&out.normals, mesh.word_offset(Attribute::Normal)) {
        (Some(_), None) => return Err(missing("normal")),
        (_, o) => o.unwrap_or(0),
    };
    let to = match (&out.tangents, mesh.word_offset(Attribute::Tangent)) {
        (Some(_), None) => return Err(missing("tangent")),
        (_, o) => o.unwrap_or(0),
    };
    let job = job(mesh, palette, out.normals.is_some(), no, to)?;
    let words = mesh.vertex_words();
    if let (Some(job), true) = (&job, mesh.uses_skin_extension()) {
        let ext = extension(mesh, palette)?;
        run_ext(job, &ext, words, out, path);
        return Ok(());
    }
    match job {
        Some(job) => run(&job, words, out, path),
        None => {
            // Static mesh (or a skinned mesh of a skeleton without bones: all weights
            // are zero, every vertex collapses to the origin).
            let (m, nm) = if mesh.is_skinned() {
                (Affine3A::ZERO, Mat3A::ZERO)
            } else {
                let nm = palette.normal.first().copied();
                (palette.skin[0], nm.unwrap_or(palette.skin[0].matrix3))
            };
            wide4::per_vertex(words, mesh.stride_words(), out, |_, _| (m, nm), no, to);
        }
    }
    Ok(())
}

/// What the extension paths read of a mesh skinned with the `SKNX` extension; the
/// dual-quaternion palette checked against the mesh.
fn extension<'a>(mesh: &'a Mesh<'_>, palette: &'a Palette) -> Result<ext::Ext<'a>, Error> {
    let method = mesh.skinning();
    let dq = palette.dual_quaternions();
    if method.uses_dual_quaternions() && dq.len() != mesh.bone_count() {
        return Err(Error::BoneCount {
            what: "dual-quaternion palette",
            expected: mesh.bone_count(),
            found: dq.len(),
        });
    }
    Ok(ext::Ext {
        method,
        extra: mesh.skin_extra_words(),
        alpha: mesh.dq_weights(),
        dq,
    })
}

/// Checks the palette against the mesh; the job of a skinned mesh with bones.
fn job<'a>(
    mesh: &'a Mesh<'_>,
    palette: &'a Palette,
    normals: bool,
    no: usize,
    to: usize,
) -> Result<Option<Job<'a>>, Error> {
    let expected = if mesh.is_skinned() {
        mesh.bone_count()
    } else {
        1
    };
    let needs_normal = normals && !palette.rigid;
    if palette.skin.len() != expected || (needs_normal && palette.normal.len() != expected) {
        return Err(Error::BoneCount {
            what: "skinning palette",
            expected,
            found: palette.skin.len().min(palette.normal.len()),
        });
    }
    let pal = &palette.skin[..];
    Ok(
        match (mesh.word_offset(Attribute::Skin), pal.len().checked_sub(1)) {
            (Some(so), Some(last)) => Some(Job {
                stride: mesh.stride_words(),
                so,
                no,
                to,
                pal,
                nrm: if needs_normal { &palette.normal } else { &[] },
                rigid: !needs_normal,
                packed: &palette.packed,
                last,
                blocks: &mesh.skin_blocks().blocks,
                by_bone: mesh.skin_blocks(),
                finite: palette.finite,
            }),
            _ => None,
        },
    )
}

/// Runs `path` (or the best supported one) over whole vertices `words` of a mesh with
/// the `SKNX` extension.
fn run_ext(job: &Job<'_>, ext: &ext::Ext<'_>, words: &[f32], out: SkinTargets<'_>, path: SkinPath) {
    match supported(path) {
        SkinPath::Scalar => ext::scalar::skin(job, ext, words, out),
        SkinPath::Vec4 => ext::wide4::skin(job, ext, words, out),
        #[cfg(target_arch = "x86_64")]
        SkinPath::Avx2Fma => avx2::skin_ext(job, ext, words, out),
        #[cfg(target_arch = "x86_64")]
        SkinPath::Avx512 => avx512::skin_ext(job, ext, words, out),
        #[cfg(not(target_arch = "x86_64"))]
        SkinPath::Avx2Fma | SkinPath::Avx512 => ext::wide4::skin(job, ext, words, out),
    }
}

/// `path`, or the best path when the CPU lacks it.
fn supported(path: SkinPath) -> SkinPath {
    if path.is_supported() {
        path
    } else {
        SkinPath::best()
    }
}

/// Runs `path` (or the best supported one) over whole vertices `words`.
pub(crate) fn run(job: &Job<'_>, words: &[f32], out: SkinTargets<'_>, path: SkinPath) {
    match supported(path) {
        SkinPath::Scalar => scalar::skin(job, words, out),
        SkinPath::Vec4 => wide4::skin(job, words, out),
        #[cfg(target_arch = "x86_64")]
        SkinPath::Avx2Fma => avx2::skin(job, words, out),
        #[cfg(target_arch = "x86_64")]
        SkinPath::Avx512 => avx512::skin(job, words, out),
        #[cfg(not(target_arch = "x86_64"))]
        SkinPath::Avx2Fma | SkinPath::Avx512 => wide4::skin(job, words, out),
    }
}
