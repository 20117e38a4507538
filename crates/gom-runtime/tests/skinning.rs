//! Every skinning path the CPU supports gives the scalar path's results within 10⁻⁶
//! relative: random poses (with and without non-uniform scale), random weights on
//! 1–4 influences (the same count on every vertex, or mixed), positions, normals and
//! tangents, vertex counts that are not multiples of any path's block, blocks of
//! sixteen vertices that name few bones (blended bone by bone) and blocks that name
//! many.

mod common;

use common::{chain_of, model, random_clip, sample_clip, skin_all, Out, Rng};
use glam::Vec3A;
use gom::math::{bind_world, inverse_affine};
use gom::{MeshPart, SkinWeights, Submesh};
use gom_runtime::{
    skin, skin_with, Asset, LocalPose, Palette, Playback, SamplingContext, SkinPath, SkinTargets,
};

const BONES: usize = 40;

/// A mesh of `n` vertices over a `BONES`-bone chain with positions, normals, tangents
/// and `influences` random weights per vertex (descending, summing to 1); 0 draws
/// 1–4 influences for each vertex, so that blocks mix influence counts. The vertices
/// of even blocks of sixteen follow neighbouring bones (at most nine a block, some
/// vertices naming one bone in two slots); those of odd blocks any bones.
fn mesh(n: usize, influences: usize, rng: &mut Rng) -> MeshPart {
    let skeleton = chain_of(BONES);
    let mut v = gom::Vertices::default();
    let (mut normals, mut tangents, mut skin) = (vec![], vec![], vec![]);
    for i in 0..n {
        v.positions.push([0, 1, 2].map(|_| rng.range(-2.0, 2.0)));
        normals.push([0, 1, 2].map(|_| rng.range(-1.0, 1.0)));
        let w = if rng.unit() < 0.5 { 1.0 } else { -1.0 };
        let t = [0, 1, 2].map(|_| rng.range(-1.0, 1.0));
        tangents.push([t[0], t[1], t[2], w]);
        let k = if influences == 0 {
            1 + (rng.unit() * 4.0) as usize % 4
        } else {
            influences
        };
        skin.push(weights(
            k,
            (i / 16).is_multiple_of(2).then_some(i / 16),
            rng,
        ));
    }
    v.normals = Some(normals);
    v.tangents = Some(tangents);
    v.skin = Some(skin);
    let inverse_bind = bind_world(&skeleton.bones)
        .iter()
        .map(|w| inverse_affine(w).expect("invertible bind"))
        .collect();
    MeshPart {
        morph_targets: Vec::new(),
        name: format!("m{n}"),
        vertices: v,
        indices: vec![],
        submeshes: Vec::<Submesh>::new(),
        inverse_bind,
        mesh_bind_geo_to_model: None,
        bounds: None,
        skinning: Default::default(),
    }
}

/// `k` bones with random weights in descending order summing to 1; the other slots
/// weight 0 on bone 0. The bones are every other one from a first, which is near
/// `3·block` for a `block` (and then one time in four the second slot repeats the
/// first's bone), else anywhere.
fn weights(k: usize, block: Option<usize>, rng: &mut Rng) -> SkinWeights {
    let mut raw: Vec<f32> = (0..k).map(|_| rng.range(0.05, 1.0)).collect();
    raw.sort_by(|a, b| b.total_cmp(a));
    let sum: f32 = raw.iter().sum();
    let first = match block {
        Some(b) => 3 * b + (rng.unit() * 3.0) as usize % 3,
        None => (rng.unit() * BONES as f32) as usize,
    } % BONES;
    let repeat = block.is_some() && rng.unit() < 0.25;
    let mut s = SkinWeights {
        bones: [0; 4],
        weights: [0.0; 4],
    };
    for (i, r) in raw.iter().enumerate() {
        let step = if repeat && i == 1 { 0 } else { 2 * i };
        s.bones[i] = ((first + step) % BONES) as u16;
        s.weights[i] = r / sum;
    }
    s
}

