//! glTF → GOM on small documents built here: winding after the mirror (D2), weight
//! reduction (D7), several skins in one skeleton, strips and fans, embedded images,
//! and broken input that must give a clear error, never a panic.

use gom_import::gltf::{import, import_slice, GltfError, GltfOptions};
use serde_json::{json, Value};
mod vec3;
use vec3::{cross, dot, sub};

/// A `.glb` container holding `doc` and `bin`, built by hand (GLB 2.0 layout).
fn glb(doc: &Value, bin: &[u8]) -> Vec<u8> {
    let mut text = doc.to_string().into_bytes();
    while !text.len().is_multiple_of(4) {
        text.push(b' ');
    }
    let mut bin = bin.to_vec();
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let total = 12 + 8 + text.len() + if bin.is_empty() { 0 } else { 8 + bin.len() };
    let mut out = Vec::new();
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&text);
    if !bin.is_empty() {
        out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(&bin);
    }
    out
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn u16s(v: &[u16]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Appends `bytes` (4-aligned) and returns a bufferView JSON for it.
fn push_view(bin: &mut Vec<u8>, bytes: &[u8]) -> Value {
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let v = json!({ "buffer": 0, "byteOffset": bin.len(), "byteLength": bytes.len() });
    bin.extend_from_slice(bytes);
    v
}

/// A unit cube centred at the origin, 24 vertices, front faces counter-clockwise seen
/// from outside (glTF's rule), on a node with the given scale.
fn cube_glb(node_scale: [f32; 3]) -> Vec<u8> {
    let mut pos = Vec::new();
    let mut idx: Vec<u16> = Vec::new();
    for axis in 0..3 {
        for sign in [1.0f32, -1.0] {
            let mut n = [0.0; 3];
            n[axis] = sign;
            // u × v = n, so u, v, then −u… runs counter-clockwise around n.
            let mut u = [0.0; 3];
            u[(axis + 1) % 3] = 1.0;
            let v = cross(n, u);
            let base = (pos.len() / 3) as u16;
            for (a, b) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
                for k in 0..3 {
                    pos.push(0.5 * (n[k] + a * u[k] + b * v[k]));
                }
            }
            idx.extend([base, base + 1, base + 2, base, base + 2, base + 3]);
            // The source itself is counter-clockwise-front in right-handed space.
            let p = |i: u16| {
                let i = usize::from(i) * 3;
                [pos[i], pos[i + 1], pos[i + 2]]
            };
            let nn = cross(sub(p(base + 1), p(base)), sub(p(base + 2), p(base)));
            assert!(dot(nn, n) > 0.0);
        }
    }
    let mut bin = Vec::new();
    let v0 = push_view(&mut bin, &f32s(&pos));
    let v1 = push_view(&mut bin, &u16s(&idx));
    let doc = json!({
        "asset": { "version": "2.0" },
        "scene": 0,
        "scenes": [{ "nodes": [0] }],
        "nodes": [{ "mesh": 0, "scale": node_scale }],
        "meshes": [{ "primitives": [{ "attributes": { "POSITION": 0 }, "indices": 1 }] }],
        "buffers": [{ "byteLength": bin.len() }],
        "bufferViews": [v0, v1],
        "accessors": [
            { "bufferView": 0, "componentType": 5126, "count": 24, "type": "VEC3",
              "min": [-0.5, -0.5, -0.5], "max": [0.5, 0.5, 0.5] },
            { "bufferView": 1, "componentType": 5123, "count": 36, "type": "SCALAR" }
        ]
    });
    glb(&doc, &bin)
}

/// The bone names of a model, in bone order.
fn bone_names(model: &gom::Model) -> Vec<&str> {
    model
        .skeleton
        .bones
        .iter()
        .map(|b| b.name.as_str())
        .collect()
}

fn opts() -> GltfOptions {
    GltfOptions::default()
}

