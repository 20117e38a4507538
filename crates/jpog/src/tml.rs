//! `.tml` material libraries ("TML1"): textures and named materials.

use std::collections::BTreeMap;

use crate::bytes::{field_bytes, field_text, Reader, Writer};
use crate::error::{Error, FileKind, Result};
use crate::open::OpenField;
use crate::texture::{self, CodecOptions, Image};

/// Size of a texture header.
pub const TEXTURE_HEADER_SIZE: usize = 28;
/// Size of a material name field.
pub const NAME_FIELD_SIZE: usize = 32;
/// Longest material name the game accepts.
pub const MAX_MATERIAL_NAME: usize = 31;
/// Most textures one material may use.
pub const MAX_MATERIAL_TEXTURES: usize = 4;
/// Usual value of the open `unknown3` header field.
pub const DEFAULT_UNKNOWN3: u16 = 0xFFFF;
/// Usual value of the open `unknown4` header field.
pub const DEFAULT_UNKNOWN4: u32 = 0x4300_0000;

/// The 28-byte header of one texture (the data size is the data's length).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextureHeader {
    /// Texture id; files number them in reverse order (`id = count - 1 - index`).
    pub id: u32,
    /// Flags; bit 1 likely means "no mipmaps".
    pub flags: u16,
    /// Open.
    pub unknown: i16,
    /// Open.
    pub unknown2: u32,
    /// Pixel format (0, 2, 6, 7 supported).
    pub format: u16,
    /// Width in pixels.
    pub width: u16,
    /// Height in pixels.
    pub height: u16,
    /// Open, usually 0xFFFF.
    pub unknown3: u16,
    /// Open, usually 0x43000000.
    pub unknown4: u32,
}

impl TextureHeader {
    /// A header for a new texture with the usual values in the open fields (id set on write).
    pub fn new(format: u16, width: u16, height: u16) -> Self {
        TextureHeader {
            id: 0,
            flags: 0,
            unknown: 0,
            unknown2: 0,
            format,
            width,
            height,
            unknown3: DEFAULT_UNKNOWN3,
            unknown4: DEFAULT_UNKNOWN4,
        }
    }
}

/// One texture: header plus its stored bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Texture {
    /// The header.
    pub header: TextureHeader,
    /// The stored bytes (`dataSize` of them).
    pub data: Vec<u8>,
}

/// One material: its 32-byte name field and its record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Material {
    /// The raw name field (text up to the first NUL; bytes after it kept).
    pub name_field: [u8; NAME_FIELD_SIZE],
    /// Index of its name in the name table (equal to its own index in practice).
    pub name_index: u32,
    /// Flags; `flags & 0xF000` likely selects the shader.
    pub flags: u16,
    /// Ids of the textures it uses (at most 4).
    pub texture_ids: Vec<u32>,
}

impl Material {
    /// The name: text up to the first NUL.
    pub fn name(&self) -> String {
        field_text(&self.name_field)
    }

    /// A name field holding `name` followed by NULs; refused if longer than 31 bytes.
    pub fn name_field_from(name: &str) -> Result<[u8; NAME_FIELD_SIZE]> {
        let b = name.as_bytes();
        if b.len() > MAX_MATERIAL_NAME || b.contains(&0) {
            return Err(Error::refused(
                FileKind::Tml,
                format!("material {name:?}"),
                "name",
                format!(
                    "names hold at most {MAX_MATERIAL_NAME} bytes and no NUL; this one has {}",
                    b.len()
                ),
            ));
        }
        let mut f = [0u8; NAME_FIELD_SIZE];
        f[..b.len()].copy_from_slice(b);
        Ok(f)
    }

    /// The shader selected by `flags & 0xF000` (likely meaning).
    pub fn shader(&self) -> u16 {
        self.flags & 0xF000
    }
}

/// The key the game sorts and searches material names by: lower-cased bytes up to the NUL.
pub fn sort_key(name: &[u8]) -> Vec<u8> {
    field_bytes(name)
        .iter()
        .map(u8::to_ascii_lowercase)
        .collect()
}

/// A parsed material library. Equality compares the content, not the bytes it came from.
#[derive(Debug, Clone)]
pub struct Tml {
    /// The `type` field after the magic (0 in practice).
    pub type_field: u32,
    /// Textures in file order.
    pub textures: Vec<Texture>,
    /// Materials in file order (name `i` with record `i`).
    pub materials: Vec<Material>,
    /// Bytes after the last material record, kept verbatim.
    pub trailing: Vec<u8>,
    original: Option<Vec<u8>>,
}

impl Tml {
    /// An empty library (for building new files).
    pub fn new() -> Self {
        Tml {
            type_field: 0,
            textures: Vec::new(),
            materials: Vec::new(),
            trailing: Vec::new(),
            original: None,
        }
    }

