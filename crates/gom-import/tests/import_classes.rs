//! Classes of real-world files that other projects' test corpora showed gom refusing
//! or converting wrongly (docs/reliability.md, "Outside corpora"), each on a small
//! file built here: glTF extensions that keep the geometry, compressed geometry,
//! valid core glTF, instancing, empty results, faulty UV sets, clips that move no
//! node, and FBX files that hold only a skeleton.

use std::io::Write;

use gom_import::gltf::{import_slice, GltfOptions};
use gom_import::source::{self, ImportOptions, OutputFormat};
use serde_json::{json, Value};

mod gltf_common;
use gltf_common::glb;

fn f32_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// One triangle at (0,0,0), (1,0,0), (0,1,0) with UVs (0,0), (1,0), (1,1) in the BIN
/// chunk (positions at 0, UVs at 36), `extra` merged into the document.
fn triangle(extra: Value, uv_semantic: &str) -> (Value, Vec<u8>) {
    let mut bin = f32_bytes(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
    bin.extend(f32_bytes(&[0.0, 0.0, 1.0, 0.0, 1.0, 1.0]));
    let mut doc = json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, uv_semantic: 1}, "material": 0}]}],
        "materials": [{"name": "m"}],
        "buffers": [{"byteLength": 60}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 36},
            {"buffer": 0, "byteOffset": 36, "byteLength": 24}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
             "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0]},
            {"bufferView": 1, "componentType": 5126, "count": 3, "type": "VEC2"}
        ]
    });
    merge(&mut doc, extra);
    (doc, bin)
}

/// `extra`'s keys into `doc`, objects merged recursively.
fn merge(doc: &mut Value, extra: Value) {
    match (doc, extra) {
        (Value::Object(d), Value::Object(e)) => {
            for (k, v) in e {
                merge(d.entry(k).or_insert(Value::Null), v);
            }
        }
        (d, e) => *d = e,
    }
}

fn import(doc: &Value, bin: &[u8]) -> (gom::Model, Vec<String>) {
    let (model, report) = import_slice(&glb(doc, bin), "t.glb", None, &GltfOptions::default())
        .unwrap_or_else(|e| panic!("import failed: {e}"));
    (model, report.report.warnings)
}

#[test]
fn required_extensions_that_keep_the_geometry_convert_with_one_warning_each() {
    let names = [
        "KHR_lights_punctual",
        "KHR_materials_unlit",
        "KHR_materials_emissive_strength",
        "KHR_materials_transmission",
        "KHR_materials_variants",
    ];
    let (doc, bin) = triangle(
        json!({"extensionsRequired": names, "extensionsUsed": names}),
        "TEXCOORD_0",
    );
    let (model, warnings) = import(&doc, &bin);
    assert_eq!(model.meshes.len(), 1);
    assert_eq!(model.meshes[0].indices.len(), 3);
    for name in names {
        let n = warnings.iter().filter(|w| w.starts_with(name)).count();
        assert_eq!(n, 1, "{name}: {warnings:?}");
    }
}

#[test]
fn a_spec_gloss_material_gives_its_diffuse_texture_and_factor_as_base_colour() {
    let sg = "KHR_materials_pbrSpecularGlossiness";
    let (doc, bin) = triangle(
        json!({
            "extensionsRequired": [sg], "extensionsUsed": [sg],
            "images": [{"uri": "diffuse.png"}],
            "textures": [{"source": 0}],
            "materials": [{"name": "m", "extensions": {sg: {
                "diffuseTexture": {"index": 0}, "diffuseFactor": [0.5, 0.25, 1.0, 1.0]
            }}}]
        }),
        "TEXCOORD_0",
    );
    let (model, warnings) = import(&doc, &bin);
    let m = &model.materials[0];
    assert_eq!(m.base_color_texture.as_deref(), Some("diffuse.png"));
    assert_eq!(m.base_color_factor, [0.5, 0.25, 1.0, 1.0]);
    assert!(warnings.iter().any(|w| w.starts_with(sg)), "{warnings:?}");
}

