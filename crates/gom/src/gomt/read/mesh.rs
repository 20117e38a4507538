//! GOMT meshes: vertices, submeshes and bounds.

use super::*;

/// Bits of the vertex keys, in the order of [`names::VERTEX_KEYS`].
const K_P: u32 = 1;
const K_N: u32 = 2;
const K_T: u32 = 4;
const K_UV: u32 = 8;
const K_UV1: u32 = 16;
const K_C: u32 = 32;
const K_BI: u32 = 64;
const K_BW: u32 = 128;
const K_BI2: u32 = 256;
const K_BW2: u32 = 512;
const K_DQ: u32 = 1024;

/// The vertex format of a set of vertex keys, or `None` when `p` is missing, only
/// one of `bi`/`bw` or of `bi2`/`bw2` is present, or `bi2` or `dq` come without `bi`.
fn format_of_keys(keys: u32) -> Option<VertexFormat> {
    let pair = |a: u32, b: u32| (keys & a == 0) == (keys & b == 0);
    let needs_skin = keys & (K_BI2 | K_DQ) != 0 && keys & K_BI == 0;
    if keys & K_P == 0 || !pair(K_BI, K_BW) || !pair(K_BI2, K_BW2) || needs_skin {
        return None;
    }
    let mut f = VertexFormat::POSITION;
    for (k, bit) in [
        (K_N, VertexFormat::NORMAL),
        (K_T, VertexFormat::TANGENT),
        (K_UV, VertexFormat::UV0),
        (K_UV1, VertexFormat::UV1),
        (K_C, VertexFormat::COLOR0),
        (K_BI, VertexFormat::SKIN),
    ] {
        if keys & k != 0 {
            f |= bit;
        }
    }
    Some(f)
}

fn key_list(keys: u32) -> String {
    let mut s = String::new();
    for (i, name) in names::VERTEX_KEYS.iter().enumerate() {
        if keys & (1 << i) != 0 {
            if !s.is_empty() {
                s.push_str(", ");
            }
            s.push_str(name);
        }
    }
    if s.is_empty() {
        s.push_str("none");
    }
    s
}

/// Vertex streams under construction: all of them, filled for the keys present.
#[derive(Default)]
struct Streams {
    keys: Option<u32>,
    p: Vec<[f32; 3]>,
    n: Vec<[f32; 3]>,
    t: Vec<[f32; 4]>,
    uv: Vec<[f32; 2]>,
    uv1: Vec<[f32; 2]>,
    c: Vec<[u8; 4]>,
    skin: Vec<SkinWeights>,
    skin2: Vec<SkinWeights>,
    dq: Vec<f32>,
}

impl Streams {
    fn into_vertices(self) -> Vertices {
        let keys = self.keys.unwrap_or(K_P);
        let some = |bit: u32| keys & bit != 0;
        Vertices {
            positions: self.p,
            normals: some(K_N).then_some(self.n),
            tangents: some(K_T).then_some(self.t),
            uv0: some(K_UV).then_some(self.uv),
            uv1: some(K_UV1).then_some(self.uv1),
            colors: some(K_C).then_some(self.c),
            skin: some(K_BI).then_some(self.skin),
            skin_extra: some(K_BI2).then_some(self.skin2),
            dq_weights: some(K_DQ).then_some(self.dq),
        }
    }
}

