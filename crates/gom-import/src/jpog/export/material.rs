//! The materials as a `.tml` library: one material per name the meshes use (sorted by
//! the game's key), each with one DXT5 texture: the GOM material's base-colour PNG
//! when it is given, else a 4×4 texture of its base-colour factor (the game's skin
//! shader samples a texture, so none is left without one).

use std::collections::BTreeMap;

use jpog::ops::{PackMaterial, PackTexture};
use jpog::{Image, Tml};

use super::pieces::MaterialUse;
use super::ExportError;

/// The texture format written: a DDS, DXT5 with a full mip chain (format 6).
const TEXTURE_FORMAT: u16 = 6;
/// Side of the plain texture written for a material without an image.
const PLAIN_SIZE: u32 = 4;

fn plain(color: [f32; 4]) -> Result<Image, ExportError> {
    let px = color.map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8);
    Ok(Image::new(PLAIN_SIZE, PLAIN_SIZE, px)?)
}

/// The image of material `m`: its PNG or JPEG decoded, or a plain one (with a note
/// saying why).
fn image(
    m: &MaterialUse,
    textures: &BTreeMap<String, Vec<u8>>,
    notes: &mut Vec<String>,
) -> Result<Image, ExportError> {
    let Some(name) = &m.texture else {
        return plain(m.color);
    };
    match textures.get(name).map(|b| gom_image::decode(b)) {
        Some(Ok(img)) => Ok(img),
        Some(Err(e)) => {
            notes.push(format!(
                "material \"{}\": texture {name} not decoded ({e}); a plain texture is written",
                m.name
            ));
            plain(m.color)
        }
        None => {
            notes.push(format!(
                "material \"{}\": texture {name} not found; a plain texture is written",
                m.name
            ));
            plain(m.color)
        }
    }
}

/// Builds the library.
pub(crate) fn build(
    materials: &[MaterialUse],
    textures: &BTreeMap<String, Vec<u8>>,
    notes: &mut Vec<String>,
) -> Result<Tml, ExportError> {
    let pack = materials
        .iter()
        .map(|m| {
            Ok(PackMaterial {
                name: m.name.clone(),
                flags: 0,
                textures: vec![PackTexture {
                    image: image(m, textures, notes)?,
                    format: TEXTURE_FORMAT,
                    flags: 0,
                    dds: None,
                }],
            })
        })
        .collect::<Result<Vec<_>, ExportError>>()?;
    Ok(jpog::ops::pack_tml(&pack, jpog::CodecOptions::default())?)
}
