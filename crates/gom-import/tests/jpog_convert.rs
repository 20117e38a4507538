//! JPOG models into GOM: the synthetic shared model and fixtures built here with the
//! `jpog` writers. Expectations are computed in the tests from the stored values and
//! the documented axis mapping (right-handed reading: `(x, y, z) → (x, z, y)`,
//! quaternions `(−x, −z, −y, w)`, triangles `(a, c, b)`; left-handed reading:
//! `(x, y, z) → (x, z, −y)`, quaternions `(x, z, −y, w)`, triangles kept).

use std::path::PathBuf;

use gj::{ChannelFlag3Reading, Handedness, JpogImportError, JpogOptions};
use gom::math::{from_trs, inverse_affine, mul, transform_point};
use gom::Mat4;
use gom_demo::quat_from_axis_angle;
use gom_import::jpog as gj;
use gom_import::pose::{pose_model, PoseAt};
use jpog::tmd::{Animation, Channel, Key, Lod, Mesh, MeshBlock, Node, Piece, Vertex};
use jpog::{Tkl, Tmd};
mod vec3;
use vec3::{cross, dot, sub};

mod shared_data;
use shared_data::jpog_dir as shared;

/// The documented mapping of a point or direction.
fn map_v(h: Handedness, [x, y, z]: [f32; 3]) -> [f32; 3] {
    match h {
        Handedness::Right => [x, z, y],
        Handedness::Left => [x, z, -y],
    }
}

/// The documented mapping of a quaternion.
fn map_q(h: Handedness, [x, y, z, w]: [f32; 4]) -> [f32; 4] {
    match h {
        Handedness::Right => [-x, -z, -y, w],
        Handedness::Left => [x, z, -y, w],
    }
}

fn close3(a: [f32; 3], b: [f32; 3], tol: f32) -> bool {
    (0..3).all(|k| (a[k] - b[k]).abs() <= tol)
}

/// Checks a converted model has no validation finding and writes as GOMB.
fn assert_valid(model: &gom::Model) {
    let findings = gom::validate::validate(model);
    assert!(findings.is_empty(), "findings: {findings:?}");
    gom::validate::check_structure(model).expect("structurally valid");
    let bytes = gom::gomb::write(model).expect("GOMB written");
    let back = gom::gomb::read(&bytes).expect("GOMB read back");
    assert!(back.findings.is_empty());
    assert_eq!(
        back.model.header.validation_flags,
        gom::ValidationFlags::all(),
        "every validation flag set"
    );
}

/// D2: a front face is clockwise seen from the front, i.e. in GOM's left-handed axes
/// `cross(p1 - p0, p2 - p0)` points to the viewer; every triangle must face its normal.
fn assert_faces_normals(part: &gom::MeshPart) {
    let p = &part.vertices.positions;
    let n = part.vertices.normals.as_ref().unwrap();
    for t in part.indices.chunks_exact(3) {
        let (a, b, c) = (t[0] as usize, t[1] as usize, t[2] as usize);
        let f = cross(sub(p[b], p[a]), sub(p[c], p[a]));
        for &v in &[a, b, c] {
            assert!(
                dot(f, n[v]) > 0.0,
                "triangle {t:?} of {} faces away from normal of {v}",
                part.name
            );
        }
    }
}

/// Cyclic rotations of a triangle are the same triangle; reversals are not.
fn same_triangle(a: [u32; 3], b: [u32; 3]) -> bool {
    a == b || a == [b[1], b[2], b[0]] || a == [b[2], b[0], b[1]]
}

/// The documented mapping of a triangle: mirrored (second and third index swapped)
/// by the right-handed reading, kept by the left-handed one.
fn map_tri(h: Handedness, t: [u32; 3]) -> [u32; 3] {
    match h {
        Handedness::Right => [t[0], t[2], t[1]],
        Handedness::Left => t,
    }
}

/// A triangle list as triangles.
fn triangles(indices: &[u32]) -> Vec<[u32; 3]> {
    indices
        .chunks_exact(3)
        .map(|t| [t[0], t[1], t[2]])
        .collect()
}

/// Model-space matrices from node-local ones, `world = local * world[parent]` (D1),
/// for nodes that may come before their parents (a negative parent: a root).
fn world_of(parents: &[i16], local: &[Mat4]) -> Vec<Mat4> {
    let mut world: Vec<Option<Mat4>> = vec![None; local.len()];
    while world.iter().any(Option::is_none) {
        for (i, l) in local.iter().enumerate() {
            if world[i].is_none() {
                world[i] = match parents[i] {
                    p if p < 0 => Some(*l),
                    p => world[p as usize].map(|pw| mul(l, &pw)),
                };
            }
        }
    }
    world.into_iter().map(Option::unwrap).collect()
}

/// `model` skinned by the runtime at `time` of `clip` (the bind pose for `None`),
/// without looping.
fn pose(model: &gom::Model, clip: Option<&str>, time: f32) -> Vec<gom_import::pose::PosedMesh> {
    pose_model(
        model,
        &PoseAt {
            clip: clip.map(str::to_string),
            time,
            looped: false,
        },
    )
    .unwrap()
}

// ---------------------------------------------------------------------------------
// the shared synthetic model