#[test]
fn converted_cube_faces_outward_under_clockwise_front() {
    for scale in [[1.0, 1.0, 1.0], [-1.0, 2.0, 1.0]] {
        let (model, _) = import_slice(&cube_glb(scale), "cube.glb", None, &opts()).unwrap();
        let part = &model.meshes[0];
        assert_eq!(part.indices.len(), 36);
        let p = &part.vertices.positions;
        for tri in part.indices.chunks_exact(3) {
            let (a, b, c) = (p[tri[0] as usize], p[tri[1] as usize], p[tri[2] as usize]);
            // D2 / Direct3D: a clockwise front face has normal (b − a) × (c − a)
            // pointing at the viewer, i.e. out of the cube.
            let n = cross(sub(b, a), sub(c, a));
            let centroid = [0, 1, 2].map(|k| (a[k] + b[k] + c[k]) / 3.0);
            assert!(
                dot(n, centroid) > 0.0,
                "scale {scale:?}: {tri:?} faces inward"
            );
        }
        // The mirror: the glTF corner (0.5, 0.5, 0.5) scaled is at z = −0.5 now.
        let want = [0.5 * scale[0], 0.5 * scale[1], -0.5 * scale[2]];
        assert!(p.contains(&want), "{want:?} missing");
    }
}

/// One triangle skinned to six joints through JOINTS_0/1 and WEIGHTS_0/1.
fn six_influences_glb() -> Vec<u8> {
    let mut bin = Vec::new();
    let pos = [0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0];
    let v0 = push_view(&mut bin, &f32s(&pos));
    // Every vertex: joints 0..5 with weights .05 .30 .10 .20 .25 .10 (sum 1).
    let j0: Vec<u8> = [0u8, 1, 2, 3].repeat(3);
    let j1: Vec<u8> = [4u8, 5, 0, 0].repeat(3);
    let w0: Vec<f32> = [0.05f32, 0.30, 0.10, 0.20].repeat(3);
    let w1: Vec<f32> = [0.25f32, 0.10, 0.0, 0.0].repeat(3);
    let v1 = push_view(&mut bin, &j0);
    let v2 = push_view(&mut bin, &j1);
    let v3 = push_view(&mut bin, &f32s(&w0));
    let v4 = push_view(&mut bin, &f32s(&w1));
    let joints: Vec<Value> = (1..=6)
        .map(|i| json!({ "name": format!("j{i}"), "translation": [i as f32, 0.0, 0.0] }))
        .collect();
    let mut nodes = vec![json!({ "mesh": 0, "skin": 0 })];
    nodes.extend(joints);
    let doc = json!({
        "asset": { "version": "2.0" },
        "scene": 0,
        "scenes": [{ "nodes": [0, 1, 2, 3, 4, 5, 6] }],
        "nodes": nodes,
        "skins": [{ "joints": [1, 2, 3, 4, 5, 6] }],
        "meshes": [{ "primitives": [{ "attributes": {
            "POSITION": 0, "JOINTS_0": 1, "JOINTS_1": 2, "WEIGHTS_0": 3, "WEIGHTS_1": 4 } }] }],
        "buffers": [{ "byteLength": bin.len() }],
        "bufferViews": [v0, v1, v2, v3, v4],
        "accessors": [
            { "bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
              "min": [0, 0, 0], "max": [1, 1, 0] },
            { "bufferView": 1, "componentType": 5121, "count": 3, "type": "VEC4" },
            { "bufferView": 2, "componentType": 5121, "count": 3, "type": "VEC4" },
            { "bufferView": 3, "componentType": 5126, "count": 3, "type": "VEC4" },
            { "bufferView": 4, "componentType": 5126, "count": 3, "type": "VEC4" }
        ]
    });
    glb(&doc, &bin)
}

