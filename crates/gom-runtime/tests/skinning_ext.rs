//! Skinning with the `SKNX` extension (docs/extensions.md §3): eight influences,
//! dual-quaternion and blended skinning. The scalar path against an independent f64
//! evaluation written here from each bone's scale, rotation and translation; every
//! other path against the scalar one within 10⁻⁶ relative, on blocks blended bone by
//! bone and vertex by vertex (the tests print which paths ran).

mod common;

use common::{chain_of, model, random_clip, sample_clip, skin_all, unit_quat, Rng};
use glam::{DQuat, DVec3};
use gom::math::{bind_world, from_trs, inverse_affine};
use gom::{MeshPart, SkinWeights, SkinningMethod};
use gom_runtime::{
    skin_with, Asset, LocalPose, Palette, Playback, SamplingContext, SkinPath, SkinTargets,
};

const BONES: usize = 12;

/// Eight descending weights summing to 1 over distinct bones of `bones`, the first at
/// random; `slots` of them used.
fn influences(slots: usize, bones: usize, rng: &mut Rng) -> ([u16; 8], [f32; 8]) {
    let mut raw: Vec<f32> = (0..slots).map(|_| rng.range(0.05, 1.0)).collect();
    raw.sort_by(|a, b| b.total_cmp(a));
    let sum: f32 = raw.iter().sum();
    let first = (rng.unit() * bones as f32) as usize;
    let mut b = [0u16; 8];
    let mut w = [0.0f32; 8];
    for k in 0..slots {
        b[k] = ((first + k) % bones) as u16;
        w[k] = raw[k] / sum;
    }
    (b, w)
}

fn split(b: [u16; 8], w: [f32; 8]) -> (SkinWeights, SkinWeights) {
    let half = |k: usize| SkinWeights {
        bones: [b[k], b[k + 1], b[k + 2], b[k + 3]],
        weights: [w[k], w[k + 1], w[k + 2], w[k + 3]],
    };
    (half(0), half(4))
}

/// A mesh of `n` vertices, 1–8 influences each, positions, normals, tangents.
fn mesh(n: usize, method: SkinningMethod, eight: bool, rng: &mut Rng) -> MeshPart {
    mesh_of(n, BONES, method, eight, rng)
}

/// [`mesh`] over a chain of `bones` bones.
fn mesh_of(n: usize, bones: usize, method: SkinningMethod, eight: bool, rng: &mut Rng) -> MeshPart {
    let skeleton = chain_of(bones);
    let mut v = gom::Vertices::default();
    let (mut nrm, mut tan, mut skin, mut extra, mut dq) = (vec![], vec![], vec![], vec![], vec![]);
    for i in 0..n {
        v.positions.push([0, 1, 2].map(|_| rng.range(-2.0, 2.0)));
        nrm.push([0, 1, 2].map(|_| rng.range(-1.0, 1.0)));
        let t = [0, 1, 2].map(|_| rng.range(-1.0, 1.0));
        tan.push([t[0], t[1], t[2], if i % 2 == 0 { 1.0 } else { -1.0 }]);
        let slots = if eight { 1 + i % 8 } else { 1 + i % 4 };
        let (a, b) = split_of(influences(slots, bones, rng));
        skin.push(a);
        extra.push(b);
        dq.push([0.0, 1.0, 0.5, rng.unit()][i % 4]);
    }
    v.normals = Some(nrm);
    v.tangents = Some(tan);
    v.skin = Some(skin);
    v.skin_extra = eight.then_some(extra);
    v.dq_weights = (method == SkinningMethod::Blended).then_some(dq);
    let inverse_bind = bind_world(&skeleton.bones)
        .iter()
        .map(|w| inverse_affine(w).expect("invertible bind"))
        .collect();
    MeshPart {
        name: format!("{method:?}{n}"),
        vertices: v,
        inverse_bind,
        skinning: method,
        ..Default::default()
    }
}