/// The shared file `name` of `dir`, parsed as JSON.
fn expected_json(dir: &std::path::Path, name: &str) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join(name)).unwrap()).unwrap()
}

/// The `"name"` of every entry of a JSON array.
fn json_names(v: &serde_json::Value) -> Vec<&str> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|n| n["name"].as_str().unwrap())
        .collect()
}

fn json_f32s(v: &serde_json::Value) -> Vec<f32> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap() as f32)
        .collect()
}

#[test]
fn shared_static_model_converts_validates_and_keeps_its_bind_pose() {
    let Some(dir) = shared() else { return };
    let bytes = std::fs::read(dir.join("tmd_static.tmd")).unwrap();
    let exp = expected_json(&dir, "tmd_static.expected.json");
    for h in [Handedness::Right, Handedness::Left] {
        let opts = JpogOptions {
            handedness: h,
            ..Default::default()
        };
        let out = gj::convert(&bytes, "tmd_static.tmd", None, None, &opts).unwrap();
        let model = &out.model;
        assert_valid(model);
        // header: SHA-256 of the file, as the expected file states it
        assert_eq!(
            hex::encode(model.header.source_hash),
            exp["sha256"].as_str().unwrap()
        );
        assert_eq!(model.header.converter_version, gom::CONVERTER_VERSION);
        // skeleton: the nodes, parents first
        let names: Vec<&str> = model
            .skeleton
            .bones
            .iter()
            .map(|b| b.name.as_str())
            .collect();
        assert_eq!(names, json_names(&exp["nodes"]));
        assert_eq!(model.skeleton.bones[1].path, "Root/Rock01");
        assert_eq!(model.skeleton.bones[1].parent, 0);

        let mesh_exp = &exp["lods"][0]["meshes"][0];
        assert_eq!(model.materials.len(), 1);
        assert_eq!(
            model.materials[0].name,
            mesh_exp["material"].as_str().unwrap()
        );
        assert_eq!(model.materials[0].base_color_texture, None);
        let part = &model.meshes[0];
        let verts = mesh_exp["vertices"].as_array().unwrap();
        assert_eq!(part.vertices.len(), verts.len());

        // bind pose through the runtime = stored positions after the axis change
        let posed = pose(model, None, 0.0);
        for (i, v) in verts.iter().enumerate() {
            let p = json_f32s(&v["position"]);
            let want = map_v(h, [p[0], p[1], p[2]]);
            assert!(
                close3(posed[0].positions[i], want, 1e-5),
                "{h:?} vertex {i}: {:?} vs {want:?}",
                posed[0].positions[i]
            );
            let n = json_f32s(&v["normal"]);
            assert_eq!(
                part.vertices.normals.as_ref().unwrap()[i],
                map_v(h, [n[0], n[1], n[2]])
            );
            let uv = json_f32s(&v["uv_unnegated"]);
            assert_eq!(part.vertices.uv0.as_ref().unwrap()[i], [uv[0], uv[1]]);
            // one influence, weight 255, node 1 = bone 1
            assert_eq!(part.vertices.skin.as_ref().unwrap()[i].bones, [1, 0, 0, 0]);
            assert_eq!(
                part.vertices.skin.as_ref().unwrap()[i].weights,
                [1.0, 0.0, 0.0, 0.0]
            );
        }
        // triangles: the expected ones, second and third index swapped when mirrored
        let tris: Vec<[u32; 3]> = mesh_exp["triangles"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                let t: Vec<u32> = t
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_u64().unwrap() as u32)
                    .collect();
                map_tri(h, [t[0], t[1], t[2]])
            })
            .collect();
        let got = triangles(&part.indices);
        assert_eq!(got.len(), tris.len());
        for (g, e) in got.iter().zip(&tris) {
            assert!(same_triangle(*g, *e), "{g:?} vs {e:?}");
        }
        assert_faces_normals(part);
        // every window of three strip indices is a triangle or a stitch
        let strip_len = mesh_exp["pieces"][0]["strip"].as_array().unwrap().len();
        assert_eq!(out.report.stitches, strip_len - 2 - tris.len());
        assert_eq!(part.submeshes.len(), 1);
        assert_eq!(part.submeshes[0].index_count as usize, part.indices.len());
    }
}

#[test]
fn shared_material_library_names_the_extracted_texture() {
    let Some(dir) = shared() else { return };
    let tml_bytes = std::fs::read(dir.join("tml_main.tml")).unwrap();
    let exp = expected_json(&dir, "tml_main.expected.json");
    // "Fern_b" uses texture ids [4, 3]; id 4 is the texture stored at index 1, and
    // Fern_b is the first material using it: `gom tml extract` writes "Fern_b.png".
    let mut tmd = fixture_tmd();
    tmd.mesh.lods[0].meshes[1].material_field =
        jpog::tml::Material::name_field_from("Fern_b").unwrap();
    let tmd_bytes = tmd.write().unwrap();
    let out = gj::convert(
        &tmd_bytes,
        "m.tmd",
        None,
        Some((&tml_bytes, "tml_main.tml")),
        &JpogOptions::default(),
    )
    .unwrap();
    let fern = out
        .model
        .materials
        .iter()
        .find(|m| m.name == "Fern_b")
        .unwrap();
    assert_eq!(fern.base_color_texture.as_deref(), Some("Fern_b.png"));
    // "Skin01" is not in the library: no texture
    let skin = out
        .model
        .materials
        .iter()
        .find(|m| m.name == "Skin01")
        .unwrap();
    assert_eq!(skin.base_color_texture, None);
    assert_eq!(out.side_files.len(), 1);
    assert_eq!(out.side_files[0].relative_path, PathBuf::from("Fern_b.png"));
    let img = jpog::png_io::decode_png(&out.side_files[0].bytes).unwrap();
    let t1 = &exp["textures"][1];
    assert_eq!(t1["id"], 4);
    assert_eq!(hex::encode(img.data()), t1["rgba_hex"].as_str().unwrap());
    assert_valid(&out.model);
}

