use gom_import::fbx::{convert, FbxOptions};
#[test]
fn probe() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/fbx/");
    for f in ["blender_279_sausage_7400_binary.fbx", "max_transformed_skin_7500_binary.fbx", "maya_game_sausage_7500_ascii_wiggle.fbx", "blender_suzanne_multimaterial_7400_binary.fbx"] {
        let bytes = std::fs::read(format!("{dir}{f}")).unwrap();
        let scene = ufbx::load_memory(&bytes, ufbx::LoadOpts::default()).unwrap();
        let mut props = 0;
        for s in scene.anim_stacks.iter() {
            for l in s.layers.iter() { props += l.anim_props.count; }
            eprintln!("  stack {} {}..{} layers {}", &*s.element.name, s.time_begin, s.time_end, s.layers.count);
        }
        eprintln!("{f}: nodes {} curves {} props {}", scene.nodes.count, scene.anim_curves.count, props);
        for c in scene.anim_curves.iter().take(3) { eprintln!("   curve keys {} first {:?}", c.keyframes.count, c.keyframes.iter().take(3).map(|k| (k.time, k.interpolation as u32)).collect::<Vec<_>>()); }
        let (m, r) = convert(&bytes, f, &FbxOptions::default()).unwrap();
        eprintln!("  bones {} clips {:?}", m.skeleton.bones.len(), r.clips.iter().map(|c| (c.name.clone(), c.tracks, c.keys_before, c.keys_after)).collect::<Vec<_>>());
    }
}
