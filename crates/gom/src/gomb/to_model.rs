//! Copying a checked [`FileView`] into a [`Model`].

use super::cursor::{le32, lef32};
use super::view::{mat_at, FileView, MeshView};
use crate::layout::{Attribute, VertexLayout};
use crate::model::{
    Bone, Clip, Header, Key, MeshPart, Model, Skeleton, SkinWeights, Track, Vertices,
};

/// A key from its 44 bytes (D9): time, translation, rotation (x, y, z, w), scale.
#[inline]
pub(crate) fn decode_key(b: &[u8]) -> Key {
    let f = |k: usize| lef32(&b[4 * k..]);
    Key {
        time: f(0),
        translation: [f(1), f(2), f(3)],
        rotation: [f(4), f(5), f(6), f(7)],
        scale: [f(8), f(9), f(10)],
    }
}

/// The model of `v`; `decoded` holds, mesh by mesh, streams already decoded (the
/// others are decoded here).
pub(crate) fn to_model(v: &FileView<'_>, decoded: Vec<Decoded>) -> Model {
    let mut decoded = decoded.into_iter();
    let sk = &v.skeleton;
    let bones = (0..sk.bone_count as usize)
        .map(|i| Bone {
            name: v.string(sk.name_id(i)).unwrap_or_default().to_owned(),
            path: v.string(sk.path_id(i)).unwrap_or_default().to_owned(),
            parent: sk.parent(i),
            bind_local: sk.bind_local(i),
        })
        .collect();
    let meshes = v.meshes.iter().map(|m| mesh(m, decoded.next())).collect();
    let bind_local: Vec<crate::model::Mat4> = (0..sk.bone_count as usize)
        .map(|i| sk.bind_local(i))
        .collect();
    let clips = v
        .clips
        .iter()
        .map(|c| Clip {
            name: c.name.to_owned(),
            duration: c.duration,
            sample_rate: c.sample_rate,
            root_bone_index: c.root_bone_index,
            flags: c.flags,
            tracks: match &c.compressed {
                Some((layout, payload)) => crate::compressed::decoded_tracks(
                    layout,
                    payload,
                    &bind_local,
                    c.sample_rate,
                    c.duration,
                ),
                None => c
                    .tracks
                    .iter()
                    .map(|t| Track {
                        bone: t.bone,
                        keys: keys(t.key_data),
                    })
                    .collect(),
            },
            compressed: c.compressed.as_ref().map(|(_, p)| p.to_vec()),
            weight_tracks: c.weight_tracks.iter().map(|t| t.to_track()).collect(),
            extras: c.extras.clone(),
        })
        .collect();
    Model {
        header: Header {
            source_hash: v.source_hash,
            converter_version: v.converter_version.to_owned(),
            validation_flags: v.validation_flags,
        },
        skeleton: Skeleton { bones },
        materials: v.materials.clone(),
        meshes,
        clips,
    }
}

fn keys(data: &[u8]) -> Vec<Key> {
    if cfg!(target_endian = "little") {
        if let Ok(k) = bytemuck::try_cast_slice::<u8, Key>(data) {
            return k.to_vec();
        }
    }
    data.chunks_exact(44).map(decode_key).collect()
}

#[inline(always)]
fn f2(b: &[u8]) -> [f32; 2] {
    [lef32(b), lef32(&b[4..])]
}

#[inline(always)]
fn f3(b: &[u8]) -> [f32; 3] {
    [lef32(b), lef32(&b[4..]), lef32(&b[8..])]
}

#[inline(always)]
fn f4(b: &[u8]) -> [f32; 4] {
    [lef32(b), lef32(&b[4..]), lef32(&b[8..]), lef32(&b[12..])]
}

