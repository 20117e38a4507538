//! Every morph path against the scalar reference, bit for bit: meshes with positions
//! only, with normals, with normals and tangents, with tangents but no normals, and
//! targets with normal deltas on a mesh without normals (whose rows then do not match
//! the vertex's words and take the reference's loop), over a sequence of weight sets
//! that moves different vertices each call.

use gom::morph::MorphTarget;
use gom::{Model, Vertices};
use gom_runtime::{Asset, MorphPath, Morpher};
use gom_test_support::rng::Rng;

const VERTICES: usize = 1_700;

/// A static mesh of `VERTICES` vertices with the given attributes and five targets of
/// random vertices (with repeats across targets) carrying the attributes' deltas, and
/// normal deltas when `normal_deltas`.
fn model(rng: &mut Rng, normals: bool, tangents: bool, normal_deltas: bool) -> Model {
    let v3 = |rng: &mut Rng| [rng.signed(), rng.signed(), rng.signed()];
    let positions = (0..VERTICES).map(|_| v3(rng)).collect();
    let unit = |rng: &mut Rng| {
        let v = v3(rng);
        let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt().max(1e-3);
        v.map(|c| c / l)
    };
    let normal_list = normals.then(|| (0..VERTICES).map(|_| unit(rng)).collect());
    let tangent_list = tangents.then(|| {
        (0..VERTICES)
            .map(|_| {
                let t = unit(rng);
                [t[0], t[1], t[2], 1.0]
            })
            .collect()
    });
    let targets = (0..5)
        .map(|k| {
            let mut indices: Vec<u32> =
                (0..VERTICES as u32).filter(|_| rng.below(3) == 0).collect();
            if k == 4 {
                indices.clear(); // a target that moves nothing
            }
            let n = indices.len();
            let mut deltas = |on: bool| on.then(|| (0..n).map(|_| v3(rng)).collect());
            MorphTarget {
                name: format!("t{k}"),
                default_weight: 0.0,
                positions: deltas(true).unwrap_or_default(),
                normals: deltas(normal_deltas),
                tangents: deltas(tangents),
                indices,
            }
        })
        .collect();
    let mut model = Model::default();
    let vertices = Vertices {
        positions,
        normals: normal_list,
        tangents: tangent_list,
        ..Default::default()
    };
    gom_test_support::model::one_material_mesh(
        &mut model,
        "M",
        vertices,
        vec![0, 1, 2],
        Vec::new(),
    );
    model.meshes[0].morph_targets = targets;
    model
}

/// Weight sets that switch targets on and off between calls (0 skips a target).
const WEIGHTS: [[f32; 5]; 6] = [
    [0.5, 0.0, 0.25, 0.0, 1.0],
    [0.0, 1.0, 0.0, -0.75, 0.0],
    [0.3, 0.3, 0.3, 0.3, 0.3],
    [0.0; 5],
    [0.0, 0.0, 2.5, 0.0, 0.0],
    [1.0, -1.0, 0.125, 0.0, 0.0],
];

fn bits(words: &[f32]) -> Vec<u32> {
    words.iter().map(|w| w.to_bits()).collect()
}

#[test]
fn every_morph_path_gives_the_scalar_paths_bits_call_after_call() {
    let mut rng = Rng::new(36);
    let mut checked = 0;
    for (normals, tangents, normal_deltas) in [
        (false, false, false),
        (true, false, true),
        (true, true, true),
        (false, true, false),
        (false, true, true),
    ] {
        let model = model(&mut rng, normals, tangents, normal_deltas);
        let asset = Asset::from_model(&model).unwrap();
        let mesh = &asset.meshes()[0];
        let targets = asset.morph_targets(0);
        let mut reference = Morpher::new(mesh);
        for path in MorphPath::ALL.into_iter().filter(|p| p.available()) {
            let mut m = Morpher::new(mesh);
            for weights in WEIGHTS {
                let want = bits(
                    reference
                        .apply_with(mesh, targets, &weights, MorphPath::Scalar)
                        .unwrap()
                        .vertex_words(),
                );
                let got = bits(
                    m.apply_with(mesh, targets, &weights, path)
                        .unwrap()
                        .vertex_words(),
                );
                assert_eq!(
                    got, want,
                    "{path:?}, normals {normals}, tangents {tangents}, {weights:?}"
                );
                // The same weights on a fresh morpher: nothing of the calls before
                // is left.
                let fresh = bits(
                    Morpher::new(mesh)
                        .apply_with(mesh, targets, &weights, path)
                        .unwrap()
                        .vertex_words(),
                );
                assert_eq!(got, fresh, "{path:?}: a call depends on the one before");
                checked += 1;
            }
        }
    }
    assert!(checked >= 30, "{checked} calls checked");
}

#[test]
fn the_best_path_is_available_and_avx_is_taken_where_the_cpu_has_it() {
    assert!(MorphPath::best().available());
    #[cfg(target_arch = "x86_64")]
    assert_eq!(
        MorphPath::best() == MorphPath::Avx,
        std::arch::is_x86_feature_detected!("avx")
    );
}
