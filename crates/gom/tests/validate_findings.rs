//! Validation findings report every failure: one finding per failing check and mesh,
//! with the number of failures, the first eight failing items (vertices, bones,
//! submeshes) and the first failure described; the GOMB reader reports exactly what
//! `validate` reports. Expected counts, items and messages are worked out by hand.

use gom::validate::{validate, Check, Finding, MAX_FINDING_ITEMS};
use gom::{gomb, Bone, Material, MeshPart, Model, SkinWeights, Submesh, Vertices, IDENTITY};

fn translation_y(y: f32) -> [f32; 16] {
    let mut m = IDENTITY;
    m[13] = y;
    m
}

fn whole(n: u32) -> Vec<Submesh> {
    vec![Submesh {
        material_index: -1,
        index_start: 0,
        index_count: n,
    }]
}

fn positions(n: usize) -> Vec<[f32; 3]> {
    (0..n).map(|i| [i as f32, 0.0, 0.0]).collect()
}

/// Twelve bones in a chain, each 1 above its parent: bone i sits at y = i + 1, so its
/// inverse bind is a translation by −(i + 1).
fn chain() -> Vec<Bone> {
    (0..12)
        .map(|i| Bone {
            name: format!("b{i}"),
            path: format!("b{i}"),
            parent: i - 1,
            bind_local: translation_y(1.0),
        })
        .collect()
}

fn good_inverse_binds() -> Vec<[f32; 16]> {
    (0..12).map(|i| translation_y(-(i as f32 + 1.0))).collect()
}

/// Mesh 0 fails weightsPass on vertices 1, 4, 7, …, 28 (10 of 30: the weights sum to
/// 0.5); mesh 1 fails bindPosePass on bones 2..=11 (identity inverse binds); mesh 2
/// fails submeshMaterialsPass on submeshes 1 (material 5 of 1), 2 (empty), 3 (starts
/// at 9 where 6 was expected) and on coverage (the submeshes end at 12 of 15).
fn model() -> Model {
    let one = |b: u16| SkinWeights {
        bones: [b, 0, 0, 0],
        weights: [1.0, 0.0, 0.0, 0.0],
    };
    let mut weights_mesh = MeshPart {
        name: "weights".into(),
        vertices: Vertices {
            positions: positions(30),
            skin: Some(
                (0..30)
                    .map(|v| {
                        let mut s = one(0);
                        if v % 3 == 1 {
                            s.weights[0] = 0.5;
                        }
                        s
                    })
                    .collect(),
            ),
            ..Default::default()
        },
        indices: (0..30).collect(),
        submeshes: whole(30),
        inverse_bind: good_inverse_binds(),
        ..Default::default()
    };
    weights_mesh.name = "weights".into();
    let mut bind_mesh = weights_mesh.clone();
    bind_mesh.name = "bind".into();
    bind_mesh.vertices.skin = Some((0..30).map(|v| one(v % 12)).collect());
    for ib in &mut bind_mesh.inverse_bind[2..] {
        *ib = IDENTITY;
    }
    let s = |m: i32, start: u32, count: u32| Submesh {
        material_index: m,
        index_start: start,
        index_count: count,
    };
    let subs_mesh = MeshPart {
        name: "subs".into(),
        vertices: Vertices {
            positions: positions(15),
            ..Default::default()
        },
        indices: (0..15).collect(),
        submeshes: vec![s(0, 0, 3), s(5, 3, 3), s(0, 6, 0), s(-1, 9, 3)],
        ..Default::default()
    };
    let mut m = Model::default();
    m.header.converter_version = "test".into();
    m.skeleton.bones = chain();
    m.materials.push(Material {
        name: "mat".into(),
        base_color_texture: None,
        base_color_factor: [1.0; 4],
    });
    m.meshes = vec![weights_mesh, bind_mesh, subs_mesh];
    m
}

fn expected() -> Vec<Finding> {
    vec![
        Finding {
            check: Check::Weights,
            mesh: Some(0),
            message: "mesh 0 `weights`: 10 failures (vertices 1, 4, 7, 10, 13, 16, 19, 22, …); \
                      the first: vertex 1: the weights do not sum to 1"
                .into(),
            count: 10,
            items: vec![1, 4, 7, 10, 13, 16, 19, 22],
        },
        Finding {
            check: Check::BindPose,
            mesh: Some(1),
            message: "mesh 1 `bind`: 10 failures (bones 2, 3, 4, 5, 6, 7, 8, 9, …); \
                      the first: inverseBind[2] * bindWorld[2] is not the identity within 1e-3"
                .into(),
            count: 10,
            items: vec![2, 3, 4, 5, 6, 7, 8, 9],
        },
        Finding {
            check: Check::SubmeshMaterials,
            mesh: Some(2),
            message: "mesh 2 `subs`: 4 failures (submeshes 1, 2, 3); \
                      the first: submesh 1 names material 5, but there are 1 materials"
                .into(),
            count: 4,
            items: vec![1, 2, 3],
        },
    ]
}

#[test]
fn each_finding_counts_its_failures_and_lists_the_first_eight() {
    assert_eq!(MAX_FINDING_ITEMS, 8);
    assert_eq!(validate(&model()), expected());
}

