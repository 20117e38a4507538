//! Library-level operations behind the command line: list, extract, pack and replace
//! textures of a material library, and summarise a model.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::error::{Error, FileKind, Result};
use crate::open::OpenField;
use crate::png_io::{decode_png, encode_png};
use crate::scene::decode_strip;
use crate::texture::{self, CodecOptions, DdsOptions, Image};
use crate::tmd::Tmd;
use crate::tml::{Material, Texture, TextureHeader, Tml};

/// One texture in a listing.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TextureInfo {
    /// Index in file order.
    pub index: usize,
    /// Stored id.
    pub id: u32,
    /// Format number.
    pub format: u16,
    /// Whether this crate decodes the format.
    pub supported: bool,
    /// Width.
    pub width: u16,
    /// Height.
    pub height: u16,
    /// Stored byte count.
    pub data_size: usize,
    /// Header flags.
    pub flags: u16,
    /// Names of the materials using it, in material order.
    pub materials: Vec<String>,
}

/// One material in a listing.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct MaterialInfo {
    /// Index.
    pub index: usize,
    /// Name.
    pub name: String,
    /// Flags.
    pub flags: u16,
    /// `flags & 0xF000`.
    pub shader: u16,
    /// Texture ids.
    pub texture_ids: Vec<u32>,
}

/// What a material library holds.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TmlListing {
    /// Textures in file order.
    pub textures: Vec<TextureInfo>,
    /// Materials in file order.
    pub materials: Vec<MaterialInfo>,
}

impl TmlListing {
    /// The listing as JSON text.
    pub fn to_json(&self) -> String {
        to_json_text(self)
    }
}

/// For each texture (file order), the indices of the materials using it, in material
/// order, each once. A material's id refers to the first texture carrying that id (as
/// in [`Tml::texture_index`]), so a texture whose id repeats an earlier one's has no
/// users. One pass over the ids: the listing stays linear in the library's size.
fn texture_users(tml: &Tml) -> Vec<Vec<usize>> {
    let mut first: BTreeMap<u32, usize> = BTreeMap::new();
    for (i, t) in tml.textures.iter().enumerate() {
        first.entry(t.header.id).or_insert(i);
    }
    let mut users = vec![Vec::new(); tml.textures.len()];
    for (mi, m) in tml.materials.iter().enumerate() {
        for id in &m.texture_ids {
            if let Some(&ti) = first.get(id) {
                let u: &mut Vec<usize> = &mut users[ti];
                if u.last() != Some(&mi) {
                    u.push(mi);
                }
            }
        }
    }
    users
}

/// Lists a library's textures and materials.
pub fn list_tml(tml: &Tml) -> TmlListing {
    let users = texture_users(tml);
    let textures = tml
        .textures
        .iter()
        .zip(&users)
        .enumerate()
        .map(|(i, (t, u))| TextureInfo {
            index: i,
            id: t.header.id,
            format: t.header.format,
            supported: texture::is_supported(t.header.format),
            width: t.header.width,
            height: t.header.height,
            data_size: t.data.len(),
            flags: t.header.flags,
            materials: u.iter().map(|&mi| tml.materials[mi].name()).collect(),
        })
        .collect();
    let materials = tml
        .materials
        .iter()
        .enumerate()
        .map(|(i, m)| MaterialInfo {
            index: i,
            name: m.name(),
            flags: m.flags,
            shader: m.shader(),
            texture_ids: m.texture_ids.clone(),
        })
        .collect();
    TmlListing {
        textures,
        materials,
    }
}

/// A file stem safe in any directory: path separators, `..`, control characters and the
/// characters Windows forbids become `_`, leading dots and trailing dots/spaces go,
/// device names get a `_` suffix, at most 64 characters; empty gives "unnamed".
pub fn safe_file_stem(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| match c {
            '/' | '\\' | ':' | '<' | '>' | '"' | '|' | '?' | '*' => '_',
            c if c.is_control() => '_',
            c => c,
        })
        .collect();
    while s.contains("..") {
        s = s.replace("..", "_");
    }
    let s = s
        .trim_start_matches(['.', ' '])
        .trim_end_matches(['.', ' ']);
    let mut s: String = s.chars().take(64).collect();
    let upper = s.to_ascii_uppercase();
    let base = upper.split('.').next().unwrap_or("");
    let reserved = ["CON", "PRN", "AUX", "NUL"].contains(&base)
        || ((base.starts_with("COM") || base.starts_with("LPT"))
            && base.len() == 4
            && base.as_bytes()[3].is_ascii_digit());
    if reserved {
        s.push('_');
    }
    if s.is_empty() {
        "unnamed".into()
    } else {
        s
    }
}

