//! glTF 2.0 into GOM, and GOM out to glTF 2.0.
//!
//! Import ([`import`], [`import_slice`]) reads `.gltf` (external, embedded or data-URI
//! buffers) and `.glb` files into a [`gom::Model`]:
//!
//! - **Axes (D2).** glTF is right-handed; GOM is left-handed. Positions, normals and
//!   tangents get z negated, tangent w flips, quaternions become (−x, −y, z, w),
//!   matrices `F*M*F` with F = diag(1, 1, −1, 1), and the second and third index of
//!   every triangle swap.
//! - **Skeleton.** Bones are the skin joints, the animated nodes, the mesh-carrying
//!   nodes that move (an animated node or one below it), and all their ancestors.
//!   Parents come before children: bones keep the node index order when it already
//!   has parents first (so a file [`export`] wrote reads back in the same order), else
//!   depth-first from the root nodes in index order. Several skins share this one
//!   skeleton; each mesh part carries the inverse binds of its own skin (bones outside
//!   it get the inverse of their bind-pose world matrix), so skins whose inverse binds
//!   disagree end up in different mesh parts (rule M2).
//! - **Meshes.** One mesh part per mesh-carrying node of the scene (rule M1); the
//!   primitives become submeshes, and primitives whose vertex layouts differ go to
//!   separate parts (rule M2). A skinned mesh ignores its node's transform (glTF spec);
//!   a mesh on a moving node is bound rigidly to that node's bone (D7); a mesh on a
//!   still node is baked into model space.
//!   A skin whose inverse binds all differ from the nodes' rest pose by one common
//!   matrix (a mesh bound under another root transform, as COLLADA2GLTF writes) has
//!   that matrix baked into its vertices, so the bind-pose check of D13 holds.
//! - **Weights.** All `JOINTS_n`/`WEIGHTS_n` sets are merged, reduced to the four
//!   largest, renormalised and sorted (D7); the weight dropped is reported.
//! - **Animations.** One clip per glTF animation, glTF time 0 = clip time 0, one track
//!   per animated node with the union of its channels' times. LINEAR keys are kept;
//!   STEP keys become pairs: the value of key k−1 is repeated one f32 step (ulp) before
//!   key k's time, so that D9's strictly ascending keys with linear sampling reproduce
//!   the jump; CUBICSPLINE channels are resampled at [`GltfOptions::sample_rate`] plus
//!   their own key times, with their Hermite tangents.
//! - **Materials.** Name, `baseColorFactor` and the base-colour texture: a relative
//!   URI as its decoded path; an embedded image (buffer view or data URI) is returned
//!   in [`GltfReport::images`] under a deterministic name for the caller to write.
//! - **Limits.** Besides GOM's own (docs/format.md §3), a scene may expand to at most
//!   30,000,000 vertices and 16,000,000 keys in total, so that a small file cannot
//!   exhaust memory by instancing or resampling.
//!
//! Export ([`export`]) writes a model back as `.glb` or `.gltf` + `.bin`: one node per
//! bone, one skin over all bones, mesh parts as meshes with one primitive per submesh,
//! materials, and every clip as LINEAR samplers, converted back to right-handed.

mod accessor;
mod anim;
pub(crate) mod convert;
pub(crate) use convert::decompose;
pub(crate) use convert::{normalize3, normalize_quat};
mod clip_events;
mod error;
mod export;
mod import;
mod meshopt_views;
pub(crate) mod morph_anim;
mod prepare;
mod source;

use std::path::Path;

pub use error::GltfError;
pub use export::{
    export, export_with_warnings, ExportFormat, Exported, GltfExportOptions, COMMON_ROOT_NAME,
};
pub use import::REST_POSE_CLIP;

/// Options of the glTF importer.
#[derive(Debug, Clone, PartialEq)]
pub struct GltfOptions {
    /// Rate, in samples per second, at which CUBICSPLINE channels are resampled.
    pub sample_rate: f32,
}

impl Default for GltfOptions {
    fn default() -> Self {
        Self { sample_rate: 30.0 }
    }
}

