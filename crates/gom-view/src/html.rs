//! `gom view FILE --html OUT.html`: the page as one file, with the model, its
//! textures and every clip's palettes (baked at the clip's sample rate) embedded as
//! base64, for opening in any browser without gom.

use crate::data::ViewModel;
use crate::page::{fill, INDEX_TEMPLATE, SCRIPTS, SCRIPT_MARKER, STYLE_CSS, STYLE_MARKER};
use crate::ViewError;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;

/// The self-contained page for `model`.
pub fn self_contained(model: &ViewModel) -> Result<String, ViewError> {
    let baked = (0..model.clip_count())
        .map(|c| model.baked(c).map(|b| STANDARD.encode(b)))
        .collect::<Result<Vec<_>, _>>()?;
    let clip_bounds = (0..model.clip_count())
        .map(|c| model.clip_bounds(c))
        .collect::<Result<Vec<_>, _>>()?;
    let mut textures = Vec::new();
    while let Some((bytes, mime)) = model.texture(textures.len()) {
        textures.push(serde_json::json!({ "mime": mime, "data": STANDARD.encode(bytes) }));
    }
    let embed = serde_json::json!({
        "name": model.name,
        "manifest": model.manifest(),
        "geometry": STANDARD.encode(model.geometry()),
        "textures": textures,
        "baked": baked,
        "clip_bounds": clip_bounds,
        "bind": STANDARD.encode(model.pose_at(None, 0.0).map_err(|reason| ViewError::Model {
            name: model.name.clone(),
            reason,
        })?),
    });
    // Inside a script element only `</script` ends it: no `<` survives in JSON text.
    let data = embed.to_string().replace('<', "\\u003c");
    let script: String = SCRIPTS
        .iter()
        .map(|(_, js)| js.replace("</script", "<\\/script"))
        .collect();
    let head =
        format!("<style>\n{STYLE_CSS}</style>\n<script>window.GOM_EMBED = {data};</script>\n");
    let body = format!("<script>\n{script}</script>");
    Ok(fill(
        INDEX_TEMPLATE,
        &[(STYLE_MARKER, &head), (SCRIPT_MARKER, &body)],
    )?)
}
