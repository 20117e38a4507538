//! Finite values in a TMD whose results overflow f32 are refused with an error naming
//! the record, instead of becoming a model that the GOM writer then refuses (both
//! found by the `tmd` fuzz target, `docs/reliability.md`):
//!
//! - a bind matrix relative to the parent (child bind × inverse of the parent's bind)
//!   beyond f32 would give an infinite bind pose;
//! - vertex positions at (±3e38, ±3e38, 0) have a bounding sphere beyond f32.
//!
//! The file is the demo model exported to the game's formats, with one parent's bind
//! matrix scaled by 0.5 and its child's translation set to 3e38: 3e38 × 2 is beyond f32.

use gom_import::jpog::export::{export, ExportOptions};
use gom_import::jpog::{convert, JpogImportError, JpogOptions};

/// The demo's game files, with the bind matrices of the first node that has a parent
/// and of that parent replaced; returns the files and the child's index and name.
fn overflowing_demo(child_translation: f32) -> (Vec<u8>, Vec<u8>, Vec<u8>, usize, String) {
    let options = ExportOptions {
        name: "demo".into(),
        ..Default::default()
    };
    let mut exported = export(&gom_demo::build(), &options).expect("the demo exports");
    let nodes = &mut exported.tmd.nodes;
    let child = nodes
        .iter()
        .position(|n| n.parent >= 0)
        .expect("a node with a parent");
    let parent = nodes[child].parent as usize;
    let name = nodes[child].name();
    let mut half = gom::IDENTITY;
    for k in [0, 5, 10] {
        half[k] = 0.5;
    }
    nodes[parent].bind = half;
    let mut far = gom::IDENTITY;
    far[12] = child_translation;
    nodes[child].bind = far;
    let (tmd, tkl, tml) = exported.write().expect("the edited files write");
    (tmd, tkl, tml, child, name)
}

fn convert_files(
    tmd: &[u8],
    tkl: &[u8],
    tml: &[u8],
) -> Result<gom_import::jpog::JpogConverted, JpogImportError> {
    convert(
        tmd,
        "demo.tmd",
        Some((tkl, "demo.tkl")),
        Some((tml, "demo.tml")),
        &JpogOptions {
            texture_files: false,
            ..Default::default()
        },
    )
}

/// The file, record and problem of an `Invalid` refusal; panics on any other result.
fn refusal(
    result: Result<gom_import::jpog::JpogConverted, JpogImportError>,
) -> (String, String, String) {
    match result {
        Err(JpogImportError::Invalid {
            file,
            record,
            problem,
        }) => (file, record, problem),
        Err(e) => panic!("refused for another reason: {e}"),
        Ok(c) => panic!(
            "accepted; bind poses {:?}, bounds {:?}",
            c.model
                .skeleton
                .bones
                .iter()
                .map(|b| b.bind_local)
                .find(|m| m.iter().any(|v| !v.is_finite())),
            c.model
                .meshes
                .iter()
                .map(gom::bounds::compute_bounds)
                .collect::<Vec<_>>()
        ),
    }
}

#[test]
fn a_relative_bind_matrix_beyond_f32_is_refused_naming_the_node() {
    let (tmd, tkl, tml, child, name) = overflowing_demo(3e38);
    let (file, record, problem) = refusal(convert_files(&tmd, &tkl, &tml));
    assert_eq!(file, "demo.tmd");
    assert_eq!(record, format!("node {child} \"{name}\""));
    assert!(problem.contains("beyond f32"), "{problem}");
}

#[test]
fn the_same_edit_with_a_translation_that_fits_converts() {
    // 1e38 × 2 = 2e38 fits in f32: the same layout converts, and the child's bind
    // matrix relative to its parent carries the doubled translation.
    let (tmd, tkl, tml, _, name) = overflowing_demo(1e38);
    let converted = convert_files(&tmd, &tkl, &tml).expect("converts");
    let bone = converted
        .model
        .skeleton
        .bones
        .iter()
        .find(|b| b.name == name)
        .expect("the child is a bone");
    assert_eq!(bone.bind_local[12], 2e38);
    gom::validate::check_structure(&converted.model).expect("structurally valid");
}

#[test]
fn positions_whose_bounds_overflow_f32_are_refused_naming_the_mesh() {
    let options = ExportOptions {
        name: "demo".into(),
        ..Default::default()
    };
    let edit = |far: f32| {
        let mut exported = export(&gom_demo::build(), &options).expect("the demo exports");
        let piece = &mut exported.tmd.mesh.lods[0].meshes[0].pieces[0];
        piece.vertices[0].position = [far, far, 0.0];
        piece.vertices[1].position = [-far, -far, 0.0];
        exported.write().expect("the edited files write")
    };
    let (tmd, tkl, tml) = edit(3e38);
    let (file, record, problem) = refusal(convert_files(&tmd, &tkl, &tml));
    assert_eq!(file, "demo.tmd");
    assert!(record.starts_with("lod 0 mesh 0"), "{record}");
    assert!(problem.contains("more than f32 can bound"), "{problem}");
    // The same edit within f32's range converts, and the box reaches the points.
    let (tmd, tkl, tml) = edit(1e37);
    let c = convert_files(&tmd, &tkl, &tml).expect("±1e37 converts");
    let b = gom::bounds::compute_bounds(&c.model.meshes[0]);
    assert!(b.is_finite(), "{b:?}");
    assert!(b.aabb_max.iter().any(|&x| x >= 1e37), "{b:?}");
}