/// File names (`<stem>.png`) for every texture: named after the first material using it
/// (else `texture-<id>`; see [`list_tml`] for which texture a material uses), made safe,
/// duplicates (compared case-insensitively) suffixed `-2`, `-3`….
pub fn texture_file_names(tml: &Tml) -> Vec<String> {
    let users = texture_users(tml);
    // every name taken so far, lower-cased; and per lower-cased stem the next suffix to
    // try (names only accumulate, so suffixes below it stay taken)
    let mut used: BTreeSet<String> = BTreeSet::new();
    let mut next_suffix: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = Vec::with_capacity(tml.textures.len());
    for (t, u) in tml.textures.iter().zip(&users) {
        let stem = u
            .first()
            .map(|&mi| safe_file_stem(&tml.materials[mi].name()))
            .unwrap_or_else(|| format!("texture-{}", t.header.id));
        let mut name = format!("{stem}.png");
        if used.contains(&name.to_ascii_lowercase()) {
            let k = next_suffix.entry(stem.to_ascii_lowercase()).or_insert(2);
            loop {
                name = format!("{stem}-{k}.png");
                *k += 1;
                if !used.contains(&name.to_ascii_lowercase()) {
                    break;
                }
            }
        }
        used.insert(name.to_ascii_lowercase());
        out.push(name);
    }
    out
}

/// One texture's fate in an extraction.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ExtractedTexture {
    /// Index in file order.
    pub index: usize,
    /// Stored id.
    pub id: u32,
    /// Format number.
    pub format: u16,
    /// Width of the PNG (or of the header when skipped).
    pub width: u32,
    /// Height.
    pub height: u32,
    /// Materials using it.
    pub materials: Vec<String>,
    /// The PNG's file name inside the output directory (`None` when skipped).
    pub file: Option<String>,
    /// Why it was skipped (unsupported format, undecodable data).
    pub skipped: Option<String>,
}

/// What [`extract_textures`] wrote.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ExtractManifest {
    /// One entry per texture, in file order.
    pub textures: Vec<ExtractedTexture>,
}

impl ExtractManifest {
    /// The manifest as JSON text.
    pub fn to_json(&self) -> String {
        to_json_text(self)
    }
}

/// Decodes every texture and writes it as `<outdir>/<name>.png` (see
/// [`texture_file_names`]); undecodable textures are listed as skipped. File names never
/// leave `outdir`.
pub fn extract_textures(tml: &Tml, outdir: &Path, opts: CodecOptions) -> Result<ExtractManifest> {
    std::fs::create_dir_all(outdir).map_err(|e| Error::Io {
        path: outdir.display().to_string(),
        source: e,
    })?;
    let names = texture_file_names(tml);
    let listing = list_tml(tml);
    let mut textures = Vec::with_capacity(tml.textures.len());
    for (i, (t, name)) in tml.textures.iter().zip(names).enumerate() {
        let mut e = ExtractedTexture {
            index: i,
            id: t.header.id,
            format: t.header.format,
            width: u32::from(t.header.width),
            height: u32::from(t.header.height),
            materials: listing.textures[i].materials.clone(),
            file: None,
            skipped: None,
        };
        match tml.decode_texture(i, opts) {
            Ok(img) => {
                let png = encode_png(&img)?;
                let path = outdir.join(&name);
                std::fs::write(&path, png).map_err(|err| Error::Io {
                    path: path.display().to_string(),
                    source: err,
                })?;
                e.width = img.width();
                e.height = img.height();
                e.file = Some(name);
            }
            Err(err) => e.skipped = Some(err.to_string()),
        }
        textures.push(e);
    }
    Ok(ExtractManifest { textures })
}

