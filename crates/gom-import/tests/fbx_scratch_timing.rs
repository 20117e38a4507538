#[test]
fn timing() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/fbx/");
    for f in ["blender_279_sausage_7400_binary.fbx", "blender_suzanne_multimaterial_7400_binary.fbx", "max_transformed_skin_7500_binary.fbx"] {
        let bytes = std::fs::read(format!("{dir}{f}")).unwrap();
        let o = gom_import::fbx::FbxOptions { optimize_meshes: false, ..Default::default() };
        for _ in 0..20 { let _ = gom_import::fbx::convert(&bytes, f, &o).unwrap(); }
        eprintln!("== {f}");
        let _ = gom_import::fbx::convert(&bytes, f, &o).unwrap();
    }
}
