//! A model turned into what the page draws: one binary geometry buffer, a JSON
//! description (meshes, materials, bones, clips, what `gom info` says), textures, and
//! skinning palettes from the GOM runtime (per clip baked at its sample rate, or at
//! one exact time).

use crate::morph::{self, TargetJson};
use crate::ViewError;
use gom_runtime::{skinned_bounds, Aabb, Asset, ModelPose, Palette, Playback};
use serde::Serialize;
use std::sync::OnceLock;

/// Floats per palette entry: the 3x4 part of a row-major, row-vector matrix, stored as
/// three columns of four (`p'_j = dot(column_j, [p, 1])`), one RGBA texel each.
pub const FLOATS_PER_ENTRY: usize = 12;

/// The most bytes one clip's baked palettes may take; a longer clip is refused rather
/// than allocated.
pub const MAX_BAKED_BYTES: usize = 512 << 20;

/// One model ready for the page.
pub struct ViewModel {
    /// The name shown in the file list (the file's name).
    pub name: String,
    /// The runtime asset every pose comes from.
    asset: Asset<'static>,
    /// The description the page reads first (see [`ViewModel::manifest`]).
    manifest: serde_json::Value,
    /// Vertex and index data of every mesh, laid out as the manifest says.
    geometry: Vec<u8>,
    /// Texture images (PNG or JPEG bytes) with their MIME type, by texture index.
    textures: Vec<(Vec<u8>, &'static str)>,
    /// Palettes of each clip baked at its sample rate, made when first asked for.
    baked: Vec<OnceLock<Result<Baked, String>>>,
}

/// A clip's baked pose records, and the box its skinned vertices stay in.
struct Baked {
    records: Vec<u8>,
    bounds: [[f32; 3]; 2],
}

/// What the importer and the validator said about a model.
pub struct Notes {
    /// Importer and reader warnings.
    pub warnings: Vec<String>,
    /// Texture images by the name the materials give, as `gom_import` found them.
    pub textures: std::collections::BTreeMap<String, Vec<u8>>,
}

#[derive(Serialize)]
struct MeshJson {
    name: String,
    vertices: usize,
    indices: usize,
    skinned: bool,
    has_normals: bool,
    /// First palette entry of this mesh in a pose record.
    palette_base: usize,
    /// Palette entries of this mesh (bones, or 1 for a static mesh).
    palette_len: usize,
    /// Byte offsets into the geometry buffer.
    position: usize,
    normal: usize,
    uv: usize,
    joints: usize,
    weights: usize,
    /// How the bones carry the vertices: `linear`, `dualQuaternion` or `blended`
    /// (`gom::SkinningMethod::name`).
    skinning: &'static str,
    /// Byte offsets of influences five to eight (`u16` × 4 and `f32` × 4 a vertex),
    /// `null` for a mesh with four.
    joints2: Option<usize>,
    weights2: Option<usize>,
    /// Byte offset of each vertex's dual-quaternion share (`f32`), `null` unless the
    /// mesh is blended.
    dq_weights: Option<usize>,
    index: usize,
    submeshes: Vec<SubmeshJson>,
    /// Morph targets (sparse, in the geometry buffer).
    targets: Vec<TargetJson>,
    /// This mesh's first weight among a pose record's weights.
    weight_base: usize,
}

#[derive(Serialize)]
struct SubmeshJson {
    material: i32,
    start: u32,
    count: u32,
}

#[derive(Serialize)]
struct MaterialJson {
    name: String,
    color: [f32; 4],
    texture: Option<usize>,
    texture_name: Option<String>,
}

#[derive(Serialize)]
struct BoneJson {
    name: String,
    parent: i32,
}

#[derive(Serialize)]
struct ClipJson {
    name: String,
    duration: f32,
    sample_rate: f32,
    frames: usize,
    root_motion: bool,
    /// An additive clip's reference (`the bind pose`, `clip "NAME" at T s`); the page
    /// shows the clip added to it.
    additive: Option<String>,
    /// Events in time order, ticks on the time slider.
    events: Vec<EventJson>,
    /// Float tracks with their keys, whose values the page shows while playing.
    float_tracks: Vec<FloatTrackJson>,
}

#[derive(Serialize)]
struct EventJson {
    time: f32,
    name: String,
    payload: Option<String>,
}

#[derive(Serialize)]
struct FloatTrackJson {
    name: String,
    components: u32,
    /// `linear` or `step`.
    interpolation: &'static str,
    times: Vec<f32>,
    /// `components` values per key, key after key.
    values: Vec<f32>,
}

impl ClipJson {
    fn new(c: &gom::Clip) -> ClipJson {
        let x = &c.extras;
        ClipJson {
            name: c.name.clone(),
            duration: c.duration,
            sample_rate: c.sample_rate,
            frames: frame_count(c.duration, c.sample_rate),
            root_motion: c.flags.has_root_motion(),
            additive: x.additive.as_ref().map(|r| r.to_string()),
            events: x
                .events
                .iter()
                .map(|e| EventJson {
                    time: e.time,
                    name: e.name.clone(),
                    payload: e.payload.clone(),
                })
                .collect(),
            float_tracks: x
                .float_tracks
                .iter()
                .map(|t| FloatTrackJson {
                    name: t.name.clone(),
                    components: t.components,
                    interpolation: t.interpolation.name(),
                    times: t.times.clone(),
                    values: t.values.clone(),
                })
                .collect(),
        }
    }
}

#[derive(Serialize)]
struct InfoJson {
    bones: usize,
    meshes: usize,
    vertices: usize,
    triangles: usize,
    materials: usize,
    clips: usize,
    keys: usize,
    flags: Vec<&'static str>,
    findings: Vec<String>,
    warnings: Vec<String>,
}

impl ViewModel {
    /// Prepares `model` for the page; `name` is shown in the file list.
    pub fn new(name: String, model: &gom::Model, notes: Notes) -> Result<ViewModel, ViewError> {
        let asset = Asset::from_model(model).map_err(|e| ViewError::Model {
            name: name.clone(),
            reason: e.to_string(),
        })?;
        let (geometry, meshes) = geometry(model, &asset);
        let (textures, materials) = materials(model, notes.textures);
        let bounds = bind_bounds(&asset).map_err(|reason| ViewError::Model {
            name: name.clone(),
            reason,
        })?;
        let clips: Vec<ClipJson> = model.clips.iter().map(ClipJson::new).collect();
        let manifest = serde_json::json!({
            "name": name,
            "meshes": meshes,
            "materials": materials,
            "bones": model.skeleton.bones.iter().map(|b| BoneJson {
                name: b.name.clone(),
                parent: b.parent,
            }).collect::<Vec<_>>(),
            "palette_entries": meshes.iter().map(|m| m.palette_len).sum::<usize>(),
            "morph_weights": morph::weight_count(&asset),
            "clips": clips,
            "bounds": bounds,
            "info": info(model, notes.warnings),
        });
        let baked = model.clips.iter().map(|_| OnceLock::new()).collect();
        Ok(ViewModel {
            name,
            asset,
            manifest,
            geometry,
            textures,
            baked,
        })
    }

