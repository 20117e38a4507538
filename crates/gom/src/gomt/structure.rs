//! The structural rules of GOM v1 (D7, D9, D12, D13) applied to a model read from text,
//! so that a text document is accepted exactly when a binary file holding the same
//! model would be.
//!
//! The rules themselves are the shared ones of [`crate::validate`] and
//! [`crate::bounds`]; this module only maps their failures to a line and column of the
//! text, and fills in the bounds a document leaves out (D10).

use super::error::{TextError, TextErrorKind};
use super::lexer::{line_column, Lexer};
use super::read::Spans;
use crate::bounds::{compute_bounds, to_model_space, Containment};
use crate::error::{Item, WriteError};
use crate::model::Model;
use crate::validate::{
    check_structure, key_structure, skin_structure, submesh_structure, tangent_w_ok,
    track_bone_structure, validate,
};

/// Applies the shared structural rules to `model`, parsed from `text` with `spans`;
/// computes the bounds of meshes that have none; refuses validation flags that claim a
/// check the model fails (D13).
pub(crate) fn check(text: &str, model: &mut Model, spans: &Spans) -> Result<(), TextError> {
    let err = |at: usize, message: String| {
        let (line, column) = line_column(text, at);
        TextError {
            line,
            column,
            offset: at,
            kind: TextErrorKind::Structure(message),
        }
    };
    for i in 0..model.clips.len() {
        if let Err(e) = crate::compressed::check_clip(model, i) {
            let key = if matches!(
                &e,
                WriteError::Invalid {
                    field: "tracks",
                    ..
                }
            ) {
                "tracks"
            } else {
                "compressed"
            };
            return Err(err(spans.clip_key(i, key), e.to_string()));
        }
    }
    if let Err(e) = check_structure(model) {
        let at = element_position(text, model, &e, spans).unwrap_or_else(|| position(&e, spans));
        return Err(err(at, e.to_string()));
    }
    for (i, mesh) in model.meshes.iter_mut().enumerate() {
        match mesh.bounds {
            None => mesh.bounds = Some(compute_bounds(mesh)),
            Some(b) => {
                let cont = Containment::new(&b);
                let g = mesh.mesh_bind_geo_to_model.as_ref();
                for (v, &p) in mesh.vertices.positions.iter().enumerate() {
                    let q = to_model_space(p, g);
                    if !cont.in_box(q) || !cont.in_sphere(q) {
                        let at = spans.mesh_key(i, "bounds");
                        return Err(err(
                            at,
                            format!("mesh {i}: vertex {v} lies outside the bounds given"),
                        ));
                    }
                }
            }
        }
    }
    let flags = model.header.validation_flags;
    if !flags.is_empty() {
        if let Some(f) = validate(model)
            .iter()
            .find(|f| flags.intersects(f.check.flag()))
        {
            return Err(err(
                spans.header_key("validationFlags"),
                format!(
                    "validationFlags lists {} but the check fails: {}",
                    f.check.name(),
                    f.message
                ),
            ));
        }
    }
    Ok(())
}

/// The byte offset in the text that a structural error of the shared rules concerns.
fn position(e: &WriteError, spans: &Spans) -> usize {
    let field = e.field();
    match e.item() {
        Item::Header => spans.header_key("converterVersion"),
        Item::Bone(i) => spans.bones.get(i).copied().unwrap_or(spans.skeleton),
        Item::Material(i) => spans.materials.get(i).copied().unwrap_or(0),
        Item::Mesh(i) => {
            let key = match field {
                "name" => "name",
                "inverseBind" => "inverseBind",
                "meshBindGeoToModel" => "meshBindGeoToModel",
                "indices" => "indices",
                "indexCount" if matches!(e, WriteError::Limit { .. }) => "indices",
                "indexStart" | "indexCount" | "submeshCount" => "submeshes",
                "bounds" => "vertices",
                "morphTargets" => "morphTargets",
                _ => "vertices",
            };
            spans.mesh_key(i, key)
        }
        Item::Clip(i) => {
            let key = match field {
                "name" => "name",
                "duration" => "duration",
                "sampleRate" => "sampleRate",
                "rootBoneIndex" => "rootBoneIndex",
                "flags" => "flags",
                "weightTracks" => "weightTracks",
                "referenceClipNameId" | "referenceTime" => "additive",
                "floatTracks" => "floatTracks",
                "events" => "events",
                _ => "tracks",
            };
            spans.clip_key(i, key)
        }
        Item::File => match field {
            "boneCount" => spans.skeleton,
            "clipCount" => spans.animations,
            "materialCount" => spans.materials_name,
            _ => 0,
        },
    }
}

