//! [`gom::Model`] → glTF 2.0.
//!
//! Layout of the output: nodes `0..boneCount` are the bones (same order, TRS when the
//! bind matrix decomposes exactly, else `matrix`), followed by one node per mesh part.
//! glTF asks a skin's joints for a common root: a skinned part's skin holds, in bone
//! order, the bones under the one root bone its weights use; when they use several,
//! it holds every bone and one last node at rest, no joint, parents the root bones
//! (it is that skin's `skeleton`). Parts with the same joints and inverse binds share
//! a skin.
//! A skinned part's GBTM is baked into its vertices (glTF ignores a skinned node's
//! transform); a static part's GBTM becomes its node's matrix. Each submesh is a
//! primitive sharing the part's vertex accessors. Every clip becomes an animation
//! with LINEAR samplers (clips without tracks are left out: glTF requires at least
//! one channel). Textures are embedded as buffer views with their MIME type (PNG or
//! JPEG, from [`GltfExportOptions::images`]); one without an image is left out with a
//! warning. Everything is mirrored back to right-handed (D2).
//!
//! glTF has no place for a clip's root-motion flag and root bone, its sample rate, or a
//! duration longer than its last key: those do not survive a round trip. Vertex
//! colours are written as normalised unsigned bytes, joints as unsigned bytes (up to
//! 256 bones) or shorts, indices as unsigned shorts (up to 65,535 vertices) or ints;
//! normals and tangents are renormalised, quaternions too; buffer views start on
//! 4-byte boundaries.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use gom::math::{from_trs, transform_point, transform_vector};
use gom::Mat4;

use super::convert::{
    decompose, mirror_mat, mirror_quat, mirror_tangent, mirror_vec3, normal_matrix, normalize3,
};
use super::GltfError;

/// Which glTF container to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExportFormat {
    /// A single binary `.glb`.
    Glb,
    /// A `.gltf` JSON file and a `.bin` buffer it refers to by `bin_uri`.
    Gltf {
        /// The URI the JSON uses for the buffer, e.g. `model.bin`.
        bin_uri: String,
    },
}

/// Options of the glTF exporter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GltfExportOptions {
    /// The container to write.
    pub format: ExportFormat,
    /// The encoded images of the textures the model's materials name, by that name.
    /// They are embedded in the buffer (a buffer view with its MIME type), so the
    /// output holds its images; a texture missing here, or neither PNG nor JPEG, is
    /// left out with a warning.
    pub images: BTreeMap<String, Vec<u8>>,
}

impl Default for GltfExportOptions {
    fn default() -> Self {
        Self {
            format: ExportFormat::Glb,
            images: BTreeMap::new(),
        }
    }
}

/// The exported bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exported {
    /// A `.glb` file.
    Glb(Vec<u8>),
    /// A `.gltf` JSON text and its `.bin` buffer.
    Gltf {
        /// The JSON text.
        json: String,
        /// The buffer bytes.
        bin: Vec<u8>,
    },
}

/// The name of the node added as the common root of several root bones.
pub const COMMON_ROOT_NAME: &str = "gom_skeleton_root";

const ARRAY_BUFFER: u32 = 34962;
const ELEMENT_ARRAY_BUFFER: u32 = 34963;
const UNSIGNED_BYTE: u32 = 5121;
const UNSIGNED_SHORT: u32 = 5123;
const UNSIGNED_INT: u32 = 5125;
const FLOAT: u32 = 5126;

/// The binary buffer being built, with its views and accessors.
#[derive(Default)]
struct Bin {
    data: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

impl Bin {
    fn view(&mut self, bytes: &[u8], target: Option<u32>, stride: Option<usize>) -> usize {
        while !self.data.len().is_multiple_of(4) {
            self.data.push(0);
        }
        let mut v = Map::new();
        v.insert("buffer".into(), json!(0));
        v.insert("byteOffset".into(), json!(self.data.len()));
        v.insert("byteLength".into(), json!(bytes.len()));
        if let Some(t) = target {
            v.insert("target".into(), json!(t));
        }
        if let Some(s) = stride {
            v.insert("byteStride".into(), json!(s));
        }
        self.data.extend_from_slice(bytes);
        self.views.push(Value::Object(v));
        self.views.len() - 1
    }

