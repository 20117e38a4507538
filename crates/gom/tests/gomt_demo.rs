//! The demo model through the text form.

#[test]
fn demo_text_reads_back_to_the_same_model_and_text() {
    let model = gom_demo::build();
    let text = gom::gomt::write(&model).unwrap();
    assert!(text.starts_with("GOMT0001\nHeader = {\n"));
    let back = gom::gomt::read(&text).unwrap();
    assert_eq!(back.meshes.len(), 2);
    assert_eq!(back.clips.len(), 2);
    let text2 = gom::gomt::write(&back).unwrap();
    assert_eq!(text, text2);
}

#[test]
fn demo_text_lists_one_vertex_per_line() {
    let model = gom_demo::build();
    let text = gom::gomt::write(&model).unwrap();
    let vertex_lines = text
        .lines()
        .filter(|l| l.starts_with("      { p = ["))
        .count();
    let vertices: usize = model.meshes.iter().map(|m| m.vertices.len()).sum();
    assert_eq!(vertex_lines, vertices);
    let key_lines = text
        .lines()
        .filter(|l| l.starts_with("          { time = "))
        .count();
    let keys: usize = model
        .clips
        .iter()
        .flat_map(|c| &c.tracks)
        .map(|t| t.keys.len())
        .sum();
    assert_eq!(key_lines, keys);
}
