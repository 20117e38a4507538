//! Every shared sample opens in the viewer: converted in memory, described, and every
//! clip baked.

mod common;

#[test]
fn every_shared_sample_loads_and_bakes_every_clip() {
    let mut files = common::shared("fbx", "fbx");
    files.extend(common::shared("gltf", "gltf"));
    files.extend(common::shared("jpog", "tmd"));
    let options = gom_import::source::ImportOptions::default();
    for file in &files {
        let view = gom_view::load_path(file, &options)
            .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let model = gom_import::source::import_path(file, &options)
            .unwrap()
            .model;
        let manifest = view.manifest();
        assert_eq!(
            manifest["meshes"].as_array().unwrap().len(),
            model.meshes.len()
        );
        let record = view.pose_at(None, 0.0).unwrap().len();
        for c in 0..view.clip_count() {
            let frames = manifest["clips"][c]["frames"].as_u64().unwrap() as usize;
            assert_eq!(
                view.baked(c).unwrap().len(),
                frames * record,
                "{}",
                file.display()
            );
        }
    }
}
