//! The GOMT0001 reader: a recursive-descent parser driven by the format's schema, so
//! that values go straight into the [`Model`] without an intermediate tree.

use super::error::{TextError, TextErrorKind};
use super::lexer::Lexer;
use super::names;
use super::structure;
use crate::model::{
    Bone, Bounds, Clip, ClipFlags, Header, Key, Mat4, Material, MeshPart, Model, Skeleton,
    SkinWeights, SkinningMethod, Submesh, Track, ValidationFlags, VertexFormat, Vertices,
};
use anim::parse_clip;
use mesh::parse_mesh;

mod anim;
mod clip_ext;
mod mesh;
mod morph;

/// Byte offsets of the tables of a parsed document, so that rules checked after
/// parsing can point at the bone, mesh or clip (and key) they concern.
#[derive(Debug, Default)]
pub(crate) struct Spans {
    /// The `Header` name.
    pub header: usize,
    /// The keys of the Header table.
    pub header_keys: Vec<(&'static str, usize)>,
    /// The `Skeleton` name.
    pub skeleton: usize,
    /// The `Materials` name.
    pub materials_name: usize,
    /// The `Animations` name.
    pub animations: usize,
    /// The `{` of each bone.
    pub bones: Vec<usize>,
    /// The `{` of each material.
    pub materials: Vec<usize>,
    /// The `{` of each mesh and the offsets of its keys.
    pub meshes: Vec<(usize, Vec<(&'static str, usize)>)>,
    /// The `{` of each clip and the offsets of its keys.
    pub clips: Vec<(usize, Vec<(&'static str, usize)>)>,
}

impl Spans {
    fn key_in(table: Option<&(usize, Vec<(&'static str, usize)>)>, key: &str) -> usize {
        match table {
            Some((at, keys)) => keys
                .iter()
                .find(|(k, _)| *k == key)
                .map_or(*at, |(_, p)| *p),
            None => 0,
        }
    }

    /// The offset of `key` in mesh `i` (the mesh's `{` when the key is absent).
    pub fn mesh_key(&self, i: usize, key: &str) -> usize {
        Self::key_in(self.meshes.get(i), key)
    }

    /// The offset of `key` in clip `i` (the clip's `{` when the key is absent).
    pub fn clip_key(&self, i: usize, key: &str) -> usize {
        Self::key_in(self.clips.get(i), key)
    }

    /// The offset of `key` in the Header (the `Header` name when absent).
    pub fn header_key(&self, key: &str) -> usize {
        self.header_keys
            .iter()
            .find(|(k, _)| *k == key)
            .map_or(self.header, |(_, p)| *p)
    }
}

/// The offsets of the keys of one table, recorded as they are met.
fn record(keys: &mut Vec<(&'static str, usize)>, known: &[&'static str], key: &str, at: usize) {
    if let Some(k) = known.iter().find(|k| **k == key) {
        keys.push((*k, at));
    }
}

/// Reads a GOMT0001 text into a [`Model`].
///
/// The text is checked for syntax (with the line and column of the first problem), for
/// the keys each table allows and requires, and then for the structural rules a binary
/// reader enforces, so that a model read from text is one a GOMB file could hold.
/// Unknown top-level names are skipped.
pub fn read(text: &str) -> Result<Model, TextError> {
    let (mut model, spans) = parse(text)?;
    structure::check(text, &mut model, &spans)?;
    Ok(model)
}

/// Reads GOMT0001 bytes: like [`read`], after checking that they are UTF-8 (an
/// invalid byte is reported at its line and column).
pub fn read_bytes(bytes: &[u8]) -> Result<Model, TextError> {
    match std::str::from_utf8(bytes) {
        Ok(text) => read(text),
        Err(e) => {
            let at = e.valid_up_to();
            let valid = std::str::from_utf8(&bytes[..at]).unwrap_or("");
            let (line, column) = super::lexer::line_column(valid, at);
            Err(TextError {
                line,
                column,
                offset: at,
                kind: TextErrorKind::InvalidUtf8,
            })
        }
    }
}

/// Parses the document without the structural checks.
pub(crate) fn parse(text: &str) -> Result<(Model, Spans), TextError> {
    let mut p = Lexer::new(text);
    p.magic()?;
    let mut spans = Spans::default();
    let mut header: Option<Header> = None;
    let mut skeleton: Option<Skeleton> = None;
    let mut materials: Option<Vec<Material>> = None;
    let mut meshes: Option<Vec<MeshPart>> = None;
    let mut clips: Option<Vec<Clip>> = None;
    while !p.at_end() {
        let (name, at) = p.name("a top-level name such as `Header` or `Meshes`")?;
        let dup = |p: &Lexer, set: bool| {
            if set {
                Err(p.error_at(
                    at,
                    TextErrorKind::DuplicateKey {
                        table: "the document",
                        key: name.to_string(),
                    },
                ))
            } else {
                Ok(())
            }
        };
        match name {
            "Header" => dup(&p, header.is_some())?,
            "Skeleton" => dup(&p, skeleton.is_some())?,
            "Materials" => dup(&p, materials.is_some())?,
            "Meshes" => dup(&p, meshes.is_some())?,
            "Animations" => dup(&p, clips.is_some())?,
            _ => {}
        }
        p.expect(b'=', "`=` after the top-level name")?;
        match name {
            "Header" => {
                spans.header = at;
                header = Some(parse_header(&mut p, &mut spans.header_keys)?);
            }
            "Skeleton" => {
                spans.skeleton = at;
                skeleton = Some(parse_skeleton(&mut p, &mut spans.bones)?);
            }
            "Materials" => {
                spans.materials_name = at;
                materials = Some(list(&mut p, "`[` starting the material list", |p| {
                    parse_material(p, &mut spans.materials)
                })?);
            }
            "Meshes" => {
                meshes = Some(list(&mut p, "`[` starting the mesh list", |p| {
                    parse_mesh(p, &mut spans.meshes)
                })?);
            }
            "Animations" => {
                spans.animations = at;
                clips = Some(list(&mut p, "`[` starting the clip list", |p| {
                    parse_clip(p, &mut spans.clips)
                })?);
            }
            _ => p.skip_value(0)?,
        }
    }
    let end = p.pos();
    let missing = |key: &'static str| {
        p.error_at(
            end,
            TextErrorKind::MissingKey {
                table: "the document",
                key,
            },
        )
    };
    let header = header.ok_or_else(|| missing("Header"))?;
    let skeleton = skeleton.ok_or_else(|| missing("Skeleton"))?;
    let model = Model {
        header,
        skeleton,
        materials: materials.unwrap_or_default(),
        meshes: meshes.unwrap_or_default(),
        clips: clips.unwrap_or_default(),
    };
    Ok((model, spans))
}

/// Parses `[ elem, elem, … ]` (trailing comma allowed), calling `elem` for each.
#[inline]
fn array<'a>(
    p: &mut Lexer<'a>,
    open: &'static str,
    mut elem: impl FnMut(&mut Lexer<'a>) -> Result<(), TextError>,
) -> Result<usize, TextError> {
    let at = p.expect(b'[', open)?;
    loop {
        if p.eat(b']') {
            return Ok(at);
        }
        elem(p)?;
        if !p.separator(b']', "`,` or `]`")? {
            return Ok(at);
        }
    }
}

/// Parses `[ elem, elem, … ]` as [`array`] does and collects what `elem` returns.
fn list<'a, T>(
    p: &mut Lexer<'a>,
    open: &'static str,
    mut elem: impl FnMut(&mut Lexer<'a>) -> Result<T, TextError>,
) -> Result<Vec<T>, TextError> {
    let mut v = Vec::new();
    array(p, open, |p| {
        v.push(elem(p)?);
        Ok(())
    })?;
    Ok(v)
}

/// Parses `{ key = value, … }` (trailing comma allowed), calling `entry` with each key
/// and its byte offset after consuming the `=`. Returns the offset of the `{`.
#[inline]
fn table<'a>(
    p: &mut Lexer<'a>,
    open: &'static str,
    mut entry: impl FnMut(&mut Lexer<'a>, &'a str, usize) -> Result<(), TextError>,
) -> Result<usize, TextError> {
    let at = p.expect(b'{', open)?;
    loop {
        if p.eat(b'}') {
            return Ok(at);
        }
        let (key, kat) = p.name("a key or `}`")?;
        p.expect(b'=', "`=` after the key")?;
        entry(p, key, kat)?;
        if !p.separator(b'}', "`,` or `}`")? {
            return Ok(at);
        }
    }
}

/// Fails when `set` (the key was already given), else returns.
#[inline]
fn once(p: &Lexer, set: bool, table: &'static str, key: &str, at: usize) -> Result<(), TextError> {
    if set {
        Err(p.error_at(
            at,
            TextErrorKind::DuplicateKey {
                table,
                key: key.to_string(),
            },
        ))
    } else {
        Ok(())
    }
}

fn unknown(p: &Lexer, table: &'static str, key: &str, at: usize) -> TextError {
    p.error_at(
        at,
        TextErrorKind::UnknownKey {
            table,
            key: key.to_string(),
        },
    )
}

fn required<T>(
    p: &Lexer,
    v: Option<T>,
    table: &'static str,
    key: &'static str,
    at: usize,
) -> Result<T, TextError> {
    v.ok_or_else(|| p.error_at(at, TextErrorKind::MissingKey { table, key }))
}

/// `[f, f, …]` with exactly `N` floats.
#[inline]
fn floats<const N: usize>(p: &mut Lexer, what: &'static str) -> Result<[f32; N], TextError> {
    p.expect(b'[', "`[`")?;
    let mut out = [0.0f32; N];
    for (i, slot) in out.iter_mut().enumerate() {
        *slot = p.f32(what)?;
        if i + 1 < N {
            p.expect(b',', "`,` (this array has a fixed length)")?;
        }
    }
    p.eat(b',');
    p.expect(b']', "`]` (this array has a fixed length)")?;
    Ok(out)
}

/// `[i, i, i, i]` of integers in `0..=max`.
#[inline]
fn ints4(
    p: &mut Lexer,
    what: &'static str,
    max: i64,
    range: &'static str,
) -> Result<[i64; 4], TextError> {
    p.expect(b'[', "`[`")?;
    let mut out = [0i64; 4];
    for (i, slot) in out.iter_mut().enumerate() {
        *slot = p.int(what, 0, max, range)?;
        if i + 1 < 4 {
            p.expect(b',', "`,` (this array has a fixed length)")?;
        }
    }
    p.eat(b',');
    p.expect(b']', "`]` (this array has a fixed length)")?;
    Ok(out)
}

/// A 4x4 matrix written as four rows: `[[m00, m01, m02, m03], …]`.
fn matrix(p: &mut Lexer, what: &'static str) -> Result<Mat4, TextError> {
    p.expect(b'[', "`[` starting a 4x4 matrix")?;
    let mut m = [0.0f32; 16];
    for r in 0..4 {
        let row: [f32; 4] = floats(p, what)?;
        m[r * 4..r * 4 + 4].copy_from_slice(&row);
        if r < 3 {
            p.expect(b',', "`,` (a matrix has four rows)")?;
        }
    }
    p.eat(b',');
    p.expect(b']', "`]` (a matrix has four rows)")?;
    Ok(m)
}

/// An array of strings, each mapped by `f` (which sees the string and its offset).
fn string_list<'a>(
    p: &mut Lexer<'a>,
    what: &'static str,
    mut f: impl FnMut(&Lexer<'a>, &str, usize) -> Result<(), TextError>,
) -> Result<(), TextError> {
    array(p, "`[`", |p| {
        let (s, at) = p.string(what)?;
        f(p, &s, at)
    })?;
    Ok(())
}

/// An array of flag names (`what`, e.g. "a clip flag name"), each mapped to its bit by
/// `bit_of` and listed at most once; an unknown name is a `kind` ("clip flag") and
/// `unknown` says which names there are. Returns the bits set.
pub(super) fn flag_set<'a, F: bitflags::Flags + Copy>(
    p: &mut Lexer<'a>,
    what: &'static str,
    kind: &'static str,
    bit_of: fn(&str) -> Option<F>,
    unknown: &'static str,
) -> Result<F, TextError> {
    let mut bits = F::empty();
    string_list(p, what, |p, s, sat| {
        let invalid = |message: String| p.error_at(sat, TextErrorKind::InvalidValue(message));
        let bit = bit_of(s).ok_or_else(|| invalid(format!("unknown {kind} \"{s}\"; {unknown}")))?;
        if bits.intersects(bit) {
            return Err(invalid(format!("the flag \"{s}\" is listed twice")));
        }
        bits.insert(bit);
        Ok(())
    })?;
    Ok(bits)
}

fn parse_header(
    p: &mut Lexer,
    spans: &mut Vec<(&'static str, usize)>,
) -> Result<Header, TextError> {
    const T: &str = "Header";
    let mut hash: Option<[u8; 32]> = None;
    let mut version: Option<String> = None;
    let mut flags: Option<ValidationFlags> = None;
    let mut cs = false;
    let mut mc = false;
    let at = table(p, "`{` starting the Header table", |p, key, kat| {
        record(spans, &["validationFlags", "converterVersion"], key, kat);
        match key {
            "sourceHash" => {
                once(p, hash.is_some(), T, key, kat)?;
                let (s, sat) = p.string("a string of 64 hexadecimal digits")?;
                hash = Some(names::parse_hash(&s).ok_or_else(|| {
                    p.error_at(
                        sat,
                        TextErrorKind::InvalidValue(
                            "sourceHash must be exactly 64 hexadecimal digits (SHA-256)".into(),
                        ),
                    )
                })?);
            }
            "converterVersion" => {
                once(p, version.is_some(), T, key, kat)?;
                version = Some(p.string("a string")?.0);
            }
            "validationFlags" => {
                once(p, flags.is_some(), T, key, kat)?;
                flags = Some(flag_set(
                    p,
                    "a validation flag name",
                    "validation flag",
                    names::validation_flag,
                    "the flags are bindPosePass, weightsPass and submeshMaterialsPass",
                )?);
            }
            "coordinateSystem" => {
                once(p, cs, T, key, kat)?;
                let (s, sat) = p.string("a coordinate system name")?;
                if s != names::COORDINATE_SYSTEM {
                    return Err(p.error_at(
                        sat,
                        TextErrorKind::InvalidValue(format!(
                            "unknown coordinate system \"{s}\"; GOM v1 knows only {}",
                            names::COORDINATE_SYSTEM
                        )),
                    ));
                }
                cs = true;
            }
            "matrixConvention" => {
                once(p, mc, T, key, kat)?;
                let (s, sat) = p.string("a matrix convention name")?;
                if s != names::MATRIX_CONVENTION {
                    return Err(p.error_at(
                        sat,
                        TextErrorKind::InvalidValue(format!(
                            "unknown matrix convention \"{s}\"; GOM v1 knows only {}",
                            names::MATRIX_CONVENTION
                        )),
                    ));
                }
                mc = true;
            }
            _ => return Err(unknown(p, "the Header", key, kat)),
        }
        Ok(())
    })?;
    const TT: &str = "the Header";
    let source_hash = required(p, hash, TT, "sourceHash", at)?;
    let converter_version = required(p, version, TT, "converterVersion", at)?;
    let validation_flags = required(p, flags, TT, "validationFlags", at)?;
    required(p, cs.then_some(()), TT, "coordinateSystem", at)?;
    required(p, mc.then_some(()), TT, "matrixConvention", at)?;
    Ok(Header {
        source_hash,
        converter_version,
        validation_flags,
    })
}

fn parse_skeleton(p: &mut Lexer, bone_spans: &mut Vec<usize>) -> Result<Skeleton, TextError> {
    const T: &str = "the Skeleton";
    let mut count: Option<(i64, usize)> = None;
    let mut bones: Option<Vec<Bone>> = None;
    let at = table(p, "`{` starting the Skeleton table", |p, key, kat| {
        match key {
            "boneCount" => {
                once(p, count.is_some(), T, key, kat)?;
                let pos = {
                    p.peek();
                    p.pos()
                };
                let n = p.int("a bone count", 0, i64::from(u32::MAX), "0 to 4294967295")?;
                count = Some((n, pos));
            }
            "bones" => {
                once(p, bones.is_some(), T, key, kat)?;
                bones = Some(list(p, "`[` starting the bone list", |p| {
                    parse_bone(p, bone_spans)
                })?);
            }
            _ => return Err(unknown(p, T, key, kat)),
        }
        Ok(())
    })?;
    let bones = required(p, bones, T, "bones", at)?;
    if let Some((n, pos)) = count {
        if usize::try_from(n).ok() != Some(bones.len()) {
            return Err(p.error_at(
                pos,
                TextErrorKind::InvalidValue(format!(
                    "boneCount is {n} but the bones list holds {} bones",
                    bones.len()
                )),
            ));
        }
    }
    Ok(Skeleton { bones })
}

fn parse_bone(p: &mut Lexer, spans: &mut Vec<usize>) -> Result<Bone, TextError> {
    const T: &str = "a bone";
    let mut parent = None;
    let mut name = None;
    let mut path = None;
    let mut bind = None;
    let at = table(p, "`{` starting a bone", |p, key, kat| {
        match key {
            "parent" => {
                once(p, parent.is_some(), T, key, kat)?;
                parent = Some(p.int(
                    "a parent bone index",
                    -1,
                    i64::from(i32::MAX),
                    "-1 or a bone index",
                )? as i32);
            }
            "name" => {
                once(p, name.is_some(), T, key, kat)?;
                name = Some(p.string("a string")?.0);
            }
            "path" => {
                once(p, path.is_some(), T, key, kat)?;
                path = Some(p.string("a string")?.0);
            }
            "bindLocal" => {
                once(p, bind.is_some(), T, key, kat)?;
                bind = Some(matrix(p, "a bindLocal element")?);
            }
            _ => return Err(unknown(p, T, key, kat)),
        }
        Ok(())
    })?;
    spans.push(at);
    Ok(Bone {
        parent: required(p, parent, T, "parent", at)?,
        name: required(p, name, T, "name", at)?,
        path: required(p, path, T, "path", at)?,
        bind_local: required(p, bind, T, "bindLocal", at)?,
    })
}

fn parse_material(p: &mut Lexer, spans: &mut Vec<usize>) -> Result<Material, TextError> {
    const T: &str = "a material";
    let mut name = None;
    let mut texture = None;
    let mut factor = None;
    let at = table(p, "`{` starting a material", |p, key, kat| {
        match key {
            "name" => {
                once(p, name.is_some(), T, key, kat)?;
                name = Some(p.string("a string")?.0);
            }
            "baseColorTexture" => {
                once(p, texture.is_some(), T, key, kat)?;
                texture = Some(p.string("a string")?.0);
            }
            "baseColorFactor" => {
                once(p, factor.is_some(), T, key, kat)?;
                factor = Some(floats::<4>(p, "a colour component")?);
            }
            _ => return Err(unknown(p, T, key, kat)),
        }
        Ok(())
    })?;
    spans.push(at);
    Ok(Material {
        name: required(p, name, T, "name", at)?,
        base_color_texture: texture,
        base_color_factor: factor.unwrap_or([1.0; 4]),
    })
}