    /// Reads a library; strict on the layout, tolerant of open fields.
    pub fn read(data: &[u8]) -> Result<Tml> {
        let mut r = Reader::new(data, FileKind::Tml);
        if r.array::<4>("magic")? != *b"TML1" {
            return Err(r.err_at("magic", 0, "is not \"TML1\""));
        }
        let type_field = r.u32("type")?;
        let n = r.u32("textureCount")? as usize;
        r.check_count(n, TEXTURE_HEADER_SIZE, "textureCount")?;
        let mut textures = Vec::with_capacity(n);
        for i in 0..n {
            r.record = format!("texture {i}");
            let at = r.pos();
            let id = r.u32("id")?;
            if id as usize >= n {
                return Err(r.err_at("id", at, format!("{id} is not below the texture count {n}")));
            }
            let size = r.u32("dataSize")? as usize;
            let header = TextureHeader {
                id,
                flags: r.u16("flags")?,
                unknown: r.i16("unknown")?,
                unknown2: r.u32("unknown2")?,
                format: r.u16("format")?,
                width: r.u16("width")?,
                height: r.u16("height")?,
                unknown3: r.u16("unknown3")?,
                unknown4: r.u32("unknown4")?,
            };
            if size > r.left() {
                return Err(r.err_at(
                    "dataSize",
                    at + 4,
                    format!("{size} bytes but only {} are left", r.left()),
                ));
            }
            let data = r.bytes(size, "data")?.to_vec();
            textures.push(Texture { header, data });
        }
        r.record = "material table".into();
        let m = r.u32("materialCount")? as usize;
        r.check_count(m, NAME_FIELD_SIZE + 8, "materialCount")?;
        let mut names = Vec::with_capacity(m);
        for _ in 0..m {
            names.push(r.array::<NAME_FIELD_SIZE>("names")?);
        }
        let mut materials = Vec::with_capacity(m);
        for (i, name_field) in names.into_iter().enumerate() {
            r.record = format!("material {i}");
            let at = r.pos();
            let name_index = r.u32("nameIndex")?;
            if name_index as usize >= m {
                return Err(r.err_at(
                    "nameIndex",
                    at,
                    format!("{name_index} is not below the material count {m}"),
                ));
            }
            let flags = r.u16("flags")?;
            let tc = r.u16("textureCount")? as usize;
            if tc > MAX_MATERIAL_TEXTURES {
                return Err(r.err_at(
                    "textureCount",
                    at + 6,
                    format!("{tc} is more than {MAX_MATERIAL_TEXTURES}"),
                ));
            }
            let mut texture_ids = Vec::with_capacity(tc);
            for _ in 0..tc {
                let p = r.pos();
                let id = r.u32("textureId")?;
                if id as usize >= n {
                    return Err(r.err_at(
                        "textureId",
                        p,
                        format!("{id} but the library has {n} textures"),
                    ));
                }
                texture_ids.push(id);
            }
            materials.push(Material {
                name_field,
                name_index,
                flags,
                texture_ids,
            });
        }
        let trailing = data[r.pos()..].to_vec();
        Ok(Tml {
            type_field,
            textures,
            materials,
            trailing,
            original: Some(data.to_vec()),
        })
    }

    fn serialize(&self) -> Result<Vec<u8>> {
        let mut w = Writer::default();
        w.bytes(b"TML1");
        w.u32(self.type_field);
        w.u32(count_u32(self.textures.len(), "textures", "textureCount")?);
        for (i, t) in self.textures.iter().enumerate() {
            let h = &t.header;
            w.u32(h.id);
            w.u32(count_u32(
                t.data.len(),
                &format!("texture {i}"),
                "dataSize",
            )?);
            w.u16(h.flags);
            w.i16(h.unknown);
            w.u32(h.unknown2);
            w.u16(h.format);
            w.u16(h.width);
            w.u16(h.height);
            w.u16(h.unknown3);
            w.u32(h.unknown4);
            w.bytes(&t.data);
        }
        w.u32(count_u32(
            self.materials.len(),
            "material table",
            "materialCount",
        )?);
        for m in &self.materials {
            w.bytes(&m.name_field);
        }
        for (i, m) in self.materials.iter().enumerate() {
            w.u32(m.name_index);
            w.u16(m.flags);
            let tc = u16::try_from(m.texture_ids.len()).map_err(|_| {
                Error::refused(
                    FileKind::Tml,
                    format!("material {i}"),
                    "textureCount",
                    "too many textures",
                )
            })?;
            w.u16(tc);
            for &id in &m.texture_ids {
                w.u32(id);
            }
        }
        w.bytes(&self.trailing);
        Ok(w.buf)
    }

