//! The glTF JSON before the schema types read it: extensions decided on (read,
//! mapped, dropped with a warning, or refused by name), and valid core glTF that the
//! `gltf-json` types do not accept made acceptable (a scene without `nodes`, an
//! animation channel without `target.node`).
//!
//! What an extension becomes is one table, [`policy`]; docs/import-support.md repeats it.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::GltfError;

/// What the importer does with one extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Policy {
    /// Read into the model (no warning).
    Read,
    /// Read, mapped onto what GOM holds; the warning says how.
    Mapped(&'static str),
    /// Left out; the warning says what.
    Dropped(&'static str),
    /// Refused when required; the message says why.
    Refused(&'static str),
}

/// The extensions the importer knows and what it does with each.
fn policy(name: &str) -> Option<Policy> {
    use Policy::*;
    Some(match name {
        "KHR_mesh_quantization" | "EXT_meshopt_compression" | "KHR_meshopt_compression" => Read,
        "EXT_mesh_gpu_instancing" => Mapped("instances expanded into one mesh part each"),
        "KHR_materials_pbrSpecularGlossiness" => Mapped(
            "specular-glossiness materials read as their diffuse texture and factor (base colour); specular and glossiness left out",
        ),
        "KHR_texture_transform" => Mapped(
            "base colour texture transforms baked into the texture coordinates; transforms of other textures left out",
        ),
        "KHR_lights_punctual" => Dropped("lights left out (GOM holds no lights)"),
        "KHR_materials_unlit" => Dropped("unlit shading left out; the base colour is kept"),
        "KHR_materials_emissive_strength" => Dropped("emissive strength left out (GOM materials hold a base colour only)"),
        "KHR_materials_transmission" => Dropped("transmission left out (GOM materials hold a base colour only)"),
        "KHR_materials_variants" => Dropped("material variants left out; each primitive keeps its default material"),
        "KHR_materials_ior" | "KHR_materials_volume" | "KHR_materials_specular"
        | "KHR_materials_clearcoat" | "KHR_materials_sheen" | "KHR_materials_iridescence"
        | "KHR_materials_anisotropy" | "KHR_materials_dispersion" => {
            Dropped("left out (GOM materials hold a base colour only)")
        }
        "KHR_draco_mesh_compression" => Refused(
            "the geometry is Draco-compressed (KHR_draco_mesh_compression), which gom does not decode; re-export it without Draco (gltfpack or glTF-Transform can convert it to EXT_meshopt_compression, which gom reads)",
        ),
        "KHR_texture_basisu" | "EXT_texture_webp" | "EXT_texture_avif" | "MSFT_texture_dds" => {
            Dropped("the image in that format is left out; a fallback image, if any, is used")
        }
        _ => return None,
    })
}

/// A bufferView compressed with `EXT_meshopt_compression` / `KHR_meshopt_compression`.
#[derive(Debug, Clone)]
pub(crate) struct MeshoptView {
    /// The bufferView it decodes into.
    pub view: usize,
    /// The extension's name (for messages).
    pub extension: &'static str,
    /// The buffer holding the compressed bytes.
    pub buffer: usize,
    /// Where the compressed bytes start in it.
    pub offset: usize,
    /// How many compressed bytes there are.
    pub length: usize,
    /// Bytes per element once decoded.
    pub stride: usize,
    /// Elements once decoded.
    pub count: usize,
    /// `ATTRIBUTES`, `TRIANGLES` or `INDICES`.
    pub mode: String,
    /// `NONE`, `OCTAHEDRAL`, `QUATERNION`, `EXPONENTIAL` or `COLOR`.
    pub filter: String,
}

/// A base colour texture transform (`KHR_texture_transform`), applied to the UV set
/// it names: `uv' = offset + R(rotation) · (scale ∘ uv)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct UvTransform {
    pub offset: [f64; 2],
    pub rotation: f64,
    pub scale: [f64; 2],
    /// The UV set the texture reads once transformed (`texCoord` of the extension,
    /// else of the texture info).
    pub tex_coord: u32,
}

impl UvTransform {
    /// The transformed coordinate.
    pub(crate) fn apply(&self, uv: [f32; 2]) -> [f32; 2] {
        let (s, c) = (libm::sin(self.rotation), libm::cos(self.rotation));
        let (x, y) = (
            f64::from(uv[0]) * self.scale[0],
            f64::from(uv[1]) * self.scale[1],
        );
        [
            (c * x + s * y + self.offset[0]) as f32,
            (-s * x + c * y + self.offset[1]) as f32,
        ]
    }
}

/// The accessors of a node's `EXT_mesh_gpu_instancing` attributes.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Instancing {
    pub translation: Option<usize>,
    pub rotation: Option<usize>,
    pub scale: Option<usize>,
}