/// A texture to pack: an image and the format to store it in.
#[derive(Debug, Clone, PartialEq)]
pub struct PackTexture {
    /// The pixels.
    pub image: Image,
    /// Format (0, 2, 6, 7).
    pub format: u16,
    /// Header flags (bit 1 likely "no mipmaps").
    pub flags: u16,
    /// DXT flavour and mipmaps for format 6 (default DXT5 with a full chain).
    pub dds: Option<DdsOptions>,
}

/// A material to pack.
#[derive(Debug, Clone, PartialEq)]
pub struct PackMaterial {
    /// Name (1..=31 bytes).
    pub name: String,
    /// Flags (`& 0xF000` selects the shader).
    pub flags: u16,
    /// Its textures (at most 4).
    pub textures: Vec<PackTexture>,
}

/// Builds a library: materials sorted by the game's key, textures stored in that order
/// with ids in reverse order, every rule checked.
pub fn pack_tml(materials: &[PackMaterial], opts: CodecOptions) -> Result<Tml> {
    let mut order: Vec<&PackMaterial> = materials.iter().collect();
    order.sort_by_key(|m| crate::tml::sort_key(m.name.as_bytes()));
    let total: usize = order.iter().map(|m| m.textures.len()).sum();
    let mut tml = Tml::new();
    let mut mats = Vec::with_capacity(order.len());
    for (mi, m) in order.iter().enumerate() {
        let name_field = Material::name_field_from(&m.name)?;
        let mut ids = Vec::with_capacity(m.textures.len());
        for t in &m.textures {
            let i = tml.textures.len();
            let rec = format!("texture {i} (material {:?})", m.name);
            let data = texture::encode(t.format, &t.image, opts, t.dds, &rec)?;
            let mut header =
                TextureHeader::new(t.format, t.image.width() as u16, t.image.height() as u16);
            header.flags = t.flags;
            header.id = (total - 1 - i) as u32;
            ids.push(header.id);
            tml.textures.push(Texture { header, data });
        }
        mats.push(Material {
            name_field,
            name_index: mi as u32,
            flags: m.flags,
            texture_ids: ids,
        });
    }
    tml.materials = mats;
    tml.validate()?;
    Ok(tml)
}

/// How [`replace_texture`] treats a new image.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReplaceOptions {
    /// Channel orders for formats 0 and 7.
    pub codec: CodecOptions,
    /// Accept an image whose size differs from the texture's (the header is updated);
    /// by default a different size is refused.
    pub allow_resize: bool,
}

/// Replaces texture `slot` of material `material` with `image`, re-encoded in the
/// texture's own format (a DDS keeps its DXT flavour and gets a full mip chain if it had
/// more than one level). Returns the texture's index.
pub fn replace_texture(
    tml: &mut Tml,
    material: &str,
    slot: usize,
    image: &Image,
    opts: ReplaceOptions,
) -> Result<usize> {
    let mi = tml.find_material(material).ok_or_else(|| Error::NotFound {
        kind: FileKind::Tml,
        what: format!("material {material:?}"),
    })?;
    let id = *tml.materials[mi]
        .texture_ids
        .get(slot)
        .ok_or_else(|| Error::NotFound {
            kind: FileKind::Tml,
            what: format!("texture slot {slot} of material {material:?}"),
        })?;
    let ti = tml.texture_index(id).ok_or_else(|| Error::NotFound {
        kind: FileKind::Tml,
        what: format!("texture id {id}"),
    })?;
    let rec = format!("texture {ti}");
    let t = &tml.textures[ti];
    let format = t.header.format;
    if !texture::is_supported(format) {
        return Err(Error::UnsupportedFormat {
            record: rec,
            format,
        });
    }
    let (old_w, old_h, dds) = if format == 6 {
        let d = crate::dds::Dds::parse(&t.data, &rec)?;
        (
            d.width,
            d.height,
            Some(DdsOptions {
                dxt: d.dxt,
                mipmaps: d.levels.len() > 1,
            }),
        )
    } else {
        (u32::from(t.header.width), u32::from(t.header.height), None)
    };
    if !opts.allow_resize && (image.width(), image.height()) != (old_w, old_h) {
        return Err(Error::refused(
            FileKind::Tml,
            rec,
            "width/height",
            format!("the new image is {}×{}, the texture is {old_w}×{old_h} (allow resizing to change it)", image.width(), image.height()),
        ));
    }
    let data = texture::encode(format, image, opts.codec, dds, &rec)?;
    let t = &mut tml.textures[ti];
    t.header.width = image.width() as u16;
    t.header.height = image.height() as u16;
    t.data = data;
    Ok(ti)
}

