//! SKEL (the skeleton) and MATL (the material table, D8).

use super::cursor::{le32, lef32, Chunk};
use super::str0::Strings;
use super::view::SkeletonView;
use crate::error::{ReadError, ReadErrorKind};
use crate::limits::MAX_BONES;
use crate::model::Material;
use crate::validate::parent_ok;

pub(crate) fn string_id(
    strings: &Strings<'_>,
    id: u32,
    at: usize,
    c: &Chunk,
    field: &'static str,
) -> Result<(), ReadError> {
    if id >= strings.count() {
        return Err(ReadError {
            offset: at as u64,
            place: c.place(),
            field,
            kind: ReadErrorKind::Value {
                value: u64::from(id),
                expected: "a string index below STR0's stringCount",
            },
        });
    }
    Ok(())
}

/// SKEL: `boneCount, parent[n], nameId[n], pathId[n], bindLocal[n][16]`.
pub(crate) fn parse_skel<'a>(
    file: &'a [u8],
    c: &Chunk,
    strings: &Strings<'a>,
) -> Result<SkeletonView<'a>, ReadError> {
    let mut cur = c.cur(file);
    let n = cur.u32_at_most("boneCount", MAX_BONES)?;
    let n64 = u64::from(n);
    let parents_at = cur.pos;
    let parents = cur.take(4 * n64, "parent")?;
    let names_at = cur.pos;
    let name_ids = cur.take(4 * n64, "nameId")?;
    let paths_at = cur.pos;
    let path_ids = cur.take(4 * n64, "pathId")?;
    let bind_local = cur.floats(16 * n64, "bindLocal")?;
    cur.finish("bindLocal")?;
    for i in 0..n as usize {
        let p = le32(&parents[4 * i..]) as i32;
        if !parent_ok(i, p) {
            return Err(ReadError {
                offset: (parents_at + 4 * i) as u64,
                place: c.place(),
                field: "parent",
                kind: ReadErrorKind::Rule {
                    reason: format!(
                        "bone {i} has parent {p}, which is neither -1 nor an earlier bone"
                    ),
                },
            });
        }
        string_id(
            strings,
            le32(&name_ids[4 * i..]),
            names_at + 4 * i,
            c,
            "nameId",
        )?;
        string_id(
            strings,
            le32(&path_ids[4 * i..]),
            paths_at + 4 * i,
            c,
            "pathId",
        )?;
    }
    Ok(SkeletonView {
        bone_count: n,
        parents,
        name_ids,
        path_ids,
        bind_local,
    })
}

/// MATL: `materialCount`, then per material `nameId, baseColorTextureId, baseColorFactor[4]`.
pub(crate) fn parse_matl(
    file: &[u8],
    c: &Chunk,
    strings: &Strings<'_>,
    budget: &mut super::view::StringBudget,
) -> Result<Vec<Material>, ReadError> {
    let mut cur = c.cur(file);
    let n = cur.u32("materialCount")?;
    let at = cur.pos;
    let table = cur.take(u64::from(n) * 24, "materials")?;
    cur.finish("materials")?;
    for (i, m) in table.chunks_exact(24).enumerate() {
        let base = at + 24 * i;
        let name_id = le32(m);
        string_id(strings, name_id, base, c, "nameId")?;
        budget.add(strings, name_id)?;
        let tex_id = le32(&m[4..]);
        if tex_id != u32::MAX {
            string_id(strings, tex_id, base + 4, c, "baseColorTextureId")?;
            budget.add(strings, tex_id)?;
        }
        super::cursor::check_finite(&m[8..24], base + 8, c.place(), "baseColorFactor")?;
    }
    let mut out = Vec::with_capacity(n as usize);
    for m in table.chunks_exact(24) {
        let (name_id, tex_id) = (le32(m), le32(&m[4..]));
        out.push(Material {
            name: strings.get(name_id).unwrap_or_default().to_owned(),
            base_color_texture: if tex_id == u32::MAX {
                None
            } else {
                Some(strings.get(tex_id).unwrap_or_default().to_owned())
            },
            base_color_factor: [
                lef32(&m[8..]),
                lef32(&m[12..]),
                lef32(&m[16..]),
                lef32(&m[20..]),
            ],
        });
    }
    Ok(out)
}