#[test]
fn a_base_colour_texture_transform_is_baked_into_the_uvs() {
    let tt = "KHR_texture_transform";
    let (doc, bin) = triangle(
        json!({
            "extensionsRequired": [tt], "extensionsUsed": [tt],
            "images": [{"uri": "a.png"}],
            "textures": [{"source": 0}],
            "materials": [{"name": "m", "pbrMetallicRoughness": {"baseColorTexture": {
                "index": 0,
                "extensions": {tt: {"offset": [0.5, 0.0], "scale": [2.0, 3.0]}}
            }}}]
        }),
        "TEXCOORD_0",
    );
    let (model, _) = import(&doc, &bin);
    let mut uvs = model.meshes[0].vertices.uv0.clone().expect("uv0");
    uvs.sort_by(|a, b| a.partial_cmp(b).expect("finite"));
    // (u, v) → (2u + 0.5, 3v) for (0,0), (1,0), (1,1).
    assert_eq!(uvs, vec![[0.5, 0.0], [2.5, 0.0], [2.5, 3.0]]);
}

/// The triangle's positions, a quantized `i16` copy (KHR_mesh_quantization) and a
/// meshopt-compressed copy (EXT_meshopt_compression with a fallback buffer) read the
/// same.
#[test]
fn quantized_and_meshopt_compressed_positions_read_as_the_plain_ones() {
    let (plain_doc, plain_bin) = triangle(json!({}), "TEXCOORD_0");
    let (plain, _) = import(&plain_doc, &plain_bin);

    // Quantized: positions as i16 (not normalised), 8 bytes a vertex.
    let q: Vec<u8> = [[0i16, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0]]
        .iter()
        .flatten()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let mut bin = q.clone();
    bin.extend(f32_bytes(&[0.0, 0.0, 1.0, 0.0, 1.0, 1.0]));
    let mut doc = plain_doc.clone();
    merge(
        &mut doc,
        json!({
            "extensionsRequired": ["KHR_mesh_quantization"],
            "extensionsUsed": ["KHR_mesh_quantization"],
            "buffers": [{"byteLength": 48}],
            "bufferViews": [
                {"buffer": 0, "byteOffset": 0, "byteLength": 24, "byteStride": 8},
                {"buffer": 0, "byteOffset": 24, "byteLength": 24}
            ]
        }),
    );
    doc["accessors"][0]["componentType"] = json!(5122);
    let (quantized, _) = import(&doc, &bin);
    assert_eq!(quantized.meshes[0].vertices, plain.meshes[0].vertices);

    // Meshopt: both views compressed (ATTRIBUTES mode) into buffer 0; buffer 1 is the
    // fallback that holds nothing.
    let positions: Vec<[u32; 3]> = plain_bin[..36]
        .chunks_exact(12)
        .map(|c| {
            std::array::from_fn(|i| u32::from_le_bytes(c[4 * i..4 * i + 4].try_into().unwrap()))
        })
        .collect();
    let uvs: Vec<[u32; 2]> = plain_bin[36..]
        .chunks_exact(8)
        .map(|c| {
            std::array::from_fn(|i| u32::from_le_bytes(c[4 * i..4 * i + 4].try_into().unwrap()))
        })
        .collect();
    let p = meshopt::encode_vertex_buffer(&positions).expect("encode");
    let u = meshopt::encode_vertex_buffer(&uvs).expect("encode");
    let mut bin = p.clone();
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let u_at = bin.len();
    bin.extend(&u);
    let ext = "EXT_meshopt_compression";
    let view = |offset: usize, length: usize, stride: usize, plain_len: usize| {
        json!({"buffer": 1, "byteLength": plain_len, "extensions": {ext: {
            "buffer": 0, "byteOffset": offset, "byteLength": length,
            "byteStride": stride, "count": 3, "mode": "ATTRIBUTES"
        }}})
    };
    let mut doc = plain_doc.clone();
    doc["extensionsRequired"] = json!([ext]);
    doc["extensionsUsed"] = json!([ext]);
    doc["buffers"] = json!([
        {"byteLength": bin.len()},
        {"byteLength": 60, "extensions": {ext: {"fallback": true}}}
    ]);
    doc["bufferViews"] = json!([view(0, p.len(), 12, 36), view(u_at, u.len(), 8, 24)]);
    let (compressed, _) = import(&doc, &bin);
    assert_eq!(compressed.meshes[0].vertices, plain.meshes[0].vertices);
}