// ---------------------------------------------------------------------------------
// fixtures built with the jpog writers

/// Nodes in file order: (name, parent, rest rotation, rest translation). Hip comes
/// before its parent Root; Prop is a second root.
fn fixture_nodes() -> Vec<(&'static str, i16, [f32; 4], [f32; 3])> {
    vec![
        (
            "Hip",
            2,
            quat_from_axis_angle([1.0, 0.0, 0.0], 0.35),
            [0.5, 0.0, 0.2],
        ),
        (
            "Tail",
            0,
            quat_from_axis_angle([0.0, 1.0, 0.0], -0.7),
            [0.0, -1.0, 0.0],
        ),
        (
            "Root",
            -1,
            quat_from_axis_angle([0.0, 0.0, 1.0], 0.52),
            [0.0, 0.0, 1.0],
        ),
        (
            "Head",
            2,
            quat_from_axis_angle([0.6, 0.0, 0.8], 0.87),
            [0.0, 1.0, 0.5],
        ),
        ("Prop", -1, [0.0, 0.0, 0.0, 1.0], [2.0, 0.0, 0.0]),
    ]
}

fn tkl_locations() -> Vec<[f32; 3]> {
    vec![
        [0.5, 0.1, 0.2],
        [0.6, -0.2, 0.3],
        [0.4, 0.0, 0.1],
        [0.0, 0.2, 1.1],
        [0.1, 0.3, 1.2],
        [2.0, 0.5, -0.5],
    ]
}

fn tkl_rotations() -> Vec<[f32; 4]> {
    vec![
        quat_from_axis_angle([1.0, 0.0, 0.0], 0.3),
        quat_from_axis_angle([0.0, 0.6, 0.8], 0.5),
        quat_from_axis_angle([0.0, 0.0, 1.0], -0.4),
        quat_from_axis_angle([0.0, 1.0, 0.0], 0.2),
        quat_from_axis_angle([0.8, 0.6, 0.0], 1.1),
        quat_from_axis_angle([0.0, 0.0, 1.0], 0.9),
        quat_from_axis_angle([0.48, 0.6, 0.64], 0.6),
        quat_from_axis_angle([0.0, 1.0, 0.0], -1.2),
    ]
}

/// Model-space bind matrices of the fixture's nodes (file order).
fn fixture_binds() -> Vec<Mat4> {
    let nodes = fixture_nodes();
    let parents: Vec<i16> = nodes.iter().map(|n| n.1).collect();
    let local: Vec<Mat4> = nodes
        .iter()
        .map(|(_, _, q, t)| from_trs(*t, *q, [1.0; 3]))
        .collect();
    world_of(&parents, &local)
}

fn vertex(p: [f32; 3], n: [f32; 3], weights: [u8; 4], slots: [u8; 4], i: usize) -> Vertex {
    Vertex {
        position: p,
        normal: n,
        weights,
        bones: slots.map(|s| s * 3),
        uv: [i as f32 * 0.125, -0.25 * i as f32],
    }
}

fn piece(palette: Vec<u32>, vertices: Vec<Vertex>, strip: Vec<u16>) -> Piece {
    Piece {
        verts_required: strip.iter().copied().max().map_or(0, |m| u32::from(m) + 1),
        box_center: [0.0; 3],
        box_extents: [1.0; 3],
        palette,
        vertices,
        strip,
    }
}

fn mesh(material: &str, pieces: Vec<Piece>) -> Mesh {
    Mesh {
        material_field: jpog::tml::Material::name_field_from(material).unwrap(),
        pieces,
    }
}

fn channel(flags: u16, keys: &[(f32, u16, u16)]) -> Channel {
    Channel {
        flags,
        keys: keys
            .iter()
            .map(|&(time, loc_index, rot_index)| Key {
                time,
                loc_index,
                rot_index,
            })
            .collect(),
    }
}

fn animation(name: &str, overlay: u32, duration: f32, channels: Vec<Channel>) -> Animation {
    let (name_length, name_field) = jpog::tmd::short_name(name, "animation").unwrap();
    Animation {
        name_length,
        name_field,
        overlay,
        unknown: 0,
        used_node_count: channels.len() as u32,
        duration,
        channels,
    }
}