fn split_of((b, w): ([u16; 8], [f32; 8])) -> (SkinWeights, SkinWeights) {
    split(b, w)
}

fn asset(m: MeshPart, seed: u64) -> Asset<'static> {
    asset_of(m, BONES, seed)
}

/// [`asset`] over a chain of `bones` bones.
fn asset_of(m: MeshPart, bones: usize, seed: u64) -> Asset<'static> {
    let clips = vec![random_clip(bones, 4, 1.0, seed)];
    Asset::from_model(&model(chain_of(bones), vec![m], clips)).expect("valid model")
}

/// Per bone, a random translation, rotation and non-uniform scale (0.5 to 2).
fn random_trs(bones: usize, rng: &mut Rng) -> Vec<([f32; 3], [f32; 4], [f32; 3])> {
    (0..bones)
        .map(|_| {
            (
                [0, 1, 2].map(|_| rng.range(-3.0, 3.0)),
                unit_quat(rng),
                [0, 1, 2].map(|_| rng.range(0.5, 2.0)),
            )
        })
        .collect()
}

/// A palette per bone `S · R · T` (row vectors, scale first) from `trs`.
fn palette_of(trs: &[([f32; 3], [f32; 4], [f32; 3])]) -> Palette {
    let m: Vec<[f32; 16]> = trs.iter().map(|&(t, r, s)| from_trs(t, r, s)).collect();
    let mut p = Palette::new();
    p.set_row_major(&m);
    p
}

/// The independent f64 evaluation of one vertex: linear from the matrices, dual
/// quaternion from each bone's own scale, rotation and translation (glam's f64
/// quaternions, antipodality against slot 0), mixed by `alpha`.
fn expected(
    trs: &[([f32; 3], [f32; 4], [f32; 3])],
    b: &[u16],
    w: &[f32],
    alpha: f64,
    p: [f32; 3],
) -> DVec3 {
    let p = DVec3::from(p.map(f64::from));
    let part = |k: usize| {
        let (t, r, s) = trs[usize::from(b[k])];
        let q = DQuat::from_xyzw(r[0].into(), r[1].into(), r[2].into(), r[3].into());
        (
            DVec3::from(t.map(f64::from)),
            q,
            DVec3::from(s.map(f64::from)),
        )
    };
    let mut lin = DVec3::ZERO;
    let (mut real, mut dual, mut scale) = (
        DQuat::from_xyzw(0.0, 0.0, 0.0, 0.0),
        DQuat::from_xyzw(0.0, 0.0, 0.0, 0.0),
        DVec3::ZERO,
    );
    let q0 = part(0).1;
    for (k, &wk) in w.iter().enumerate() {
        let (t, q, s) = part(k);
        let wk = f64::from(wk);
        lin += wk * (q * (s * p) + t);
        let sw = if q.dot(q0) < 0.0 { -wk } else { wk };
        let d = DQuat::from_xyzw(t.x, t.y, t.z, 0.0) * q * 0.5;
        real += q * sw;
        dual += d * sw;
        scale += wk * s;
    }
    let len = real.length();
    let (r, d) = (real * (1.0 / len), dual * (1.0 / len));
    let t = d * r.conjugate() * 2.0;
    let dq = r * (scale * p) + DVec3::new(t.x, t.y, t.z);
    lin * (1.0 - alpha) + dq * alpha
}