#[test]
fn draco_compressed_geometry_is_refused_with_a_message_that_names_draco() {
    let draco = "KHR_draco_mesh_compression";
    let (doc, bin) = triangle(
        json!({"extensionsRequired": [draco], "extensionsUsed": [draco]}),
        "TEXCOORD_0",
    );
    let e = import_slice(&glb(&doc, &bin), "d.glb", None, &GltfOptions::default())
        .expect_err("Draco is not decoded");
    let text = e.to_string();
    assert!(
        text.contains("Draco") && !text.contains("more problems"),
        "{text}"
    );
}

#[test]
fn a_scene_without_nodes_and_a_file_without_scenes_are_read() {
    let (mut doc, bin) = triangle(json!({}), "TEXCOORD_0");
    doc["scenes"] = json!([{}]);
    let (model, _) = import(&doc, &bin);
    assert!(model.meshes.is_empty(), "the scene draws nothing");
    let obj = doc.as_object_mut().expect("object");
    obj.remove("scenes");
    obj.remove("scene");
    let (model, _) = import(&doc, &bin);
    assert_eq!(model.meshes.len(), 1, "without scenes every node is drawn");
}

#[test]
fn a_channel_without_a_target_node_is_skipped_with_a_warning() {
    let (mut doc, mut bin) = triangle(json!({}), "TEXCOORD_0");
    // Times (0, 1) and two translations after the triangle's 60 bytes.
    bin.extend(f32_bytes(&[0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0]));
    merge(
        &mut doc,
        json!({
            "buffers": [{"byteLength": 92}],
            "animations": [{
                "name": "move",
                "samplers": [{"input": 2, "output": 3}],
                "channels": [
                    {"sampler": 0, "target": {"node": 0, "path": "translation"}},
                    {"sampler": 0, "target": {"path": "translation",
                        "extensions": {"KHR_animation_pointer": {"pointer": "/x"}}}}
                ]
            }]
        }),
    );
    let views = doc["bufferViews"].as_array_mut().expect("views");
    views.push(json!({"buffer": 0, "byteOffset": 60, "byteLength": 8}));
    views.push(json!({"buffer": 0, "byteOffset": 68, "byteLength": 24}));
    let accessors = doc["accessors"].as_array_mut().expect("accessors");
    accessors.push(
        json!({"bufferView": 2, "componentType": 5126, "count": 2, "type": "SCALAR",
        "min": [0.0], "max": [1.0]}),
    );
    accessors.push(json!({"bufferView": 3, "componentType": 5126, "count": 2, "type": "VEC3"}));
    let (model, warnings) = import(&doc, &bin);
    assert_eq!(model.clips.len(), 1);
    assert_eq!(model.clips[0].tracks.len(), 1);
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("channels[1]") && w.contains("skipped")),
        "{warnings:?}"
    );
}

#[test]
fn gpu_instances_are_expanded_each_at_its_own_transform() {
    let (mut doc, mut bin) = triangle(json!({}), "TEXCOORD_0");
    bin.extend(f32_bytes(&[1.0, 0.0, 0.0, 0.0, 2.0, 0.0]));
    let ext = "EXT_mesh_gpu_instancing";
    merge(
        &mut doc,
        json!({
            "extensionsRequired": [ext], "extensionsUsed": [ext],
            "buffers": [{"byteLength": 84}],
            "nodes": [{"mesh": 0, "extensions": {ext: {"attributes": {"TRANSLATION": 2}}}}]
        }),
    );
    doc["bufferViews"]
        .as_array_mut()
        .expect("views")
        .push(json!({"buffer": 0, "byteOffset": 60, "byteLength": 24}));
    doc["accessors"]
        .as_array_mut()
        .expect("accessors")
        .push(json!({"bufferView": 2, "componentType": 5126, "count": 2, "type": "VEC3"}));
    let (model, warnings) = import(&doc, &bin);
    assert_eq!(model.meshes.len(), 2);
    for (mesh, offset) in model.meshes.iter().zip([[1.0, 0.0], [0.0, 2.0]]) {
        let mut p = mesh.vertices.positions.clone();
        p.sort_by(|a, b| a.partial_cmp(b).expect("finite"));
        let mut want: Vec<[f32; 3]> = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]
            .iter()
            .map(|v| [v[0] + offset[0], v[1] + offset[1], 0.0])
            .collect();
        want.sort_by(|a, b| a.partial_cmp(b).expect("finite"));
        assert_eq!(p, want);
    }
    assert!(
        warnings.iter().any(|w| w.contains("2 instances")),
        "{warnings:?}"
    );
}