    /// Writes the library. An unmodified library gives back the bytes it was read from;
    /// anything else must pass [`Tml::validate`] first.
    pub fn write(&self) -> Result<Vec<u8>> {
        let bytes = self.serialize()?;
        if self.original.as_deref() == Some(bytes.as_slice()) {
            return Ok(bytes);
        }
        self.validate()?;
        Ok(bytes)
    }

    /// Whether the library differs from the bytes it was read from (true for new ones).
    pub fn is_modified(&self) -> bool {
        match (&self.original, self.serialize()) {
            (Some(o), Ok(b)) => *o != b,
            _ => true,
        }
    }

    /// Checks the game's rules: texture ids in reverse order, data sizes matching the
    /// formats, names of 1..=31 bytes sorted case-insensitively (lower-cased bytes) without
    /// duplicates, `nameIndex == index`, at most 4 textures per material, ids in range.
    pub fn validate(&self) -> Result<()> {
        let n = self.textures.len();
        for (i, t) in self.textures.iter().enumerate() {
            let rec = format!("texture {i}");
            let want = (n - 1 - i) as u32;
            if t.header.id != want {
                return Err(Error::refused(
                    FileKind::Tml,
                    rec,
                    "id",
                    format!(
                        "is {}, the game expects ids in reverse order ({want})",
                        t.header.id
                    ),
                ));
            }
            if texture::is_supported(t.header.format) {
                check_texture_data(&t.header, &t.data, &rec)?;
            }
        }
        let mut prev: Option<Vec<u8>> = None;
        for (i, m) in self.materials.iter().enumerate() {
            let rec = format!("material {i} ({:?})", m.name());
            let len = field_bytes(&m.name_field).len();
            if len == 0 || len > MAX_MATERIAL_NAME {
                return Err(Error::refused(
                    FileKind::Tml,
                    rec,
                    "name",
                    format!("has {len} bytes; names hold 1..={MAX_MATERIAL_NAME}"),
                ));
            }
            let key = sort_key(&m.name_field);
            if let Some(p) = &prev {
                if *p >= key {
                    return Err(Error::refused(
                        FileKind::Tml,
                        rec,
                        "name",
                        "is not after the previous name in case-insensitive order (or repeats it); the game finds names by binary search",
                    ));
                }
            }
            prev = Some(key);
            if m.name_index as usize != i {
                return Err(Error::refused(
                    FileKind::Tml,
                    rec,
                    "nameIndex",
                    format!("is {}, expected its own index {i}", m.name_index),
                ));
            }
            if m.texture_ids.len() > MAX_MATERIAL_TEXTURES {
                return Err(Error::refused(
                    FileKind::Tml,
                    rec,
                    "textureCount",
                    format!(
                        "{} textures, at most {MAX_MATERIAL_TEXTURES}",
                        m.texture_ids.len()
                    ),
                ));
            }
            if let Some(&id) = m.texture_ids.iter().find(|&&id| id as usize >= n) {
                return Err(Error::refused(
                    FileKind::Tml,
                    rec,
                    "textureId",
                    format!("{id} but the library has {n} textures"),
                ));
            }
        }
        Ok(())
    }

    /// Index (file order) of the texture with stored id `id`.
    pub fn texture_index(&self, id: u32) -> Option<usize> {
        self.textures.iter().position(|t| t.header.id == id)
    }

    /// Index of the material called `name` (exact bytes first, then case-insensitively).
    pub fn find_material(&self, name: &str) -> Option<usize> {
        let b = name.as_bytes();
        self.materials
            .iter()
            .position(|m| field_bytes(&m.name_field) == b)
            .or_else(|| {
                // the game's key (lower-cased bytes), compared without building it
                self.materials
                    .iter()
                    .position(|m| field_bytes(&m.name_field).eq_ignore_ascii_case(field_bytes(b)))
            })
    }

    /// File-order indices of the textures of the material called `name` (see
    /// [`Tml::find_material`]), in the material's order; ids that match no texture are
    /// left out.
    pub fn material_textures(&self, name: &str) -> Option<Vec<usize>> {
        let m = &self.materials[self.find_material(name)?];
        Some(
            m.texture_ids
                .iter()
                .filter_map(|&id| self.texture_index(id))
                .collect(),
        )
    }

    /// Decodes texture `index` (file order) to RGBA8.
    pub fn decode_texture(&self, index: usize, opts: CodecOptions) -> Result<Image> {
        let t = self.textures.get(index).ok_or_else(|| Error::NotFound {
            kind: FileKind::Tml,
            what: format!("texture {index}"),
        })?;
        let h = &t.header;
        texture::decode(
            h.format,
            h.width,
            h.height,
            &t.data,
            opts,
            &format!("texture {index}"),
        )
    }