/// A model with five nodes (one listed before its parent, two roots), two LODs, a
/// two-piece mesh with different palettes (weights shared, tied and repeated), a
/// second mesh, a stitch, and two animations.
fn fixture_tmd() -> Tmd {
    let mut tmd = Tmd::new("TESTKL").unwrap();
    let binds = fixture_binds();
    for ((name, parent, q, t), bind) in fixture_nodes().into_iter().zip(&binds) {
        let (name_length, name_field) = jpog::tmd::short_name(name, "node").unwrap();
        tmd.nodes.push(Node {
            rest_rotation: q,
            bind: *bind,
            inverse_bind: inverse_affine(bind).unwrap(),
            name_length,
            name_field,
            parent,
            flag: 0,
            rest_translation: t,
        });
    }
    let up = [0.0, 0.0, 1.0];
    let west = [-1.0, 0.0, 0.0];
    // piece 0 (palette Root, Hip) draws 0..=3 on the plane z = 1 facing +z;
    // piece 1 (palette Tail, Head) draws 4..=6 on the plane x = 2 facing -x.
    let verts = vec![
        vertex([0.0, 0.0, 1.0], up, [255, 0, 0, 0], [0, 0, 0, 0], 0),
        vertex([1.0, 0.0, 1.0], up, [128, 127, 0, 0], [0, 1, 0, 0], 1),
        vertex([0.0, 1.0, 1.0], up, [100, 100, 0, 0], [1, 0, 0, 0], 2),
        vertex([1.0, 1.0, 1.0], up, [0, 255, 0, 0], [0, 1, 0, 0], 3),
        vertex([2.0, 0.0, 0.0], west, [200, 55, 0, 0], [0, 1, 0, 0], 4),
        vertex([2.0, 1.0, 0.0], west, [60, 60, 135, 0], [1, 1, 0, 0], 5),
        vertex([2.0, 0.0, 1.0], west, [255, 0, 0, 0], [1, 0, 0, 0], 6),
    ];
    // strip [0,1,2,3]: (0,1,2), (2,1,3); strip [4,4,5,6]: a stitch, then (5,4,6)
    let skin = mesh(
        "Skin01",
        vec![
            piece(vec![2, 0], verts, vec![0, 1, 2, 3]),
            piece(vec![1, 3], vec![], vec![4, 4, 5, 6]),
        ],
    );
    let down = [0.0, 0.0, -1.0];
    let metal = mesh(
        "Metal",
        vec![piece(
            vec![4],
            vec![
                vertex([2.0, 0.0, 0.0], down, [255, 0, 0, 0], [0; 4], 0),
                vertex([2.0, 1.0, 0.0], down, [255, 0, 0, 0], [0; 4], 1),
                vertex([3.0, 0.0, 0.0], down, [255, 0, 0, 0], [0; 4], 2),
            ],
            vec![0, 1, 2],
        )],
    );
    let lod1 = mesh(
        "Skin01",
        vec![piece(
            vec![2],
            vec![
                vertex([0.0, 0.0, 1.0], up, [255, 0, 0, 0], [0; 4], 0),
                vertex([1.0, 0.0, 1.0], up, [255, 0, 0, 0], [0; 4], 1),
                vertex([0.0, 1.0, 1.0], up, [255, 0, 0, 0], [0; 4], 2),
            ],
            // a stitch, then (0,1,2) at odd position 1: (1,0,2)... which faces -z:
            // the strip starts with a stitch so that the triangle keeps facing +z
            vec![0, 0, 2, 1],
        )],
    );
    tmd.mesh = MeshBlock {
        lod_distance: 30.0,
        lods: vec![
            Lod {
                shader_type: 0,
                sphere: [1.0, 0.5, 0.5, 3.0],
                meshes: vec![skin, metal],
            },
            Lod {
                shader_type: 0,
                sphere: [0.5, 0.5, 1.0, 1.0],
                meshes: vec![lod1],
            },
        ],
    };
    tmd.animations = vec![
        animation(
            "walk_lp",
            0,
            1.0,
            vec![
                channel(1, &[(0.0, 0, 0), (0.5, 1, 1), (1.0, 2, 2)]),
                // translation unused: its index may point anywhere
                channel(0, &[(0.0, 999, 3), (1.0, 999, 4)]),
                channel(3, &[(0.0, 3, 5), (0.75, 4, 6)]),
                channel(0, &[]),
                channel(1, &[(0.25, 5, 7)]),
            ],
        ),
        animation(
            "idle",
            1,
            2.0,
            vec![
                channel(0, &[]),
                channel(0, &[]),
                channel(1, &[(0.0, 3, 0), (2.0, 4, 1)]),
                channel(0, &[]),
                channel(0, &[]),
            ],
        ),
    ];
    tmd
}

fn fixture_tkl() -> Tkl {
    let mut tkl = Tkl::new("TESTKL").unwrap();
    for l in tkl_locations() {
        tkl.push_location(l).unwrap();
    }
    for q in tkl_rotations() {
        tkl.push_rotation(q).unwrap();
    }
    tkl
}

fn convert_fixture(opts: &JpogOptions) -> gj::JpogConverted {
    let tmd = fixture_tmd().write().unwrap();
    let tkl = fixture_tkl().write().unwrap();
    gj::convert(&tmd, "fixture.tmd", Some((&tkl, "TESTKL.tkl")), None, opts).unwrap()
}

/// The fixture converted with the default options but for `handedness`.
fn convert_handed(handedness: Handedness) -> gj::JpogConverted {
    convert_fixture(&JpogOptions {
        handedness,
        ..Default::default()
    })
}