/// [`replace_texture`] from PNG bytes.
pub fn replace_texture_png(
    tml: &mut Tml,
    material: &str,
    slot: usize,
    png: &[u8],
    opts: ReplaceOptions,
) -> Result<usize> {
    let img = decode_png(png)?;
    replace_texture(tml, material, slot, &img, opts)
}

/// Summary of one mesh.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct MeshInfo {
    /// Material name.
    pub material: String,
    /// Pieces.
    pub pieces: usize,
    /// Vertices.
    pub vertices: usize,
    /// Strip indices.
    pub strip_indices: usize,
    /// Triangles after strip decoding.
    pub triangles: usize,
    /// Stitches skipped.
    pub stitches: usize,
    /// Largest piece palette.
    pub max_palette: usize,
    /// Each piece, in file order.
    pub piece_details: Vec<PieceInfo>,
}

/// Summary of one piece of a mesh.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PieceInfo {
    /// The palette's node indices, slot by slot.
    pub palette: Vec<u32>,
    /// The palette's node names (`#N` for an index past the node list).
    pub palette_names: Vec<String>,
    /// Vertices stored in the piece (a mesh keeps them all in its first piece).
    pub vertices: usize,
    /// Strip indices.
    pub strip_indices: usize,
    /// Triangles the strip draws.
    pub triangles: usize,
    /// Stitches skipped.
    pub stitches: usize,
}

/// The summary of piece `p` of a model whose nodes are `nodes`.
fn piece_info(p: &crate::tmd::Piece, nodes: &[crate::tmd::Node]) -> PieceInfo {
    let t = decode_strip(&p.strip);
    PieceInfo {
        palette: p.palette.clone(),
        palette_names: p
            .palette
            .iter()
            .map(|&n| {
                nodes
                    .get(n as usize)
                    .map_or_else(|| format!("#{n}"), |node| node.name())
            })
            .collect(),
        vertices: p.vertices.len(),
        strip_indices: p.strip.len(),
        triangles: t.triangles.len(),
        stitches: t.stitches,
    }
}

/// Summary of one LOD.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct LodInfo {
    /// Shader type.
    pub shader_type: u32,
    /// Bounding sphere.
    pub sphere: [f32; 4],
    /// Meshes.
    pub meshes: Vec<MeshInfo>,
}

/// Summary of one animation.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct AnimationInfo {
    /// Name.
    pub name: String,
    /// Duration in seconds.
    pub duration: f32,
    /// "_lp" suffix.
    pub looping: bool,
    /// Keys over all channels.
    pub keys: usize,
}

/// Summary of a model, for `gom tmd info`.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TmdInfo {
    /// Keyframe-library name.
    pub tkl_name: String,
    /// "direct" or "indexed" pointer variant.
    pub node_layout: &'static str,
    /// Stored raw base.
    pub raw_base: u32,
    /// Node names in file order with their parents (in JSON, `{"name", "parent"}`
    /// objects).
    #[serde(serialize_with = "nodes_as_objects")]
    pub nodes: Vec<(String, i16)>,
    /// Animations.
    pub animations: Vec<AnimationInfo>,
    /// LOD distance.
    pub lod_distance: f32,
    /// LODs.
    pub lods: Vec<LodInfo>,
    /// Count of open fields and gaps (see [`Tmd::open_fields`]).
    pub open_fields: usize,
}

fn nodes_as_objects<S: serde::Serializer>(
    nodes: &[(String, i16)],
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    #[derive(serde::Serialize)]
    struct Node<'a> {
        name: &'a str,
        parent: i16,
    }
    s.collect_seq(nodes.iter().map(|(name, parent)| Node {
        name,
        parent: *parent,
    }))
}

impl TmdInfo {
    /// The summary as JSON text.
    pub fn to_json(&self) -> String {
        to_json_text(self)
    }
}