/// A rigid palette set directly: per bone a signed axis permutation (a rotation or a
/// reflection, its own inverse transpose exactly) and a random move.
fn rigid_palette(rng: &mut Rng) -> Palette {
    let perms = [
        [0, 1, 2],
        [1, 2, 0],
        [2, 0, 1],
        [0, 2, 1],
        [2, 1, 0],
        [1, 0, 2],
    ];
    let matrices: Vec<[f32; 16]> = (0..BONES)
        .map(|_| {
            let perm = perms[(rng.unit() * 6.0) as usize % 6];
            let mut m = [0.0f32; 16];
            for (row, &col) in perm.iter().enumerate() {
                m[4 * row + col] = if rng.unit() < 0.5 { 1.0 } else { -1.0 };
            }
            for t in &mut m[12..15] {
                *t = rng.range(-3.0, 3.0);
            }
            m[15] = 1.0;
            m
        })
        .collect();
    let mut pal = Palette::new();
    pal.set_row_major(&matrices);
    pal
}

/// The asset of one mesh and a scaled and a rigid clip.
fn asset(n: usize, influences: usize, seed: u64) -> Asset<'static> {
    let mut rng = Rng::new(seed);
    let m = mesh(n, influences, &mut rng);
    let clips = vec![random_clip(BONES, 4, 1.0, seed ^ 0x55)];
    Asset::from_model(&model(chain_of(BONES), vec![m], clips)).expect("valid model")
}

fn palette(asset: &Asset<'_>, clip: usize, t: f32) -> Palette {
    let (mut ctx, mut local) = (SamplingContext::new(), LocalPose::default());
    sample_clip(asset, clip, t, Playback::Loop, &mut ctx, &mut local);
    let world = common::model_pose_of(asset, &local);
    let mut pal = Palette::new();
    pal.compute(&asset.meshes()[0], &world).unwrap();
    pal
}

/// The skinning paths this CPU runs, in [`SkinPath::ALL`]'s order. A path the CPU
/// lacks cannot be tested here, and no CPU has them all: each test that goes over the
/// paths says which ran and which did not (docs/reliability.md), rather than pass in
/// silence without them.
fn supported_paths() -> Vec<SkinPath> {
    let (ran, not): (Vec<SkinPath>, Vec<SkinPath>) =
        SkinPath::ALL.into_iter().partition(|p| p.is_supported());
    eprintln!("skinning paths run: {ran:?}; not on this CPU: {not:?}");
    ran
}

/// The length of the sum of the absolute values of the terms of `Σ w_k · M_k · v`
/// (the size of the numbers the sum went through, whatever cancelled), with `M_k`
/// given as columns and `t` the weight of the fourth column.
fn term_size(cols: &[[Vec3A; 4]], b: [u16; 4], w: [f32; 4], v: [f32; 3], t: f32) -> f32 {
    let mut s = Vec3A::ZERO;
    for k in 0..4 {
        let m = &cols[usize::from(b[k])];
        let terms = m[0].abs() * v[0].abs() + m[1].abs() * v[1].abs() + m[2].abs() * v[2].abs();
        s += (terms + m[3].abs() * t) * w[k];
    }
    s.length()
}

/// `‖a − b‖ ≤ 10⁻⁶ · size`.
fn close(a: &[f32], b: &[f32], size: f32) -> bool {
    let d = a
        .iter()
        .zip(b)
        .map(|(x, y)| (x - y) * (x - y))
        .sum::<f32>()
        .sqrt();
    d <= 1e-6 * size
}