/// `tmd` written and converted with the default options, with the keyframe library
/// `tkl` (bytes) when given.
fn convert_tmd(tmd: &Tmd, tkl: Option<&[u8]>) -> Result<gj::JpogConverted, JpogImportError> {
    gj::convert(
        &tmd.write().unwrap(),
        "t.tmd",
        tkl.map(|k| (k, "k.tkl")),
        None,
        &JpogOptions::default(),
    )
}

/// A material library holding one material, "Skin01", with `image` as its one
/// texture in format 2.
fn skin01_library(image: jpog::Image) -> jpog::Tml {
    jpog::ops::pack_tml(
        &[jpog::ops::PackMaterial {
            name: "Skin01".into(),
            flags: 0,
            textures: vec![jpog::ops::PackTexture {
                image,
                format: 2,
                flags: 0,
                dds: None,
            }],
        }],
        jpog::CodecOptions::default(),
    )
    .unwrap()
}

/// File-order node of each bone: roots Root (2) and Prop (4) in file order, Root's
/// children Hip (0, with Tail 1) and Head (3) depth-first.
const BONE_NODE: [usize; 5] = [2, 0, 1, 3, 4];

#[test]
fn fixture_skeleton_puts_parents_first_and_keeps_the_bind_matrices() {
    for h in [Handedness::Right, Handedness::Left] {
        let out = convert_handed(h);
        let bones = &out.model.skeleton.bones;
        let names: Vec<&str> = bones.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, ["Root", "Hip", "Tail", "Head", "Prop"]);
        let parents: Vec<i32> = bones.iter().map(|b| b.parent).collect();
        assert_eq!(parents, [-1, 0, 1, 0, -1]);
        let paths: Vec<&str> = bones.iter().map(|b| b.path.as_str()).collect();
        assert_eq!(
            paths,
            ["Root", "Root/Hip", "Root/Hip/Tail", "Root/Head", "Prop"]
        );
        // bind world of each bone = the node's bind matrix after the axis change; the
        // check maps the translation row and one rotated axis independently
        let world = gom::math::bind_world(bones);
        let binds = fixture_binds();
        for (b, &node) in BONE_NODE.iter().enumerate() {
            let src = binds[node];
            let t = map_v(h, [src[12], src[13], src[14]]);
            assert!(
                close3([world[b][12], world[b][13], world[b][14]], t, 1e-5),
                "{h:?} bone {b}"
            );
            // a direction d maps to map(d * R): compare for the source x, y, z axes
            for axis in 0..3 {
                let mut d = [0.0f32; 3];
                d[axis] = 1.0;
                let want = map_v(h, gom::math::transform_vector(&src, d));
                let got = gom::math::transform_vector(&world[b], map_v(h, d));
                assert!(close3(got, want, 1e-5), "{h:?} bone {b} axis {axis}");
            }
        }
        assert_valid(&out.model);
    }
}

#[test]
fn fixture_meshes_resolve_palettes_sort_weights_and_face_their_normals() {
    for h in [Handedness::Right, Handedness::Left] {
        let out = convert_handed(h);
        let m = &out.model;
        assert_valid(m);
        assert_eq!(m.meshes.len(), 2);
        let names: Vec<&str> = m.materials.iter().map(|x| x.name.as_str()).collect();
        assert_eq!(names, ["Skin01", "Metal"]);
        assert_eq!(m.meshes[0].submeshes[0].material_index, 0);
        assert_eq!(m.meshes[1].submeshes[0].material_index, 1);
        let skin = m.meshes[0].vertices.skin.as_ref().unwrap();
        // bones: Root 0, Hip 1, Tail 2, Head 3, Prop 4 (hand-resolved through the palettes)
        let expect: [([u16; 4], [f32; 4]); 7] = [
            ([0, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]),
            ([0, 1, 0, 0], [128.0 / 255.0, 127.0 / 255.0, 0.0, 0.0]),
            // 100 + 100 renormalised; the tie puts the lower bone first
            ([0, 1, 0, 0], [0.5, 0.5, 0.0, 0.0]),
            ([1, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]),
            // piece 1's palette: slot 0 = Tail, slot 1 = Head
            ([2, 3, 0, 0], [200.0 / 255.0, 55.0 / 255.0, 0.0, 0.0]),
            // Head twice (60 + 60) merges to 120 against Tail's 135
            ([2, 3, 0, 0], [135.0 / 255.0, 120.0 / 255.0, 0.0, 0.0]),
            ([3, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]),
        ];
        for (i, (s, (b, w))) in skin.iter().zip(expect).enumerate() {
            assert_eq!(s.bones, b, "vertex {i}");
            for k in 0..4 {
                assert!(
                    (s.weights[k] - w[k]).abs() < 1e-6,
                    "vertex {i}: {:?} vs {w:?}",
                    s.weights
                );
            }
        }
        // triangles: (0,1,2), (2,1,3), (5,4,6); the stitch is skipped and counted
        let want: Vec<[u32; 3]> = [[0, 1, 2], [2, 1, 3], [5, 4, 6]]
            .into_iter()
            .map(|t| map_tri(h, t))
            .collect();
        assert_eq!(triangles(&m.meshes[0].indices), want);
        assert_eq!(out.report.stitches, 1);
        for part in &m.meshes {
            assert_faces_normals(part);
        }
        // uv = [u, -v stored]
        let uv = m.meshes[0].vertices.uv0.as_ref().unwrap();
        for (i, t) in uv.iter().enumerate() {
            assert_eq!(*t, [i as f32 * 0.125, 0.25 * i as f32]);
        }
    }
}

