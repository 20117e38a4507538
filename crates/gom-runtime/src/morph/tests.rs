use super::*;

fn words(m: &Mesh<'_>) -> Vec<u32> {
    m.vertex_words().iter().map(|w| w.to_bits()).collect()
}

#[test]
fn a_wrapping_call_counter_clears_the_stamps_and_the_result_is_a_fresh_morphers() {
    let model = gom_demo::with_morphs(gom_demo::build());
    let asset = Asset::from_model(&model).unwrap();
    let (mesh, targets) = (&asset.meshes()[0], asset.morph_targets(0));
    let fresh = words(
        Morpher::new(mesh)
            .apply(mesh, targets, &[0.0, 1.0])
            .unwrap(),
    );
    for walk in [Walk::Sparse, Walk::Dense] {
        let mut m = Morpher::new(mesh);
        m.apply_walk(targets, &[1.0, 0.0], MorphPath::best(), walk);
        // The next call's counter wraps to 0, which every untouched vertex's stamp
        // holds; the vertices the last call moved must still be restored.
        m.epoch = u32::MAX;
        m.apply_walk(targets, &[0.0, 1.0], MorphPath::best(), walk);
        assert_eq!(m.epoch, 2);
        assert_eq!(words(m.mesh()), fresh, "{walk:?}");
    }
}

/// A mesh of `n` vertices with positions, normals and tangents, and three targets
/// that overlap: one with normal and tangent deltas, one with positions only, one
/// with normal deltas that cancel the normal (the bind normal is kept).
fn tangent_model(n: usize) -> gom::Model {
    let f = |i: usize, k: usize| ((i * 7 + k * 13) % 17) as f32 / 17.0 - 0.5;
    let normals: Vec<[f32; 3]> = (0..n).map(|_| [0.0, 0.0, 1.0]).collect();
    let target = |name: &str, step: usize, normals: bool, tangents: bool| {
        let indices: Vec<u32> = (0..n).step_by(step).map(|i| i as u32).collect();
        let rows = |k: usize| indices.iter().map(|&i| [f(i as usize, k); 3]).collect();
        MorphTarget {
            name: name.into(),
            positions: rows(0),
            normals: normals.then(|| rows(1)),
            tangents: tangents.then(|| rows(2)),
            indices,
            default_weight: 0.0,
        }
    };
    let mut cancel = target("cancel", 5, true, false);
    cancel.normals = Some(vec![[0.0, 0.0, -1.0]; cancel.indices.len()]);
    gom::Model {
        meshes: vec![gom::MeshPart {
            name: "m".into(),
            vertices: gom::Vertices {
                positions: (0..n).map(|i| [f(i, 3), f(i, 4), f(i, 5)]).collect(),
                normals: Some(normals),
                tangents: Some((0..n).map(|_| [1.0, 0.0, 0.0, -1.0]).collect()),
                ..Default::default()
            },
            indices: vec![0, 1, 2],
            submeshes: vec![gom::Submesh {
                material_index: -1,
                index_start: 0,
                index_count: 3,
            }],
            morph_targets: vec![
                target("all", 2, true, true),
                target("positions", 3, false, false),
                cancel,
            ],
            ..Default::default()
        }],
        ..Default::default()
    }
}

#[test]
fn the_sparse_and_dense_walks_give_the_same_bits_call_after_call_on_every_path() {
    let model = tangent_model(301);
    let asset = Asset::from_model(&model).unwrap();
    let (mesh, targets) = (&asset.meshes()[0], asset.morph_targets(0));
    let weights = [
        [1.0, 0.0, 0.0],
        [0.5, -0.7, 0.0],
        [0.0, 0.0, 1.0],
        [0.25, 0.5, 1.0],
        [0.0, 0.0, 0.0],
        [0.0, 2.0, 0.0],
    ];
    let walks = [Walk::Sparse, Walk::Dense];
    for path in MorphPath::ALL.into_iter().filter(|p| p.available()) {
        // Every call of one walk, and the two walks alternating both ways round.
        let mut morphers = [(); 4].map(|_| Morpher::new(mesh));
        for (k, w) in weights.iter().enumerate() {
            let want = words(
                Morpher::new(mesh)
                    .apply_with(mesh, targets, w, MorphPath::Scalar)
                    .unwrap(),
            );
            for (j, m) in morphers.iter_mut().enumerate() {
                let walk = match j {
                    0 | 1 => walks[j],
                    _ => walks[(j + k) % 2],
                };
                m.apply_walk(targets, w, path, walk);
                assert_eq!(words(m.mesh()), want, "{path:?}, call {k}, morpher {j}");
            }
        }
    }
}

#[test]
fn many_moved_vertices_take_the_dense_walk_and_few_the_sparse_one() {
    assert_eq!(Walk::choose(0, 2_000, 20_000), Walk::Sparse);
    assert_eq!(Walk::choose(10_000, 16_000, 20_000), Walk::Dense);
    assert_eq!(Walk::choose(0, 0, 0), Walk::Dense);
}

#[test]
fn a_row_matches_the_vertex_words_only_where_each_part_lies_at_its_own_offset() {
    let target = |normals: bool, tangents: bool| Target {
        normals,
        tangents,
        ..Default::default()
    };
    // GOM's layouts: position, normal, tangent in that order.
    assert_eq!(target(true, false).parts(Some(3), None).run(6), Some(6));
    assert_eq!(target(true, true).parts(Some(3), Some(6)).run(9), Some(9));
    assert_eq!(target(false, true).parts(None, Some(3)).run(6), Some(6));
    assert_eq!(target(false, false).parts(Some(3), Some(6)).run(3), Some(3));
    // Normal deltas on a mesh without normals: the tangent part moves.
    let t = target(true, true);
    assert_eq!(t.parts(None, Some(3)).as_slice(), [(0, 0), (3, 6)]);
    assert_eq!(t.parts(None, Some(3)).run(9), None);
}

#[test]
fn a_target_given_out_of_vertex_order_morphs_as_the_same_target_in_order() {
    let model = gom_demo::with_morphs(gom_demo::build());
    let asset = Asset::from_model(&model).unwrap();
    let mesh = &asset.meshes()[0];
    let mut reversed = model.meshes[0].morph_targets.clone();
    for t in &mut reversed {
        t.indices.reverse();
        t.positions.reverse();
        if let Some(n) = t.normals.as_mut() {
            n.reverse();
        }
    }
    let (ordered, reversed) = (asset.morph_targets(0), MorphTargets::new(&reversed));
    assert_eq!(reversed.indices(0), ordered.indices(0));
    for path in MorphPath::ALL.into_iter().filter(|p| p.available()) {
        let want = words(
            Morpher::new(mesh)
                .apply_with(mesh, ordered, &[0.7, 0.4], path)
                .unwrap(),
        );
        let got = words(
            Morpher::new(mesh)
                .apply_with(mesh, &reversed, &[0.7, 0.4], path)
                .unwrap(),
        );
        assert_eq!(got, want, "{path:?}");
    }
}