/// Compares `o` with the scalar path's `r` within 10⁻⁶ relative to the size of the
/// sums (a unit vector's error relative to its length before normalisation).
fn assert_close(asset: &Asset<'_>, pal: &Palette, path: SkinPath, o: &Out, r: &Out) {
    let mesh = &asset.meshes()[0];
    let cols = |m: &glam::Affine3A| {
        let a = m.matrix3;
        [a.x_axis, a.y_axis, a.z_axis, m.translation]
    };
    let aff: Vec<[Vec3A; 4]> = pal.matrices().iter().map(cols).collect();
    let nrm: Vec<[Vec3A; 4]> = if pal.is_rigid() {
        aff.clone()
    } else {
        let c = |m: &glam::Mat3A| [m.x_axis, m.y_axis, m.z_axis, Vec3A::ZERO];
        pal.normal_matrices().iter().map(c).collect()
    };
    let words = mesh.vertex_words();
    let stride = mesh.stride_words();
    for i in 0..mesh.vertex_count() {
        let (b, w) = mesh.skin(i).unwrap();
        let v = &words[i * stride..];
        let at = |o: usize| [v[o], v[o + 1], v[o + 2]];
        let ps = term_size(&aff, b, w, at(0), 1.0).max(f32::MIN_POSITIVE);
        assert!(
            close(&o.0[i], &r.0[i], ps),
            "{path:?} position {i}: {:?} vs scalar {:?}",
            o.0[i],
            r.0[i]
        );
        // Unit vectors: the sums' error divided by the length before normalising.
        let unit_size = |cols: &[[Vec3A; 4]], a: [f32; 3]| {
            let raw = Vec3A::from(a);
            let len: f32 = (0..4)
                .map(|k| {
                    w[k] * (cols[usize::from(b[k])][0] * raw.x
                        + cols[usize::from(b[k])][1] * raw.y
                        + cols[usize::from(b[k])][2] * raw.z)
                })
                .sum::<Vec3A>()
                .length();
            (term_size(cols, b, w, a, 0.0) / len).max(1.0)
        };
        let ns = unit_size(&nrm, at(3));
        assert!(
            close(&o.1[i], &r.1[i], ns),
            "{path:?} normal {i}: {:?} vs scalar {:?}",
            o.1[i],
            r.1[i]
        );
        let ts = unit_size(&aff, at(6));
        assert!(
            close(&o.2[i], &r.2[i], ts),
            "{path:?} tangent {i}: {:?} vs scalar {:?}",
            o.2[i],
            r.2[i]
        );
        assert_eq!(o.2[i][3], r.2[i][3]);
    }
}

#[test]
fn every_supported_path_matches_the_scalar_path() {
    let paths = supported_paths();
    assert!(paths.contains(&SkinPath::Scalar) && paths.contains(&SkinPath::Vec4));
    let mut seed = 1;
    for n in [1, 7, 8, 9, 15, 16, 17, 31, 100, 1003] {
        for influences in 0..=4 {
            seed += 1;
            let asset = asset(n, influences, seed);
            let mut rng = Rng::new(seed);
            for rigid in [false, false, true] {
                let pal = if rigid {
                    rigid_palette(&mut rng)
                } else {
                    palette(&asset, 0, rng.range(0.0, 1.0))
                };
                assert_eq!(pal.is_rigid(), rigid);
                let reference = skin_all(&asset, &pal, SkinPath::Scalar);
                for &path in &paths {
                    let o = skin_all(&asset, &pal, path);
                    assert_close(&asset, &pal, path, &o, &reference);
                }
            }
        }
    }
}

#[test]
fn each_output_alone_equals_the_same_output_of_the_full_pass() {
    let asset = asset(203, 4, 99);
    let pal = palette(&asset, 0, 0.6);
    let mesh = &asset.meshes()[0];
    let n = mesh.vertex_count();
    for path in supported_paths() {
        let full = skin_all(&asset, &pal, path);
        let mut p = vec![[f32::NAN; 3]; n];
        let mut nr = vec![[f32::NAN; 3]; n];
        let mut t = vec![[f32::NAN; 4]; n];
        let only = |targets| skin_with(mesh, &pal, targets, path).unwrap();
        only(SkinTargets {
            positions: Some(&mut p),
            ..Default::default()
        });
        only(SkinTargets {
            normals: Some(&mut nr),
            ..Default::default()
        });
        only(SkinTargets {
            tangents: Some(&mut t),
            ..Default::default()
        });
        assert_eq!(p, full.0, "{path:?} positions");
        assert_eq!(nr, full.1, "{path:?} normals");
        assert_eq!(t, full.2, "{path:?} tangents");
    }
}