#[test]
fn fixture_bind_pose_through_the_runtime_is_the_stored_mesh() {
    let tmd = fixture_tmd();
    for h in [Handedness::Right, Handedness::Left] {
        let out = convert_handed(h);
        let posed = pose(&out.model, None, 0.0);
        for (mi, part) in posed.iter().enumerate() {
            let stored: Vec<[f32; 3]> = tmd.mesh.lods[0].meshes[mi]
                .vertices()
                .map(|v| v.position)
                .collect();
            assert_eq!(part.positions.len(), stored.len());
            for (i, (got, src)) in part.positions.iter().zip(&stored).enumerate() {
                let want = map_v(h, *src);
                assert!(
                    close3(*got, want, 1e-5),
                    "{h:?} mesh {mi} vertex {i}: {got:?} vs {want:?}"
                );
            }
        }
    }
}

#[test]
fn fixture_lod_option_picks_the_lod() {
    let out = convert_fixture(&JpogOptions {
        lod: 1,
        ..Default::default()
    });
    assert_valid(&out.model);
    assert_eq!(out.model.meshes.len(), 1);
    // strip [0,0,2,1]: a stitch, then (0,2,1) at odd position 1 -> (2,0,1); mirrored
    // by the default reading -> (2,1,0)
    assert_eq!(out.model.meshes[0].indices, vec![2, 1, 0]);
    assert_faces_normals(&out.model.meshes[0]);
    let err = gj::convert(
        &fixture_tmd().write().unwrap(),
        "f.tmd",
        None,
        None,
        &JpogOptions {
            lod: 2,
            ..Default::default()
        },
    );
    assert!(matches!(err, Err(JpogImportError::Option(_))), "{err:?}");
}

#[test]
fn fixture_clip_keys_are_the_keyframe_library_values_after_the_axis_change() {
    let locs = tkl_locations();
    let rots = tkl_rotations();
    let nodes = fixture_nodes();
    for h in [Handedness::Right, Handedness::Left] {
        let out = convert_handed(h);
        assert_valid(&out.model);
        let clips = &out.model.clips;
        assert_eq!(clips.len(), 2);
        let walk = &clips[0];
        assert_eq!(walk.name, "walk_lp");
        assert_eq!(walk.duration, 1.0);
        assert_eq!(out.report.looping_clips, vec!["walk_lp".to_string()]);
        // tracks by bone: Root 0 (node 2), Hip 1 (node 0), Tail 2 (node 1), Prop 4 (node 4)
        let bones: Vec<u32> = walk.tracks.iter().map(|t| t.bone).collect();
        assert_eq!(bones, [0, 1, 2, 4]);
        let check = |track: usize, want: &[(f32, [f32; 3], [f32; 4])]| {
            let keys = &walk.tracks[track].keys;
            assert_eq!(keys.len(), want.len());
            for (k, (t, tr, q)) in keys.iter().zip(want) {
                assert_eq!(k.time, *t);
                assert_eq!(k.translation, map_v(h, *tr), "{h:?} track {track}");
                assert_eq!(k.rotation, map_q(h, *q), "{h:?} track {track}");
                assert_eq!(k.scale, [1.0; 3]);
            }
        };
        // Root, flags 3 read as translation and rotation (the default)
        check(0, &[(0.0, locs[3], rots[5]), (0.75, locs[4], rots[6])]);
        // Hip, flags 1
        check(
            1,
            &[
                (0.0, locs[0], rots[0]),
                (0.5, locs[1], rots[1]),
                (1.0, locs[2], rots[2]),
            ],
        );
        // Tail, flags 0: its rest translation holds
        check(2, &[(0.0, nodes[1].3, rots[3]), (1.0, nodes[1].3, rots[4])]);
        check(3, &[(0.25, locs[5], rots[7])]);
        assert!(walk.tracks[3].bone == 4);

        // the open reading of flags 3: translation keys only, rest rotation holds
        let out3 = convert_fixture(&JpogOptions {
            handedness: h,
            channel_flag3_reading: ChannelFlag3Reading::TranslationOnly,
            ..Default::default()
        });
        let root = &out3.model.clips[0].tracks[0];
        assert_eq!(root.keys[1].translation, map_v(h, locs[4]));
        assert_eq!(root.keys[1].rotation, map_q(h, nodes[2].2));
        assert_valid(&out3.model);
    }
}

