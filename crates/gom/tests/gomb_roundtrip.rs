//! Seeded random models, some breaking validation checks on purpose: each writes,
//! reads back to the same model, re-writes to the same bytes, and the reader's
//! findings and the header flags agree with `validate` on the model.

mod gomb_support;

use gom::math::{bind_world, from_trs, inverse_affine};

use gom::validate::{flags_for, validate};
use gom::{
    gomb, Clip, ClipFlags, Key, Material, MeshPart, Model, SkinWeights, Submesh, Track, Vertices,
    IDENTITY,
};
use gom_demo::quat_from_axis_angle;
use gomb_support::{skeleton, Rng};

fn random_model(rng: &mut Rng) -> Model {
    let bones = rng.below(6) as usize;
    let sk = skeleton(bones, rng);
    let world = bind_world(&sk.bones);
    let materials: Vec<Material> = (0..rng.below(3))
        .map(|i| Material {
            name: format!("m{i}"),
            base_color_texture: (i % 2 == 0).then(|| format!("t{i}.png")),
            base_color_factor: [rng.range(0.0, 1.0), 0.5, 0.25, 1.0],
        })
        .collect();
    let mut meshes = Vec::new();
    for m in 0..rng.below(4) {
        let n = 1 + rng.below(40) as usize;
        let mut v = Vertices {
            positions: (0..n)
                .map(|_| {
                    [
                        rng.range(-5.0, 5.0),
                        rng.range(-5.0, 5.0),
                        rng.range(-5.0, 5.0),
                    ]
                })
                .collect(),
            ..Default::default()
        };
        if rng.below(2) == 0 {
            v.normals = Some(vec![[0.0, 1.0, 0.0]; n]);
        }
        if rng.below(2) == 0 {
            v.tangents = Some(
                (0..n)
                    .map(|i| [1.0, 0.0, 0.0, if i % 2 == 0 { 1.0 } else { -1.0 }])
                    .collect(),
            );
        }
        if rng.below(2) == 0 {
            v.uv0 = Some(
                (0..n)
                    .map(|_| [rng.range(0.0, 1.0), rng.range(0.0, 1.0)])
                    .collect(),
            );
        }
        if rng.below(3) == 0 {
            v.uv1 = Some(vec![[0.5, 0.5]; n]);
        }
        if rng.below(3) == 0 {
            v.colors = Some((0..n).map(|i| [i as u8, 1, 2, 3]).collect());
        }
        let skinned = bones > 0 && rng.below(2) == 0;
        let mut inverse_bind = Vec::new();
        if skinned {
            let break_weights = rng.below(4) == 0;
            v.skin = Some(
                (0..n)
                    .map(|i| {
                        let a = (i % bones) as u16;
                        if break_weights && i == 0 {
                            SkinWeights {
                                bones: [a, 0, 0, 0],
                                weights: [0.8, 0.0, 0.0, 0.0],
                            }
                        } else {
                            SkinWeights {
                                bones: [a, 0, 0, 0],
                                weights: [1.0, 0.0, 0.0, 0.0],
                            }
                        }
                    })
                    .collect(),
            );
            inverse_bind = world
                .iter()
                .map(|w| inverse_affine(w).unwrap_or(IDENTITY))
                .collect();
            if rng.below(4) == 0 {
                inverse_bind[0][12] += 1.0; // breaks bindPosePass when bone 0 is used
            }
        }
        let tris = rng.below(20) as usize;
        let indices: Vec<u32> = (0..3 * tris).map(|_| rng.below(n as u64) as u32).collect();
        let mut submeshes = Vec::new();
        if tris > 0 {
            let cut = 3 * (rng.below(tris as u64 + 1) as u32);
            let mat = |rng: &mut Rng| rng.below(materials.len() as u64 + 2) as i32 - 1;
            if cut > 0 {
                submeshes.push(Submesh {
                    material_index: mat(rng),
                    index_start: 0,
                    index_count: cut,
                });
            }
            let rest = 3 * tris as u32 - cut;
            if rest > 0 && rng.below(5) != 0 {
                submeshes.push(Submesh {
                    material_index: mat(rng),
                    index_start: cut,
                    index_count: rest,
                });
            }
        }
        let g = (rng.below(3) == 0).then(|| {
            from_trs(
                [1.0, 2.0, 3.0],
                quat_from_axis_angle([0.0, 1.0, 0.0], rng.range(-3.0, 3.0)),
                [rng.range(0.5, 2.0); 3],
            )
        });
        meshes.push(MeshPart {
            morph_targets: Vec::new(),
            name: format!("mesh{}", m % 2),
            vertices: v,
            indices,
            submeshes,
            inverse_bind,
            mesh_bind_geo_to_model: g,
            bounds: None,
            skinning: Default::default(),
        });
    }
    let clips = (0..rng.below(3))
        .map(|c| {
            let duration = rng.range(0.0, 2.0);
            let mut tracks = Vec::new();
            for bone in 0..bones as u32 {
                if rng.below(2) == 0 {
                    continue;
                }
                let k = 1 + rng.below(4) as usize;
                let keys = (0..k)
                    .map(|i| Key {
                        time: duration * i as f32 / k as f32,
                        translation: [rng.range(-1.0, 1.0), 0.0, 0.0],
                        rotation: quat_from_axis_angle([1.0, 0.0, 0.0], rng.range(-3.0, 3.0)),
                        scale: [1.0; 3],
                    })
                    .collect();
                tracks.push(Track { bone, keys });
            }
            let root = if bones > 0 && rng.below(2) == 0 {
                0
            } else {
                -1
            };
            Clip {
                weight_tracks: Vec::new(),
                name: format!("clip{c}"),
                duration,
                sample_rate: 30.0,
                root_bone_index: root,
                flags: if root == 0 {
                    ClipFlags::HAS_ROOT_MOTION
                } else {
                    ClipFlags::empty()
                },
                tracks,
                compressed: None,
                extras: Default::default(),
            }
        })
        .collect();
    let mut model = Model {
        skeleton: sk,
        materials,
        meshes,
        clips,
        ..Default::default()
    };
    model.header.converter_version = "gom test".into();
    model.header.source_hash = gomb_support::test_hash();
    model
}

