//! The example in docs/gomt.md is a canonical GOMT document describing what the page
//! says it describes.

const DOC: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/gomt.md"));

fn example() -> &'static str {
    let start = DOC.find("```gomt\n").expect("a ```gomt block") + "```gomt\n".len();
    let len = DOC[start..].find("```").expect("the block ends");
    &DOC[start..start + len]
}

#[test]
fn the_documented_example_is_canonical() {
    let text = example();
    let model = gom::gomt::read(text).unwrap();
    assert_eq!(gom::gomt::write(&model).unwrap(), text);
}

#[test]
fn the_documented_example_holds_what_the_page_says() {
    let m = gom::gomt::read(example()).unwrap();
    assert_eq!(m.skeleton.bones.len(), 2);
    assert_eq!(m.skeleton.bones[1].bind_local[13], 1.0);
    let mesh = &m.meshes[0];
    let skin = mesh.vertices.skin.as_ref().unwrap();
    assert_eq!(skin[2].bones[..2], [1, 0]);
    assert_eq!(skin[2].weights[..2], [0.75, 0.25]);
    // 0.5 rad about +Z: (0, 0, sin 0.25, cos 0.25).
    let r = m.clips[0].tracks[0].keys[1].rotation;
    assert!((f64::from(r[2]) - 0.25f64.sin()).abs() < 1e-7);
    assert!((f64::from(r[3]) - 0.25f64.cos()).abs() < 1e-7);
    // The bounds: box [0,1]x[0,2]x[0,0], centre (0.5, 1, 0), radius sqrt(1.25) rounded up.
    let b = mesh.bounds.unwrap();
    assert_eq!(b.sphere_center, [0.5, 1.0, 0.0]);
    assert!(f64::from(b.sphere_radius) >= 1.25f64.sqrt());
    assert!(f64::from(b.sphere_radius) - 1.25f64.sqrt() < 1e-7);
    assert_eq!(m.header.validation_flags.bits(), 7);
}