#[test]
fn the_reader_reports_the_same_findings_as_validate() {
    let bytes = gomb::write(&model()).unwrap();
    assert_eq!(bytes[60], 0, "every check fails, so no flag is set");
    let read = gomb::read(&bytes).unwrap();
    assert_eq!(read.findings, expected());
    // A file claiming weightsPass names the first weight failure.
    let mut claim = bytes.clone();
    claim[60] = 0b010;
    let e = gomb::read(&claim).unwrap_err();
    assert!(e.to_string().contains("vertices 1, 4, 7"), "{e}");
}

#[test]
fn a_single_failure_is_described_without_a_list() {
    let mut m = model();
    m.meshes.truncate(1);
    for (v, s) in m.meshes[0]
        .vertices
        .skin
        .as_mut()
        .unwrap()
        .iter_mut()
        .enumerate()
    {
        if v != 7 {
            s.weights[0] = 1.0;
        }
    }
    let f = validate(&m);
    assert_eq!(
        f,
        vec![Finding {
            check: Check::Weights,
            mesh: Some(0),
            message: "mesh 0 `weights`: vertex 7: the weights do not sum to 1".into(),
            count: 1,
            items: vec![7],
        }]
    );
    assert_eq!(
        f[0].to_string(),
        "weightsPass fails on mesh 0: mesh 0 `weights`: vertex 7: the weights do not sum to 1"
    );
}

#[test]
fn swapped_submeshes_fail_both_and_nothing_else() {
    let mut m = model();
    m.meshes.truncate(1);
    m.meshes[0].submeshes = vec![
        Submesh {
            material_index: 0,
            index_start: 15,
            index_count: 15,
        },
        Submesh {
            material_index: 0,
            index_start: 0,
            index_count: 15,
        },
    ];
    let f: Vec<_> = validate(&m)
        .into_iter()
        .filter(|f| f.check == Check::SubmeshMaterials)
        .collect();
    assert_eq!(f.len(), 1);
    assert_eq!((f[0].count, &f[0].items[..]), (2, &[0, 1][..]), "{}", f[0]);
}

#[test]
fn findings_stay_small_however_many_items_fail() {
    let n = 300_000;
    let mut m = model();
    m.meshes.truncate(1);
    let mesh = &mut m.meshes[0];
    mesh.vertices.positions = positions(n);
    mesh.vertices.skin = Some(vec![
        SkinWeights {
            bones: [0; 4],
            weights: [0.25, 0.0, 0.0, 0.0],
        };
        n
    ]);
    mesh.indices = (0..n as u32).collect();
    mesh.submeshes = whole(n as u32);
    let f = validate(&m);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].count, n as u64);
    assert_eq!(f[0].items, (0..8).collect::<Vec<u32>>());
    assert!(f[0].message.len() < 200, "{}", f[0].message);
}

#[test]
fn the_ellipsis_means_more_items_not_the_coverage_failure() {
    // Eight failing submeshes (each names material 9) and coverage short by 3: nine
    // failures, all eight items listed, nothing left out.
    let mut m = model();
    m.meshes.truncate(1);
    let mesh = &mut m.meshes[0];
    mesh.submeshes = (0..8)
        .map(|k| Submesh {
            material_index: 9,
            index_start: 3 * k,
            index_count: 3,
        })
        .collect();
    let f: Vec<_> = validate(&m)
        .into_iter()
        .filter(|f| f.check == Check::SubmeshMaterials)
        .collect();
    assert_eq!(f[0].count, 9);
    assert_eq!(f[0].items, (0..8).collect::<Vec<u32>>());
    assert_eq!(
        f[0].message,
        "mesh 0 `weights`: 9 failures (submeshes 0, 1, 2, 3, 4, 5, 6, 7); \
         the first: submesh 0 names material 9, but there are 1 materials"
    );
}

#[test]
fn clips_sharing_a_name_are_one_finding_of_both_paths_without_a_flag() {
    let mut m = gom_demo::build();
    let first = m.clips[0].clone();
    m.clips.push(first.clone());
    m.clips.push(first);
    let name = m.clips[0].name.clone();
    // Clips 2 and 3 repeat clip 0's name; clip 1 has its own.
    let expected = Finding {
        check: Check::ClipNames,
        mesh: None,
        message: format!(
            "2 clips repeat a name (clips 2, 3); the first: clip 2 is named \"{name}\" like clip 0"
        ),
        count: 2,
        items: vec![2, 3],
    };
    assert_eq!(validate(&m), vec![expected.clone()]);
    // No header flag stands for it: the model keeps every flag it earns, and a file
    // with those flags is readable, with the finding.
    let flags = gom::validate::flags_for(&m);
    assert_eq!(flags, gom::ValidationFlags::all());
    m.header.validation_flags = flags;
    let read = gomb::read(&gomb::write(&m).unwrap()).unwrap();
    assert_eq!(read.findings, vec![expected]);
    assert_eq!(
        read.findings[0].to_string(),
        format!("uniqueClipNames fails: {}", read.findings[0].message)
    );
}