    /// The JSON description: `meshes` (counts, byte offsets into [`Self::geometry`],
    /// submeshes, palette range), `materials`, `bones` (name, parent), `clips` (name,
    /// duration, sample rate, baked frame count, additive reference, events, float
    /// tracks with their keys), `bounds` (bind pose, model space), `palette_entries`,
    /// `morph_weights` (the weights ending a pose record) and `info` (counts, flags,
    /// validation findings, warnings).
    pub fn manifest(&self) -> &serde_json::Value {
        &self.manifest
    }

    /// Every mesh's positions, normals, UVs (`f32`), joints (`u16` × 4), weights
    /// (`f32` × 4), where the mesh has them joints and weights five to eight and
    /// dual-quaternion shares (`f32`), indices (`u32`) and morph targets (indices
    /// `u32`, position and normal deltas `f32` × 3), little-endian, at the manifest's
    /// offsets.
    pub fn geometry(&self) -> &[u8] {
        &self.geometry
    }

    /// Texture `index`'s image bytes and MIME type.
    pub fn texture(&self, index: usize) -> Option<(&[u8], &'static str)> {
        self.textures.get(index).map(|(b, m)| (b.as_slice(), *m))
    }

    /// Number of clips.
    pub fn clip_count(&self) -> usize {
        self.asset.clips().len()
    }