#[test]
fn texcoord_1_without_texcoord_0_is_read_as_texcoord_0_with_a_warning() {
    let (doc, bin) = triangle(json!({}), "TEXCOORD_1");
    let (model, warnings) = import(&doc, &bin);
    let v = &model.meshes[0].vertices;
    assert!(v.uv0.is_some() && v.uv1.is_none());
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("TEXCOORD_1 without TEXCOORD_0")),
        "{warnings:?}"
    );
}

/// Writes `bytes` to a temporary `.glb` and runs the Khronos validator on it; its
/// errors, or `None` when the validator is not installed (and not required).
fn khronos_errors(bytes: &[u8]) -> Option<Vec<String>> {
    let mut file = tempfile::Builder::new()
        .suffix(".glb")
        .tempfile()
        .expect("temp file");
    file.write_all(bytes).expect("write");
    let report = gltf_common::validate_with_khronos(file.path())?;
    Some(gltf_common::validator_errors(&report))
}

#[test]
fn a_file_with_nothing_gom_holds_gives_a_valid_empty_output_with_a_warning() {
    // Points only: the primitive is skipped, nothing is left.
    let (mut doc, bin) = triangle(json!({}), "TEXCOORD_0");
    doc["meshes"][0]["primitives"][0]["mode"] = json!(0);
    let path = std::path::Path::new("points.glb");
    let imported = source::import_bytes(
        path,
        &glb(&doc, &bin),
        source::SourceFormat::Glb,
        &ImportOptions::default(),
    )
    .expect("import");
    assert!(imported.model.meshes.is_empty() && imported.model.skeleton.bones.is_empty());
    assert!(
        imported.warnings.iter().any(|w| w.contains("empty model")),
        "{:?}",
        imported.warnings
    );
    let exported =
        source::export_imported(&imported, path, OutputFormat::Glb, path).expect("export");
    // The output reads back, and the Khronos validator (when installed) accepts it.
    import_slice(&exported.bytes, "out.glb", None, &GltfOptions::default()).expect("reads back");
    if let Some(errors) = khronos_errors(&exported.bytes) {
        assert!(errors.is_empty(), "{errors:?}");
    }
}

#[test]
fn an_animation_of_morph_weights_only_writes_no_clip_and_says_so() {
    let (mut doc, mut bin) = triangle(json!({}), "TEXCOORD_0");
    bin.extend(f32_bytes(&[0.0, 1.0, 0.0, 1.0]));
    merge(
        &mut doc,
        json!({
            "buffers": [{"byteLength": 76}],
            "animations": [{
                "name": "smile",
                "samplers": [{"input": 2, "output": 3}],
                "channels": [{"sampler": 0, "target": {"node": 0, "path": "weights"}}]
            }]
        }),
    );
    doc["bufferViews"].as_array_mut().expect("views").extend([
        json!({"buffer": 0, "byteOffset": 60, "byteLength": 8}),
        json!({"buffer": 0, "byteOffset": 68, "byteLength": 8}),
    ]);
    doc["accessors"].as_array_mut().expect("accessors").extend([
        json!({"bufferView": 2, "componentType": 5126, "count": 2, "type": "SCALAR",
            "min": [0.0], "max": [1.0]}),
        json!({"bufferView": 3, "componentType": 5126, "count": 2, "type": "SCALAR"}),
    ]);
    let (model, warnings) = import(&doc, &bin);
    assert!(model.clips.is_empty());
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("\"smile\" moves no node: no clip written")),
        "{warnings:?}"
    );
}