/// Summarises a model.
pub fn tmd_info(tmd: &Tmd) -> TmdInfo {
    let lods = tmd
        .mesh
        .lods
        .iter()
        .map(|l| LodInfo {
            shader_type: l.shader_type,
            sphere: l.sphere,
            meshes: l
                .meshes
                .iter()
                .map(|m| {
                    let details: Vec<PieceInfo> =
                        m.pieces.iter().map(|p| piece_info(p, &tmd.nodes)).collect();
                    let tris = details.iter().map(|p| p.triangles).sum();
                    let st = details.iter().map(|p| p.stitches).sum();
                    MeshInfo {
                        material: m.material(),
                        pieces: m.pieces.len(),
                        vertices: m.vertex_count(),
                        strip_indices: m.pieces.iter().map(|p| p.strip.len()).sum(),
                        triangles: tris,
                        stitches: st,
                        max_palette: m.pieces.iter().map(|p| p.palette.len()).max().unwrap_or(0),
                        piece_details: details,
                    }
                })
                .collect(),
        })
        .collect();
    TmdInfo {
        tkl_name: tmd.header.tkl_name(),
        node_layout: match tmd.node_layout {
            crate::tmd::NodeLayout::Direct => "direct",
            crate::tmd::NodeLayout::Indexed { .. } => "indexed",
        },
        raw_base: tmd.header.raw_base,
        nodes: tmd.nodes.iter().map(|n| (n.name(), n.parent)).collect(),
        animations: tmd
            .animations
            .iter()
            .map(|a| AnimationInfo {
                name: a.name(),
                duration: a.duration,
                looping: a.is_looping(),
                keys: a.channels.iter().map(|c| c.keys.len()).sum(),
            })
            .collect(),
        lod_distance: tmd.mesh.lod_distance,
        lods,
        open_fields: tmd.open_fields().len(),
    }
}

/// Open fields as JSON text.
pub fn open_fields_json(fields: &[OpenField]) -> String {
    to_json_text(fields)
}

/// `value` as compact JSON text. The listings hold only strings, integers, booleans and
/// `f32`s (non-finite ones become `null`), which serde_json always serialises.
fn to_json_text<T: serde::Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "null".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safe_names() {
        // "../../evil" -> ".._.._evil" -> each ".." to "_"
        assert_eq!(safe_file_stem("../../evil"), "____evil");
        assert_eq!(safe_file_stem(""), "unnamed");
        assert_eq!(safe_file_stem(".."), "_");
        assert_eq!(safe_file_stem(" . "), "unnamed");
        assert_eq!(safe_file_stem("a/b\\c:d"), "a_b_c_d");
        assert_eq!(safe_file_stem("x\u{1}y"), "x_y");
        assert_eq!(safe_file_stem("con"), "con_");
        assert_eq!(safe_file_stem("Fern_b"), "Fern_b");
    }

    fn material(name: &str, ids: &[u32]) -> Material {
        Material {
            name_field: Material::name_field_from(name).unwrap(),
            name_index: 0,
            flags: 0,
            texture_ids: ids.to_vec(),
        }
    }

    #[test]
    fn file_names_collide_case_insensitively_and_skip_taken_suffixes() {
        let mut tml = Tml::new();
        for id in [10, 11, 12, 13, 14] {
            let mut header = TextureHeader::new(0, 1, 1);
            header.id = id;
            tml.textures.push(Texture {
                header,
                data: vec![0; 4],
            });
        }
        tml.materials = vec![
            material("a", &[10, 13]),
            material("A", &[11]),
            material("a-2", &[12, 11]),
        ];
        // 10: "a.png". 11: "A.png" is taken as "a.png", so "A-2.png". 12: "a-2.png" is
        // taken as "A-2.png", so "a-2-2.png". 13: "a.png" and "a-2.png" taken, "a-3.png".
        // 14: no material.
        assert_eq!(
            texture_file_names(&tml),
            ["a.png", "A-2.png", "a-2-2.png", "a-3.png", "texture-14.png"]
        );
        let listing = list_tml(&tml);
        let users: Vec<Vec<String>> = listing.textures.into_iter().map(|t| t.materials).collect();
        assert_eq!(
            users,
            [vec!["a"], vec!["A", "a-2"], vec!["a-2"], vec!["a"], vec![]]
        );
    }
}
