//! `--template ORIGINAL.tmd`: the model being replaced lends the fields GOM does not
//! carry, so that the game sees what it expects: the header's open fields and the bytes
//! after the library name's NUL, node flags (matched by name), the LOD's shader type and
//! the LOD distance, and animation overlay fields (matched by name).

use jpog::Tmd;

use super::{refused, ExportError};

/// The node names of `t`, sorted.
fn names(t: &Tmd, skip: Option<usize>) -> Vec<String> {
    let mut v: Vec<String> = t
        .nodes
        .iter()
        .enumerate()
        .filter(|(i, _)| Some(*i) != skip)
        .map(|(_, n)| n.name())
        .collect();
    v.sort();
    v
}

/// Copies the template's fields into `tmd`; refused when the node names differ (the
/// static root added for unskinned meshes aside).
pub(crate) fn apply(
    tmd: &mut Tmd,
    template: &Tmd,
    static_node: Option<usize>,
) -> Result<(), ExportError> {
    let ours = names(tmd, static_node);
    let theirs = names(template, None);
    if ours != theirs {
        let missing = theirs.iter().find(|n| !ours.contains(n));
        let extra = ours.iter().find(|n| !theirs.contains(n));
        let problem = match (missing, extra) {
            (Some(m), _) => format!("the template has node \"{m}\", which the model lacks"),
            (None, Some(x)) => format!("the model has node \"{x}\", which the template lacks"),
            (None, None) => "the node names repeat differently".to_string(),
        };
        return Err(refused(
            "template",
            format!("{problem}; the node names must match"),
        ));
    }
    let h = &template.header;
    let name_len = tmd
        .header
        .tkl_name
        .iter()
        .position(|&b| b == 0)
        .unwrap_or(16);
    let mut field = tmd.header.tkl_name;
    // the bytes after the name's NUL
    if name_len + 1 < 16 {
        field[name_len + 1..].copy_from_slice(&h.tkl_name[name_len + 1..]);
    }
    tmd.header.tkl_name = field;
    tmd.header.zero = h.zero;
    tmd.header.raw_base = h.raw_base;
    tmd.header.u1 = h.u1;
    tmd.header.u2 = h.u2;
    tmd.header.zeros_2c = h.zeros_2c;
    tmd.header.u3 = h.u3;
    tmd.header.u4 = h.u4;
    tmd.header.reserved_48 = h.reserved_48;
    for n in &mut tmd.nodes {
        if let Some(t) = template.nodes.iter().find(|t| t.name() == n.name()) {
            n.flag = t.flag;
        }
    }
    tmd.mesh.lod_distance = template.mesh.lod_distance;
    // each level takes the shader type of the template's level of the same number, or
    // of its last when it has fewer
    for (k, l) in tmd.mesh.lods.iter_mut().enumerate() {
        if let Some(t) = template.mesh.lods.get(k).or(template.mesh.lods.last()) {
            l.shader_type = t.shader_type;
        }
    }
    for a in &mut tmd.animations {
        if let Some(t) = template.animations.iter().find(|t| t.name() == a.name()) {
            a.overlay = t.overlay;
            a.unknown = t.unknown;
        }
    }
    Ok(())
}