/// An image embedded in the glTF (a buffer view or a data URI) that a material uses
/// as its base-colour texture. The model names it by `file_name`; the caller writes
/// `bytes` to that name beside the output file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtractedImage {
    /// `<source stem>_image<index>.<png|jpg|bin>`, deterministic.
    pub file_name: String,
    /// MIME type as declared (or guessed from the bytes).
    pub mime_type: String,
    /// The encoded image bytes.
    pub bytes: Vec<u8>,
}

/// What the importer noticed and did besides building the model.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GltfReport {
    /// The conversion report shared by every importer: counts, dropped influences
    /// and warnings (skipped primitives, ignored features, …).
    pub report: crate::report::Report,
    /// Primitives with morph targets (kept, `docs/extensions.md` §4.4), as
    /// `meshes[i].primitives[j]: n targets`.
    pub morph_targets: Vec<String>,
    /// Embedded images to write beside the output.
    pub images: Vec<ExtractedImage>,
}

/// Imports a `.gltf` or `.glb` file; external buffers are looked up beside it.
pub fn import(path: &Path, options: &GltfOptions) -> Result<(gom::Model, GltfReport), GltfError> {
    let bytes = std::fs::read(path).map_err(|source| GltfError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let file = path.display().to_string();
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "model".to_string());
    let base = path.parent().unwrap_or(Path::new("."));
    import::run(&bytes, &file, &stem, Some(base), options)
}

/// Imports glTF from memory. `name` names the input in error messages and gives the
/// stem of extracted image names; `base_dir` is where external buffers are looked up
/// (`None`: only embedded, data-URI and GLB buffers are accepted).
pub fn import_slice(
    bytes: &[u8],
    name: &str,
    base_dir: Option<&Path>,
    options: &GltfOptions,
) -> Result<(gom::Model, GltfReport), GltfError> {
    let stem = Path::new(name)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "model".to_string());
    import::run(bytes, name, &stem, base_dir, options)
}

/// The external files the import of `path` reads besides `path` itself: its buffers
/// referenced by relative URI, in buffer order (data URIs and the GLB chunk are
/// inside the file). Images are not read by the importer and are not listed. An
/// unreadable or malformed file has no companions (the import itself reports why).
pub fn companions(path: &Path) -> Vec<std::path::PathBuf> {
    let Ok(bytes) = std::fs::read(path) else {
        return Vec::new();
    };
    let Some(root) = json_root(path, &bytes) else {
        return Vec::new();
    };
    let uris = root.buffers.iter().filter_map(|b| b.uri.as_deref());
    files_of_uris(path, uris)
}

/// The files beside the glTF `path` (holding `bytes`) that its buffers and images
/// refer to by relative URI, sorted: what the import reads, and the images a glTF
/// output embeds. URIs are resolved as the importer resolves them (percent escapes
/// decoded); data URIs and URIs with a scheme are not files and are left out.
pub fn external_files(path: &Path, bytes: &[u8]) -> Vec<std::path::PathBuf> {
    let Some(root) = json_root(path, bytes) else {
        return Vec::new();
    };
    let buffers = root.buffers.iter().filter_map(|b| b.uri.as_deref());
    let images = root.images.iter().filter_map(|i| i.uri.as_deref());
    let mut out = files_of_uris(path, buffers.chain(images));
    out.sort();
    out.dedup();
    out
}

/// The JSON document of the glTF or GLB `bytes`, if it parses.
fn json_root(path: &Path, bytes: &[u8]) -> Option<gltf::json::Root> {
    let file = path.display().to_string();
    let container = source::split(bytes, &file).ok()?;
    prepare::prepare(container.json, &file).ok().map(|p| p.root)
}

/// The files that relative `uris` of the glTF `path` name.
fn files_of_uris<'a>(path: &Path, uris: impl Iterator<Item = &'a str>) -> Vec<std::path::PathBuf> {
    let base = path.parent().unwrap_or(Path::new("."));
    uris.filter(|u| !u.starts_with("data:"))
        .filter_map(|u| match source::resolve(u, Some(base)) {
            Ok(source::Resolved::File(p)) => Some(p),
            _ => None,
        })
        .collect()
}