fn parse_vertex(p: &mut Lexer, s: &mut Streams) -> Result<(), TextError> {
    const T: &str = "a vertex";
    let mut keys = 0u32;
    let mut v_p = [0.0; 3];
    let mut v_n = [0.0; 3];
    let mut v_t = [0.0; 4];
    let mut v_uv = [0.0; 2];
    let mut v_uv1 = [0.0; 2];
    let mut v_c = [0u8; 4];
    let mut v_bi = [0u16; 4];
    let mut v_bw = [0.0; 4];
    let mut v_bi2 = [0u16; 4];
    let mut v_bw2 = [0.0; 4];
    let mut v_dq = 0.0;
    let at = table(p, "`{` starting a vertex", |p, key, kat| {
        let bit = match key {
            "p" => K_P,
            "n" => K_N,
            "t" => K_T,
            "uv" => K_UV,
            "uv1" => K_UV1,
            "c" => K_C,
            "bi" => K_BI,
            "bw" => K_BW,
            "bi2" => K_BI2,
            "bw2" => K_BW2,
            "dq" => K_DQ,
            _ => return Err(unknown(p, T, key, kat)),
        };
        once(p, keys & bit != 0, T, key, kat)?;
        keys |= bit;
        match bit {
            K_P => v_p = floats(p, "a position coordinate")?,
            K_N => v_n = floats(p, "a normal component")?,
            K_T => v_t = floats(p, "a tangent component")?,
            K_UV => v_uv = floats(p, "a texture coordinate")?,
            K_UV1 => v_uv1 = floats(p, "a texture coordinate")?,
            K_C => v_c = ints4(p, "a colour byte", 255, "0 to 255")?.map(|x| x as u8),
            K_BI => v_bi = ints4(p, "a bone index", 65535, "0 to 65535")?.map(|x| x as u16),
            K_BI2 => v_bi2 = ints4(p, "a bone index", 65535, "0 to 65535")?.map(|x| x as u16),
            K_BW2 => v_bw2 = floats(p, "a skin weight")?,
            K_DQ => v_dq = p.f32("a dual-quaternion weight")?,
            _ => v_bw = floats(p, "a skin weight")?,
        }
        Ok(())
    })?;
    match s.keys {
        None => {
            if format_of_keys(keys).is_none() {
                return Err(p.error_at(
                    at,
                    TextErrorKind::InvalidValue(format!(
                        "a vertex needs `p`, `bi` and `bw` go together, `bi2` and `bw2` \
                         together and only with `bi`, `dq` only with `bi`; this one has {}",
                        key_list(keys)
                    )),
                ));
            }
            s.keys = Some(keys);
        }
        Some(first) if first != keys => {
            return Err(p.error_at(
                at,
                TextErrorKind::InvalidValue(format!(
                    "every vertex of a mesh carries the same keys: this one has {}, \
                     the mesh's format has {}",
                    key_list(keys),
                    key_list(first)
                )),
            ))
        }
        Some(_) => {}
    }
    s.p.push(v_p);
    if keys & K_N != 0 {
        s.n.push(v_n);
    }
    if keys & K_T != 0 {
        s.t.push(v_t);
    }
    if keys & K_UV != 0 {
        s.uv.push(v_uv);
    }
    if keys & K_UV1 != 0 {
        s.uv1.push(v_uv1);
    }
    if keys & K_C != 0 {
        s.c.push(v_c);
    }
    if keys & K_BI != 0 {
        s.skin.push(SkinWeights {
            bones: v_bi,
            weights: v_bw,
        });
    }
    if keys & K_BI2 != 0 {
        s.skin2.push(SkinWeights {
            bones: v_bi2,
            weights: v_bw2,
        });
    }
    if keys & K_DQ != 0 {
        s.dq.push(v_dq);
    }
    Ok(())
}