/// Skins the fixture in the source axes at `walk_lp` time 1.0 (every animated channel
/// holds or sits on a key there), then maps the result: the runtime's pose must match.
#[test]
fn fixture_animated_pose_matches_the_source_pose_after_the_axis_change() {
    let locs = tkl_locations();
    let rots = tkl_rotations();
    let nodes = fixture_nodes();
    let binds = fixture_binds();
    // node-local transforms at t = 1.0, source axes
    let local: Vec<Mat4> = vec![
        from_trs(locs[2], rots[2], [1.0; 3]),    // Hip: key 1.0
        from_trs(nodes[1].3, rots[4], [1.0; 3]), // Tail: rest translation
        from_trs(locs[4], rots[6], [1.0; 3]),    // Root: holds key 0.75
        mul(&binds[3], &inverse_affine(&binds[2]).unwrap()), // Head: no keys
        from_trs(locs[5], rots[7], [1.0; 3]),    // Prop: holds key 0.25
    ];
    let parents: Vec<i16> = nodes.iter().map(|n| n.1).collect();
    let world = world_of(&parents, &local);
    let tmd = fixture_tmd();
    for h in [Handedness::Right, Handedness::Left] {
        let out = convert_handed(h);
        let posed = pose(&out.model, Some("walk_lp"), 1.0);
        for (mi, mesh) in tmd.mesh.lods[0].meshes.iter().enumerate() {
            let verts: Vec<&Vertex> = mesh.vertices().collect();
            for (vi, v) in verts.iter().enumerate() {
                // the piece whose strip draws the vertex gives its palette
                let pal = &mesh
                    .pieces
                    .iter()
                    .find(|p| p.strip.contains(&(vi as u16)))
                    .unwrap()
                    .palette;
                let total: f32 = v.weights.iter().map(|&w| f32::from(w)).sum();
                let mut p = [0.0f32; 3];
                for k in 0..4 {
                    if v.weights[k] == 0 {
                        continue;
                    }
                    let node = pal[usize::from(v.bones[k] / 3)] as usize;
                    let m = mul(&inverse_affine(&binds[node]).unwrap(), &world[node]);
                    let q = transform_point(&m, v.position);
                    let w = f32::from(v.weights[k]) / total;
                    for c in 0..3 {
                        p[c] += w * q[c];
                    }
                }
                let want = map_v(h, p);
                let got = posed[mi].positions[vi];
                assert!(
                    close3(got, want, 1e-4),
                    "{h:?} mesh {mi} vertex {vi}: {got:?} vs {want:?}"
                );
            }
        }
    }
}

#[test]
fn animations_without_a_keyframe_library_are_reported_not_converted() {
    let tmd = fixture_tmd().write().unwrap();
    let out = gj::convert(&tmd, "f.tmd", None, None, &JpogOptions::default()).unwrap();
    assert!(out.model.clips.is_empty());
    assert!(out
        .report
        .report
        .warnings
        .iter()
        .any(|w| w.contains("2 animations not converted")));
    assert_valid(&out.model);
}

#[test]
fn broken_input_gives_errors_not_panics() {
    let tmd = fixture_tmd().write().unwrap();
    let tkl = fixture_tkl().write().unwrap();
    let opts = JpogOptions::default();
    // every truncation of the model and of the keyframe library
    for n in 0..tmd.len() {
        assert!(
            gj::convert(&tmd[..n], "t.tmd", Some((&tkl, "k.tkl")), None, &opts).is_err(),
            "truncated to {n}"
        );
    }
    for n in 0..tkl.len() {
        let r = gj::convert(&tmd, "t.tmd", Some((&tkl[..n], "k.tkl")), None, &opts);
        assert!(
            matches!(r, Err(JpogImportError::Read { .. })),
            "tkl truncated to {n}"
        );
    }
    // bytes flipped anywhere: an error or a model, never a panic; models validate
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..400 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let mut b = tmd.clone();
        let at = (seed % b.len() as u64) as usize;
        b[at] ^= (seed >> 32) as u8 | 1;
        if let Ok(out) = gj::convert(&b, "t.tmd", Some((&tkl, "k.tkl")), None, &opts) {
            let _ = gom::validate::validate(&out.model);
        }
    }
    // every truncation of a material library
    let tml = skin01_library(jpog::Image::from_rgba8(1, 1, vec![255, 0, 0, 255]).unwrap())
        .write()
        .unwrap();
    assert!(gj::convert(&tmd, "t.tmd", None, Some((&tml, "m.tml")), &opts).is_ok());
    for n in 0..tml.len() {
        let r = gj::convert(&tmd, "t.tmd", None, Some((&tml[..n], "m.tml")), &opts);
        assert!(
            matches!(r, Err(JpogImportError::Read { .. })),
            "tml truncated to {n}"
        );
    }
    // a rotation index past the library's end
    let mut bad = fixture_tmd();
    bad.animations[0].channels[0].keys[1].rot_index = 99;
    let err = convert_tmd(&bad, Some(&tkl)).unwrap_err();
    assert!(err.to_string().contains("rotIndex 99"), "{err}");
    // keys out of order
    let mut bad = fixture_tmd();
    bad.animations[0].channels[0].keys[1].time = -0.5;
    assert!(convert_tmd(&bad, Some(&tkl)).is_err());
    let mut bad = fixture_tmd();
    bad.animations[0].channels[0].keys[2].time = 0.25;
    let err = convert_tmd(&bad, Some(&tkl)).unwrap_err();
    assert!(err.to_string().contains("comes before"), "{err}");
    // a position that is not finite
    let mut bad = fixture_tmd();
    bad.mesh.lods[0].meshes[0].pieces[0].vertices[2].position[1] = f32::NAN;
    let err = convert_tmd(&bad, None).unwrap_err();
    assert!(err.to_string().contains("vertex 2"), "{err}");
    // not a model at all
    assert!(gj::convert(b"TML1 not a model", "t.tmd", None, None, &opts).is_err());
}

