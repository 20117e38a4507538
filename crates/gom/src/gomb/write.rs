//! The canonical GOMB writer (D3–D13): one model, one sequence of bytes.

use std::collections::BTreeMap;

use super::header::{
    HEADER_SIZE, MAGIC, OFF_CONVERTER_VERSION, OFF_COORDINATE_SYSTEM, OFF_ENDIANNESS,
    OFF_FORMAT_VERSION, OFF_HEADER_SIZE, OFF_MATRIX_CONVENTION, OFF_SOURCE_HASH, OFF_TABLE_COUNT,
    OFF_TABLE_OFFSET, OFF_VALIDATION_FLAGS,
};
use super::mesh::MeshFlags;
use crate::error::{FourCc, Item, WriteError};
use crate::layout::{Attribute, VertexLayout};
use crate::limits::{MAX_STRING_EXPANSION, MAX_U16_INDEXED_VERTICES};
use crate::model::{
    Bone, Bounds, Clip, ClipFlags, Mat4, Material, MeshPart, Model, ValidationFlags,
};
use crate::validate::{check_structure_bounds, flags_for};

/// The STR0 table under construction: strings numbered in order of first use.
#[derive(Default)]
struct StringTable<'m> {
    list: Vec<&'m str>,
    ids: BTreeMap<&'m str, u32>,
}

impl<'m> StringTable<'m> {
    fn intern(&mut self, s: &'m str) -> u32 {
        if let Some(&id) = self.ids.get(s) {
            return id;
        }
        let id = self.list.len() as u32;
        self.list.push(s);
        self.ids.insert(s, id);
        id
    }

    fn id(&self, s: &str) -> u32 {
        self.ids.get(s).copied().unwrap_or(0)
    }
}

/// The output buffer with the open chunks and the top-level chunks written so far.
struct Out {
    buf: Vec<u8>,
    open: Vec<usize>,
    table: Vec<([u8; 4], u32, u32)>,
}