    /// Renumbers texture ids in reverse file order and rewrites material references to
    /// follow; then sorts materials by the game's key and sets `nameIndex`.
    pub fn normalize(&mut self) {
        let n = self.textures.len();
        // old id → new id; a repeated old id maps as its first texture's
        let mut map: BTreeMap<u32, u32> = BTreeMap::new();
        for (i, t) in self.textures.iter().enumerate() {
            map.entry(t.header.id).or_insert((n - 1 - i) as u32);
        }
        for (i, t) in self.textures.iter_mut().enumerate() {
            t.header.id = (n - 1 - i) as u32;
        }
        for m in &mut self.materials {
            for id in &mut m.texture_ids {
                if let Some(&new) = map.get(id) {
                    *id = new;
                }
            }
        }
        self.materials.sort_by_key(|m| sort_key(&m.name_field));
        for (i, m) in self.materials.iter_mut().enumerate() {
            m.name_index = i as u32;
        }
    }

    /// The fields whose meaning is open, with their stored values.
    pub fn open_fields(&self) -> Vec<OpenField> {
        let mut out = vec![OpenField::new(
            "header",
            "type",
            4,
            self.type_field.to_string(),
        )];
        let mut off = 12usize;
        for (i, t) in self.textures.iter().enumerate() {
            let h = &t.header;
            let rec = format!("texture {i}");
            out.push(OpenField::new(
                &rec,
                "flags",
                off + 8,
                format!("{:#06x}", h.flags),
            ));
            out.push(OpenField::new(
                &rec,
                "unknown",
                off + 10,
                h.unknown.to_string(),
            ));
            out.push(OpenField::new(
                &rec,
                "unknown2",
                off + 12,
                h.unknown2.to_string(),
            ));
            out.push(OpenField::new(
                &rec,
                "unknown3",
                off + 22,
                format!("{:#06x}", h.unknown3),
            ));
            out.push(OpenField::new(
                &rec,
                "unknown4",
                off + 24,
                format!("{:#010x}", h.unknown4),
            ));
            if !texture::is_supported(h.format) {
                out.push(OpenField::new(
                    &rec,
                    "format",
                    off + 16,
                    format!("{} (unsupported, bytes kept)", h.format),
                ));
            }
            off += TEXTURE_HEADER_SIZE + t.data.len();
        }
        let names_at = off + 4;
        for (i, m) in self.materials.iter().enumerate() {
            let len = field_bytes(&m.name_field).len();
            let tail = &m.name_field[(len + 1).min(NAME_FIELD_SIZE)..];
            if tail.iter().any(|&b| b != 0) {
                out.push(OpenField::new(
                    format!("material {i}"),
                    "name bytes after NUL",
                    names_at + i * NAME_FIELD_SIZE + len + 1,
                    hex::encode(tail),
                ));
            }
        }
        let mut rec_at = names_at + self.materials.len() * NAME_FIELD_SIZE;
        for (i, m) in self.materials.iter().enumerate() {
            if m.flags & 0x0FFF != 0 {
                out.push(OpenField::new(
                    format!("material {i}"),
                    "flags (low bits)",
                    rec_at + 4,
                    format!("{:#06x}", m.flags),
                ));
            }
            rec_at += 8 + 4 * m.texture_ids.len();
        }
        if !self.trailing.is_empty() {
            out.push(OpenField::new(
                "end",
                "trailing bytes",
                rec_at,
                format!("{} bytes", self.trailing.len()),
            ));
        }
        out
    }
}

impl PartialEq for Tml {
    fn eq(&self, o: &Self) -> bool {
        self.type_field == o.type_field
            && self.textures == o.textures
            && self.materials == o.materials
            && self.trailing == o.trailing
    }
}

impl Default for Tml {
    fn default() -> Self {
        Tml::new()
    }
}

/// Checks a supported texture's data size against its format and dimensions.
pub fn check_texture_data(h: &TextureHeader, data: &[u8], record: &str) -> Result<()> {
    if h.format == 6 {
        crate::dds::Dds::parse(data, record)?;
        return Ok(());
    }
    if let Some(bpp) = texture::bytes_per_pixel(h.format) {
        let need = h.width as usize * h.height as usize * bpp;
        if data.len() != need {
            return Err(Error::refused(
                FileKind::Tml,
                record,
                "dataSize",
                format!(
                    "format {} at {}×{} needs {need} bytes, has {}",
                    h.format,
                    h.width,
                    h.height,
                    data.len()
                ),
            ));
        }
    }
    Ok(())
}

fn count_u32(n: usize, record: &str, field: &'static str) -> Result<u32> {
    crate::bytes::to_u32(FileKind::Tml, n, record, field)
}