/// Empty streams for `n` vertices of layout `l`, capacity reserved.
pub(crate) fn streams(l: &VertexLayout, n: usize) -> Vertices {
    fn stream<T>(l: &VertexLayout, a: Attribute, n: usize) -> Option<Vec<T>> {
        l.offset(a).map(|_| Vec::with_capacity(n))
    }
    Vertices {
        positions: Vec::with_capacity(n),
        normals: stream(l, Attribute::Normal, n),
        tangents: stream(l, Attribute::Tangent, n),
        uv0: stream(l, Attribute::Uv0, n),
        uv1: stream(l, Attribute::Uv1, n),
        colors: stream(l, Attribute::Color0, n),
        skin: stream(l, Attribute::Skin, n),
        skin_extra: None,
        dq_weights: None,
    }
}

/// Appends vertex `vx` (one stride of VB0 data) to the streams of `out`, which were
/// made by [`streams`] for the same layout.
#[inline(always)]
pub(crate) fn push_vertex(out: &mut Vertices, l: &VertexLayout, vx: &[u8]) {
    out.positions.push(f3(vx));
    if let (Some(o), Some(v)) = (l.offset(Attribute::Normal), out.normals.as_mut()) {
        v.push(f3(&vx[o..]));
    }
    if let (Some(o), Some(v)) = (l.offset(Attribute::Tangent), out.tangents.as_mut()) {
        v.push(f4(&vx[o..]));
    }
    if let (Some(o), Some(v)) = (l.offset(Attribute::Uv0), out.uv0.as_mut()) {
        v.push(f2(&vx[o..]));
    }
    if let (Some(o), Some(v)) = (l.offset(Attribute::Uv1), out.uv1.as_mut()) {
        v.push(f2(&vx[o..]));
    }
    if let (Some(o), Some(v)) = (l.offset(Attribute::Color0), out.colors.as_mut()) {
        v.push([vx[o], vx[o + 1], vx[o + 2], vx[o + 3]]);
    }
    if let (Some(o), Some(v)) = (l.offset(Attribute::Skin), out.skin.as_mut()) {
        let b = &vx[o..o + 24];
        v.push(SkinWeights {
            bones: [
                u16::from_le_bytes([b[0], b[1]]),
                u16::from_le_bytes([b[2], b[3]]),
                u16::from_le_bytes([b[4], b[5]]),
                u16::from_le_bytes([b[6], b[7]]),
            ],
            weights: f4(&b[8..]),
        });
    }
}

/// The index list of IB0 data.
pub(crate) fn decode_indices(data: &[u8], size: u32) -> Vec<u32> {
    if size == 2 {
        data.chunks_exact(2)
            .map(|s| u32::from(u16::from_le_bytes([s[0], s[1]])))
            .collect()
    } else {
        data.chunks_exact(4).map(le32).collect()
    }
}

/// A mesh's vertex streams and index list, decoded while the mesh was checked.
pub(crate) type Decoded = (Vertices, Vec<u32>);

fn mesh(m: &MeshView<'_>, decoded: Option<Decoded>) -> MeshPart {
    let (vertices, indices) = decoded.unwrap_or_else(|| {
        let l = VertexLayout::of(m.vertex_format);
        let mut v = streams(&l, m.vertex_count as usize);
        for vx in m.vertex_data.chunks_exact(m.stride as usize) {
            push_vertex(&mut v, &l, vx);
        }
        (v, decode_indices(m.index_data, m.index_size))
    });
    let mut vertices = vertices;
    vertices.skin_extra = m.skin_extra.map(|x| {
        x.chunks_exact(crate::skinning::EXTRA_BYTES)
            .map(super::sknx::extra_at)
            .collect()
    });
    vertices.dq_weights = m.dq_weights.map(|x| x.chunks_exact(4).map(lef32).collect());
    MeshPart {
        name: m.name.to_owned(),
        vertices,
        indices,
        submeshes: m.submeshes.clone(),
        inverse_bind: (0..m.bone_count as usize)
            .map(|b| mat_at(m.inverse_bind, b))
            .collect(),
        mesh_bind_geo_to_model: m.gbtm,
        bounds: Some(m.bounds),
        skinning: m.skinning,
        morph_targets: m.morph_targets.iter().map(|t| t.to_target()).collect(),
    }
}