/// The document made ready for `gltf-json`, with what the extensions ask of the
/// importer.
#[derive(Debug)]
pub(crate) struct Prepared {
    pub root: gltf::json::Root,
    /// One warning per extension dropped or mapped, and one per repair.
    pub warnings: Vec<String>,
    pub meshopt: Vec<MeshoptView>,
    /// Buffers that only stand in for meshopt-compressed data (`fallback: true`).
    pub fallback_buffers: Vec<usize>,
    /// Base colour texture transform by material index.
    pub uv_transforms: BTreeMap<usize, UvTransform>,
    /// Instancing by node index.
    pub instancing: BTreeMap<usize, Instancing>,
}

/// Parses the JSON text and prepares it (see the module documentation).
pub(crate) fn prepare(json: &[u8], file: &str) -> Result<Prepared, GltfError> {
    let json_error = |message: String| GltfError::Json {
        file: file.to_string(),
        message,
    };
    let mut value: Value = serde_json::from_slice(json).map_err(|e| json_error(e.to_string()))?;
    let Some(top) = value.as_object_mut() else {
        return Err(json_error("the document is not a JSON object".into()));
    };
    let mut warnings = extensions(top, file)?;
    repair_core(top, &mut warnings);
    map_spec_gloss(top);
    let uv_transforms = uv_transforms(top);
    let (meshopt, fallback_buffers) = meshopt_views(top);
    let instancing = instancing(top);
    let root: gltf::json::Root =
        serde_json::from_value(value).map_err(|e| json_error(e.to_string()))?;
    Ok(Prepared {
        root,
        warnings,
        meshopt,
        fallback_buffers,
        uv_transforms,
        instancing,
    })
}

