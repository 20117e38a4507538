#[test]
fn dbg() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/fbx/");
    for f in ["maya_cube_7500_binary.fbx"] {
        let bytes = std::fs::read(format!("{dir}{f}")).unwrap();
        let (model, report) = gom_import::fbx::convert(&bytes, f, &Default::default()).unwrap();
        println!("{}", gom::gomt::write(&model).unwrap());
        println!("{:#}", report.to_json());
    }
    for f in std::fs::read_dir(dir).unwrap() {
        let f = f.unwrap().file_name().to_string_lossy().into_owned();
        if !f.ends_with(".fbx") { continue; }
        let bytes = std::fs::read(format!("{dir}{f}")).unwrap();
        let (model, report) = gom_import::fbx::convert(&bytes, &f, &Default::default()).unwrap();
        println!("== {f}: bones {:?}", model.skeleton.bones.iter().map(|b| b.path.clone()).collect::<Vec<_>>());
        println!("   materials {:?}", model.materials.iter().map(|m| (&m.name, &m.base_color_texture, m.base_color_factor)).collect::<Vec<_>>());
        let j = report.to_json();
        println!("   meshes {} clips {} warnings {:#} loader {:#} dropped {}", j["meshes"], j["clips"], j["warnings"], j["loaderWarnings"], j["droppedInfluences"]);
    }
}