    /// Clip `clip`'s poses at every frame of its sample rate (frame `f` at
    /// `min(f / rate, duration)`), one [`Self::pose_at`] record after the other.
    pub fn baked(&self, clip: usize) -> Result<&[u8], ViewError> {
        self.baked_clip(clip).map(|b| b.records.as_slice())
    }

    /// The box, `[min, max]` in model space, holding every vertex skinned at every
    /// frame of [`Self::baked`] (what the page frames while the clip plays).
    pub fn clip_bounds(&self, clip: usize) -> Result<[[f32; 3]; 2], ViewError> {
        self.baked_clip(clip).map(|b| b.bounds)
    }

    fn baked_clip(&self, clip: usize) -> Result<&Baked, ViewError> {
        let cell = self.baked.get(clip).ok_or(ViewError::NotFound)?;
        cell.get_or_init(|| self.bake(clip))
            .as_ref()
            .map_err(|reason| ViewError::Model {
                name: self.name.clone(),
                reason: reason.clone(),
            })
    }

    fn bake(&self, clip: usize) -> Result<Baked, String> {
        let c = &self.asset.clips()[clip];
        let frames = frame_count(c.duration(), c.sample_rate());
        let record = self.record_bytes();
        if frames.saturating_mul(record) > MAX_BAKED_BYTES {
            return Err(format!(
                "clip \"{}\" would take {frames} frames of {record} bytes to bake, more than {MAX_BAKED_BYTES}",
                c.name()
            ));
        }
        let mut out = Vec::with_capacity(frames * record);
        let mut bounds = Aabb::EMPTY;
        for f in 0..frames {
            let t = frame_time(f, c.duration(), c.sample_rate());
            out.extend(pose_record(&self.asset, Some(clip), t, Some(&mut bounds))?);
        }
        Ok(Baked {
            records: out,
            bounds: box_or_unit(bounds),
        })
    }

    fn record_bytes(&self) -> usize {
        let entries: usize = self.asset.meshes().iter().map(palette_len).sum();
        (entries * FLOATS_PER_ENTRY
            + self.asset.skeleton().bone_count() * 3
            + morph::weight_count(&self.asset))
            * 4
    }

    /// One pose record at `time` of `clip` (the bind pose without a clip), the time
    /// clamped to the clip as `gom pose` does: every mesh's palette (the manifest's
    /// `palette_base` entries of [`FLOATS_PER_ENTRY`] floats), then every bone's
    /// model-space position (3 floats), then every mesh's morph target weights (from
    /// its `weight_base`), as little-endian `f32`.
    pub fn pose_at(&self, clip: Option<usize>, time: f32) -> Result<Vec<u8>, String> {
        pose_record(&self.asset, clip, time, None)
    }