fn names(top: &Map<String, Value>, key: &str) -> Vec<String> {
    top.get(key)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// Refuses a required extension the importer cannot honour; warns once for each
/// extension used that is mapped or dropped; removes the handled ones from
/// `extensionsRequired` so that the schema check accepts the rest.
fn extensions(top: &mut Map<String, Value>, file: &str) -> Result<Vec<String>, GltfError> {
    let required = names(top, "extensionsRequired");
    let mut used = names(top, "extensionsUsed");
    used.extend(required.iter().cloned());
    used.sort();
    used.dedup();
    for name in &required {
        let refusal = match policy(name) {
            Some(Policy::Refused(why)) => why.to_string(),
            None => format!(
                "the file requires the extension {name}, which gom does not read (docs/import-support.md lists those it does)"
            ),
            _ => continue,
        };
        return Err(GltfError::Invalid {
            file: file.to_string(),
            object: "extensionsRequired".into(),
            message: refusal,
        });
    }
    let mut warnings = Vec::new();
    for name in &used {
        match policy(name) {
            Some(Policy::Mapped(what)) | Some(Policy::Dropped(what)) => {
                warnings.push(format!("{name}: {what}"));
            }
            Some(Policy::Refused(_)) => {
                warnings.push(format!(
                    "{name}: used but not required; its fallback data is read"
                ));
            }
            Some(Policy::Read) => {}
            None => warnings.push(format!("{name}: unknown extension ignored")),
        }
    }
    // Every required extension is now known and honoured.
    top.remove("extensionsRequired");
    Ok(warnings)
}

/// Valid core glTF the schema types refuse: a scene without `nodes`; an animation
/// channel without `target.node` (skipped with a warning).
fn repair_core(top: &mut Map<String, Value>, warnings: &mut Vec<String>) {
    if let Some(scenes) = top.get_mut("scenes").and_then(Value::as_array_mut) {
        for scene in scenes.iter_mut().filter_map(Value::as_object_mut) {
            scene
                .entry("nodes")
                .or_insert_with(|| Value::Array(Vec::new()));
        }
    }
    let Some(animations) = top.get_mut("animations").and_then(Value::as_array_mut) else {
        return;
    };
    for (ai, animation) in animations.iter_mut().enumerate() {
        let Some(channels) = animation.get_mut("channels").and_then(Value::as_array_mut) else {
            continue;
        };
        let before = channels.len();
        let mut index = 0usize;
        channels.retain(|c| {
            let keep = c.get("target").and_then(|t| t.get("node")).is_some();
            if !keep {
                warnings.push(format!(
                    "animations[{ai}].channels[{index}]: no target node (an extension's target); channel skipped"
                ));
            }
            index += 1;
            keep
        });
        debug_assert!(channels.len() <= before);
    }
}

/// A material with `KHR_materials_pbrSpecularGlossiness` and no metallic-roughness
/// base colour gets its diffuse texture and factor as base colour.
fn map_spec_gloss(top: &mut Map<String, Value>) {
    let Some(materials) = top.get_mut("materials").and_then(Value::as_array_mut) else {
        return;
    };
    for material in materials.iter_mut().filter_map(Value::as_object_mut) {
        let Some(sg) = material
            .get("extensions")
            .and_then(|e| e.get("KHR_materials_pbrSpecularGlossiness"))
            .and_then(Value::as_object)
            .cloned()
        else {
            continue;
        };
        let pbr = material
            .entry("pbrMetallicRoughness")
            .or_insert_with(|| Value::Object(Map::new()));
        let Some(pbr) = pbr.as_object_mut() else {
            continue;
        };
        if let Some(t) = sg.get("diffuseTexture") {
            pbr.entry("baseColorTexture").or_insert_with(|| t.clone());
        }
        if let Some(f) = sg.get("diffuseFactor") {
            pbr.entry("baseColorFactor").or_insert_with(|| f.clone());
        }
    }
}

fn f64_pair(v: Option<&Value>, default: [f64; 2]) -> [f64; 2] {
    let a = v.and_then(Value::as_array);
    let at = |i: usize| a.and_then(|a| a.get(i)).and_then(Value::as_f64);
    match (at(0), at(1)) {
        (Some(x), Some(y)) if x.is_finite() && y.is_finite() => [x, y],
        _ => default,
    }
}

/// The `KHR_texture_transform` of each material's base colour texture.
fn uv_transforms(top: &Map<String, Value>) -> BTreeMap<usize, UvTransform> {
    let mut out = BTreeMap::new();
    let Some(materials) = top.get("materials").and_then(Value::as_array) else {
        return out;
    };
    for (mi, material) in materials.iter().enumerate() {
        let info = material
            .get("pbrMetallicRoughness")
            .and_then(|p| p.get("baseColorTexture"));
        let Some(t) = info
            .and_then(|i| i.get("extensions"))
            .and_then(|e| e.get("KHR_texture_transform"))
        else {
            continue;
        };
        let base_set = info
            .and_then(|i| i.get("texCoord"))
            .and_then(Value::as_u64)
            .unwrap_or(0);
        let tex_coord = t
            .get("texCoord")
            .and_then(Value::as_u64)
            .unwrap_or(base_set);
        let rotation = t
            .get("rotation")
            .and_then(Value::as_f64)
            .filter(|r| r.is_finite())
            .unwrap_or(0.0);
        out.insert(
            mi,
            UvTransform {
                offset: f64_pair(t.get("offset"), [0.0, 0.0]),
                rotation,
                scale: f64_pair(t.get("scale"), [1.0, 1.0]),
                tex_coord: u32::try_from(tex_coord).unwrap_or(u32::MAX),
            },
        );
    }
    out
}

fn usize_of(v: &Value, key: &str) -> Option<usize> {
    v.get(key)
        .and_then(Value::as_u64)
        .and_then(|x| usize::try_from(x).ok())
}

/// The meshopt-compressed bufferViews, and the buffers that only stand in for them.
fn meshopt_views(top: &Map<String, Value>) -> (Vec<MeshoptView>, Vec<usize>) {
    const NAMES: [&str; 2] = ["EXT_meshopt_compression", "KHR_meshopt_compression"];
    let mut views = Vec::new();
    if let Some(list) = top.get("bufferViews").and_then(Value::as_array) {
        for (vi, view) in list.iter().enumerate() {
            for extension in NAMES {
                let Some(e) = view.get("extensions").and_then(|e| e.get(extension)) else {
                    continue;
                };
                let text = |key: &str, default: &str| {
                    e.get(key)
                        .and_then(Value::as_str)
                        .unwrap_or(default)
                        .to_string()
                };
                views.push(MeshoptView {
                    view: vi,
                    extension,
                    buffer: usize_of(e, "buffer").unwrap_or(usize::MAX),
                    offset: usize_of(e, "byteOffset").unwrap_or(0),
                    length: usize_of(e, "byteLength").unwrap_or(0),
                    stride: usize_of(e, "byteStride").unwrap_or(0),
                    count: usize_of(e, "count").unwrap_or(0),
                    mode: text("mode", ""),
                    filter: text("filter", "NONE"),
                });
                break;
            }
        }
    }
    let mut fallback = Vec::new();
    if let Some(list) = top.get("buffers").and_then(Value::as_array) {
        for (bi, buffer) in list.iter().enumerate() {
            let is_fallback = NAMES.iter().any(|n| {
                buffer
                    .get("extensions")
                    .and_then(|e| e.get(*n))
                    .and_then(|e| e.get("fallback"))
                    .and_then(Value::as_bool)
                    == Some(true)
            });
            if is_fallback {
                fallback.push(bi);
            }
        }
    }
    (views, fallback)
}

/// The instancing attributes of every node that has them.
fn instancing(top: &Map<String, Value>) -> BTreeMap<usize, Instancing> {
    let mut out = BTreeMap::new();
    let Some(nodes) = top.get("nodes").and_then(Value::as_array) else {
        return out;
    };
    for (ni, node) in nodes.iter().enumerate() {
        let Some(attrs) = node
            .get("extensions")
            .and_then(|e| e.get("EXT_mesh_gpu_instancing"))
            .and_then(|e| e.get("attributes"))
        else {
            continue;
        };
        out.insert(
            ni,
            Instancing {
                translation: usize_of(attrs, "TRANSLATION"),
                rotation: usize_of(attrs, "ROTATION"),
                scale: usize_of(attrs, "SCALE"),
            },
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_transform_of_quarter_turn_offset_and_scale_maps_as_the_extension_defines() {
        // KHR_texture_transform: T * R * S with R = [[cos, sin], [-sin, cos]].
        let t = UvTransform {
            offset: [0.5, 0.25],
            rotation: std::f64::consts::FRAC_PI_2,
            scale: [2.0, 3.0],
            tex_coord: 0,
        };
        let [u, v] = t.apply([1.0, 1.0]);
        // S: (2, 3); R(90°): (cos·2 + sin·3, −sin·2 + cos·3) = (3, −2); T: (3.5, −1.75).
        assert!((u - 3.5).abs() < 1e-6 && (v + 1.75).abs() < 1e-6, "{u} {v}");
    }

    #[test]
    fn draco_is_refused_by_name_and_an_unknown_required_extension_by_its_name() {
        let draco = br#"{"asset":{"version":"2.0"},"extensionsRequired":["KHR_draco_mesh_compression"],"extensionsUsed":["KHR_draco_mesh_compression"]}"#;
        let e = prepare(draco, "d.gltf").unwrap_err().to_string();
        assert!(e.contains("Draco"), "{e}");
        let other = br#"{"asset":{"version":"2.0"},"extensionsRequired":["EXT_x"]}"#;
        let e = prepare(other, "x.gltf").unwrap_err().to_string();
        assert!(e.contains("EXT_x"), "{e}");
    }
}