impl Out {
    fn u32(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    fn i32(&mut self, v: i32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    /// An f32, with −0.0 written as +0.0 (D13).
    fn f32(&mut self, v: f32) {
        self.buf.extend_from_slice(&(v + 0.0).to_le_bytes());
    }

    fn f32s(&mut self, v: &[f32]) {
        for &x in v {
            self.f32(x);
        }
    }

    fn pad16(&mut self) {
        let n = (16 - self.buf.len() % 16) % 16;
        self.buf.resize(self.buf.len() + n, 0);
    }

    fn begin(&mut self, fourcc: FourCc) {
        debug_assert_eq!(self.buf.len() % 16, 0);
        self.open.push(self.buf.len());
        self.buf.extend_from_slice(&fourcc.0);
        self.u32(0); // size, patched by `end`
        self.u32(1); // version
        self.u32(0); // flags
    }

    fn end(&mut self) {
        let start = self.open.pop().unwrap_or(0);
        let size = (self.buf.len() - start - 16) as u32;
        self.buf[start + 4..start + 8].copy_from_slice(&size.to_le_bytes());
        self.pad16();
        if self.open.is_empty() {
            let mut f = [0u8; 4];
            f.copy_from_slice(&self.buf[start..start + 4]);
            self.table.push((f, start as u32, size));
        }
    }

    fn patch(&mut self, at: usize, v: u32) {
        self.buf[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }
}

fn pad16(x: u64) -> u64 {
    (x + 15) & !15
}

/// The exact size of the file `model` gives, in u64.
fn file_size(model: &Model, strings: &StringTable<'_>) -> u64 {
    let chunk = |payload: u64| 16 + pad16(payload);
    let n = |x: usize| x as u64;
    let data: u64 = strings.list.iter().map(|s| n(s.len()) + 1).sum();
    let mut size = HEADER_SIZE as u64;
    let mut chunks = 2u64;
    size += chunk(8 + 4 * n(strings.list.len()) + data);
    size += chunk(4 + 76 * n(model.skeleton.bones.len()));
    if !model.materials.is_empty() {
        size += chunk(4 + 24 * n(model.materials.len()));
        chunks += 1;
    }
    for m in &model.meshes {
        size += mesh_size(m);
        chunks += 1;
    }
    if !model.clips.is_empty() {
        let mut anim = 16u64;
        for c in &model.clips {
            if !c.weight_tracks.is_empty() {
                anim += chunk(crate::morph::tracks_size(&c.weight_tracks));
            }
            anim += super::clip_ext::chunks(c, |_| 0)
                .iter()
                .map(|(_, p)| chunk(n(p.len())))
                .sum::<u64>();
            anim += match &c.compressed {
                Some(payload) => chunk(24) + chunk(n(payload.len())),
                None => chunk(
                    24 + c
                        .tracks
                        .iter()
                        .map(|t| 8 + 44 * n(t.keys.len()))
                        .sum::<u64>(),
                ),
            };
        }
        size += chunk(anim);
        chunks += 1;
    }
    size + 16 * chunks
}

fn mesh_size(m: &MeshPart) -> u64 {
    let chunk = |payload: u64| 16 + pad16(payload);
    let vc = m.vertices.len() as u64;
    let isz = if vc <= u64::from(MAX_U16_INDEXED_VERTICES) {
        2
    } else {
        4
    };
    let mut s = 32;
    s += chunk(16 + vc * u64::from(m.vertices.format().stride()));
    s += chunk(16 + isz * m.indices.len() as u64);
    s += chunk(4 + 12 * m.submeshes.len() as u64);
    s += chunk(4 + 64 * m.inverse_bind.len() as u64);
    s += chunk(40);
    if m.mesh_bind_geo_to_model.is_some() {
        s += chunk(64);
    }
    if m.uses_skin_extension() {
        let extra = m.vertices.skin_extra.as_ref().map_or(0, |_| 24 * vc);
        let dq = m.vertices.dq_weights.as_ref().map_or(0, |_| 4 * vc);
        s += chunk(16 + extra + dq);
    }
    if !m.morph_targets.is_empty() {
        s += chunk(crate::morph::targets_size(&m.morph_targets));
    }
    chunk(s)
}

/// Writes `model` as canonical GOMB bytes (D3–D13): header, STR0, SKEL, MATL (when
/// there are materials), one MSH0 per mesh (with `SKNX` when it needs the
/// extension), ANIM (when there are clips), chunk table.
/// Validation flags are set exactly when their checks pass; bounds are recomputed.
/// Refuses (with the mesh, clip or field named) anything a reader would reject.
pub fn write(model: &Model) -> Result<Vec<u8>, WriteError> {
    let bounds = check_structure_bounds(model)?;
    for i in 0..model.clips.len() {
        crate::compressed::check_clip(model, i)?;
    }
    let flags = flags_for(model);
    let st = string_table(model);
    let size = checked_size(model, &st)?;
    let mut o = Out {
        buf: Vec::with_capacity(size as usize),
        open: Vec::new(),
        table: Vec::new(),
    };
    write_header(&mut o, model, &st, flags);
    write_strings(&mut o, &st);
    write_skeleton(&mut o, &model.skeleton.bones, &st);
    write_materials(&mut o, &model.materials, &st);
    let bone_count = model.skeleton.bones.len() as u32;
    for (m, b) in model.meshes.iter().zip(&bounds) {
        write_mesh(&mut o, m, b, st.id(&m.name), bone_count);
    }
    write_clips(&mut o, &model.clips, &st);
    write_chunk_table(&mut o);
    debug_assert_eq!(o.buf.len() as u64, size);
    Ok(o.buf)
}

/// The model's strings in order of first use in the canonical walk (D6).
fn string_table(model: &Model) -> StringTable<'_> {
    let mut st = StringTable::default();
    st.intern(&model.header.converter_version);
    for b in &model.skeleton.bones {
        st.intern(&b.name);
        st.intern(&b.path);
    }
    for m in &model.materials {
        st.intern(&m.name);
        if let Some(t) = &m.base_color_texture {
            st.intern(t);
        }
    }
    for m in &model.meshes {
        st.intern(&m.name);
    }
    for c in &model.clips {
        st.intern(&c.name);
        for s in super::clip_ext::strings(c) {
            st.intern(s);
        }
    }
    st
}

/// The file's size, refused when it exceeds `u32` or when its string uses would
/// expand beyond [`MAX_STRING_EXPANSION`] times it (D12: the reader refuses such a
/// file, so the writer does too).
fn checked_size(model: &Model, st: &StringTable<'_>) -> Result<u64, WriteError> {
    let size = file_size(model, st);
    let limit = |field: &'static str, value: u64, limit: u64| WriteError::Limit {
        item: Item::File,
        name: String::new(),
        field,
        value,
        limit,
    };
    if size > u64::from(u32::MAX) {
        return Err(limit("size", size, u64::from(u32::MAX)));
    }
    let n = |s: &str| s.len() as u64;
    let uses = n(&model.header.converter_version)
        + model
            .skeleton
            .bones
            .iter()
            .map(|b| n(&b.name) + n(&b.path))
            .sum::<u64>()
        + model
            .materials
            .iter()
            .map(|m| n(&m.name) + m.base_color_texture.as_deref().map_or(0, n))
            .sum::<u64>()
        + model.meshes.iter().map(|m| n(&m.name)).sum::<u64>()
        + model
            .clips
            .iter()
            .map(|c| n(&c.name) + super::clip_ext::strings(c).into_iter().map(n).sum::<u64>())
            .sum::<u64>();
    if uses > MAX_STRING_EXPANSION * size {
        return Err(limit("strings", uses, MAX_STRING_EXPANSION * size));
    }
    Ok(size)
}

/// The header (D3); the chunk table's place is patched in at the end.
fn write_header(o: &mut Out, model: &Model, st: &StringTable<'_>, flags: ValidationFlags) {
    o.buf.resize(HEADER_SIZE, 0);
    o.buf[..8].copy_from_slice(MAGIC);
    o.patch(OFF_HEADER_SIZE, HEADER_SIZE as u32);
    o.patch(OFF_FORMAT_VERSION, 1);
    o.patch(OFF_COORDINATE_SYSTEM, 1);
    o.patch(OFF_MATRIX_CONVENTION, 1);
    o.buf[OFF_SOURCE_HASH..OFF_SOURCE_HASH + 32].copy_from_slice(&model.header.source_hash);
    o.patch(
        OFF_CONVERTER_VERSION,
        st.id(&model.header.converter_version),
    );
    o.patch(OFF_VALIDATION_FLAGS, flags.bits());
    o.patch(OFF_ENDIANNESS, 1);
}

/// STR0 (D6): the count, the offsets (one past the last), the NUL-terminated strings.
fn write_strings(o: &mut Out, st: &StringTable<'_>) {
    o.begin(FourCc::STR0);
    o.u32(st.list.len() as u32);
    let mut off = 0u32;
    for s in &st.list {
        o.u32(off);
        off += s.len() as u32 + 1;
    }
    o.u32(off);
    for s in &st.list {
        o.buf.extend_from_slice(s.as_bytes());
        o.buf.push(0);
    }
    o.end();
}

/// SKEL: the bone count, then parents, names, paths and bind-local matrices, each as
/// one array.
fn write_skeleton(o: &mut Out, bones: &[Bone], st: &StringTable<'_>) {
    o.begin(FourCc::SKEL);
    o.u32(bones.len() as u32);
    for b in bones {
        o.i32(b.parent);
    }
    for b in bones {
        o.u32(st.id(&b.name));
    }
    for b in bones {
        o.u32(st.id(&b.path));
    }
    for b in bones {
        o.f32s(&b.bind_local);
    }
    o.end();
}

/// MATL (D8), only when there are materials.
fn write_materials(o: &mut Out, materials: &[Material], st: &StringTable<'_>) {
    if materials.is_empty() {
        return;
    }
    o.begin(FourCc::MATL);
    o.u32(materials.len() as u32);
    for m in materials {
        o.u32(st.id(&m.name));
        o.u32(
            m.base_color_texture
                .as_deref()
                .map_or(u32::MAX, |t| st.id(t)),
        );
        o.f32s(&m.base_color_factor);
    }
    o.end();
}

/// The rest of a compressed clip's CLP0 (flags bit 1, no track) and its CLPZ
/// (docs/extensions.md).
fn write_compressed(o: &mut Out, flags: ClipFlags, payload: &[u8]) {
    o.u32((flags | crate::compressed::CLIP_FLAG_COMPRESSED).bits());
    o.u32(0);
    o.end();
    o.begin(FourCc::CLPZ);
    o.buf.extend_from_slice(payload);
    o.end();
}

/// ANIM (D9), only when there are clips: one CLP0 chunk a clip.
fn write_clips(o: &mut Out, clips: &[Clip], st: &StringTable<'_>) {
    if clips.is_empty() {
        return;
    }
    o.begin(FourCc::ANIM);
    o.u32(clips.len() as u32);
    o.pad16();
    for c in clips {
        o.begin(FourCc::CLP0);
        o.u32(st.id(&c.name));
        o.f32(c.duration);
        o.f32(c.sample_rate);
        o.i32(c.root_bone_index);
        let mut flags = c.flags;
        flags.set(
            crate::morph::CLIP_FLAG_WEIGHT_TRACKS,
            !c.weight_tracks.is_empty(),
        );
        match &c.compressed {
            Some(payload) => write_compressed(o, flags, payload),
            None => write_keys(o, c, flags | super::clip_ext::flags(c)),
        }
        // After the CLP0 (and its CLPZ): the CLPA and EVNT, then the MWGT.
        for (fourcc, payload) in super::clip_ext::chunks(c, |s| st.id(s)) {
            o.begin(fourcc);
            o.buf.extend_from_slice(&payload);
            o.end();
        }
        write_weights(o, c);
    }
    o.end();
}

/// The rest of an uncompressed clip's CLP0: its flags and its tracks of keys.
fn write_keys(o: &mut Out, c: &Clip, flags: ClipFlags) {
    o.u32(flags.bits());
    o.u32(c.tracks.len() as u32);
    for t in &c.tracks {
        o.u32(t.bone);
        o.u32(t.keys.len() as u32);
        for k in &t.keys {
            o.f32(k.time);
            o.f32s(&k.translation);
            o.f32s(&k.rotation);
            o.f32s(&k.scale);
        }
    }
    o.end();
}

/// A clip's `MWGT` after its CLP0 (and CLPZ), when it has weight tracks
/// (docs/extensions.md §4).
fn write_weights(o: &mut Out, c: &Clip) {
    if c.weight_tracks.is_empty() {
        return;
    }
    o.begin(FourCc::MWGT);
    o.buf
        .extend_from_slice(&crate::morph::encode_tracks(&c.weight_tracks));
    o.end();
}

/// The chunk table (D5), always, and its place in the header.
fn write_chunk_table(o: &mut Out) {
    let table_offset = o.buf.len() as u32;
    let table = core::mem::take(&mut o.table);
    for (f, off, size) in &table {
        o.buf.extend_from_slice(f);
        o.u32(*off);
        o.u32(*size);
        o.u32(0);
    }
    o.patch(OFF_TABLE_OFFSET, table_offset);
    o.patch(OFF_TABLE_COUNT, table.len() as u32);
}

#[inline(always)]
fn put(dst: &mut [u8], at: usize, v: f32) {
    dst[at..at + 4].copy_from_slice(&(v + 0.0).to_le_bytes());
}

fn write_mesh(o: &mut Out, m: &MeshPart, b: &Bounds, name_id: u32, skeleton_bones: u32) {
    let v = &m.vertices;
    let fmt = v.format();
    let vc = v.len();
    let skinned = v.skin.is_some();
    let index_size: u32 = if vc <= MAX_U16_INDEXED_VERTICES as usize {
        2
    } else {
        4
    };
    let mut flags = MeshFlags::empty();
    flags.set(MeshFlags::INDICES16, index_size == 2);
    flags.set(MeshFlags::HAS_GBTM, m.mesh_bind_geo_to_model.is_some());
    flags.set(MeshFlags::SKINNING, m.uses_skin_extension());
    flags.set(
        MeshFlags::MORPH_DEFAULTS,
        crate::morph::poses_by_default(&m.morph_targets),
    );
    let bone_count = if skinned { skeleton_bones } else { 0 };

    o.begin(FourCc::MSH0);
    o.u32(name_id);
    o.u32(fmt.bits());
    o.u32(vc as u32);
    o.u32(m.indices.len() as u32);
    o.u32(bone_count);
    o.u32(flags.bits());
    o.u32(0);
    o.u32(0);

    // VB0: attributes interleaved in bit order (D7).
    let layout = VertexLayout::of(fmt);
    let stride = layout.stride();
    let at = |a: Attribute| layout.offset(a).unwrap_or(0);
    let (normal, tangent, uv0, uv1, color, skin) = (
        at(Attribute::Normal),
        at(Attribute::Tangent),
        at(Attribute::Uv0),
        at(Attribute::Uv1),
        at(Attribute::Color0),
        at(Attribute::Skin),
    );
    o.begin(FourCc::VB0);
    o.u32(vc as u32);
    o.u32(stride as u32);
    o.u32(fmt.bits());
    o.u32(0);
    let start = o.buf.len();
    o.buf.resize(start + vc * stride, 0);
    let data = &mut o.buf[start..];
    // One pass over the output: each vertex gets all its attributes.
    for (i, d) in data.chunks_exact_mut(stride).enumerate() {
        let put_all = |d: &mut [u8], at: usize, xs: &[f32]| {
            for (k, &x) in xs.iter().enumerate() {
                put(d, at + 4 * k, x);
            }
        };
        put_all(d, 0, &v.positions[i]);
        if let Some(n) = &v.normals {
            put_all(d, normal, &n[i]);
        }
        if let Some(t) = &v.tangents {
            put_all(d, tangent, &t[i]);
        }
        if let Some(uv) = &v.uv0 {
            put_all(d, uv0, &uv[i]);
        }
        if let Some(uv) = &v.uv1 {
            put_all(d, uv1, &uv[i]);
        }
        if let Some(c) = &v.colors {
            d[color..color + 4].copy_from_slice(&c[i]);
        }
        if let Some(s) = &v.skin {
            let x = &s[i];
            for k in 0..4 {
                d[skin + 2 * k..skin + 2 * k + 2].copy_from_slice(&x.bones[k].to_le_bytes());
            }
            put_all(d, skin + 8, &x.weights);
        }
    }
    o.end();

    // IB0.
    o.begin(FourCc::IB0);
    o.u32(m.indices.len() as u32);
    o.u32(index_size);
    o.u32(0);
    o.u32(0);
    if index_size == 2 {
        for &i in &m.indices {
            o.buf.extend_from_slice(&(i as u16).to_le_bytes());
        }
    } else {
        for &i in &m.indices {
            o.u32(i);
        }
    }
    o.end();

    // SUB0.
    o.begin(FourCc::SUB0);
    o.u32(m.submeshes.len() as u32);
    for s in &m.submeshes {
        o.i32(s.material_index);
        o.u32(s.index_start);
        o.u32(s.index_count);
    }
    o.end();

    // IBND.
    o.begin(FourCc::IBND);
    o.u32(m.inverse_bind.len() as u32);
    for ib in &m.inverse_bind {
        o.f32s(ib);
    }
    o.end();

    // BND0, always recomputed (D7).
    o.begin(FourCc::BND0);
    o.f32s(&b.aabb_min);
    o.f32s(&b.aabb_max);
    o.f32s(&b.sphere_center);
    o.f32(b.sphere_radius);
    o.end();

    if let Some(g) = &m.mesh_bind_geo_to_model {
        write_gbtm(o, g);
    }
    if m.uses_skin_extension() {
        o.begin(FourCc::SKNX);
        o.buf.extend_from_slice(&crate::skinning::encode(m));
        o.end();
    }
    if !m.morph_targets.is_empty() {
        o.begin(FourCc::MRPH);
        o.buf
            .extend_from_slice(&crate::morph::encode_targets(&m.morph_targets, vc as u32));
        o.end();
    }
    o.end();
}

fn write_gbtm(o: &mut Out, g: &Mat4) {
    o.begin(FourCc::GBTM);
    o.f32s(g);
    o.end();
}