pub(super) fn parse_mesh(
    p: &mut Lexer,
    spans: &mut Vec<(usize, Vec<(&'static str, usize)>)>,
) -> Result<MeshPart, TextError> {
    const KEYS: [&str; 9] = [
        "morphTargets",
        "name",
        "skinning",
        "meshBindGeoToModel",
        "vertices",
        "indices",
        "submeshes",
        "inverseBind",
        "bounds",
    ];
    let mut key_spans = Vec::new();
    const T: &str = "a mesh";
    let mut morph_targets = None;
    let mut name = None;
    let mut skinning = None;
    let mut gbtm = None;
    let mut format: Option<(u32, usize)> = None;
    let mut streams: Option<Streams> = None;
    let mut indices: Option<Vec<u32>> = None;
    let mut submeshes: Option<Vec<Submesh>> = None;
    let mut inverse_bind: Option<Vec<Mat4>> = None;
    let mut bounds: Option<Bounds> = None;
    let at = table(p, "`{` starting a mesh", |p, key, kat| {
        record(&mut key_spans, &KEYS, key, kat);
        match key {
            "name" => {
                once(p, name.is_some(), T, key, kat)?;
                name = Some(p.string("a string")?.0);
            }
            "skinning" => {
                once(p, skinning.is_some(), T, key, kat)?;
                let (s, sat) = p.string("a skinning method")?;
                skinning = Some(SkinningMethod::from_name(&s).ok_or_else(|| {
                    p.error_at(
                        sat,
                        TextErrorKind::InvalidValue(format!(
                            "unknown skinning method \"{s}\"; the methods are linear, \
                             dualQuaternion and blended"
                        )),
                    )
                })?);
            }
            "meshBindGeoToModel" => {
                once(p, gbtm.is_some(), T, key, kat)?;
                gbtm = Some(matrix(p, "a meshBindGeoToModel element")?);
            }
            "vertexFormat" => {
                once(p, format.is_some(), T, key, kat)?;
                let mut keys = 0u32;
                let lat = {
                    p.peek();
                    p.pos()
                };
                string_list(p, "a vertex key name", |p, s, sat| {
                    let i = names::VERTEX_KEYS.iter().position(|k| *k == s).ok_or_else(|| {
                        p.error_at(
                            sat,
                            TextErrorKind::InvalidValue(format!(
                                "unknown vertex key \"{s}\"; the keys are p, n, t, uv, uv1, c, bi, bw, bi2, bw2 and dq"
                            )),
                        )
                    })?;
                    let bit = 1u32 << i;
                    if keys & bit != 0 {
                        return Err(p.error_at(
                            sat,
                            TextErrorKind::InvalidValue(format!(
                                "the vertex key \"{s}\" is listed twice"
                            )),
                        ));
                    }
                    keys |= bit;
                    Ok(())
                })?;
                if format_of_keys(keys).is_none() {
                    return Err(p.error_at(
                        lat,
                        TextErrorKind::InvalidValue(
                            "vertexFormat must list \"p\", \"bi\" and \"bw\" together, \
                             \"bi2\" and \"bw2\" together and only with \"bi\", \"dq\" only \
                             with \"bi\""
                                .into(),
                        ),
                    ));
                }
                format = Some((keys, lat));
            }
            "vertices" => {
                once(p, streams.is_some(), T, key, kat)?;
                let mut s = Streams::default();
                array(p, "`[` starting the vertex list", |p| {
                    parse_vertex(p, &mut s)
                })?;
                streams = Some(s);
            }
            "indices" => {
                once(p, indices.is_some(), T, key, kat)?;
                let mut v = Vec::new();
                array(p, "`[` starting the index list", |p| {
                    v.push(
                        p.int("a vertex index", 0, i64::from(u32::MAX), "0 to 4294967295")? as u32,
                    );
                    Ok(())
                })?;
                indices = Some(v);
            }
            "submeshes" => {
                once(p, submeshes.is_some(), T, key, kat)?;
                submeshes = Some(list(p, "`[` starting the submesh list", |p| {
                    parse_submesh(p)
                })?);
            }
            "inverseBind" => {
                once(p, inverse_bind.is_some(), T, key, kat)?;
                inverse_bind = Some(list(p, "`[` starting the inverse bind list", |p| {
                    matrix(p, "an inverseBind element")
                })?);
            }
            "bounds" => {
                once(p, bounds.is_some(), T, key, kat)?;
                bounds = Some(parse_bounds(p)?);
            }
            "morphTargets" => {
                once(p, morph_targets.is_some(), T, key, kat)?;
                morph_targets = Some(super::morph::parse_targets(p)?);
            }
            _ => return Err(unknown(p, T, key, kat)),
        }
        Ok(())
    })?;
    spans.push((at, key_spans));
    let mut streams = required(p, streams, T, "vertices", at)?;
    if let Some((keys, lat)) = format {
        match streams.keys {
            None => streams.keys = Some(keys),
            Some(k) if k != keys => {
                return Err(p.error_at(
                    lat,
                    TextErrorKind::InvalidValue(format!(
                        "vertexFormat lists {} but the vertices carry {}",
                        key_list(keys),
                        key_list(k)
                    )),
                ))
            }
            Some(_) => {}
        }
    }
    Ok(MeshPart {
        name: required(p, name, T, "name", at)?,
        vertices: streams.into_vertices(),
        indices: required(p, indices, T, "indices", at)?,
        submeshes: required(p, submeshes, T, "submeshes", at)?,
        inverse_bind: inverse_bind.unwrap_or_default(),
        mesh_bind_geo_to_model: gbtm,
        bounds,
        skinning: skinning.unwrap_or_default(),
        morph_targets: morph_targets.unwrap_or_default(),
    })
}

fn parse_submesh(p: &mut Lexer) -> Result<Submesh, TextError> {
    const T: &str = "a submesh";
    let mut material = None;
    let mut start = None;
    let mut count = None;
    let at = table(p, "`{` starting a submesh", |p, key, kat| {
        let u32_max = i64::from(u32::MAX);
        match key {
            "materialIndex" => {
                once(p, material.is_some(), T, key, kat)?;
                material = Some(p.int(
                    "a material index",
                    -1,
                    i64::from(i32::MAX),
                    "-1 or a material index",
                )? as i32);
            }
            "indexStart" => {
                once(p, start.is_some(), T, key, kat)?;
                start = Some(p.int("an index start", 0, u32_max, "0 to 4294967295")? as u32);
            }
            "indexCount" => {
                once(p, count.is_some(), T, key, kat)?;
                count = Some(p.int("an index count", 0, u32_max, "0 to 4294967295")? as u32);
            }
            _ => return Err(unknown(p, T, key, kat)),
        }
        Ok(())
    })?;
    Ok(Submesh {
        material_index: required(p, material, T, "materialIndex", at)?,
        index_start: required(p, start, T, "indexStart", at)?,
        index_count: required(p, count, T, "indexCount", at)?,
    })
}

fn parse_bounds(p: &mut Lexer) -> Result<Bounds, TextError> {
    const T: &str = "bounds";
    let mut min = None;
    let mut max = None;
    let mut center = None;
    let mut radius = None;
    let at = table(p, "`{` starting the bounds", |p, key, kat| {
        match key {
            "aabbMin" => {
                once(p, min.is_some(), T, key, kat)?;
                min = Some(floats::<3>(p, "a bounds coordinate")?);
            }
            "aabbMax" => {
                once(p, max.is_some(), T, key, kat)?;
                max = Some(floats::<3>(p, "a bounds coordinate")?);
            }
            "sphereCenter" => {
                once(p, center.is_some(), T, key, kat)?;
                center = Some(floats::<3>(p, "a bounds coordinate")?);
            }
            "sphereRadius" => {
                once(p, radius.is_some(), T, key, kat)?;
                radius = Some(p.f32("a sphere radius")?);
            }
            _ => return Err(unknown(p, T, key, kat)),
        }
        Ok(())
    })?;
    Ok(Bounds {
        aabb_min: required(p, min, T, "aabbMin", at)?,
        aabb_max: required(p, max, T, "aabbMax", at)?,
        sphere_center: required(p, center, T, "sphereCenter", at)?,
        sphere_radius: required(p, radius, T, "sphereRadius", at)?,
    })
}