#[test]
fn six_influences_are_all_kept_sorted_over_eight_slots() {
    let (model, report) = import_slice(&six_influences_glb(), "six.glb", None, &opts()).unwrap();
    // Joints j1..j6 are root nodes 1..6 in index order: bones 0..5.
    let names = bone_names(&model);
    assert_eq!(names, ["j1", "j2", "j3", "j4", "j5", "j6"]);
    let v = &model.meshes[0].vertices;
    // All six (up to eight are kept, docs/extensions.md §3): j2 .30, j5 .25, j4 .20,
    // then the tie j3/j6 at .10 in bone order (j3 = bone 2 first), then j1 .05; the
    // first four in the skin attribute, the rest in slots 4..8. Nothing renormalised.
    for i in 0..v.len() {
        let (bones, weights) = v.influences(i);
        assert_eq!(bones, [1, 4, 3, 2, 5, 0, 0, 0]);
        let want = [0.30, 0.25, 0.20, 0.10, 0.10, 0.05, 0.0, 0.0];
        for (w, e) in weights.iter().zip(want) {
            assert!((f64::from(*w) - e).abs() < 1e-6, "{weights:?}");
        }
    }
    // The weight rules hold over the eight slots.
    let findings = gom::validate::validate(&model);
    assert!(
        !findings
            .iter()
            .any(|f| f.check == gom::validate::Check::Weights),
        "{findings:?}"
    );
    let dropped = report.report.dropped_influences;
    assert_eq!(dropped.vertices, 0);
    assert_eq!(dropped.influences, 0);
}

