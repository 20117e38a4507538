//! Images embedded in an FBX file (ufbx holds their bytes in a texture's or its
//! video's `Content`). A material whose base-colour texture is embedded names it
//! `<stem>_image<k>.<ext>` (the same pattern as images embedded in glTF): a safe file
//! name, whatever path the FBX recorded, and the bytes become a side file written
//! beside GOM outputs or embedded in glTF ones unchanged (a JPEG stays a JPEG).

use crate::imported::SideFile;

/// The embedded images of one conversion, named in order of first use.
pub(crate) struct Embedded {
    /// The source file's stem, the names' prefix.
    stem: String,
    /// The images named so far.
    pub images: Vec<SideFile>,
}

impl Embedded {
    /// No images yet, for the source named `name_for_errors`.
    pub fn new(name_for_errors: &str) -> Embedded {
        let stem = std::path::Path::new(name_for_errors)
            .file_stem()
            .map(|s| safe_stem(&s.to_string_lossy()))
            .unwrap_or_default();
        Embedded {
            stem: if stem.is_empty() {
                "model".into()
            } else {
                stem
            },
            images: Vec::new(),
        }
    }

    /// The name `texture`'s image goes by when the file embeds it (an image with the
    /// same bytes is named once), or `None` when it is only a path.
    pub fn name_of(&mut self, texture: &ufbx::Texture) -> Option<String> {
        let bytes: &[u8] = if !texture.content.is_empty() {
            &texture.content
        } else {
            texture.video.as_ref().map(|v| &v.content[..])?
        };
        if bytes.is_empty() {
            return None;
        }
        if let Some(seen) = self.images.iter().find(|i| i.bytes == bytes) {
            return Some(seen.relative_path.to_string_lossy().into_owned());
        }
        let original = if texture.relative_filename.is_empty() {
            &texture.filename
        } else {
            &texture.relative_filename
        };
        let name = format!(
            "{}_image{}.{}",
            self.stem,
            self.images.len(),
            extension(bytes, original)
        );
        self.images.push(SideFile {
            relative_path: name.clone().into(),
            bytes: bytes.to_vec(),
        });
        Some(name)
    }
}

/// The extension of an embedded image: by its bytes for PNG and JPEG, else the
/// recorded name's when it is a short run of letters and digits, else `bin`.
fn extension(bytes: &[u8], original: &str) -> String {
    match gom_image::Encoding::sniff(bytes) {
        Some(gom_image::Encoding::Png) => return "png".into(),
        Some(gom_image::Encoding::Jpeg) => return "jpg".into(),
        _ => {}
    }
    let file = original.rsplit(['/', '\\']).next().unwrap_or("");
    match file.rsplit_once('.') {
        Some((_, ext))
            if (1..=5).contains(&ext.len()) && ext.bytes().all(|b| b.is_ascii_alphanumeric()) =>
        {
            ext.to_ascii_lowercase()
        }
        _ => "bin".into(),
    }
}

/// `stem` with every character other than ASCII letters, digits, `-` and `_` made
/// `_`, at most 64 characters: a name that is a plain file name on every system.
fn safe_stem(stem: &str) -> String {
    stem.chars()
        .take(64)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_plain_file_names_whatever_the_source_recorded() {
        assert_eq!(safe_stem("my model (v2)"), "my_model__v2_");
        assert_eq!(safe_stem("..\\..\\x"), "______x");
        assert_eq!(extension(b"\x89PNG\r\n\x1a\n....", "C:\\t\\a.tga"), "png");
        assert_eq!(extension(&[0xFF, 0xD8, 0xFF, 0xE0], "a.png"), "jpg");
        assert_eq!(extension(b"TGA?", "C:\\tex\\Skin.TGA"), "tga");
        assert_eq!(extension(b"????", "../a.b/c"), "bin");
        assert_eq!(extension(b"????", "x.p/ng"), "bin");
        assert_eq!(Embedded::new("/a/b/..").stem, "model");
    }
}
