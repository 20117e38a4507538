use super::*;

fn words(m: &Mesh<'_>) -> Vec<u32> {
    m.vertex_words().iter().map(|w| w.to_bits()).collect()
}

#[test]
fn a_wrapping_call_counter_clears_the_stamps_and_the_result_is_a_fresh_morphers() {
    let model = gom_demo::with_morphs(gom_demo::build());
    let asset = Asset::from_model(&model).unwrap();
    let (mesh, targets) = (&asset.meshes()[0], asset.morph_targets(0));
    let mut m = Morpher::new(mesh);
    m.apply(mesh, targets, &[1.0, 0.0]).unwrap();
    // The next call's counter wraps to 0, which every untouched vertex's stamp holds.
    m.epoch = u32::MAX;
    let got = words(m.apply(mesh, targets, &[0.0, 1.0]).unwrap());
    assert_eq!(m.epoch, 1);
    let fresh = words(
        Morpher::new(mesh)
            .apply(mesh, targets, &[0.0, 1.0])
            .unwrap(),
    );
    assert_eq!(got, fresh);
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