#[test]
fn skin_runs_the_best_path() {
    let asset = asset(45, 3, 7);
    let pal = palette(&asset, 0, 0.2);
    let best = skin_all(&asset, &pal, SkinPath::best());
    let n = asset.meshes()[0].vertex_count();
    let mut p = vec![[f32::NAN; 3]; n];
    skin(
        &asset.meshes()[0],
        &pal,
        SkinTargets {
            positions: Some(&mut p),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(p, best.0);
    assert!(SkinPath::best().is_supported());
}

#[test]
fn normals_are_unit_and_tangents_keep_w() {
    let asset = asset(77, 4, 5);
    let pal = palette(&asset, 0, 0.45);
    let words = asset.meshes()[0].vertex_words();
    let stride = asset.meshes()[0].stride_words();
    for path in supported_paths() {
        let (_, nr, t) = skin_all(&asset, &pal, path);
        for (i, (n, t)) in nr.iter().zip(&t).enumerate() {
            let len = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
            assert!((len(n) - 1.0).abs() < 1e-5, "{path:?} normal {i}: {n:?}");
            assert!((len(&t[..3]) - 1.0).abs() < 1e-5, "{path:?} tangent {i}");
            // The tangent's w is the file's (word 3 of the tangent, after the normal).
            assert_eq!(t[3], words[i * stride + 9], "{path:?} tangent w {i}");
        }
    }
}

#[test]
fn a_palette_without_normal_matrices_skins_positions_and_tangents_but_refuses_normals() {
    let asset = asset(41, 4, 11);
    let full = palette(&asset, 0, 0.35);
    let rows: Vec<[f32; 16]> = (0..BONES).map(|b| full.row_major(b).unwrap()).collect();
    let mut with = Palette::new();
    with.set_row_major(&rows);
    let mut without = Palette::new();
    without.set_row_major_without_normals(&rows);
    assert!(with.has_normal_matrices() && !without.has_normal_matrices());
    let mesh = &asset.meshes()[0];
    let n = mesh.vertex_count();
    for path in supported_paths() {
        let run = |pal: &Palette| {
            let (mut p, mut t) = (vec![[f32::NAN; 3]; n], vec![[f32::NAN; 4]; n]);
            let targets = SkinTargets {
                positions: Some(&mut p),
                normals: None,
                tangents: Some(&mut t),
            };
            skin_with(mesh, pal, targets, path).unwrap();
            (p, t)
        };
        assert_eq!(run(&with), run(&without), "{path:?}");
        let mut nr = vec![[0.0; 3]; n];
        let asked = SkinTargets {
            normals: Some(&mut nr),
            ..Default::default()
        };
        assert!(skin_with(mesh, &without, asked, path).is_err(), "{path:?}");
    }
}

/// A palette computed for a static mesh holds one matrix, so it fits a skinned mesh
/// of one bone too: every path skins that mesh with it (no path may assume the
/// palette was computed for the mesh it skins), equal to the scalar path, and moved by
/// the static mesh's matrix.
#[test]
fn a_static_meshes_palette_skins_a_one_bone_mesh_on_every_path() {
    let skeleton = chain_of(1);
    let n = 37;
    let positions: Vec<[f32; 3]> = (0..n).map(|i| [i as f32, 1.0, -2.0]).collect();
    let one = common::weights([0, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]);
    let mut skinned = common::skinned_mesh(&skeleton, positions.clone(), vec![one; n]);
    skinned.vertices.tangents = Some(vec![[1.0, 0.0, 0.0, 1.0]; n]);
    let mut fixed = common::skinned_mesh(&gom::Skeleton { bones: vec![] }, positions, vec![]);
    fixed.name = "static".into();
    fixed.vertices.skin = None;
    fixed.inverse_bind.clear();
    fixed.mesh_bind_geo_to_model = Some(gom::math::from_trs(
        [0.0, 0.0, 10.0],
        [0.0, 0.0, 0.0, 1.0],
        [2.0; 3],
    ));
    let asset = Asset::from_model(&model(skeleton, vec![skinned, fixed], vec![])).unwrap();
    let mut pal = Palette::new();
    let world = common::model_pose_of(&asset, &LocalPose::bind(asset.skeleton()));
    pal.compute(&asset.meshes()[1], &world).unwrap();
    let reference = skin_all(&asset, &pal, SkinPath::Scalar);
    for path in supported_paths() {
        let o = skin_all(&asset, &pal, path);
        assert_eq!(o.0, reference.0, "{path:?} positions");
        assert_eq!(o.1, reference.1, "{path:?} normals");
        assert_eq!(o.2, reference.2, "{path:?} tangents");
    }
    // The palette's one matrix is the static mesh's (scale 2, then up 10), and every
    // vertex follows bone 0 alone: (x, 1, -2) -> (2x, 2, 6).
    for (i, p) in reference.0.iter().enumerate() {
        assert_eq!(*p, [2.0 * i as f32, 2.0, 6.0], "vertex {i}");
    }
}

/// No path does arithmetic on the word after an attribute. In a mesh without tangents
/// the word after the normal (without normals, after the position) is the skin's
/// first: two bone indices as bits. An unused slot may name a bone past the skeleton
/// (weight 0, D13), which makes those bits a NaN; small indices make a subnormal
/// (slow on some CPUs). Every path still gives the scalar path's finite results.
#[test]
fn the_word_after_an_attribute_never_enters_the_arithmetic() {
    for with_normals in [true, false] {
        let mut rng = Rng::new(404);
        let mut m = mesh(203, 1, &mut rng);
        m.vertices.tangents = None;
        if !with_normals {
            m.vertices.normals = None;
        }
        for (i, s) in m.vertices.skin.iter_mut().flatten().enumerate() {
            // Slot 1 is unused: NaN bits on even vertices, a subnormal on odd ones.
            s.bones[1] = if i % 2 == 0 { 0xFFC0 } else { 0 };
        }
        let clips = vec![random_clip(BONES, 4, 1.0, 17)];
        let asset = Asset::from_model(&model(chain_of(BONES), vec![m], clips)).unwrap();
        let mesh = &asset.meshes()[0];
        let (b, _) = mesh.skin(0).unwrap();
        assert!(f32::from_bits(u32::from(b[0]) | u32::from(b[1]) << 16).is_nan());
        let pal = palette(&asset, 0, 0.3);
        let run = |path: SkinPath| {
            let n = mesh.vertex_count();
            let (mut p, mut nrm) = (vec![[f32::NAN; 3]; n], vec![[f32::NAN; 3]; n]);
            let targets = SkinTargets {
                positions: Some(&mut p),
                normals: with_normals.then_some(&mut nrm[..]),
                tangents: None,
            };
            skin_with(mesh, &pal, targets, path).unwrap();
            (p, nrm)
        };
        let reference = run(SkinPath::Scalar);
        for path in supported_paths() {
            let (p, nrm) = run(path);
            let outputs = [(&p, &reference.0)]
                .into_iter()
                .chain(with_normals.then_some((&nrm, &reference.1)));
            for (o, r) in outputs {
                for (i, (a, b)) in o.iter().zip(r).enumerate() {
                    let near = a
                        .iter()
                        .zip(b)
                        .all(|(x, y)| x.is_finite() && (x - y).abs() <= 1e-5 * (1.0 + y.abs()));
                    assert!(near, "{path:?} vertex {i}: {a:?} vs scalar {b:?}");
                }
            }
        }
    }
}

/// An infinite element in one bone's matrix spoils only the vertices whose slots name
/// that bone, on every path: a block blended bone by bone must not multiply it by the
/// zero weights of the block's other vertices.
#[test]
fn a_non_finite_bone_spoils_only_the_vertices_that_use_it() {
    const BAD: u16 = 5;
    let asset = asset(203, 0, 77);
    let mesh = &asset.meshes()[0];
    let good = palette(&asset, 0, 0.4);
    let mut rows: Vec<[f32; 16]> = (0..BONES).map(|b| good.row_major(b).unwrap()).collect();
    rows[usize::from(BAD)][12] = f32::INFINITY;
    let mut pal = Palette::new();
    pal.set_row_major(&rows);
    let uses_bad = |i: usize| mesh.skin(i).unwrap().0.contains(&BAD);
    let spoiled = (0..mesh.vertex_count()).filter(|&i| uses_bad(i)).count();
    assert!(spoiled > 0 && spoiled < mesh.vertex_count() / 2);
    let reference = skin_all(&asset, &pal, SkinPath::Scalar);
    for path in supported_paths() {
        let o = skin_all(&asset, &pal, path);
        for i in (0..mesh.vertex_count()).filter(|&i| !uses_bad(i)) {
            let finite = |v: &[f32]| v.iter().all(|x| x.is_finite());
            assert!(
                finite(&o.0[i]) && finite(&o.1[i]) && finite(&o.2[i]),
                "{path:?} vertex {i}: {:?} {:?} {:?}",
                o.0[i],
                o.1[i],
                o.2[i]
            );
            let near = |a: &[f32], b: &[f32]| {
                a.iter()
                    .zip(b)
                    .all(|(x, y)| (x - y).abs() <= 1e-4 * (1.0 + y.abs()))
            };
            assert!(near(&o.0[i], &reference.0[i]), "{path:?} position {i}");
        }
    }
}

/// Normals and tangents so short that their squared length is subnormal still come
/// out as unit vectors on every path wherever the scalar path makes them unit (the
/// subnormal range keeps few bits, so the comparison is to 10⁻³).
#[test]
fn a_direction_with_a_subnormal_squared_length_is_still_made_unit() {
    let mut rng = Rng::new(606);
    let mut m = mesh(101, 4, &mut rng);
    for n in m.vertices.normals.iter_mut().flatten() {
        *n = n.map(|x| x * 3e-20);
    }
    for t in m.vertices.tangents.iter_mut().flatten() {
        for x in &mut t[..3] {
            *x *= 3e-20;
        }
    }
    let clips = vec![random_clip(BONES, 4, 1.0, 18)];
    let asset = Asset::from_model(&model(chain_of(BONES), vec![m], clips)).unwrap();
    let pal = rigid_palette(&mut rng);
    let reference = skin_all(&asset, &pal, SkinPath::Scalar);
    let unit = |v: &[f32]| (v[..3].iter().map(|x| x * x).sum::<f32>().sqrt() - 1.0).abs() < 1e-3;
    let n = asset.meshes()[0].vertex_count();
    let checked: Vec<usize> = (0..n)
        .filter(|&i| unit(&reference.1[i]) && unit(&reference.2[i]))
        .collect();
    assert!(checked.len() > n / 2, "{} of {n}", checked.len());
    for path in supported_paths() {
        let o = skin_all(&asset, &pal, path);
        for &i in &checked {
            let near = |a: &[f32], b: &[f32]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-3);
            assert!(
                near(&o.1[i], &reference.1[i]) && near(&o.2[i], &reference.2[i]),
                "{path:?} vertex {i}: {:?} {:?} vs scalar {:?} {:?}",
                o.1[i],
                o.2[i],
                reference.1[i],
                reference.2[i]
            );
        }
    }
}