#[test]
fn the_scalar_path_equals_an_independent_evaluation_on_scaled_rigid_palettes() {
    let mut rng = Rng::new(11);
    for method in [
        SkinningMethod::Linear,
        SkinningMethod::DualQuaternion,
        SkinningMethod::Blended,
    ] {
        let a = asset(mesh(64, method, true, &mut rng), 3);
        let trs = random_trs(BONES, &mut rng);
        let pal = palette_of(&trs);
        let (p, _, _) = skin_all(&a, &pal, SkinPath::Scalar);
        let mesh = &a.meshes()[0];
        for (i, got) in p.iter().enumerate() {
            let (b, w) = mesh.skin(i).unwrap();
            let (b2, w2) = mesh.skin_extra(i).unwrap();
            let bones = [b, b2].concat();
            let weights = [w, w2].concat();
            let alpha = match method {
                SkinningMethod::Linear => 0.0,
                SkinningMethod::DualQuaternion => 1.0,
                SkinningMethod::Blended => f64::from(mesh.dq_weights()[i]),
            };
            let used = weights.iter().filter(|&&x| x > 0.0).count();
            let want = expected(
                &trs,
                &bones[..used],
                &weights[..used],
                alpha,
                mesh.position(i).unwrap(),
            );
            let got = DVec3::from(got.map(f64::from));
            assert!(
                (got - want).length() <= 2e-5 * (1.0 + want.length()),
                "{method:?} vertex {i}: {got} vs {want}"
            );
        }
    }
}

#[test]
fn dual_quaternions_keep_a_twisted_vertex_off_the_axis() {
    // Two bones, the second turned 180° about +X: a vertex at radius 1 from the axis,
    // half on each, collapses onto the axis under linear skinning and stays at
    // radius 1 under dual quaternions.
    let trs = [
        ([0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3]),
        ([0.0; 3], [1.0, 0.0, 0.0, 0.0], [1.0; 3]),
    ];
    let skel = chain_of(2);
    let ib: Vec<_> = bind_world(&skel.bones)
        .iter()
        .map(|w| inverse_affine(w).unwrap())
        .collect();
    let sw = SkinWeights {
        bones: [0, 1, 0, 0],
        weights: [0.5, 0.5, 0.0, 0.0],
    };
    let part = |method| MeshPart {
        name: "bar".into(),
        vertices: gom::Vertices {
            positions: vec![[0.0, 1.0, 0.0]],
            skin: Some(vec![sw]),
            ..Default::default()
        },
        inverse_bind: ib.clone(),
        skinning: method,
        ..Default::default()
    };
    let radius = |method| {
        let a = Asset::from_model(&model(skel.clone(), vec![part(method)], vec![])).unwrap();
        let mut p = vec![[f32::NAN; 3]];
        let targets = SkinTargets {
            positions: Some(&mut p),
            ..Default::default()
        };
        skin_with(&a.meshes()[0], &palette_of(&trs), targets, SkinPath::Scalar).unwrap();
        (p[0][1] * p[0][1] + p[0][2] * p[0][2]).sqrt()
    };
    assert!(radius(SkinningMethod::Linear) < 1e-6);
    assert!((radius(SkinningMethod::DualQuaternion) - 1.0).abs() < 1e-6);
}

/// `‖a − b‖ ≤ 10⁻⁶ · size`.
fn close(a: &[f32], b: &[f32], size: f32) -> bool {
    let d: f32 = a
        .iter()
        .zip(b)
        .map(|(x, y)| (x - y) * (x - y))
        .sum::<f32>()
        .sqrt();
    d <= 1e-6 * size
}

/// The paths this CPU runs (printed with those it lacks).
fn paths_run() -> Vec<SkinPath> {
    let (ran, not): (Vec<SkinPath>, Vec<SkinPath>) =
        SkinPath::ALL.into_iter().partition(|p| p.is_supported());
    eprintln!("paths run: {ran:?}; not on this CPU: {not:?}");
    ran
}