#[test]
fn random_models_round_trip_and_agree_with_validate() {
    let mut rng = Rng::new(0x0123_4567_89AB_CDEF);
    let mut flags_seen = [0u32; 8];
    for case in 0..500 {
        let m = random_model(&mut rng);
        let bytes = gomb::write(&m).unwrap_or_else(|e| panic!("case {case}: {e}"));
        let want_flags = flags_for(&m);
        flags_seen[want_flags.bits() as usize] += 1;
        assert_eq!(
            gomb_support::rd(&bytes, 60),
            want_flags.bits(),
            "case {case}"
        );
        let r = gomb::read(&bytes).unwrap_or_else(|e| panic!("case {case}: {e}"));
        // The writer cleared exactly the flags of the failing checks, so the reader
        // reports those failures as findings: the same ones the model path finds.
        assert_eq!(r.findings, validate(&m), "case {case}");
        assert_eq!(gom::validate::flags_from_findings(&r.findings), want_flags);
        let mut back = r.model.clone();
        for mesh in &mut back.meshes {
            assert_eq!(
                mesh.bounds,
                Some(gom::bounds::compute_bounds(mesh)),
                "case {case}"
            );
            mesh.bounds = None;
        }
        assert_eq!(back.header.validation_flags, want_flags);
        back.header.validation_flags = Default::default();
        assert_eq!(back, m, "case {case}");
        assert_eq!(gomb::write(&r.model).unwrap(), bytes, "case {case}");
        assert_eq!(validate(&r.model), validate(&m), "case {case}");
    }
    // Every flag combination the generator aims at did occur.
    assert!(
        flags_seen[7] > 50 && flags_seen.iter().filter(|&&n| n > 0).count() >= 4,
        "{flags_seen:?}"
    );
}
