//! Materials, and the textures and images their base-colour textures become (each
//! image embedded once in the buffer, in material order).

use std::collections::BTreeMap;

use gltf::json::image::MimeType;
use gltf::json::material::{PbrBaseColorFactor, PbrMetallicRoughness};
use gltf::json::texture::Info;
use gltf::json::{Image, Index, Material, Texture};

use super::bin::Bin;

/// The materials, textures and images of an export.
#[derive(Default)]
pub(super) struct Looks {
    /// One per GOM material, in order.
    pub(super) materials: Vec<Material>,
    /// One per image, texture `i` showing image `i`.
    pub(super) textures: Vec<Texture>,
    /// The images embedded.
    pub(super) images: Vec<Image>,
}

/// The materials of `model`, their textures' images embedded in `bin` from
/// `available`; a texture that cannot be embedded is left out with a warning.
pub(super) fn looks(
    model: &gom::Model,
    available: &BTreeMap<String, Vec<u8>>,
    bin: &mut Bin,
    warnings: &mut Vec<String>,
) -> Looks {
    let mut looks = Looks::default();
    let mut texture_of: BTreeMap<&str, Option<Index<Texture>>> = BTreeMap::new();
    for m in &model.materials {
        let texture = m.base_color_texture.as_deref().and_then(|name| {
            *texture_of
                .entry(name)
                .or_insert_with(|| embed(name, available, bin, &mut looks, warnings))
        });
        looks.materials.push(Material {
            name: Some(m.name.clone()),
            pbr_metallic_roughness: PbrMetallicRoughness {
                base_color_factor: PbrBaseColorFactor(m.base_color_factor),
                base_color_texture: texture.map(|index| Info {
                    index,
                    tex_coord: 0,
                    extensions: None,
                    extras: Default::default(),
                }),
                ..Default::default()
            },
            ..Default::default()
        });
    }
    looks
}

/// Embeds the image of texture `name` (from `available`) in `bin` and adds it and
/// its texture to `looks`; `None`, with a warning, when it cannot be.
fn embed(
    name: &str,
    available: &BTreeMap<String, Vec<u8>>,
    bin: &mut Bin,
    looks: &mut Looks,
    warnings: &mut Vec<String>,
) -> Option<Index<Texture>> {
    let Some(bytes) = available.get(name) else {
        warnings.push(format!(
            "texture \"{name}\" not found; left out of the glTF output"
        ));
        return None;
    };
    let Some(encoding) = gom_image::Encoding::sniff(bytes) else {
        warnings.push(format!(
            "texture \"{name}\" is neither PNG nor JPEG (the images glTF holds); left out"
        ));
        return None;
    };
    let view = bin.view(bytes, None);
    let image = Index::push(
        &mut looks.images,
        Image {
            buffer_view: Some(view),
            mime_type: Some(MimeType(encoding.mime_type().to_string())),
            name: Some(name.to_string()),
            uri: None,
            extensions: None,
            extras: Default::default(),
        },
    );
    Some(Index::push(
        &mut looks.textures,
        Texture {
            name: None,
            sampler: None,
            source: image,
            extensions: None,
            extras: Default::default(),
        },
    ))
}
