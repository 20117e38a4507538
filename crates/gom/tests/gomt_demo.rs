//! The demo model through the text form.

#[test]
fn demo_text_reads_back_to_the_same_model_and_text() {
    let model = gom::demo::build();
    let text = gom::gomt::write(&model).unwrap();
    let back = gom::gomt::read(&text).unwrap();
    assert_eq!(back.meshes.len(), 2);
    let text2 = gom::gomt::write(&back).unwrap();
    assert_eq!(text, text2);
    std::fs::write("/tmp/demo.gomt", &text).unwrap();
}