    /// The index of the clip named `name`.
    pub fn clip_index(&self, name: &str) -> Option<usize> {
        self.asset.clips().iter().position(|c| c.name() == name)
    }
}

/// Frames of a clip baked at its sample rate: one per `1 / rate` from 0 to the end,
/// the end included; 1 for a clip without a usable rate or length.
pub fn frame_count(duration: f32, rate: f32) -> usize {
    if !(rate > 0.0 && rate.is_finite() && duration > 0.0 && duration.is_finite()) {
        return 1;
    }
    let last = (f64::from(duration) * f64::from(rate)).ceil();
    (last.min(1e7) as usize) + 1
}

/// The time of baked frame `f`: `f / rate`, held at the clip's end.
pub fn frame_time(f: usize, duration: f32, rate: f32) -> f32 {
    if !(rate > 0.0 && rate.is_finite()) {
        return 0.0;
    }
    (f as f32 / rate).min(duration.max(0.0))
}

fn palette_len(mesh: &gom_runtime::Mesh<'_>) -> usize {
    if mesh.is_skinned() {
        mesh.bone_count()
    } else {
        1
    }
}

/// Appends a row-major, row-vector matrix as three columns of four floats.
fn push_entry(out: &mut Vec<f32>, m: &[f32; 16]) {
    for j in 0..3 {
        out.extend([m[j], m[4 + j], m[8 + j], m[12 + j]]);
    }
}

fn push_bone_positions(out: &mut Vec<f32>, pose: &ModelPose) {
    for b in 0..pose.bone_count() {
        let m = pose.row_major(b).unwrap_or(gom::model::IDENTITY);
        out.extend([m[12], m[13], m[14]]);
    }
}

/// The geometry buffer and each mesh's description.
fn geometry(model: &gom::Model, asset: &Asset<'_>) -> (Vec<u8>, Vec<MeshJson>) {
    let mut buf: Vec<u8> = Vec::new();
    let mut meshes = Vec::new();
    let mut palette_base = 0;
    let mut weight_base = 0;
    for (part, mesh) in model.meshes.iter().zip(asset.meshes()) {
        let v = &part.vertices;
        let n = v.positions.len();
        let position = put_f32(&mut buf, v.positions.iter().flatten());
        let zero3 = [0.0f32; 3];
        let normal = match &v.normals {
            Some(ns) => put_f32(&mut buf, ns.iter().flatten()),
            None => put_f32(&mut buf, std::iter::repeat_n(&zero3, n).flatten()),
        };
        let zero2 = [0.0f32; 2];
        let uv = match &v.uv0 {
            Some(uvs) => put_f32(&mut buf, uvs.iter().flatten()),
            None => put_f32(&mut buf, std::iter::repeat_n(&zero2, n).flatten()),
        };
        let rigid = gom::model::SkinWeights {
            bones: [0; 4],
            weights: [1.0, 0.0, 0.0, 0.0],
        };
        let skin: Vec<gom::model::SkinWeights> = match &v.skin {
            Some(s) if part.is_skinned() => s.clone(),
            _ => vec![rigid; n],
        };
        let (joints, weights) = put_skin(&mut buf, &skin);
        let skinned = part.is_skinned();
        let (joints2, weights2) = match &v.skin_extra {
            Some(extra) if skinned => {
                let (j, w) = put_skin(&mut buf, extra);
                (Some(j), Some(w))
            }
            _ => (None, None),
        };
        let dq_weights = match &v.dq_weights {
            Some(a) if skinned => Some(put_f32(&mut buf, a.iter())),
            _ => None,
        };
        let index = buf.len();
        for i in &part.indices {
            buf.extend(i.to_le_bytes());
        }
        let len = palette_len(mesh);
        let targets = morph::targets(&mut buf, part);
        meshes.push(MeshJson {
            name: part.name.clone(),
            vertices: n,
            indices: part.indices.len(),
            skinned: part.is_skinned(),
            has_normals: v.normals.is_some(),
            palette_base,
            palette_len: len,
            position,
            normal,
            uv,
            joints,
            weights,
            skinning: if skinned {
                part.skinning.name()
            } else {
                gom::SkinningMethod::Linear.name()
            },
            joints2,
            weights2,
            dq_weights,
            index,
            submeshes: part
                .submeshes
                .iter()
                .map(|s| SubmeshJson {
                    material: s.material_index,
                    start: s.index_start,
                    count: s.index_count,
                })
                .collect(),
            weight_base,
            targets,
        });
        palette_base += len;
        weight_base += part.morph_targets.len();
    }
    (buf, meshes)
}

/// Appends every vertex's four bones (`u16`), then their four weights (`f32`), and
/// returns where each starts.
fn put_skin(buf: &mut Vec<u8>, skin: &[gom::model::SkinWeights]) -> (usize, usize) {
    let joints = buf.len();
    for s in skin {
        for b in s.bones {
            buf.extend(b.to_le_bytes());
        }
    }
    let weights = put_f32(buf, skin.iter().flat_map(|s| s.weights.iter()));
    (joints, weights)
}

/// Appends floats and returns where they start.
fn put_f32<'a>(buf: &mut Vec<u8>, values: impl Iterator<Item = &'a f32>) -> usize {
    let at = buf.len();
    for v in values {
        buf.extend(v.to_le_bytes());
    }
    at
}

