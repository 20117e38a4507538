//! Opening GOMB bytes in place gives the same animation and skinning as the model the
//! file was written from.

mod common;

use gom_runtime::*;

/// Local pose, model pose, and per mesh the skinned positions and normals.
type Frame = (LocalPose, ModelPose, Vec<Vec<[f32; 3]>>, Vec<Vec<[f32; 3]>>);

fn frame(asset: &Asset, clip: usize, t: f32) -> Frame {
    let (mut ctx, mut local, mut world, mut pal) = (
        SamplingContext::new(),
        LocalPose::default(),
        ModelPose::new(),
        Palette::new(),
    );
    sample(
        &asset.clips[clip],
        &asset.skeleton,
        t,
        Playback::Loop,
        &mut ctx,
        &mut local,
    )
    .unwrap();
    local_to_model(&asset.skeleton, &local, &mut world).unwrap();
    let mut ps = Vec::new();
    let mut ns = Vec::new();
    for mesh in &asset.meshes {
        pal.compute(mesh, &world).unwrap();
        let mut p = vec![[0.0; 3]; mesh.vertex_count()];
        let mut n = vec![[0.0; 3]; mesh.vertex_count()];
        skin(
            mesh,
            &pal,
            SkinTargets {
                positions: Some(&mut p),
                normals: Some(&mut n),
                tangents: None,
            },
        )
        .unwrap();
        ps.push(p);
        ns.push(n);
    }
    (local, world, ps, ns)
}

#[test]
fn file_opened_in_place_animates_like_the_model() {
    let model = gom::demo::build();
    let bytes = gom::gomb::write(&model).unwrap();
    // A u32 buffer guarantees the 4-byte alignment the in-place casts need.
    let mut words = vec![0u32; bytes.len().div_ceil(4)];
    bytemuck::cast_slice_mut::<u32, u8>(&mut words)[..bytes.len()].copy_from_slice(&bytes);
    let aligned = &bytemuck::cast_slice::<u32, u8>(&words)[..bytes.len()];
    let in_place = Asset::parse(aligned).unwrap();
    assert!(in_place.meshes.iter().all(|m| m.is_in_place()));
    assert!(in_place.clips.iter().all(|c| c.is_in_place()));
    // The same bytes one byte off alignment: copied, same results.
    let mut shifted = vec![0u8; bytes.len() + 1];
    shifted[1..].copy_from_slice(&bytes);
    let copied = Asset::parse(&shifted[1..]).unwrap();
    assert!(copied.meshes.iter().all(|m| !m.is_in_place()));
    let owned = Asset::from_model(&model).unwrap();
    assert_eq!(in_place.skeleton.names(), owned.skeleton.names());
    assert_eq!(in_place.skeleton.parents(), owned.skeleton.parents());
    for c in 0..owned.clips.len() {
        for t in [0.0, 0.37, 1.0, 1.49, 2.6] {
            let a = frame(&owned, c, t);
            let b = frame(&in_place, c, t);
            let d = frame(&copied, c, t);
            assert_eq!(a, b, "clip {c} t {t}");
            assert_eq!(a, d, "clip {c} t {t}");
        }
    }
}

#[test]
fn bind_pose_of_the_demo_reproduces_its_vertices() {
    // The demo's tentacle skinned at the bind pose lands on its stored positions
    // (after GBTM for the base box), within 1e-5.
    let model = gom::demo::build();
    let bytes = gom::gomb::write(&model).unwrap();
    let asset = Asset::parse(&bytes).unwrap();
    let world = ModelPose::bind(&asset.skeleton);
    let mut pal = Palette::new();
    for (mesh, part) in asset.meshes.iter().zip(&model.meshes) {
        pal.compute(mesh, &world).unwrap();
        let mut p = vec![[0.0; 3]; mesh.vertex_count()];
        skin(
            mesh,
            &pal,
            SkinTargets {
                positions: Some(&mut p),
                ..Default::default()
            },
        )
        .unwrap();
        let g = part.mesh_bind_geo_to_model.unwrap_or(gom::IDENTITY);
        for (a, src) in p.iter().zip(&part.vertices.positions) {
            let e = gom::math::transform_point(&g, *src);
            for k in 0..3 {
                assert!((a[k] - e[k]).abs() <= 1e-5, "{}: {a:?} != {e:?}", part.name);
            }
        }
        // The stored bind bounds contain the bind pose; the per-bone bound contains it.
        let fast = BoneBounds::new(mesh).bound(&pal);
        for q in &p {
            assert!(fast.contains(glam::Vec3::from_array(*q), 1e-5));
        }
    }
}

#[test]
fn broken_bytes_are_refused_with_the_reader_error() {
    let bytes = gom::gomb::write(&gom::demo::build()).unwrap();
    let err = Asset::parse(&bytes[..bytes.len() - 3]).unwrap_err();
    assert!(matches!(err, Error::Read(_)), "{err}");
}
