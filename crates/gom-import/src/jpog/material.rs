//! Materials: one per distinct TMD material name, with the base-colour texture that
//! `gom tml extract` writes for it when a material library is given.

use gom::Material;
use jpog::png_io::encode_png;
use jpog::texture::CodecOptions;
use jpog::Tml;

use crate::imported::SideFile;
use crate::report::Report;

/// The material table and the texture files it names.
#[derive(Debug, Clone, Default)]
pub(crate) struct Materials {
    /// MATL entries in first-use order.
    pub list: Vec<Material>,
    /// PNG files named by the entries' `base_color_texture`.
    pub side_files: Vec<SideFile>,
}

impl Materials {
    /// The index of material `name`, adding it (and its texture) on first use.
    pub fn index_of(
        &mut self,
        name: &str,
        tml: Option<(&Tml, &[String], &str)>,
        codec: CodecOptions,
        with_files: bool,
        report: &mut Report,
    ) -> i32 {
        if let Some(i) = self.list.iter().position(|m| m.name == name) {
            return i as i32;
        }
        let base_color_texture = tml.and_then(|(tml, names, tml_file)| {
            texture_for(
                tml,
                names,
                tml_file,
                name,
                codec,
                with_files,
                &mut self.side_files,
                report,
            )
        });
        self.list.push(Material {
            name: name.to_string(),
            base_color_texture,
            base_color_factor: [1.0; 4],
        });
        (self.list.len() - 1) as i32
    }
}

/// The file name of `material`'s first texture, decoding it into `side_files`.
#[allow(clippy::too_many_arguments)]
fn texture_for(
    tml: &Tml,
    names: &[String],
    tml_file: &str,
    material: &str,
    codec: CodecOptions,
    with_files: bool,
    side_files: &mut Vec<SideFile>,
    report: &mut Report,
) -> Option<String> {
    let Some(mi) = tml.find_material(material) else {
        report.warn(format!(
            "material \"{material}\" is not in {tml_file}: no texture"
        ));
        return None;
    };
    let Some(&id) = tml.materials[mi].texture_ids.first() else {
        report.warn(format!(
            "material \"{material}\" of {tml_file} has no texture"
        ));
        return None;
    };
    let Some(ti) = tml.texture_index(id) else {
        report.warn(format!("material \"{material}\" of {tml_file} uses texture id {id}, which the library does not hold"));
        return None;
    };
    let file = names.get(ti)?.clone();
    if side_files
        .iter()
        .any(|s| s.relative_path.as_os_str() == file.as_str())
    {
        return Some(file);
    }
    // `gom tml extract` writes only the textures it can decode: name only those
    let png = tml.decode_texture(ti, codec).and_then(|img| {
        if with_files {
            encode_png(&img).map(Some)
        } else {
            Ok(None)
        }
    });
    match png {
        Ok(bytes) => {
            if let Some(bytes) = bytes {
                side_files.push(SideFile {
                    relative_path: file.clone().into(),
                    bytes,
                });
            }
            Some(file)
        }
        Err(e) => {
            report.warn(format!(
                "material \"{material}\": texture {ti} of {tml_file} cannot be decoded ({e}); no texture"
            ));
            None
        }
    }
}