/// An ASCII FBX 7.4 file holding two joints (a parent and its child) and nothing
/// else: no mesh, no animation.
fn skeleton_only_fbx() -> String {
    let joint = |id: i64, name: &str, t: [f64; 3]| {
        format!(
            "\tNodeAttribute: {}, \"NodeAttribute::{name}\", \"LimbNode\" {{\n\t\tTypeFlags: \"Skeleton\"\n\t}}\n\tModel: {id}, \"Model::{name}\", \"LimbNode\" {{\n\t\tVersion: 232\n\t\tProperties70:  {{\n\t\t\tP: \"Lcl Translation\", \"Lcl Translation\", \"\", \"A\",{},{},{}\n\t\t}}\n\t}}\n",
            id + 100,
            t[0],
            t[1],
            t[2]
        )
    };
    let objects = joint(1001, "Hips", [0.0, 100.0, 0.0]) + &joint(1002, "Spine", [0.0, 20.0, 0.0]);
    let conns =
        "\tC: \"OO\",1101,1001\n\tC: \"OO\",1102,1002\n\tC: \"OO\",1001,0\n\tC: \"OO\",1002,1001\n";
    format!(
        "; FBX 7.4.0 project file\nFBXHeaderExtension:  {{\n\tFBXHeaderVersion: 1003\n\tFBXVersion: 7400\n}}\nGlobalSettings:  {{\n\tVersion: 1000\n\tProperties70:  {{\n\t\tP: \"UpAxis\", \"int\", \"Integer\", \"\",1\n\t\tP: \"UpAxisSign\", \"int\", \"Integer\", \"\",1\n\t\tP: \"FrontAxis\", \"int\", \"Integer\", \"\",2\n\t\tP: \"FrontAxisSign\", \"int\", \"Integer\", \"\",1\n\t\tP: \"CoordAxis\", \"int\", \"Integer\", \"\",0\n\t\tP: \"CoordAxisSign\", \"int\", \"Integer\", \"\",1\n\t\tP: \"UnitScaleFactor\", \"double\", \"Number\", \"\",1\n\t}}\n}}\nObjects:  {{\n{objects}}}\nConnections:  {{\n{conns}}}\n"
    )
}

#[test]
fn an_fbx_file_of_joints_without_meshes_keeps_its_skeleton() {
    let text = skeleton_only_fbx();
    let (model, _) = gom_import::fbx::convert(
        text.as_bytes(),
        "rig.fbx",
        &gom_import::fbx::FbxOptions::default(),
    )
    .expect("convert");
    let names: Vec<&str> = model
        .skeleton
        .bones
        .iter()
        .map(|b| b.name.as_str())
        .collect();
    assert_eq!(names, ["Hips", "Spine"]);
    assert_eq!(model.skeleton.bones[1].parent, 0);
    // Spine sits 20 cm above Hips: 0.2 m in GOM's metres.
    let t = &model.skeleton.bones[1].bind_local;
    assert!((t[13] - 0.2).abs() < 1e-6, "{t:?}");
}

#[test]
fn default_morph_weights_are_kept_on_the_target_and_pose_the_base_shape_as_baked() {
    // One target moving every vertex by +1 in y; the mesh's default weight 0.25 and the
    // node's 0.5 (the node's wins, as glTF says).
    let (mut doc, mut bin) = triangle(json!({}), "TEXCOORD_0");
    bin.extend(f32_bytes(&[0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0]));
    doc["buffers"] = json!([{"byteLength": 96}]);
    doc["bufferViews"]
        .as_array_mut()
        .expect("views")
        .push(json!({"buffer": 0, "byteOffset": 60, "byteLength": 36}));
    doc["accessors"].as_array_mut().expect("accessors").push(
        json!({"bufferView": 2, "componentType": 5126, "count": 3, "type": "VEC3",
            "min": [0.0, 1.0, 0.0], "max": [0.0, 1.0, 0.0]}),
    );
    doc["meshes"][0]["primitives"][0]["targets"] = json!([{"POSITION": 2}]);
    doc["meshes"][0]["weights"] = json!([0.25]);
    let ys = |model: &gom::Model| {
        let mut y: Vec<f32> = model.meshes[0]
            .vertices
            .positions
            .iter()
            .map(|p| p[1])
            .collect();
        y.sort_by(f32::total_cmp);
        y
    };
    // The target is kept with its default weight and the base shape is the source's;
    // baking the defaults (what a reader without blend shapes sees, and what `.tmd`
    // output does) gives the shape glTF draws.
    let posed = |doc: &Value, weight: f32, baked: [f32; 3]| {
        let (mut model, _) = import(doc, &bin);
        let targets = &model.meshes[0].morph_targets;
        assert_eq!(targets.len(), 1);
        assert_eq!(targets[0].default_weight, weight);
        assert_eq!(ys(&model), [0.0, 0.0, 1.0]);
        gom::morph::bake_defaults(&mut model);
        assert_eq!(ys(&model), baked);
    };
    posed(&doc, 0.25, [0.25, 0.25, 1.25]);
    doc["nodes"][0]["weights"] = json!([0.5]);
    posed(&doc, 0.5, [0.5, 0.5, 1.5]);
}