#[test]
fn two_skins_share_one_skeleton_with_their_own_inverse_binds() {
    // Nodes: 0 root, 1 a (child of 0), 2 b (child of 0), meshes 3 and 4, both
    // weighting every vertex fully to joint 0. Skin 0 = [a], inverse bind matching
    // the rest pose; skin 1 = [b, a], b's inverse bind matching, a's not (x = −2).
    let mut bin = Vec::new();
    let pos = [0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0];
    let v0 = push_view(&mut bin, &f32s(&pos));
    let v1 = push_view(&mut bin, &[0u8, 0, 0, 0].repeat(3));
    let v2 = push_view(&mut bin, &f32s(&[1.0f32, 0.0, 0.0, 0.0].repeat(3)));
    let mut ibm0 = vec![0.0f32; 16];
    let mut ibm1 = vec![0.0f32; 32];
    for i in 0..4 {
        ibm0[i * 5] = 1.0;
        ibm1[i * 5] = 1.0;
        ibm1[16 + i * 5] = 1.0;
    }
    ibm0[12] = -1.0; // a at x = 1: its inverse
    ibm1[13] = -1.0; // b at y = 1: its inverse
    ibm1[16 + 12] = -2.0; // a bound elsewhere in skin 1
    let v3 = push_view(&mut bin, &f32s(&ibm0));
    let v4 = push_view(&mut bin, &f32s(&ibm1));
    let doc = json!({
        "asset": { "version": "2.0" },
        "scenes": [{ "nodes": [0, 3, 4] }],
        "nodes": [
            { "name": "root", "children": [1, 2] },
            { "name": "a", "translation": [1.0, 0.0, 0.0] },
            { "name": "b", "translation": [0.0, 1.0, 0.0] },
            { "name": "m0", "mesh": 0, "skin": 0 },
            { "name": "m1", "mesh": 0, "skin": 1 }
        ],
        "skins": [
            { "joints": [1], "inverseBindMatrices": 3 },
            { "joints": [2, 1], "inverseBindMatrices": 4 }
        ],
        "meshes": [{ "primitives": [{ "attributes": {
            "POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2 } }] }],
        "buffers": [{ "byteLength": bin.len() }],
        "bufferViews": [v0, v1, v2, v3, v4],
        "accessors": [
            { "bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
              "min": [0, 0, 0], "max": [1, 1, 0] },
            { "bufferView": 1, "componentType": 5121, "count": 3, "type": "VEC4" },
            { "bufferView": 2, "componentType": 5126, "count": 3, "type": "VEC4" },
            { "bufferView": 3, "componentType": 5126, "count": 1, "type": "MAT4" },
            { "bufferView": 4, "componentType": 5126, "count": 2, "type": "MAT4" }
        ]
    });
    let (model, _) = import_slice(&glb(&doc, &bin), "skins.glb", None, &opts()).unwrap();
    let names = bone_names(&model);
    // Skin 1 binds a elsewhere than skin 0, which bound it first: skin 1's mesh is
    // skinned through an extra bone on a (docs/design.md, "Bind pose and rest pose").
    assert_eq!(names, ["root", "a", "b", "a@skins[1]"]);
    let paths: Vec<&str> = model
        .skeleton
        .bones
        .iter()
        .map(|b| b.path.as_str())
        .collect();
    assert_eq!(paths, ["root", "root/a", "root/b", "root/a/a@skins[1]"]);
    assert_eq!(model.meshes.len(), 2, "one part per skinned node (rule M1)");
    // Each part carries its own skin's inverse binds; bones outside the skin get the
    // inverse of their rest world matrix (a root at the origin: identity).
    let (p0, p1) = (&model.meshes[0], &model.meshes[1]);
    for part in [p0, p1] {
        assert_eq!(part.inverse_bind.len(), 4);
        assert_eq!(part.inverse_bind[0], gom::IDENTITY);
    }
    assert!(p0
        .vertices
        .skin
        .as_ref()
        .unwrap()
        .iter()
        .all(|s| s.bones[0] == 1));
    assert!(p1
        .vertices
        .skin
        .as_ref()
        .unwrap()
        .iter()
        .all(|s| s.bones[0] == 2));
    assert_eq!(p0.inverse_bind[1][12], -1.0);
    assert_eq!(p1.inverse_bind[1][12], -1.0, "a's bind, skin 0's");
    assert_eq!(
        p1.inverse_bind[3][12], -2.0,
        "skin 1's own inverse bind of a, on the extra bone"
    );
    assert!(gom::validate::validate(&model).is_empty());
    assert_eq!(p1.inverse_bind[2][13], -1.0);
}

#[test]
fn strips_and_fans_become_lists_and_points_are_skipped() {
    let mut bin = Vec::new();
    // A unit quad in the z = 0 plane: 0 (0,0) 1 (1,0) 2 (0,1) 3 (1,1).
    let pos = [
        0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0,
    ];
    let v0 = push_view(&mut bin, &f32s(&pos));
    let v1 = push_view(&mut bin, &u16s(&[0, 1, 3, 2]));
    let acc = |view: usize, ty: &str, ct: u32, count: usize| json!({ "bufferView": view, "componentType": ct, "count": count, "type": ty });
    let mut pos_acc = acc(0, "VEC3", 5126, 4);
    pos_acc["min"] = json!([0, 0, 0]);
    pos_acc["max"] = json!([1, 1, 0]);
    let doc = json!({
        "asset": { "version": "2.0" },
        "scenes": [{ "nodes": [0] }],
        "nodes": [{ "mesh": 0 }],
        "meshes": [{ "primitives": [
            { "attributes": { "POSITION": 0 }, "mode": 5 },
            { "attributes": { "POSITION": 0 }, "indices": 1, "mode": 6 },
            { "attributes": { "POSITION": 0 }, "mode": 0 }
        ] }],
        "buffers": [{ "byteLength": bin.len() }],
        "bufferViews": [v0, v1],
        "accessors": [pos_acc, acc(1, "SCALAR", 5123, 4)]
    });
    let (model, report) = import_slice(&glb(&doc, &bin), "modes.glb", None, &opts()).unwrap();
    let part = &model.meshes[0];
    // Strip 0 1 2 3 → (0 1 2) (2 1 3); fan 0 1 3 2 → (1 3 0) (3 2 0) per the glTF
    // spec; then the mirror swaps the 2nd and 3rd index. The two primitives share the
    // POSITION accessor, hence the vertices.
    assert_eq!(part.vertices.len(), 4);
    assert_eq!(part.indices, [0, 2, 1, 2, 3, 1, 1, 0, 3, 3, 0, 2]);
    assert_eq!(part.submeshes.len(), 2);
    assert!(report
        .report
        .warnings
        .iter()
        .any(|w| w.contains("primitives[2]") && w.contains("Points")));
}

#[test]
fn embedded_images_are_extracted_with_deterministic_names() {
    let mut bin = Vec::new();
    let v0 = push_view(
        &mut bin,
        &f32s(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]),
    );
    let png = b"\x89PNG\r\n\x1a\nnot really an image";
    let v1 = push_view(&mut bin, png);
    let doc = json!({
        "asset": { "version": "2.0" },
        "scenes": [{ "nodes": [0] }],
        "nodes": [{ "mesh": 0 }],
        "meshes": [{ "primitives": [{ "attributes": { "POSITION": 0 }, "material": 0 }] }],
        "materials": [
            { "name": "embedded", "pbrMetallicRoughness": {
                "baseColorFactor": [0.5, 0.25, 1.0, 1.0], "baseColorTexture": { "index": 0 } } },
            { "pbrMetallicRoughness": { "baseColorTexture": { "index": 1 } } }
        ],
        "textures": [{ "source": 0 }, { "source": 1 }],
        "images": [
            { "bufferView": 1, "mimeType": "image/png" },
            { "uri": "textures/wood%20grain.jpg" }
        ],
        "buffers": [{ "byteLength": bin.len() }],
        "bufferViews": [v0, v1],
        "accessors": [{ "bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                        "min": [0, 0, 0], "max": [1, 1, 0] }]
    });
    let (model, report) = import_slice(&glb(&doc, &bin), "dir/crate.glb", None, &opts()).unwrap();
    assert_eq!(model.materials.len(), 2);
    assert_eq!(model.materials[0].name, "embedded");
    assert_eq!(model.materials[0].base_color_factor, [0.5, 0.25, 1.0, 1.0]);
    assert_eq!(
        model.materials[0].base_color_texture.as_deref(),
        Some("crate_image0.png")
    );
    assert_eq!(model.materials[1].name, "material1");
    assert_eq!(
        model.materials[1].base_color_texture.as_deref(),
        Some("textures/wood grain.jpg"),
        "a relative URI becomes a decoded path"
    );
    assert_eq!(model.materials[1].base_color_factor, [1.0; 4]);
    assert_eq!(report.images.len(), 1);
    assert_eq!(report.images[0].file_name, "crate_image0.png");
    assert_eq!(report.images[0].bytes, png);
    assert_eq!(model.meshes[0].submeshes[0].material_index, 0);
}

fn expect_error(bytes: &[u8], name: &str, base: Option<&std::path::Path>, needles: &[&str]) {
    match import_slice(bytes, name, base, &opts()) {
        Ok(_) => panic!("{name}: accepted"),
        Err(e) => {
            let text = e.to_string();
            assert!(text.contains(name), "{text:?} does not name {name}");
            for n in needles {
                assert!(text.contains(n), "{text:?} does not mention {n:?}");
            }
        }
    }
}

#[test]
fn bad_json_is_a_clear_error() {
    expect_error(
        b"{\"asset\": {\"version\": \"2.0\"",
        "bad.gltf",
        None,
        &["JSON"],
    );
    expect_error(b"", "empty.gltf", None, &["JSON"]);
    // Valid JSON, invalid glTF: a mesh names an accessor that does not exist.
    let doc = json!({
        "asset": { "version": "2.0" },
        "meshes": [{ "primitives": [{ "attributes": { "POSITION": 3 } }] }]
    });
    expect_error(doc.to_string().as_bytes(), "ref.gltf", None, &["meshes[0]"]);
}

#[test]
fn missing_buffer_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let doc = json!({
        "asset": { "version": "2.0" },
        "buffers": [{ "byteLength": 36, "uri": "gone.bin" }]
    });
    let path = dir.path().join("missing.gltf");
    std::fs::write(&path, doc.to_string()).unwrap();
    let err = import(&path, &opts()).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, GltfError::Invalid { .. }), "{err:?}");
    assert!(
        text.contains("missing.gltf") && text.contains("buffers[0]"),
        "{text}"
    );
    assert!(text.contains("gone.bin"), "{text}");
    // From memory, without a base directory.
    expect_error(
        doc.to_string().as_bytes(),
        "mem.gltf",
        None,
        &["buffers[0]"],
    );
    // A GLB whose buffer wants the BIN chunk it does not have.
    let doc = json!({ "asset": { "version": "2.0" }, "buffers": [{ "byteLength": 4 }] });
    expect_error(&glb(&doc, &[]), "nobin.glb", None, &["buffers[0]", "BIN"]);
    // A buffer shorter than its byteLength.
    let doc = json!({ "asset": { "version": "2.0" }, "buffers": [{ "byteLength": 8 }] });
    expect_error(
        &glb(&doc, &[1, 2, 3, 4]),
        "short.glb",
        None,
        &["buffers[0]", "byteLength"],
    );
}

#[test]
fn accessor_out_of_range_is_a_clear_error() {
    let mut bin = Vec::new();
    let v0 = push_view(&mut bin, &f32s(&[0.0; 9]));
    let v1 = push_view(&mut bin, &u16s(&[0, 1, 7]));
    let base = json!({
        "asset": { "version": "2.0" },
        "scenes": [{ "nodes": [0] }],
        "nodes": [{ "mesh": 0 }],
        "meshes": [{ "primitives": [{ "attributes": { "POSITION": 0 }, "indices": 1 }] }],
        "buffers": [{ "byteLength": bin.len() }],
        "bufferViews": [v0, v1],
        "accessors": [
            { "bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3" },
            { "bufferView": 1, "componentType": 5123, "count": 3, "type": "SCALAR" }
        ]
    });
    // An index past the vertex count.
    expect_error(&glb(&base, &bin), "index.glb", None, &["accessors[1]", "7"]);
    // More elements than the view holds.
    let mut doc = base.clone();
    doc["accessors"][0]["count"] = json!(1000);
    expect_error(
        &glb(&doc, &bin),
        "count.glb",
        None,
        &["accessors[0]", "bufferViews[0]"],
    );
    // A view past the end of its buffer.
    let mut doc = base.clone();
    doc["bufferViews"][0]["byteOffset"] = json!(1 << 20);
    expect_error(&glb(&doc, &bin), "view.glb", None, &["bufferViews[0]"]);
    // Absurd counts with no bytes behind them are refused before allocating.
    let mut doc = base;
    doc["accessors"][0] =
        json!({ "componentType": 5126, "count": 4_000_000_000u64, "type": "VEC3" });
    expect_error(&glb(&doc, &bin), "huge.glb", None, &["accessors[0]"]);
}

#[test]
fn truncated_or_corrupted_glb_never_panics() {
    let whole = six_influences_glb();
    assert!(import_slice(&whole, "whole.glb", None, &opts()).is_ok());
    for len in 0..whole.len() {
        let cut = &whole[..len];
        match import_slice(cut, "cut.glb", None, &opts()) {
            Ok(_) => panic!("a .glb cut to {len} of {} bytes was accepted", whole.len()),
            Err(e) => assert!(e.to_string().contains("cut.glb"), "{e}"),
        }
    }
    let e = import_slice(&whole[..20], "cut.glb", None, &opts()).unwrap_err();
    assert!(matches!(e, GltfError::Container { .. }), "{e:?}");
    // Byte flips anywhere: an error or a model, never a panic.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..3000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let mut bytes = whole.clone();
        let at = (state % bytes.len() as u64) as usize;
        bytes[at] ^= (state >> 32) as u8 | 1;
        let _ = import_slice(&bytes, "flip.glb", None, &opts());
    }
}

#[test]
fn corrupted_buffers_of_a_real_model_never_panic() {
    // The demo model as a .glb: flipping bytes of its BIN chunk corrupts indices,
    // joints, weights, matrices and key times.
    let gom_import::gltf::Exported::Glb(whole) =
        gom_import::gltf::export(&gom_demo::build(), &Default::default()).unwrap()
    else {
        unreachable!("asked for a .glb")
    };
    let json_len = u32::from_le_bytes([whole[12], whole[13], whole[14], whole[15]]) as usize;
    let bin_start = 20 + json_len + 8;
    assert!(import_slice(&whole, "demo.glb", None, &opts()).is_ok());
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..2000 {
        let mut bytes = whole.clone();
        for _ in 0..4 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let at = bin_start + (state % (whole.len() - bin_start) as u64) as usize;
            bytes[at] = (state >> 40) as u8;
        }
        let _ = import_slice(&bytes, "flip.glb", None, &opts());
    }
}

#[test]
fn numbers_changed_in_sample_json_never_panic() {
    let Some(dir) = gom_test_support::shared_data("gltf") else {
        return;
    };
    for name in ["SimpleSkin.gltf", "AnimatedTriangle.gltf"] {
        let text = std::fs::read(dir.join(name)).unwrap();
        // Every digit outside the base64 data, set to 9 and to 0 in turn: indices,
        // counts, offsets, strides, component types and values all go wrong somewhere.
        let mut in_string = false;
        let mut tried = 0;
        for at in 0..text.len() {
            if text[at] == b'"' {
                in_string = !in_string;
            }
            if in_string || !text[at].is_ascii_digit() {
                continue;
            }
            for d in [b'9', b'0'] {
                let mut bytes = text.clone();
                bytes[at] = d;
                let _ = import_slice(&bytes, name, Some(dir.as_path()), &opts());
                tried += 1;
            }
        }
        assert!(tried > 100, "{name}: {tried}");
    }
}

#[test]
fn quantized_attributes_and_morph_targets() {
    // KHR_mesh_quantization: i16 positions (not normalised), i8 normalised normals,
    // u16 normalised UVs; one morph target (kept, listed in the report).
    let mut bin = Vec::new();
    // Each i16x3 element padded to 8 bytes, each i8x3 to 4 (vertex attribute alignment).
    let pos: Vec<i16> = vec![0, 0, 0, 0, 100, 0, 0, 0, 200, 0, 0, 0];
    let v0 = push_view(
        &mut bin,
        &pos.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<_>>(),
    );
    let nrm: Vec<i8> = vec![0, 0, 127, 0, 0, 0, 127, 0, 0, 0, -127, 0];
    let v1 = push_view(&mut bin, &nrm.iter().map(|&x| x as u8).collect::<Vec<_>>());
    let uv = u16s(&[0, 0, 65535, 0, 0, 65535]);
    let v2 = push_view(&mut bin, &uv);
    let v3 = push_view(&mut bin, &f32s(&[0.0; 9]));
    let mut v0 = v0;
    v0["byteStride"] = json!(8);
    let mut v1 = v1;
    v1["byteStride"] = json!(4);
    let doc = json!({
        "asset": { "version": "2.0" },
        "extensionsUsed": ["KHR_mesh_quantization"],
        "extensionsRequired": ["KHR_mesh_quantization"],
        "scenes": [{ "nodes": [0] }],
        "nodes": [{ "mesh": 0, "scale": [0.01, 0.01, 0.01] }],
        "meshes": [{ "primitives": [{
            "attributes": { "POSITION": 0, "NORMAL": 1, "TEXCOORD_0": 2 },
            "targets": [{ "POSITION": 3 }] }] }],
        "buffers": [{ "byteLength": bin.len() }],
        "bufferViews": [v0, v1, v2, v3],
        "accessors": [
            { "bufferView": 0, "componentType": 5122, "count": 3, "type": "VEC3",
              "min": [0, 0, 0], "max": [200, 100, 0] },
            { "bufferView": 1, "componentType": 5120, "normalized": true, "count": 3, "type": "VEC3" },
            { "bufferView": 2, "componentType": 5123, "normalized": true, "count": 3, "type": "VEC2" },
            { "bufferView": 3, "componentType": 5126, "count": 3, "type": "VEC3" }
        ]
    });
    let (model, report) = import_slice(&glb(&doc, &bin), "q.glb", None, &opts()).unwrap();
    let v = &model.meshes[0].vertices;
    // Static node: the 0.01 scale is baked; z mirrored.
    let close = |a: [f32; 3], b: [f32; 3]| (0..3).all(|k| (a[k] - b[k]).abs() < 1e-6);
    assert!(close(v.positions[1], [1.0, 0.0, 0.0]), "{:?}", v.positions);
    assert!(close(v.positions[2], [2.0, 0.0, 0.0]), "{:?}", v.positions);
    let n = v.normals.as_ref().unwrap();
    assert!(
        close(n[0], [0.0, 0.0, -1.0]) && close(n[2], [0.0, 0.0, 1.0]),
        "{n:?}"
    );
    assert_eq!(v.uv0.as_ref().unwrap()[1], [1.0, 0.0]);
    assert_eq!(report.morph_targets, ["meshes[0].primitives[0]: 1 targets"]);
    // The target is kept (it moves no vertex: all its deltas are zero).
    let t = &model.meshes[0].morph_targets;
    assert_eq!((t.len(), t[0].indices.len()), (1, 0));
    assert!(!report.report.warnings.iter().any(|w| w.contains("morph")));
}

#[test]
fn companions_list_the_external_buffers() {
    let Some(dir) = gom_test_support::shared_data("gltf") else {
        return;
    };
    let c = gom_import::gltf::companions(&dir.join("InterpolationTest.gltf"));
    assert_eq!(c, [dir.join("interpolation.bin")]);
    assert!(gom_import::gltf::companions(&dir.join("SimpleSkin.gltf")).is_empty());
    assert!(gom_import::gltf::companions(&dir.join("no such file.gltf")).is_empty());
}

#[cfg(unix)]
#[test]
fn an_endless_external_buffer_is_read_only_up_to_its_byte_length() {
    // Before, the whole file was read and then cut: a URI naming a device that never
    // ends (or a huge file) hung the import and exhausted memory.
    let endless = std::path::Path::new("/dev/zero");
    if !endless.exists() {
        gom_test_support::skip("/dev/zero is absent");
        return;
    }
    let doc = json!({
        "asset": { "version": "2.0" },
        "buffers": [{ "byteLength": 36, "uri": "/dev/zero" }],
        "bufferViews": [{ "buffer": 0, "byteLength": 36 }],
        "accessors": [{
            "bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
            "min": [0, 0, 0], "max": [0, 0, 0]
        }],
        "meshes": [{ "primitives": [{ "attributes": { "POSITION": 0 } }] }],
        "nodes": [{ "mesh": 0 }],
        "scenes": [{ "nodes": [0] }]
    });
    let dir = tempfile::tempdir().unwrap();
    let (model, _) = import_slice(
        doc.to_string().as_bytes(),
        "endless.gltf",
        Some(dir.path()),
        &opts(),
    )
    .unwrap();
    // 36 zero bytes: one triangle at the origin.
    assert_eq!(model.meshes[0].vertices.positions, [[0.0; 3]; 3]);
}
