//! The structural rules of GOM v1 (D7, D9, D12, D13) applied to a model read from text,
//! so that a text document is accepted exactly when a binary file holding the same
//! model would be.
//!
//! The rules themselves are the shared ones of [`crate::validate`] and
//! [`crate::bounds`]; this module only maps their failures to a line and column of the
//! text, and fills in the bounds a document leaves out (D10).

use super::error::{TextError, TextErrorKind};
use super::lexer::line_column;
use super::read::Spans;
use crate::bounds::{compute_bounds, to_model_space, Containment};
use crate::error::{Item, WriteError};
use crate::model::Model;
use crate::validate::{check_structure, validate};

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
    if let Err(e) = check_structure(model) {
        return Err(err(position(&e, spans), e.to_string()));
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
    let flags = model.header.validation_flags.0;
    if flags != 0 {
        if let Some(f) = validate(model).iter().find(|f| flags & f.check.flag() != 0) {
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