/// The materials' JSON and the textures the page can decode (PNG, JPEG).
fn materials(
    model: &gom::Model,
    images: std::collections::BTreeMap<String, Vec<u8>>,
) -> (Vec<(Vec<u8>, &'static str)>, Vec<MaterialJson>) {
    let mut textures: Vec<(Vec<u8>, &'static str)> = Vec::new();
    let mut index_of: Vec<(String, usize)> = Vec::new();
    let mut out = Vec::new();
    for m in &model.materials {
        let texture = m.base_color_texture.as_ref().and_then(|name| {
            if let Some((_, i)) = index_of.iter().find(|(n, _)| n == name) {
                return Some(*i);
            }
            let bytes = images.get(name)?;
            let mime = gom_image::Encoding::sniff(bytes)?.mime_type();
            textures.push((bytes.clone(), mime));
            index_of.push((name.clone(), textures.len() - 1));
            Some(textures.len() - 1)
        });
        out.push(MaterialJson {
            name: m.name.clone(),
            color: m.base_color_factor,
            texture,
            texture_name: m.base_color_texture.clone(),
        });
    }
    (textures, out)
}

/// The record [`ViewModel::pose_at`] describes; with `bounds`, also grows it to hold
/// every vertex skinned in this pose (through the runtime's own skinning).
fn pose_record(
    asset: &Asset<'_>,
    clip: Option<usize>,
    time: f32,
    mut bounds: Option<&mut Aabb>,
) -> Result<Vec<u8>, String> {
    let pose = asset
        .model_pose(clip, time, Playback::Once)
        .map_err(|e| e.to_string())?;
    let entries: usize = asset.meshes().iter().map(palette_len).sum();
    let mut floats =
        Vec::with_capacity(entries * FLOATS_PER_ENTRY + asset.skeleton().bone_count() * 3);
    let mut palette = Palette::new();
    for (i, mesh) in asset.meshes().iter().enumerate() {
        palette.compute(mesh, &pose).map_err(|e| e.to_string())?;
        if let Some(b) = bounds.as_deref_mut() {
            // The mesh as drawn: morphed at this moment's weights.
            let morpher = morph::morphed(asset, i, clip, time)?;
            let drawn = morpher.as_ref().map_or(mesh, |m| m.mesh());
            *b = b.union(&skinned_bounds(drawn, &palette).map_err(|e| e.to_string())?);
        }
        for b in 0..palette.matrices().len() {
            let m = palette.row_major(b).unwrap_or(gom::model::IDENTITY);
            push_entry(&mut floats, &m);
        }
    }
    push_bone_positions(&mut floats, &pose);
    morph::push_weights(&mut floats, asset, clip, time)?;
    Ok(floats.iter().flat_map(|f| f.to_le_bytes()).collect())
}

/// The bind pose's bounding box in model space, `[min, max]`, from the skinned
/// positions (what the camera frames before a clip is chosen).
fn bind_bounds(asset: &Asset<'_>) -> Result<[[f32; 3]; 2], String> {
    let mut bounds = Aabb::EMPTY;
    pose_record(asset, None, 0.0, Some(&mut bounds))?;
    Ok(box_or_unit(bounds))
}

/// `[min, max]` of a box; the unit box around the origin for an empty one (a model
/// without vertices).
fn box_or_unit(b: Aabb) -> [[f32; 3]; 2] {
    if b.is_empty() {
        return [[-1.0; 3], [1.0; 3]];
    }
    [b.min.to_array(), b.max.to_array()]
}

fn info(model: &gom::Model, warnings: Vec<String>) -> InfoJson {
    use gom::model::ValidationFlags as F;
    let flags = model.header.validation_flags;
    let names = [
        (F::BIND_POSE_PASS, "bind-pose"),
        (F::WEIGHTS_PASS, "weights"),
        (F::SUBMESH_MATERIALS_PASS, "submesh-materials"),
    ];
    InfoJson {
        bones: model.skeleton.bones.len(),
        meshes: model.meshes.len(),
        vertices: model.meshes.iter().map(|m| m.vertices.len()).sum(),
        triangles: model.meshes.iter().map(|m| m.indices.len() / 3).sum(),
        materials: model.materials.len(),
        clips: model.clips.len(),
        keys: model
            .clips
            .iter()
            .flat_map(|c| &c.tracks)
            .map(|t| t.keys.len())
            .sum(),
        flags: names
            .iter()
            .filter(|(bit, _)| flags.contains(*bit))
            .map(|(_, n)| *n)
            .collect(),
        findings: gom::validate::validate(model)
            .iter()
            .map(|f| f.to_string())
            .collect(),
        warnings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn floats(bytes: &[u8]) -> Vec<f32> {
        bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    #[test]
    fn an_additive_clip_is_posed_on_its_reference_like_its_source_clip() {
        use gom::additive::{make_additive, reference_pose, Reference};
        let mut model = gom_demo::build();
        let reference = Reference::ClipFrame {
            clip: model.clips[0].name.clone(),
            time: 0.4,
        };
        let pose = reference_pose(&model, &reference).unwrap();
        let mut delta = make_additive(&model, &model.clips[1], reference, &pose).unwrap();
        delta.name = "delta".into();
        model.clips.push(delta);
        let notes = Notes {
            warnings: Vec::new(),
            textures: Default::default(),
        };
        let view = ViewModel::new("demo".into(), &model, notes).unwrap();
        assert_eq!(
            view.manifest()["clips"][2]["additive"],
            "clip \"swish\" at 0.4 s"
        );
        for t in [0.0, 0.55, 1.1] {
            let shown = floats(&view.pose_at(Some(2), t).unwrap());
            let source = floats(&view.pose_at(Some(1), t).unwrap());
            assert_eq!(shown.len(), source.len());
            for (a, b) in shown.iter().zip(&source) {
                assert!((a - b).abs() < 1e-4, "at {t}: {a} vs {b}");
            }
        }
    }

    /// `n` little-endian values of `W` bytes from `geometry` at `at`.
    fn read<const W: usize>(geometry: &[u8], at: usize, n: usize) -> Vec<[u8; W]> {
        geometry[at..at + n * W]
            .chunks_exact(W)
            .map(|c| c.try_into().unwrap())
            .collect()
    }

    #[test]
    fn the_manifest_gives_each_mesh_its_skinning_method_and_extra_influences() {
        let mut model = gom_demo::build();
        let skinned = model
            .meshes
            .iter()
            .position(|m| m.is_skinned())
            .expect("the demo has a skinned mesh");
        let m = &mut model.meshes[skinned];
        let n = m.vertices.len();
        m.skinning = gom::SkinningMethod::Blended;
        m.vertices.dq_weights = Some((0..n).map(|i| (i % 5) as f32 / 4.0).collect());
        let extra = (0..n).map(|i| gom::SkinWeights {
            bones: [i as u16 % 3, 1, 2, 0],
            weights: [0.0; 4],
        });
        m.vertices.skin_extra = Some(extra.collect());
        let notes = Notes {
            warnings: vec![],
            textures: Default::default(),
        };
        let view = ViewModel::new("demo".into(), &model, notes).unwrap();
        let meshes = view.manifest()["meshes"].as_array().unwrap();
        let json = &meshes[skinned];
        assert_eq!(json["skinning"], "blended");
        let at = |k: &str| json[k].as_u64().unwrap() as usize;
        let part = &model.meshes[skinned].vertices;
        let joints2: Vec<u16> = read::<2>(view.geometry(), at("joints2"), 4 * n)
            .into_iter()
            .map(u16::from_le_bytes)
            .collect();
        let want: Vec<u16> = part
            .skin_extra
            .iter()
            .flatten()
            .flat_map(|s| s.bones)
            .collect();
        assert_eq!(joints2, want);
        let dq: Vec<f32> = read::<4>(view.geometry(), at("dq_weights"), n)
            .into_iter()
            .map(f32::from_le_bytes)
            .collect();
        assert_eq!(Some(dq), part.dq_weights);
        assert!(json["weights2"].is_u64());
        for (i, other) in meshes.iter().enumerate().filter(|&(i, _)| i != skinned) {
            assert_eq!(other["skinning"], "linear", "mesh {i}");
            assert!(other["joints2"].is_null() && other["dq_weights"].is_null());
        }
    }
}