/// The offset of the very element (vertex, index, submesh, track or key) a structural
/// error concerns, found after the fact: the shared element rules pick the first
/// failing element, in the order `check_structure` visits them, and a second pass over
/// the text walks to it. `None` when the error is not about one element.
fn element_position(text: &str, model: &Model, e: &WriteError, spans: &Spans) -> Option<usize> {
    if matches!(e, WriteError::Limit { .. }) {
        return None;
    }
    match e.item() {
        Item::Mesh(i) => {
            let mesh = model.meshes.get(i)?;
            let vc = mesh.vertices.positions.len();
            let (key, k) = match e.field() {
                "indices" => (
                    "indices",
                    mesh.indices.iter().position(|&x| x as usize >= vc)?,
                ),
                "tangents" => (
                    "vertices",
                    mesh.vertices
                        .tangents
                        .as_ref()?
                        .iter()
                        .position(|t| !tangent_w_ok(t[3]))?,
                ),
                "skin" => {
                    let bones = u32::try_from(model.skeleton.bones.len()).ok()?;
                    let skin = mesh.vertices.skin.as_ref()?;
                    let k = skin
                        .iter()
                        .position(|s| skin_structure(s.bones, s.weights, bones).is_some())?;
                    ("vertices", k)
                }
                "indexStart" | "indexCount" => {
                    let ic = u32::try_from(mesh.indices.len()).ok()?;
                    let k = mesh
                        .submeshes
                        .iter()
                        .position(|s| submesh_structure(s, ic).is_some())?;
                    ("submeshes", k)
                }
                _ => return None,
            };
            element(text, spans.mesh_key(i, key), k)
        }
        Item::Clip(i) => {
            let clip = model.clips.get(i)?;
            let bones = u32::try_from(model.skeleton.bones.len()).ok()?;
            let tracks_at = spans.clip_key(i, "tracks");
            let mut previous = None;
            for (t, track) in clip.tracks.iter().enumerate() {
                let bone = i64::from(track.bone);
                if track_bone_structure(bone, previous, bones).is_some() || track.keys.is_empty() {
                    return element(text, tracks_at, t);
                }
                previous = Some(bone);
                let mut previous_time = None;
                for (k, key) in track.keys.iter().enumerate() {
                    if key_structure(key, previous_time, clip.duration).is_some() {
                        let track_at = element(text, tracks_at, t)?;
                        let keys_at = key_in_table(text, track_at, "keys")?;
                        return element(text, keys_at, k);
                    }
                    previous_time = Some(key.time);
                }
            }
            None
        }
        _ => None,
    }
}

/// From `key = [ … ]` at `key_at`, the offset of element `k` of the array.
fn element(text: &str, key_at: usize, k: usize) -> Option<usize> {
    let mut p = Lexer::new(text);
    p.seek(key_at);
    p.name("").ok()?;
    p.expect(b'=', "").ok()?;
    p.expect(b'[', "").ok()?;
    for _ in 0..k {
        p.skip_value(0).ok()?;
        if !p.separator(b']', "").ok()? {
            return None;
        }
    }
    p.peek()?;
    Some(p.pos())
}

/// The offset of `key` inside the table whose `{` is at `table_at`.
fn key_in_table(text: &str, table_at: usize, key: &str) -> Option<usize> {
    let mut p = Lexer::new(text);
    p.seek(table_at);
    p.expect(b'{', "").ok()?;
    loop {
        if p.eat(b'}') {
            return None;
        }
        let (name, at) = p.name("").ok()?;
        if name == key {
            return Some(at);
        }
        p.expect(b'=', "").ok()?;
        p.skip_value(0).ok()?;
        if !p.separator(b'}', "").ok()? {
            return None;
        }
    }
}