#[test]
fn import_finds_the_libraries_beside_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("Raptor.tmd");
    std::fs::write(&model, fixture_tmd().write().unwrap()).unwrap();
    // the header names "TESTKL": found case-insensitively
    std::fs::write(
        dir.path().join("testkl.TKL"),
        fixture_tkl().write().unwrap(),
    )
    .unwrap();
    let img = jpog::Image::from_rgba8(2, 1, vec![255, 0, 0, 255, 0, 0, 255, 255]).unwrap();
    let tml = skin01_library(img.clone());
    std::fs::write(dir.path().join("raptor.tml"), tml.write().unwrap()).unwrap();
    let options = gom_import::source::ImportOptions::default();
    let found = gom_import::source::companions(&model, &options);
    assert_eq!(
        found,
        vec![dir.path().join("testkl.TKL"), dir.path().join("raptor.tml")]
    );
    let imported = gom_import::source::import_path(&model, &options).unwrap();
    assert_eq!(imported.model.clips.len(), 2);
    let skin = imported
        .model
        .materials
        .iter()
        .find(|m| m.name == "Skin01")
        .unwrap();
    assert_eq!(skin.base_color_texture.as_deref(), Some("Skin01.png"));
    assert_eq!(imported.side_files.len(), 1);
    assert_eq!(
        jpog::png_io::decode_png(&imported.side_files[0].bytes).unwrap(),
        img
    );
    assert_eq!(imported.report["jpog"]["loopingClips"][0], "walk_lp");
    assert!(imported
        .warnings
        .iter()
        .any(|w| w.contains("walk_lp") && w.contains("loop")));
    // an explicit library wins; a missing one is an error
    let options = gom_import::source::ImportOptions {
        tkl: Some(dir.path().join("none.tkl")),
        ..Default::default()
    };
    assert!(gom_import::source::import_path(&model, &options).is_err());
}

#[test]
fn stored_inverse_binds_are_kept_and_a_mismatch_is_reported() {
    // Hip's stored inverse bind moved by 0.5 along x: the bind-pose check must fail on
    // the mesh that uses Hip, and the report must say so
    let mut tmd = fixture_tmd();
    tmd.nodes[0].inverse_bind[12] += 0.5;
    let out = convert_tmd(&tmd, None).unwrap();
    assert!(
        out.report
            .report
            .warnings
            .iter()
            .any(|w| w.contains("\"Hip\"")),
        "{:?}",
        out.report.report.warnings
    );
    let findings = gom::validate::validate(&out.model);
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(findings[0].check, gom::validate::Check::BindPose);
    assert_eq!(findings[0].mesh, Some(0));
    // Hip is bone 1; its inverse bind is the stored one after the axis change:
    // the translation row (x, y, z) becomes (x, z, y)
    let ib = out.model.meshes[0].inverse_bind[1];
    let s = tmd.nodes[0].inverse_bind;
    assert_eq!([ib[12], ib[13], ib[14]], [s[12], s[14], s[13]]);
}

#[test]
fn vertices_no_strip_draws_are_bound_to_the_first_bone_and_reported() {
    let mut tmd = fixture_tmd();
    // an eighth vertex that no strip uses
    let extra = tmd.mesh.lods[0].meshes[0].pieces[0].vertices[0];
    tmd.mesh.lods[0].meshes[0].pieces[0].vertices.push(extra);
    let out = convert_tmd(&tmd, None).unwrap();
    assert_eq!(out.report.unweighted_vertices, 1);
    let skin = out.model.meshes[0].vertices.skin.as_ref().unwrap();
    assert_eq!(skin.len(), 8);
    assert_eq!(
        (skin[7].bones, skin[7].weights),
        ([0; 4], [1.0, 0.0, 0.0, 0.0])
    );
    assert_valid(&out.model);
}

#[test]
fn repeated_key_times_are_dropped_and_late_keys_extend_the_clip() {
    let mut tmd = fixture_tmd();
    // Hip: times 0, 0.5, 0.5 (repeat), and Prop's key moved past the 1 s duration
    tmd.animations[0].channels[0].keys[2].time = 0.5;
    tmd.animations[0].channels[4].keys[0].time = 1.5;
    let tkl = fixture_tkl().write().unwrap();
    let out = convert_tmd(&tmd, Some(&tkl)).unwrap();
    let walk = &out.model.clips[0];
    let hip: Vec<f32> = walk.tracks[1].keys.iter().map(|k| k.time).collect();
    assert_eq!(hip, [0.0, 0.5]);
    assert_eq!(walk.duration, 1.5);
    let w = &out.report.report.warnings;
    assert!(
        w.iter().any(|w| w.contains("repeat"))
            && w.iter().any(|w| w.contains("past the stored duration")),
        "{w:?}"
    );
    assert_valid(&out.model);
}

#[test]
fn the_same_input_gives_the_same_gom_bytes() {
    let a = gom::gomb::write(&convert_fixture(&JpogOptions::default()).model).unwrap();
    let b = gom::gomb::write(&convert_fixture(&JpogOptions::default()).model).unwrap();
    assert_eq!(a, b);
    let left = gom::gomb::write(&convert_handed(Handedness::Left).model).unwrap();
    assert_ne!(a, left, "the handedness option changes the output");
}