    /// A float accessor of `dims` components per element; `min_max` adds bounds.
    fn floats(
        &mut self,
        values: &[f32],
        dims: usize,
        ty: &str,
        target: Option<u32>,
        min_max: bool,
    ) -> usize {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let view = self.view(&bytes, target, None);
        let count = values.len() / dims;
        let mut a = Map::new();
        a.insert("bufferView".into(), json!(view));
        a.insert("componentType".into(), json!(FLOAT));
        a.insert("count".into(), json!(count));
        a.insert("type".into(), json!(ty));
        if min_max && count > 0 {
            let mut lo = vec![f32::INFINITY; dims];
            let mut hi = vec![f32::NEG_INFINITY; dims];
            for e in values.chunks_exact(dims) {
                for (k, &v) in e.iter().enumerate() {
                    lo[k] = lo[k].min(v);
                    hi[k] = hi[k].max(v);
                }
            }
            a.insert("min".into(), json!(lo));
            a.insert("max".into(), json!(hi));
        }
        self.accessors.push(Value::Object(a));
        self.accessors.len() - 1
    }

    /// An unsigned-integer accessor.
    fn uints(
        &mut self,
        values: &[u32],
        component: u32,
        ty: &str,
        dims: usize,
        target: Option<u32>,
        normalized: bool,
    ) -> usize {
        let bytes: Vec<u8> = match component {
            UNSIGNED_BYTE => values.iter().map(|&v| v as u8).collect(),
            UNSIGNED_SHORT => values
                .iter()
                .flat_map(|&v| (v as u16).to_le_bytes())
                .collect(),
            _ => values.iter().flat_map(|v| v.to_le_bytes()).collect(),
        };
        let view = self.view(&bytes, target, None);
        let mut a = Map::new();
        a.insert("bufferView".into(), json!(view));
        a.insert("componentType".into(), json!(component));
        a.insert("count".into(), json!(values.len() / dims));
        a.insert("type".into(), json!(ty));
        if normalized {
            a.insert("normalized".into(), json!(true));
        }
        self.accessors.push(Value::Object(a));
        self.accessors.len() - 1
    }
}

fn export_err(object: impl Into<String>, message: impl Into<String>) -> GltfError {
    GltfError::Export {
        object: object.into(),
        message: message.into(),
    }
}

/// Percent-encodes the characters a relative URI may not hold as they are.
fn uri_encode(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'/' => {
                out.push(b as char)
            }
            b'\\' => out.push('/'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// The node JSON of a transform: TRS when the matrix decomposes exactly, else `matrix`.
fn transform_json(node: &mut Map<String, Value>, gltf_row: &Mat4, force_trs: bool) {
    let (t, r, s) = decompose(gltf_row);
    let rebuilt = from_trs(t, r, s);
    let exact = rebuilt
        .iter()
        .zip(gltf_row)
        .all(|(a, b)| (a - b).abs() <= 1e-5 * (1.0 + b.abs()));
    if exact || force_trs {
        if t != [0.0; 3] {
            node.insert("translation".into(), json!(t));
        }
        if r != [0.0, 0.0, 0.0, 1.0] {
            node.insert("rotation".into(), json!(r));
        }
        if s != [1.0; 3] {
            node.insert("scale".into(), json!(s));
        }
    } else {
        node.insert("matrix".into(), json!(gltf_row.to_vec()));
    }
}

/// Refuses NaN and infinities, which JSON and glTF cannot hold.
fn check_finite(model: &gom::Model) -> Result<(), GltfError> {
    let bad = |object: String| export_err(object, "holds a NaN or infinite number");
    for (i, b) in model.skeleton.bones.iter().enumerate() {
        if b.bind_local.iter().any(|v| !v.is_finite()) {
            return Err(bad(format!("skeleton.bones[{i}]")));
        }
    }
    for (i, m) in model.materials.iter().enumerate() {
        if m.base_color_factor.iter().any(|v| !v.is_finite()) {
            return Err(bad(format!("materials[{i}]")));
        }
    }
    for (i, m) in model.meshes.iter().enumerate() {
        let v = &m.vertices;
        let mut floats = v
            .positions
            .iter()
            .flatten()
            .chain(v.normals.iter().flatten().flatten())
            .chain(v.tangents.iter().flatten().flatten())
            .chain(v.uv0.iter().flatten().flatten())
            .chain(v.uv1.iter().flatten().flatten())
            .chain(v.skin.iter().flatten().flat_map(|s| s.weights.iter()))
            .chain(m.inverse_bind.iter().flatten())
            .chain(m.mesh_bind_geo_to_model.iter().flatten());
        if floats.any(|x| !x.is_finite()) {
            return Err(bad(format!("meshes[{i}]")));
        }
        let n = v.len();
        let lengths = [
            v.normals.as_ref().map(Vec::len),
            v.tangents.as_ref().map(Vec::len),
            v.uv0.as_ref().map(Vec::len),
            v.uv1.as_ref().map(Vec::len),
            v.colors.as_ref().map(Vec::len),
            v.skin.as_ref().map(Vec::len),
        ];
        if lengths.iter().flatten().any(|&l| l != n) {
            return Err(export_err(
                format!("meshes[{i}]"),
                "a vertex stream's length differs from the position count",
            ));
        }
    }
    for (i, c) in model.clips.iter().enumerate() {
        let keys = c.tracks.iter().flat_map(|t| t.keys.iter());
        let mut floats = keys.flat_map(|k| {
            std::iter::once(k.time)
                .chain(k.translation)
                .chain(k.rotation)
                .chain(k.scale)
        });
        if floats.any(|x| !x.is_finite()) {
            return Err(bad(format!("clips[{i}]")));
        }
    }
    Ok(())
}

/// The MIME type of an encoded PNG or JPEG image, the two formats glTF 2.0 holds.
fn image_mime(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else {
        None
    }
}

/// Embeds the image of texture `name` (from `available`) in `bin` and lists it in
/// `images`; returns its image index, or `None` with a warning when it cannot be.
fn embed_image(
    name: &str,
    available: &BTreeMap<String, Vec<u8>>,
    bin: &mut Bin,
    images: &mut Vec<Value>,
    warnings: &mut Vec<String>,
) -> Option<usize> {
    let Some(bytes) = available.get(name) else {
        warnings.push(format!(
            "texture \"{name}\" not found; left out of the glTF output"
        ));
        return None;
    };
    let Some(mime) = image_mime(bytes) else {
        warnings.push(format!(
            "texture \"{name}\" is neither PNG nor JPEG (the images glTF holds); left out"
        ));
        return None;
    };
    let view = bin.view(bytes, None, None);
    images.push(json!({ "name": name, "bufferView": view, "mimeType": mime }));
    Some(images.len() - 1)
}

/// The root bone of each bone (parents come first: checked by the caller).
fn root_bones(bones: &[gom::Bone]) -> Vec<usize> {
    let mut root_of: Vec<usize> = Vec::with_capacity(bones.len());
    for (i, b) in bones.iter().enumerate() {
        let r = usize::try_from(b.parent).map_or(i, |p| root_of[p]);
        root_of.push(r);
    }
    root_of
}

/// The joints of a skin, in bone order: every bone under the root bones its weights
/// use (glTF wants a skin's joints to share a root), or every bone, with `true`, when
/// they use several root bones.
fn skin_joints(skin: &[gom::SkinWeights], root_of: &[usize]) -> (Vec<usize>, bool) {
    let used: std::collections::BTreeSet<usize> = skin
        .iter()
        .flat_map(|sw| {
            (0..4)
                .filter(|&s| sw.weights[s] > 0.0)
                .map(|s| root_of[usize::from(sw.bones[s])])
        })
        .collect();
    let root = match used.len() {
        0 => root_of.first().copied(),
        1 => used.first().copied(),
        _ => None,
    };
    match root {
        Some(r) => (
            (0..root_of.len()).filter(|&b| root_of[b] == r).collect(),
            false,
        ),
        None => ((0..root_of.len()).collect(), used.len() > 1),
    }
}

/// Writes `model` as glTF 2.0 (right-handed, LINEAR animation samplers). Textures are
/// embedded from [`GltfExportOptions::images`]; see [`export_with_warnings`] for what
/// was left out.
pub fn export(model: &gom::Model, options: &GltfExportOptions) -> Result<Exported, GltfError> {
    export_with_warnings(model, options).map(|(exported, _)| exported)
}

/// [`export`], with warnings about what the output leaves out (textures whose image
/// is missing or of a format glTF does not hold).
pub fn export_with_warnings(
    model: &gom::Model,
    options: &GltfExportOptions,
) -> Result<(Exported, Vec<String>), GltfError> {
    let bones = &model.skeleton.bones;
    let bone_count = bones.len();
    for (i, b) in bones.iter().enumerate() {
        if b.parent >= i as i32 || b.parent < -1 {
            return Err(export_err(
                format!("skeleton.bones[{i}]"),
                format!("parent {} is not an earlier bone", b.parent),
            ));
        }
    }
    check_finite(model)?;
    let mut bin = Bin::default();
    let mut animated = vec![false; bone_count];
    for c in &model.clips {
        for t in &c.tracks {
            if let Some(a) = animated.get_mut(t.bone as usize) {
                *a = true;
            }
        }
    }

    // Bone nodes.
    let mut nodes: Vec<Value> = Vec::new();
    let mut roots: Vec<usize> = Vec::new();
    // Each bone's children in index order, in one pass (parents were checked above).
    let mut children_of: Vec<Vec<usize>> = vec![Vec::new(); bone_count];
    for (k, c) in bones.iter().enumerate() {
        if let Some(list) = usize::try_from(c.parent)
            .ok()
            .and_then(|p| children_of.get_mut(p))
        {
            list.push(k);
        }
    }
    for (i, (bone, children)) in bones.iter().zip(&children_of).enumerate() {
        let mut node = Map::new();
        node.insert("name".into(), json!(bone.name));
        if !children.is_empty() {
            node.insert("children".into(), json!(children));
        }
        transform_json(&mut node, &mirror_mat(&bone.bind_local), animated[i]);
        if bone.parent < 0 {
            roots.push(i);
        }
        nodes.push(Value::Object(node));
    }

    // Materials, textures, images (each image embedded once, in material order).
    let mut warnings = Vec::new();
    let mut materials = Vec::new();
    let mut images: Vec<Value> = Vec::new();
    let mut image_of: BTreeMap<&str, Option<usize>> = BTreeMap::new();
    for m in &model.materials {
        let mut pbr = Map::new();
        pbr.insert("baseColorFactor".into(), json!(m.base_color_factor));
        if let Some(tex) = &m.base_color_texture {
            let idx = *image_of.entry(tex.as_str()).or_insert_with(|| {
                embed_image(tex, &options.images, &mut bin, &mut images, &mut warnings)
            });
            if let Some(idx) = idx {
                pbr.insert("baseColorTexture".into(), json!({ "index": idx }));
            }
        }
        materials.push(json!({ "name": m.name, "pbrMetallicRoughness": pbr }));
    }

    // Meshes and skins.
    let mut meshes = Vec::new();
    // Each skin: its joints (bone indices), their inverse binds, its JSON, and
    // whether its joints span several root bones.
    let mut skins: Vec<(Vec<usize>, Vec<Mat4>, Value, bool)> = Vec::new();
    let root_of = root_bones(bones);
    let mut scene_nodes = roots.clone();
    for (mi, part) in model.meshes.iter().enumerate() {
        let object = format!("meshes[{mi}]");
        let v = &part.vertices;
        let n = v.len();
        if n == 0 || part.submeshes.is_empty() {
            continue; // nothing to draw; glTF needs at least one vertex per primitive
        }
        let skinned = v.skin.is_some();
        // Geometry: skinned parts get GBTM baked, static parts keep it on the node.
        let bake = if skinned {
            part.mesh_bind_geo_to_model
        } else {
            None
        };
        let mut positions = Vec::with_capacity(n * 3);
        for p in &v.positions {
            let p = bake.map_or(*p, |g| transform_point(&g, *p));
            positions.extend(mirror_vec3(p));
        }
        let pos = bin.floats(&positions, 3, "VEC3", Some(ARRAY_BUFFER), true);
        let mut attrs = Map::new();
        attrs.insert("POSITION".into(), json!(pos));
        if let Some(normals) = &v.normals {
            let nm = bake.and_then(|g| normal_matrix(&g));
            let mut out = Vec::with_capacity(n * 3);
            for nv in normals {
                let t = nm.map_or(*nv, |m| transform_vector(&m, *nv));
                let t = normalize3(t.map(f64::from)).unwrap_or([0.0, 1.0, 0.0]);
                out.extend(mirror_vec3(t));
            }
            let a = bin.floats(&out, 3, "VEC3", Some(ARRAY_BUFFER), false);
            attrs.insert("NORMAL".into(), json!(a));
        }
        if let Some(tangents) = &v.tangents {
            let mut out = Vec::with_capacity(n * 4);
            for t in tangents {
                let d = [t[0], t[1], t[2]];
                let d = bake.map_or(d, |g| transform_vector(&g, d));
                let d = normalize3(d.map(f64::from)).unwrap_or([1.0, 0.0, 0.0]);
                let w = if t[3] < 0.0 { -1.0 } else { 1.0 };
                out.extend(mirror_tangent([d[0], d[1], d[2], w]));
            }
            let a = bin.floats(&out, 4, "VEC4", Some(ARRAY_BUFFER), false);
            attrs.insert("TANGENT".into(), json!(a));
        }
        for (name, uv) in [("TEXCOORD_0", &v.uv0), ("TEXCOORD_1", &v.uv1)] {
            if let Some(uv) = uv {
                let flat: Vec<f32> = uv.iter().flatten().copied().collect();
                let a = bin.floats(&flat, 2, "VEC2", Some(ARRAY_BUFFER), false);
                attrs.insert(name.into(), json!(a));
            }
        }
        if let Some(colors) = &v.colors {
            let flat: Vec<u32> = colors.iter().flatten().map(|&c| u32::from(c)).collect();
            let a = bin.uints(&flat, UNSIGNED_BYTE, "VEC4", 4, Some(ARRAY_BUFFER), true);
            attrs.insert("COLOR_0".into(), json!(a));
        }
        let mut skin_index = None;
        if let Some(skin) = &v.skin {
            if bone_count == 0 {
                return Err(export_err(&object, "skinned but the skeleton has no bones"));
            }
            if part.inverse_bind.len() != bone_count {
                return Err(export_err(
                    &object,
                    format!(
                        "{} inverse binds for {bone_count} bones",
                        part.inverse_bind.len()
                    ),
                ));
            }
            for (k, sw) in skin.iter().enumerate() {
                for s in 0..4 {
                    let b = sw.bones[s];
                    if sw.weights[s] > 0.0 && usize::from(b) >= bone_count {
                        return Err(export_err(
                            &object,
                            format!(
                                "vertex {k}: bone {b} is not below the bone count {bone_count}"
                            ),
                        ));
                    }
                }
            }
            let (skin_bones, spans_roots) = skin_joints(skin, &root_of);
            let mut joint_of = vec![0u32; bone_count];
            for (j, &b) in skin_bones.iter().enumerate() {
                joint_of[b] = j as u32;
            }
            let mut joints = Vec::with_capacity(n * 4);
            let mut weights = Vec::with_capacity(n * 4);
            for sw in skin {
                for s in 0..4 {
                    let w = sw.weights[s];
                    let b = if w > 0.0 { sw.bones[s] } else { 0 };
                    joints.push(if w > 0.0 { joint_of[usize::from(b)] } else { 0 });
                    weights.push(if w > 0.0 { w } else { 0.0 });
                }
            }
            let jt = if skin_bones.len() <= 256 {
                UNSIGNED_BYTE
            } else {
                UNSIGNED_SHORT
            };
            let ja = bin.uints(&joints, jt, "VEC4", 4, Some(ARRAY_BUFFER), false);
            let wa = bin.floats(&weights, 4, "VEC4", Some(ARRAY_BUFFER), false);
            attrs.insert("JOINTS_0".into(), json!(ja));
            attrs.insert("WEIGHTS_0".into(), json!(wa));
            let same = |(j, ib, _, _): &(Vec<usize>, Vec<Mat4>, Value, bool)| {
                *j == skin_bones && *ib == part.inverse_bind
            };
            let si = match skins.iter().position(same) {
                Some(s) => s,
                None => {
                    let flat: Vec<f32> = skin_bones
                        .iter()
                        .flat_map(|&b| mirror_mat(&part.inverse_bind[b]))
                        .collect();
                    let ibm = bin.floats(&flat, 16, "MAT4", None, false);
                    let skin_json = json!({
                        "joints": skin_bones,
                        "inverseBindMatrices": ibm,
                    });
                    skins.push((
                        skin_bones,
                        part.inverse_bind.clone(),
                        skin_json,
                        spans_roots,
                    ));
                    skins.len() - 1
                }
            };
            skin_index = Some(si);
        }
        // One primitive per submesh; GOM's clockwise triangles back to glTF's order.
        let mut prims = Vec::new();
        let wide = n > 65535;
        for (si, sub) in part.submeshes.iter().enumerate() {
            let start = sub.index_start as usize;
            let end = start
                .checked_add(sub.index_count as usize)
                .filter(|&e| e <= part.indices.len())
                .ok_or_else(|| {
                    export_err(
                        format!("{object}.submeshes[{si}]"),
                        "range outside the indices",
                    )
                })?;
            let mut idx = Vec::with_capacity(end - start);
            for tri in part.indices[start..end].chunks_exact(3) {
                if tri.iter().any(|&i| i as usize >= n) {
                    return Err(export_err(
                        format!("{object}.submeshes[{si}]"),
                        "an index is not below the vertex count",
                    ));
                }
                idx.extend([tri[0], tri[2], tri[1]]);
            }
            if idx.is_empty() {
                continue;
            }
            let ct = if wide { UNSIGNED_INT } else { UNSIGNED_SHORT };
            let ia = bin.uints(&idx, ct, "SCALAR", 1, Some(ELEMENT_ARRAY_BUFFER), false);
            let mut prim = Map::new();
            prim.insert("attributes".into(), Value::Object(attrs.clone()));
            prim.insert("indices".into(), json!(ia));
            if sub.material_index >= 0 && (sub.material_index as usize) < materials.len() {
                prim.insert("material".into(), json!(sub.material_index));
            }
            prims.push(Value::Object(prim));
        }
        if prims.is_empty() {
            continue;
        }
        meshes.push(json!({ "name": part.name, "primitives": prims }));
        let mut node = Map::new();
        node.insert("name".into(), json!(part.name));
        node.insert("mesh".into(), json!(meshes.len() - 1));
        if let Some(s) = skin_index {
            node.insert("skin".into(), json!(s));
        } else if let Some(g) = part.mesh_bind_geo_to_model {
            transform_json(&mut node, &mirror_mat(&g), false);
        }
        scene_nodes.push(nodes.len());
        nodes.push(Value::Object(node));
    }

    // glTF asks the joints of a skin for a common root: a skin whose weights use the
    // bones of several root bones gets one, a node at rest that is no joint.
    if skins.iter().any(|s| s.3) {
        let root_node = nodes.len();
        nodes.push(json!({ "name": COMMON_ROOT_NAME, "children": roots }));
        scene_nodes.retain(|n| !roots.contains(n));
        scene_nodes.insert(0, root_node);
        for (_, _, skin, spans_roots) in &mut skins {
            if *spans_roots {
                skin["skeleton"] = json!(root_node);
            }
        }
    }

    // Animations.
    let mut animations = Vec::new();
    for (ci, clip) in model.clips.iter().enumerate() {
        let mut samplers = Vec::new();
        let mut channels = Vec::new();
        for track in &clip.tracks {
            let b = track.bone as usize;
            if b >= bone_count || track.keys.is_empty() {
                return Err(export_err(
                    format!("clips[{ci}]"),
                    format!("track of bone {b} is empty or names no bone"),
                ));
            }
            let times: Vec<f32> = track.keys.iter().map(|k| k.time).collect();
            if times.windows(2).any(|w| w[1] <= w[0]) {
                return Err(export_err(
                    format!("clips[{ci}]"),
                    "keys not strictly ascending",
                ));
            }
            let input = bin.floats(&times, 1, "SCALAR", None, true);
            let t: Vec<f32> = track
                .keys
                .iter()
                .flat_map(|k| mirror_vec3(k.translation))
                .collect();
            let r: Vec<f32> = track
                .keys
                .iter()
                .flat_map(|k| {
                    let q = k.rotation.map(f64::from);
                    let len = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
                    let q = if len > 0.0 {
                        q.map(|c| (c / len) as f32)
                    } else {
                        [0.0, 0.0, 0.0, 1.0]
                    };
                    mirror_quat(q)
                })
                .collect();
            let s: Vec<f32> = track.keys.iter().flat_map(|k| k.scale).collect();
            for (path, values, dims, ty) in [
                ("translation", &t, 3, "VEC3"),
                ("rotation", &r, 4, "VEC4"),
                ("scale", &s, 3, "VEC3"),
            ] {
                let out = bin.floats(values, dims, ty, None, false);
                samplers.push(json!({ "input": input, "output": out, "interpolation": "LINEAR" }));
                channels.push(json!({
                    "sampler": samplers.len() - 1,
                    "target": { "node": b, "path": path },
                }));
            }
        }
        if channels.is_empty() {
            continue;
        }
        animations.push(json!({ "name": clip.name, "samplers": samplers, "channels": channels }));
    }

    while bin.data.len() % 4 != 0 {
        bin.data.push(0);
    }
    let mut root = Map::new();
    root.insert(
        "asset".into(),
        json!({ "version": "2.0", "generator": gom::CONVERTER_VERSION }),
    );
    root.insert("scene".into(), json!(0));
    // An empty model gives a scene without nodes (glTF has no empty `nodes` array).
    let scene = if scene_nodes.is_empty() {
        json!({})
    } else {
        json!({ "nodes": scene_nodes })
    };
    root.insert("scenes".into(), json!([scene]));
    if !nodes.is_empty() {
        root.insert("nodes".into(), Value::Array(nodes));
    }
    if !meshes.is_empty() {
        root.insert("meshes".into(), Value::Array(meshes));
    }
    if !skins.is_empty() {
        root.insert(
            "skins".into(),
            Value::Array(skins.into_iter().map(|(_, _, s, _)| s).collect()),
        );
    }
    if !materials.is_empty() {
        root.insert("materials".into(), Value::Array(materials));
    }
    if !images.is_empty() {
        let textures: Vec<Value> = (0..images.len()).map(|i| json!({ "source": i })).collect();
        root.insert("textures".into(), Value::Array(textures));
        root.insert("images".into(), Value::Array(images));
    }
    if !animations.is_empty() {
        root.insert("animations".into(), Value::Array(animations));
    }
    let has_bin = !bin.data.is_empty();
    if !bin.views.is_empty() {
        root.insert("bufferViews".into(), Value::Array(bin.views));
    }
    if !bin.accessors.is_empty() {
        root.insert("accessors".into(), Value::Array(bin.accessors));
    }
    match &options.format {
        ExportFormat::Glb => {
            if has_bin {
                root.insert("buffers".into(), json!([{ "byteLength": bin.data.len() }]));
            }
            let mut text = Value::Object(root).to_string().into_bytes();
            while !text.len().is_multiple_of(4) {
                text.push(b' ');
            }
            let mut total = 12 + 8 + text.len();
            if has_bin {
                total += 8 + bin.data.len();
            }
            let total32 = u32::try_from(total)
                .map_err(|_| export_err("model", "larger than the 4 GiB a .glb can hold"))?;
            let mut out = Vec::with_capacity(total);
            out.extend_from_slice(b"glTF");
            out.extend_from_slice(&2u32.to_le_bytes());
            out.extend_from_slice(&total32.to_le_bytes());
            out.extend_from_slice(&(text.len() as u32).to_le_bytes());
            out.extend_from_slice(b"JSON");
            out.extend_from_slice(&text);
            if has_bin {
                out.extend_from_slice(&(bin.data.len() as u32).to_le_bytes());
                out.extend_from_slice(b"BIN\0");
                out.extend_from_slice(&bin.data);
            }
            Ok((Exported::Glb(out), warnings))
        }
        ExportFormat::Gltf { bin_uri } => {
            if has_bin {
                root.insert(
                    "buffers".into(),
                    json!([{ "byteLength": bin.data.len(), "uri": uri_encode(bin_uri) }]),
                );
            }
            let json = serde_json::to_string_pretty(&Value::Object(root))
                .map_err(|e| export_err("model", e.to_string()))?;
            Ok((
                Exported::Gltf {
                    json,
                    bin: bin.data,
                },
                warnings,
            ))
        }
    }
}
