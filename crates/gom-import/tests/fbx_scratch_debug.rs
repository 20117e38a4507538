#[test]
fn dbg() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/fbx/");
    for f in ["blender_293_half_skinned_7400_binary.fbx", "maya_transformed_skin_7700_binary.fbx"] {
        let bytes = std::fs::read(format!("{dir}{f}")).unwrap();
        let scene = ufbx::load_memory(&bytes, ufbx::LoadOpts::default()).unwrap();
        println!("== {f}");
        for n in scene.nodes.iter() {
            let w = &n.node_to_world;
            println!("node {} t=({:.3},{:.3},{:.3}) mesh={} bindpose={}", &*n.element.name, w.m03, w.m13, w.m23, n.mesh.is_some(), n.bind_pose.is_some());
        }
        for c in scene.skin_clusters.iter() {
            let b = &c.bind_to_world;
            println!("cluster {} bone {} bind t=({:.3},{:.3},{:.3})", &*c.element.name, c.bone_node.as_ref().map(|n| n.element.name.to_string()).unwrap_or_default(), b.m03, b.m13, b.m23);
            let m = ufbx::matrix_mul(&c.bind_to_world, &c.mesh_node_to_bone);
            println!("   mesh bind t=({:.3},{:.3},{:.3}) diag {:.3} {:.3} {:.3}", m.m03, m.m13, m.m23, m.m00, m.m11, m.m22);
        }
        let (model, report) = gom_import::fbx::convert(&bytes, f, &Default::default()).unwrap();
        for b in &model.skeleton.bones { println!("bone {} {} parent {} t={:?}", b.name, b.path, b.parent, &b.bind_local[12..15]); }
        println!("{:#}", report.to_json());
    }
}