/// [`skeleton_only_fbx`] with its child joint at `(10, 20, 30)` cm and a triangle
/// `(0,0,0), (10,0,0), (0,10,5)` cm, with or without the
/// `GlobalSettings` block that declares FBX's default axes (Y up, Z front, X right,
/// right-handed) and its centimetre: files before FBX 6.1 have no such block.
fn offset_joint_fbx(declared: bool, with_mesh: bool) -> String {
    let mesh = "\tGeometry: 3000, \"Geometry::Tri\", \"Mesh\" {\n\t\tVertices: *9 {\n\t\t\ta: 0,0,0,10,0,0,0,10,5\n\t\t}\n\t\tPolygonVertexIndex: *3 {\n\t\t\ta: 0,1,-3\n\t\t}\n\t}\n\tModel: 3001, \"Model::Tri\", \"Mesh\" {\n\t\tVersion: 232\n\t}\n";
    let mut text = skeleton_only_fbx().replace("A\",0,20,0", "A\",10,20,30");
    assert!(text.contains("A\",10,20,30"));
    if with_mesh {
        text = text
            .replace("Objects:  {\n", &format!("Objects:  {{\n{mesh}"))
            .replace(
                "Connections:  {\n",
                "Connections:  {\n\tC: \"OO\",3000,3001\n\tC: \"OO\",3001,0\n",
            );
    }
    if declared {
        return text;
    }
    let start = text.find("GlobalSettings:").unwrap();
    let end = start + text[start..].find("\n}\n").unwrap() + 3;
    format!("{}{}", &text[..start], &text[end..])
}

#[test]
fn an_fbx_file_that_declares_no_axes_reads_in_fbx_default_axes_with_a_warning() {
    let read = |declared: bool, with_mesh: bool| {
        gom_import::fbx::convert(
            offset_joint_fbx(declared, with_mesh).as_bytes(),
            "old.fbx",
            &gom_import::fbx::FbxOptions::default(),
        )
        .expect("convert")
    };
    let (with, with_report) = read(true, false);
    let (without, without_report) = read(false, false);
    // the same joint in the same place: 10, 20, 30 cm, z mirrored into GOM's space
    let t = without.skeleton.bones[1].bind_local;
    assert_eq!(
        without.skeleton.bones[1].bind_local,
        with.skeleton.bones[1].bind_local
    );
    assert!(
        (t[12] - 0.1).abs() < 1e-6 && (t[13] - 0.2).abs() < 1e-6,
        "{t:?}"
    );
    assert!((t[14] + 0.3).abs() < 1e-6, "{t:?}");
    let says = |r: &gom_import::report::Report| {
        r.warnings
            .iter()
            .filter(|w| w.contains("declares no axes"))
            .count()
    };
    assert_eq!(says(&without_report), 1, "{:?}", without_report.warnings);
    assert_eq!(says(&with_report), 0, "{:?}", with_report.warnings);
    // a triangle: the same corners, mirrored, in the same order around its face
    let ((with, _), (without, _)) = (read(true, true), read(false, true));
    let corners = |m: &gom::Model| -> Vec<[f32; 3]> {
        let part = &m.meshes[0];
        part.indices
            .iter()
            .map(|&i| part.vertices.positions[i as usize])
            .collect()
    };
    assert_eq!(corners(&without), corners(&with));
    let mut sorted: Vec<[i32; 3]> = corners(&without)
        .iter()
        .map(|p| p.map(|v| (v * 100.0).round() as i32))
        .collect();
    sorted.sort_unstable();
    assert_eq!(sorted, [[0, 0, 0], [0, 10, -5], [10, 0, 0]]);
}
