//! Copying a checked [`FileView`] into a [`Model`].

use super::cursor::{le32, lef32};
use super::view::{mat_at, FileView, MeshView};
use crate::model::{
    Bone, Clip, Header, Key, MeshPart, Model, Skeleton, SkinWeights, Track, VertexFormat, Vertices,
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

pub(crate) fn to_model(v: &FileView<'_>) -> Model {
    let sk = &v.skeleton;
    let bones = (0..sk.bone_count as usize)
        .map(|i| Bone {
            name: v.string(sk.name_id(i)).unwrap_or_default().to_owned(),
            path: v.string(sk.path_id(i)).unwrap_or_default().to_owned(),
            parent: sk.parent(i),
            bind_local: sk.bind_local(i),
        })
        .collect();
    let meshes = v.meshes.iter().map(mesh).collect();
    let clips = v
        .clips
        .iter()
        .map(|c| Clip {
            name: c.name.to_owned(),
            duration: c.duration,
            sample_rate: c.sample_rate,
            root_bone_index: c.root_bone_index,
            flags: c.flags,
            tracks: c
                .tracks
                .iter()
                .map(|t| Track {
                    bone: t.bone,
                    keys: keys(t.key_data),
                })
                .collect(),
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
fn f3(b: &[u8]) -> [f32; 3] {
    [lef32(b), lef32(&b[4..]), lef32(&b[8..])]
}

/// One attribute stream: `n` values read at byte `off` of each vertex.
fn stream<T>(m: &MeshView<'_>, off: usize, read: impl Fn(&[u8]) -> T) -> Vec<T> {
    let stride = m.stride as usize;
    let mut out = Vec::with_capacity(m.vertex_count as usize);
    out.extend(
        m.vertex_data
            .chunks_exact(stride)
            .map(|vx| read(&vx[off..])),
    );
    out
}

fn mesh(m: &MeshView<'_>) -> MeshPart {
    let f = m.vertex_format;
    let mut off = 0usize;
    let mut next = |bit: u32, size: usize| {
        if f.contains(bit) {
            let o = off;
            off += size;
            Some(o)
        } else {
            None
        }
    };
    let p = next(VertexFormat::POSITION, 12);
    let n = next(VertexFormat::NORMAL, 12);
    let t = next(VertexFormat::TANGENT, 16);
    let uv0 = next(VertexFormat::UV0, 8);
    let uv1 = next(VertexFormat::UV1, 8);
    let c = next(VertexFormat::COLOR0, 4);
    let s = next(VertexFormat::SKIN, 24);
    let vertices = Vertices {
        positions: p.map(|o| stream(m, o, f3)).unwrap_or_default(),
        normals: n.map(|o| stream(m, o, f3)),
        tangents: t.map(|o| {
            stream(m, o, |b| {
                [lef32(b), lef32(&b[4..]), lef32(&b[8..]), lef32(&b[12..])]
            })
        }),
        uv0: uv0.map(|o| stream(m, o, |b| [lef32(b), lef32(&b[4..])])),
        uv1: uv1.map(|o| stream(m, o, |b| [lef32(b), lef32(&b[4..])])),
        colors: c.map(|o| stream(m, o, |b| [b[0], b[1], b[2], b[3]])),
        skin: s.map(|o| {
            stream(m, o, |b| SkinWeights {
                bones: [
                    u16::from_le_bytes([b[0], b[1]]),
                    u16::from_le_bytes([b[2], b[3]]),
                    u16::from_le_bytes([b[4], b[5]]),
                    u16::from_le_bytes([b[6], b[7]]),
                ],
                weights: [
                    lef32(&b[8..]),
                    lef32(&b[12..]),
                    lef32(&b[16..]),
                    lef32(&b[20..]),
                ],
            })
        }),
    };
    let indices = if m.index_size == 2 {
        m.index_data
            .chunks_exact(2)
            .map(|s| u32::from(u16::from_le_bytes([s[0], s[1]])))
            .collect()
    } else {
        m.index_data.chunks_exact(4).map(le32).collect()
    };
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
    }
}