/// Every path this CPU runs skins `a`'s mesh with `pal` as the scalar path does,
/// positions within 10⁻⁶ of the size of the numbers they went through, directions
/// within 10⁻⁶ · 8, tangents' w copied.
fn assert_paths_match_scalar(a: &Asset<'_>, pal: &Palette, what: &str) {
    let r = skin_all(a, pal, SkinPath::Scalar);
    let m = &a.meshes()[0];
    // The size of the numbers a position went through: Σ wₖ (‖3×3‖·‖p‖ + ‖t‖).
    let sizes: Vec<f32> = (0..m.vertex_count())
        .map(|i| {
            let (b, w) = m.skin(i).unwrap();
            let (b2, w2) = m.skin_extra(i).unwrap_or(([0; 4], [0.0; 4]));
            let p = glam::Vec3A::from(m.position(i).unwrap()).length();
            b.iter()
                .chain(&b2)
                .zip(w.iter().chain(&w2))
                .map(|(&b, &w)| {
                    let x = pal.matrices()[usize::from(b)];
                    let n = x.matrix3.x_axis.length()
                        + x.matrix3.y_axis.length()
                        + x.matrix3.z_axis.length();
                    w * (n * p + x.translation.length())
                })
                .sum::<f32>()
                .max(1.0)
        })
        .collect();
    for path in paths_run() {
        let o = skin_all(a, pal, path);
        for (i, &size) in sizes.iter().enumerate() {
            assert!(
                close(&o.0[i], &r.0[i], size),
                "{what} {path:?} position {i}: {:?} vs {:?}",
                o.0[i],
                r.0[i]
            );
            assert!(
                close(&o.1[i], &r.1[i], 8.0),
                "{what} {path:?} normal {i}: {:?} vs {:?}",
                o.1[i],
                r.1[i]
            );
            assert!(
                close(&o.2[i], &r.2[i], 8.0),
                "{what} {path:?} tangent {i}: {:?} vs {:?}",
                o.2[i],
                r.2[i]
            );
            assert_eq!(o.2[i][3], r.2[i][3]);
        }
    }
}

#[test]
fn every_path_matches_the_scalar_path_for_eight_influences_dual_quaternions_and_blends() {
    let mut rng = Rng::new(5);
    for (method, eight) in [
        (SkinningMethod::Linear, true),
        (SkinningMethod::DualQuaternion, false),
        (SkinningMethod::DualQuaternion, true),
        (SkinningMethod::Blended, true),
    ] {
        let a = asset(mesh(203, method, eight, &mut rng), 9);
        let (mut ctx, mut local) = (SamplingContext::new(), LocalPose::default());
        sample_clip(&a, 0, 0.37, Playback::Loop, &mut ctx, &mut local);
        let world = common::model_pose_of(&a, &local);
        let mut pal = Palette::new();
        pal.compute(&a.meshes()[0], &world).unwrap();
        assert_paths_match_scalar(&a, &pal, &format!("{method:?} eight {eight}"));
    }
}

/// The most distinct bones any block of sixteen vertices names in its weighted
/// slots 0–3 (the blocks that are blended bone by bone name at most sixteen).
fn most_bones_in_a_block(a: &Asset<'_>) -> usize {
    let m = &a.meshes()[0];
    let bones = |i: usize| {
        let (b, w) = m.skin(i).unwrap();
        b.into_iter()
            .zip(w)
            .filter(|&(_, w)| w != 0.0)
            .map(|(b, _)| b)
    };
    (0..m.vertex_count())
        .step_by(16)
        .map(|start| {
            let mut named: Vec<u16> = (start..(start + 16).min(m.vertex_count()))
                .flat_map(bones)
                .collect();
            named.sort_unstable();
            named.dedup();
            named.len()
        })
        .max()
        .unwrap_or(0)
}

#[test]
fn every_path_matches_the_scalar_path_with_scaled_bones_by_bone_and_by_vertex() {
    // Twelve bones: every block names at most twelve and is blended bone by bone;
    // sixty: blocks name more than sixteen and are blended vertex by vertex. Scaled
    // bones give normal matrices of their own and scaled dual quaternions.
    let mut rng = Rng::new(21);
    for bones in [BONES, 60] {
        for (method, eight) in [
            (SkinningMethod::Linear, true),
            (SkinningMethod::DualQuaternion, false),
            (SkinningMethod::DualQuaternion, true),
            (SkinningMethod::Blended, false),
            (SkinningMethod::Blended, true),
        ] {
            let a = asset_of(
                mesh_of(16 * 9 + 5, bones, method, eight, &mut rng),
                bones,
                2,
            );
            let most = most_bones_in_a_block(&a);
            assert_eq!(bones > 16, most > 16, "{bones} bones: {most} in a block");
            let trs = random_trs(bones, &mut rng);
            let pal = palette_of(&trs);
            let what = format!("{method:?} eight {eight}, {bones} bones");
            assert_paths_match_scalar(&a, &pal, &what);
        }
    }
}

