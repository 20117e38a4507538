//! Opening GOMB bytes in place gives the same animation and skinning as the model the
//! file was written from.

mod common;

use common::{model_pose_of, sample_clip, skin_positions, skin_positions_normals};
use gom_runtime::*;

/// Local pose, model pose, and per mesh the skinned positions and normals.
type Frame = (LocalPose, ModelPose, Vec<Vec<[f32; 3]>>, Vec<Vec<[f32; 3]>>);

fn frame(asset: &Asset, clip: usize, t: f32) -> Frame {
    let (mut ctx, mut local, mut pal) =
        (SamplingContext::new(), LocalPose::default(), Palette::new());
    sample_clip(asset, clip, t, Playback::Loop, &mut ctx, &mut local);
    let world = model_pose_of(asset, &local);
    let mut ps = Vec::new();
    let mut ns = Vec::new();
    for mesh in asset.meshes() {
        pal.compute(mesh, &world).unwrap();
        let (p, n) = skin_positions_normals(mesh, &pal);
        ps.push(p);
        ns.push(n);
    }
    (local, world, ps, ns)
}

#[test]
fn file_opened_in_place_animates_like_the_model() {
    let model = gom_demo::build();
    let bytes = gom::gomb::write(&model).unwrap();
    // A u32 buffer guarantees the 4-byte alignment the in-place casts need.
    let mut words = vec![0u32; bytes.len().div_ceil(4)];
    bytemuck::cast_slice_mut::<u32, u8>(&mut words)[..bytes.len()].copy_from_slice(&bytes);
    let aligned = &bytemuck::cast_slice::<u32, u8>(&words)[..bytes.len()];
    let in_place = Asset::parse(aligned).unwrap();
    assert!(in_place.meshes().iter().all(|m| m.is_in_place()));
    assert!(in_place.clips().iter().all(|c| c.is_in_place()));
    // The same bytes one byte off alignment: copied, same results.
    let mut shifted = vec![0u8; bytes.len() + 1];
    shifted[1..].copy_from_slice(&bytes);
    let copied = Asset::parse(&shifted[1..]).unwrap();
    assert!(copied.meshes().iter().all(|m| !m.is_in_place()));
    let owned = Asset::from_model(&model).unwrap();
    assert_eq!(in_place.skeleton().names(), owned.skeleton().names());
    assert_eq!(in_place.skeleton().parents(), owned.skeleton().parents());
    for c in 0..owned.clips().len() {
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
    let model = gom_demo::build();
    let bytes = gom::gomb::write(&model).unwrap();
    let asset = Asset::parse(&bytes).unwrap();
    let world = ModelPose::bind(asset.skeleton());
    let mut pal = Palette::new();
    for (mesh, part) in asset.meshes().iter().zip(&model.meshes) {
        pal.compute(mesh, &world).unwrap();
        let p = skin_positions(mesh, &pal);
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
fn posed_meshes_equal_the_frame_built_step_by_step() {
    // Asset::posed_meshes (pose_at + skin_all) against sample, local-to-model, palette
    // and skin on the reference and scalar paths (the ones every CPU has, so that tools
    // write the same bytes everywhere) called one by one: the same bits, at a time
    // between keys and at bind.
    let bytes = gom::gomb::write(&gom_demo::build()).unwrap();
    let asset = Asset::parse(&bytes).unwrap();
    let (local, _, _, _) = frame(&asset, 0, 0.7);
    let mut world = ModelPose::new();
    local_to_model_reference(asset.skeleton(), &local, &mut world).unwrap();
    assert_eq!(
        asset.model_pose(Some(0), 0.7, Playback::Loop).unwrap(),
        world
    );
    // The CPU's own path is within rounding of it.
    for (a, b) in model_pose_of(&asset, &local)
        .matrices()
        .iter()
        .zip(world.matrices())
    {
        assert!(a.abs_diff_eq(*b, 1e-5), "{a:?} != {b:?}");
    }
    let posed = asset.posed_meshes(Some(0), 0.7, Playback::Loop).unwrap();
    assert_eq!(posed.len(), asset.meshes().len());
    for (k, (m, mesh)) in posed.iter().zip(asset.meshes()).enumerate() {
        let mut pal = Palette::new();
        pal.compute(mesh, &world).unwrap();
        let n = mesh.vertex_count();
        let (mut p, mut nr) = (vec![[f32::NAN; 3]; n], vec![[f32::NAN; 3]; n]);
        let targets = SkinTargets {
            positions: Some(&mut p),
            normals: Some(&mut nr),
            tangents: None,
        };
        skin_with(mesh, &pal, targets, SkinPath::Scalar).unwrap();
        assert_eq!(m.positions, p, "mesh {k}");
        assert_eq!(m.normals.as_ref(), Some(&nr), "mesh {k}");
    }
    let bind = pose_at(asset.skeleton(), None, 5.0, Playback::Once).unwrap();
    assert_eq!(bind, ModelPose::bind(asset.skeleton()));
    assert!(asset.posed_meshes(Some(9), 0.0, Playback::Once).is_err());
}

#[test]
fn broken_bytes_are_refused_with_the_reader_error() {
    let bytes = gom::gomb::write(&gom_demo::build()).unwrap();
    let err = Asset::parse(&bytes[..bytes.len() - 3]).unwrap_err();
    assert!(matches!(err, Error::Read(_)), "{err}");
}

/// D1's skinning written out with `gom::math` (row vectors, row-major), normals with
/// the inverse-transpose computed in f64: a second path to compare the runtime with.
fn reference_skin(
    part: &gom::MeshPart,
    world_row_major: &[[f32; 16]],
) -> (Vec<[f32; 3]>, Vec<[f32; 3]>) {
    use gom::math::{mul, transform_point};
    let g = part.mesh_bind_geo_to_model.unwrap_or(gom::IDENTITY);
    let v = &part.vertices;
    let mats: Vec<[f32; 16]> = match &v.skin {
        Some(_) => part
            .inverse_bind
            .iter()
            .zip(world_row_major)
            .map(|(ib, w)| mul(&g, &mul(ib, w)))
            .collect(),
        None => vec![g],
    };
    let inv_t = |m: &[f32; 16]| -> [[f64; 3]; 3] {
        let a = |r: usize, c: usize| f64::from(m[r * 4 + c]);
        let det = a(0, 0) * (a(1, 1) * a(2, 2) - a(1, 2) * a(2, 1))
            - a(0, 1) * (a(1, 0) * a(2, 2) - a(1, 2) * a(2, 0))
            + a(0, 2) * (a(1, 0) * a(2, 1) - a(1, 1) * a(2, 0));
        // Cofactor matrix / det = inverse-transpose.
        let cof = |r: usize, c: usize| {
            let (r1, r2) = ((r + 1) % 3, (r + 2) % 3);
            let (c1, c2) = ((c + 1) % 3, (c + 2) % 3);
            a(r1, c1) * a(r2, c2) - a(r1, c2) * a(r2, c1)
        };
        std::array::from_fn(|r| std::array::from_fn(|c| cof(r, c) / det))
    };
    let mut ps = Vec::new();
    let mut ns = Vec::new();
    for i in 0..v.positions.len() {
        let (bones, weights) = match &v.skin {
            Some(s) => (s[i].bones, s[i].weights),
            None => ([0; 4], [1.0, 0.0, 0.0, 0.0]),
        };
        let mut p = [0.0f64; 3];
        let mut n = [0.0f64; 3];
        for k in 0..4 {
            if weights[k] == 0.0 {
                continue;
            }
            let m = &mats[bones[k] as usize];
            let q = transform_point(m, v.positions[i]);
            let it = inv_t(m);
            let src = v.normals.as_ref().map_or([0.0; 3], |s| s[i]);
            for c in 0..3 {
                p[c] += f64::from(weights[k]) * f64::from(q[c]);
                // Row vector times the inverse-transpose (in row-vector form).
                let nc: f64 = (0..3).map(|r| f64::from(src[r]) * it[r][c]).sum();
                n[c] += f64::from(weights[k]) * nc;
            }
        }
        let l = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
        ps.push(p.map(|x| x as f32));
        ns.push(n.map(|x| (x / l) as f32));
    }
    (ps, ns)
}

#[test]
fn skinning_matches_d1_written_out_and_all_paths_agree() {
    let model = gom_demo::build();
    let bytes = gom::gomb::write(&model).unwrap();
    let asset = Asset::parse(&bytes).unwrap();
    let (mut ctx, mut local, mut pal) =
        (SamplingContext::new(), LocalPose::default(), Palette::new());
    for (c, t) in [(0, 0.3f32), (0, 1.7), (1, 0.9)] {
        sample_clip(&asset, c, t, Playback::Loop, &mut ctx, &mut local);
        let world = model_pose_of(&asset, &local);
        let rows: Vec<[f32; 16]> = (0..world.bone_count())
            .map(|b| world.row_major(b).unwrap())
            .collect();
        for (mesh, part) in asset.meshes().iter().zip(&model.meshes) {
            pal.compute(mesh, &world).unwrap();
            let n = mesh.vertex_count();
            let (p, nr) = skin_positions_normals(mesh, &pal);
            let (ep, en) = reference_skin(part, &rows);
            for i in 0..n {
                for k in 0..3 {
                    assert!(
                        (p[i][k] - ep[i][k]).abs() < 1e-5,
                        "{} v{i}: {:?} {:?}",
                        part.name,
                        p[i],
                        ep[i]
                    );
                    assert!(
                        (nr[i][k] - en[i][k]).abs() < 1e-5,
                        "{} v{i}: {:?} {:?}",
                        part.name,
                        nr[i],
                        en[i]
                    );
                }
            }
            // The general path (with tangents) gives the same bits as the fast path.
            if mesh
                .layout()
                .offset(gom::layout::Attribute::Tangent)
                .is_some()
            {
                let (mut p2, mut n2, mut t2) =
                    (vec![[0.0; 3]; n], vec![[0.0; 3]; n], vec![[0.0; 4]; n]);
                skin(
                    mesh,
                    &pal,
                    SkinTargets {
                        positions: Some(&mut p2),
                        normals: Some(&mut n2),
                        tangents: Some(&mut t2),
                    },
                )
                .unwrap();
                assert_eq!(p, p2);
                assert_eq!(nr, n2);
            }
            // Positions only, and the exact bounds, agree with the full pass.
            let p3 = skin_positions(mesh, &pal);
            assert_eq!(p, p3);
            assert_eq!(skinned_bounds(mesh, &pal).unwrap(), Aabb::from_points(&p));
        }
    }
}