#[test]
fn a_blended_vertex_at_zero_is_linear_and_at_one_is_dual_quaternion() {
    let mut rng = Rng::new(8);
    let blended = mesh(40, SkinningMethod::Blended, true, &mut rng);
    let mut lin = blended.clone();
    lin.skinning = SkinningMethod::Linear;
    lin.vertices.dq_weights = None;
    let mut dq = lin.clone();
    dq.skinning = SkinningMethod::DualQuaternion;
    let alphas = blended.vertices.dq_weights.clone().unwrap();
    let run = |m: MeshPart| {
        let a = asset(m, 4);
        let (mut ctx, mut local) = (SamplingContext::new(), LocalPose::default());
        sample_clip(&a, 0, 0.6, Playback::Loop, &mut ctx, &mut local);
        let world = common::model_pose_of(&a, &local);
        let mut pal = Palette::new();
        pal.compute(&a.meshes()[0], &world).unwrap();
        skin_all(&a, &pal, SkinPath::Scalar)
    };
    let (b, l, d) = (run(blended), run(lin), run(dq));
    for (i, &al) in alphas.iter().enumerate() {
        if al == 0.0 {
            assert_eq!(b.0[i], l.0[i], "vertex {i}");
        } else if al == 1.0 {
            assert_eq!(b.0[i], d.0[i], "vertex {i}");
        } else {
            let want: Vec<f32> = (0..3)
                .map(|k| (1.0 - al) * l.0[i][k] + al * d.0[i][k])
                .collect();
            assert!(
                close(
                    &b.0[i],
                    &want,
                    1.0 + want.iter().map(|x| x.abs()).sum::<f32>()
                ),
                "vertex {i}"
            );
        }
    }
}

#[test]
fn a_palette_without_dual_quaternions_is_refused_for_a_dual_quaternion_mesh() {
    let mut rng = Rng::new(2);
    let a = asset(mesh(4, SkinningMethod::DualQuaternion, false, &mut rng), 1);
    // A palette computed for a linear mesh has no dual quaternions.
    let mut lin = mesh(4, SkinningMethod::Linear, false, &mut rng);
    lin.name = "lin".into();
    let b = asset(lin, 1);
    let mut pal = Palette::new();
    pal.compute(&b.meshes()[0], &gom_runtime::ModelPose::bind(b.skeleton()))
        .unwrap();
    assert!(pal.dual_quaternions().is_empty());
    let mut p = vec![[0.0; 3]; 4];
    let targets = SkinTargets {
        positions: Some(&mut p),
        ..Default::default()
    };
    let e = skin_with(&a.meshes()[0], &pal, targets, SkinPath::Scalar).unwrap_err();
    assert!(e.to_string().contains("dual-quaternion palette"), "{e}");
}

#[test]
fn a_blended_or_eight_influence_mesh_without_vertices_loads_as_gom_writes_it() {
    let mut rng = Rng::new(9);
    for (method, eight) in [
        (SkinningMethod::Blended, false),
        (SkinningMethod::Blended, true),
        (SkinningMethod::DualQuaternion, true),
    ] {
        let m = mesh(0, method, eight, &mut rng);
        let clips = vec![random_clip(BONES, 4, 1.0, 3)];
        let bytes = gom::gomb::write(&model(chain_of(BONES), vec![m], clips)).expect("GOMB");
        let asset = Asset::parse(&bytes).unwrap_or_else(|e| panic!("{method:?}: {e}"));
        assert_eq!(asset.meshes()[0].vertex_count(), 0);
    }
}
