//! Shared pieces of the GOMB tests: the models they write, and a small, independent
//! chunk splitter/assembler for building files that break one rule at a time.
#![allow(dead_code)]

use gom::math::{from_trs, inverse_affine};

use gom::{
    Bone, Clip, ClipFlags, Header, Key, Material, MeshPart, Model, Skeleton, SkinWeights, Submesh,
    Track, Vertices, IDENTITY,
};
use gom_demo::quat_from_axis_angle;

/// The source hash used by the test models: bytes 0, 1, …, 31.
pub fn test_hash() -> [u8; 32] {
    core::array::from_fn(|i| i as u8)
}

/// The golden minimal model: 1 bone, 1 material, 1 skinned triangle, 1 clip with one
/// track of 2 keys.
pub fn minimal_model() -> Model {
    let mut bind = IDENTITY;
    bind[13] = 1.0; // translation (0, 1, 0)
    let mut inv = IDENTITY;
    inv[13] = -1.0;
    let one = SkinWeights {
        bones: [0; 4],
        weights: [1.0, 0.0, 0.0, 0.0],
    };
    let s = core::f32::consts::FRAC_1_SQRT_2;
    Model {
        header: Header {
            source_hash: test_hash(),
            converter_version: "gom test".into(),
            validation_flags: Default::default(),
        },
        skeleton: Skeleton {
            bones: vec![Bone {
                name: "root".into(),
                path: "root".into(),
                parent: -1,
                bind_local: bind,
            }],
        },
        materials: vec![Material {
            name: "mat".into(),
            base_color_texture: Some("tex.png".into()),
            base_color_factor: [1.0, 0.5, 0.25, 1.0],
        }],
        meshes: vec![MeshPart {
            morph_targets: Vec::new(),
            name: "tri".into(),
            vertices: Vertices {
                positions: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
                uv0: Some(vec![[0.0, 1.0], [1.0, 1.0], [0.0, 0.0]]),
                skin: Some(vec![one; 3]),
                ..Default::default()
            },
            indices: vec![0, 1, 2],
            submeshes: vec![Submesh {
                material_index: 0,
                index_start: 0,
                index_count: 3,
            }],
            inverse_bind: vec![inv],
            mesh_bind_geo_to_model: None,
            bounds: None,
            skinning: Default::default(),
        }],
        clips: vec![Clip {
            weight_tracks: Vec::new(),
            name: "idle".into(),
            duration: 1.0,
            sample_rate: 1.0,
            root_bone_index: -1,
            flags: ClipFlags::empty(),
            tracks: vec![Track {
                bone: 0,
                keys: vec![
                    Key {
                        time: 0.0,
                        translation: [0.0, 1.0, 0.0],
                        rotation: [0.0, 0.0, 0.0, 1.0],
                        scale: [1.0; 3],
                    },
                    Key {
                        time: 1.0,
                        translation: [0.0, 2.0, 0.0],
                        rotation: [0.0, s, 0.0, s],
                        scale: [1.0; 3],
                    },
                ],
            }],
            compressed: None,
            extras: Default::default(),
        }],
    }
}

pub use gom_test_support::rng::Rng;

/// A skeleton of `n` bones in a chain with a few branches, each bone a rotation and a
/// translation from its parent.
pub fn skeleton(n: usize, rng: &mut Rng) -> Skeleton {
    let mut bones = Vec::new();
    for i in 0..n {
        let parent = if i == 0 {
            -1
        } else {
            rng.below(i as u64) as i32
        };
        let q = quat_from_axis_angle([0.0, 1.0, 0.0], rng.range(-1.0, 1.0));
        let bind_local = from_trs(
            [rng.range(-1.0, 1.0), rng.range(0.0, 1.0), 0.0],
            q,
            [1.0; 3],
        );
        bones.push(Bone {
            name: format!("b{i}"),
            path: format!("root/b{i}"),
            parent,
            bind_local,
        });
    }
    Skeleton { bones }
}

/// A richer model: three meshes (skinned with every attribute, static with a GBTM,
/// static with colours and two submeshes), two materials, three clips.
pub fn rich_model(seed: u64) -> Model {
    let mut rng = Rng::new(seed);
    let skeleton = skeleton(6, &mut rng);
    let world = gom::math::bind_world(&skeleton.bones);
    let inverse_bind: Vec<_> = world
        .iter()
        .map(|w| inverse_affine(w).unwrap_or(IDENTITY))
        .collect();
    let grid = |w: usize, h: usize, rng: &mut Rng| {
        let mut p = Vec::new();
        for y in 0..h {
            for x in 0..w {
                p.push([
                    x as f32 * 0.25 + rng.range(0.0, 0.01),
                    y as f32 * 0.5,
                    rng.range(-0.1, 0.1),
                ]);
            }
        }
        let mut idx = Vec::new();
        for y in 0..h as u32 - 1 {
            for x in 0..w as u32 - 1 {
                let a = y * w as u32 + x;
                idx.extend_from_slice(&[
                    a,
                    a + 1,
                    a + w as u32,
                    a + 1,
                    a + w as u32 + 1,
                    a + w as u32,
                ]);
            }
        }
        (p, idx)
    };
    let (p0, i0) = grid(5, 4, &mut rng);
    let n0 = p0.len();
    let skin: Vec<SkinWeights> = (0..n0)
        .map(|v| {
            let a = (v % 6) as u16;
            let b = ((v + 1) % 6) as u16;
            if v % 3 == 0 {
                SkinWeights {
                    bones: [a, 0, 0, 0],
                    weights: [1.0, 0.0, 0.0, 0.0],
                }
            } else {
                let (lo, hi) = if a < b { (a, b) } else { (b, a) };
                SkinWeights {
                    bones: [lo, hi, 0, 0],
                    weights: [0.5, 0.5, 0.0, 0.0],
                }
            }
        })
        .collect();
    let skinned = MeshPart {
        morph_targets: Vec::new(),
        name: "body".into(),
        vertices: Vertices {
            normals: Some(vec![[0.0, 0.0, -1.0]; n0]),
            tangents: Some(
                (0..n0)
                    .map(|v| [1.0, 0.0, 0.0, if v % 2 == 0 { 1.0 } else { -1.0 }])
                    .collect(),
            ),
            uv0: Some((0..n0).map(|v| [v as f32 / n0 as f32, 0.5]).collect()),
            uv1: Some(vec![[0.25, 0.75]; n0]),
            colors: Some((0..n0).map(|v| [v as u8, 255, 0, 128]).collect()),
            skin: Some(skin),
            positions: p0,
            skin_extra: None,
            dq_weights: None,
        },
        submeshes: vec![Submesh {
            material_index: 0,
            index_start: 0,
            index_count: i0.len() as u32,
        }],
        indices: i0,
        inverse_bind,
        mesh_bind_geo_to_model: None,
        bounds: None,
        skinning: Default::default(),
    };
    let (p1, i1) = grid(3, 3, &mut rng);
    let g = from_trs(
        [1.0, 2.0, 3.0],
        quat_from_axis_angle([0.0, 0.0, 1.0], 0.3),
        [2.0; 3],
    );
    let prop = MeshPart {
        morph_targets: Vec::new(),
        name: "prop".into(),
        vertices: Vertices {
            normals: Some(vec![[0.0, 1.0, 0.0]; p1.len()]),
            positions: p1,
            ..Default::default()
        },
        submeshes: vec![Submesh {
            material_index: -1,
            index_start: 0,
            index_count: i1.len() as u32,
        }],
        indices: i1,
        inverse_bind: Vec::new(),
        mesh_bind_geo_to_model: Some(g),
        bounds: None,
        skinning: Default::default(),
    };
    let (p2, i2) = grid(4, 3, &mut rng);
    let half = (i2.len() / 6 * 3) as u32;
    let deco = MeshPart {
        morph_targets: Vec::new(),
        name: "deco".into(),
        vertices: Vertices {
            colors: Some(vec![[1, 2, 3, 4]; p2.len()]),
            positions: p2,
            ..Default::default()
        },
        submeshes: vec![
            Submesh {
                material_index: 1,
                index_start: 0,
                index_count: half,
            },
            Submesh {
                material_index: 0,
                index_start: half,
                index_count: i2.len() as u32 - half,
            },
        ],
        indices: i2,
        inverse_bind: Vec::new(),
        mesh_bind_geo_to_model: None,
        bounds: None,
        skinning: Default::default(),
    };
    let mut clips = Vec::new();
    for c in 0..3 {
        let keys_per = 3 + c;
        let tracks = (0..6u32)
            .filter(|b| (b + c as u32).is_multiple_of(2))
            .map(|bone| Track {
                bone,
                keys: (0..keys_per)
                    .map(|k| Key {
                        time: k as f32 * 0.5,
                        translation: [
                            rng.range(-1.0, 1.0),
                            rng.range(-1.0, 1.0),
                            rng.range(-1.0, 1.0),
                        ],
                        rotation: quat_from_axis_angle([0.0, 1.0, 0.0], rng.range(-3.0, 3.0)),
                        scale: [1.0, 1.0, 1.0],
                    })
                    .collect(),
            })
            .collect();
        clips.push(Clip {
            weight_tracks: Vec::new(),
            name: format!("clip{c}"),
            duration: (keys_per - 1) as f32 * 0.5,
            sample_rate: 2.0,
            root_bone_index: if c == 1 { 0 } else { -1 },
            flags: if c == 1 {
                ClipFlags::HAS_ROOT_MOTION
            } else {
                ClipFlags::empty()
            },
            tracks,
            compressed: None,
            extras: Default::default(),
        });
    }
    Model {
        header: Header {
            source_hash: test_hash(),
            converter_version: "gom test".into(),
            validation_flags: Default::default(),
        },
        skeleton,
        materials: vec![
            Material {
                name: "skin".into(),
                base_color_texture: Some("skin.png".into()),
                base_color_factor: [1.0; 4],
            },
            Material {
                name: "metal".into(),
                base_color_texture: None,
                base_color_factor: [0.5, 0.5, 0.5, 1.0],
            },
        ],
        meshes: vec![skinned, prop, deco],
        clips,
    }
}

// -----------------------------------------------------------------------------------
// A chunk splitter and assembler written from D3–D5 alone (it shares nothing with the
// crate's reader or writer).

/// One chunk as raw parts.
#[derive(Debug, Clone, PartialEq)]
pub struct Raw {
    pub fourcc: [u8; 4],
    pub version: u32,
    pub flags: u32,
    pub payload: Vec<u8>,
}

impl Raw {
    pub fn new(fourcc: &[u8; 4], payload: Vec<u8>) -> Raw {
        Raw {
            fourcc: *fourcc,
            version: 1,
            flags: 0,
            payload,
        }
    }
    /// Header, payload and zero padding to 16.
    pub fn bytes(&self) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(&self.fourcc);
        b.extend_from_slice(&(self.payload.len() as u32).to_le_bytes());
        b.extend_from_slice(&self.version.to_le_bytes());
        b.extend_from_slice(&self.flags.to_le_bytes());
        b.extend_from_slice(&self.payload);
        while b.len() % 16 != 0 {
            b.push(0);
        }
        b
    }
}

pub fn rd(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

pub fn wr(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// Splits a sequence of chunks.
pub fn split_chunks(b: &[u8]) -> Vec<Raw> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < b.len() {
        let size = rd(b, at + 4) as usize;
        out.push(Raw {
            fourcc: b[at..at + 4].try_into().unwrap(),
            version: rd(b, at + 8),
            flags: rd(b, at + 12),
            payload: b[at + 16..at + 16 + size].to_vec(),
        });
        at += (16 + size + 15) & !15;
    }
    out
}

/// The header and the top-level chunks of a well-formed file (with a chunk table).
pub fn split(file: &[u8]) -> ([u8; 512], Vec<Raw>) {
    let header: [u8; 512] = file[..512].try_into().unwrap();
    let end = match rd(file, 64) {
        0 => file.len(),
        t => t as usize,
    };
    (header, split_chunks(&file[512..end]))
}

/// A container's fixed fields (`fixed` bytes, padded to 16) and its children.
pub fn split_container(payload: &[u8], fixed: usize) -> (Vec<u8>, Vec<Raw>) {
    let f = (fixed + 15) & !15;
    (payload[..f].to_vec(), split_chunks(&payload[f..]))
}

/// A container payload from its padded fixed fields and children.
pub fn join_container(fixed: &[u8], kids: &[Raw]) -> Vec<u8> {
    let mut p = fixed.to_vec();
    for k in kids {
        p.extend(k.bytes());
    }
    p
}

/// A file from a header and top-level chunks, with a fresh chunk table when `table`.
pub fn assemble(header: &[u8; 512], chunks: &[Raw], table: bool) -> Vec<u8> {
    let mut f = header.to_vec();
    let mut entries = Vec::new();
    for c in chunks {
        entries.push((c.fourcc, f.len() as u32, c.payload.len() as u32));
        f.extend(c.bytes());
    }
    if table {
        let t = f.len() as u32;
        for (c, o, s) in &entries {
            f.extend_from_slice(c);
            f.extend_from_slice(&o.to_le_bytes());
            f.extend_from_slice(&s.to_le_bytes());
            f.extend_from_slice(&0u32.to_le_bytes());
        }
        wr(&mut f, 64, t);
        wr(&mut f, 68, entries.len() as u32);
    } else {
        wr(&mut f, 64, 0);
        wr(&mut f, 68, 0);
    }
    f
}

/// Finds the first top-level chunk `fourcc`.
pub fn find<'a>(chunks: &'a mut [Raw], fourcc: &[u8; 4]) -> &'a mut Raw {
    chunks.iter_mut().find(|c| &c.fourcc == fourcc).unwrap()
}

/// Applies `f` to the children of the first MSH0 and reassembles it.
pub fn edit_mesh(chunks: &mut [Raw], f: impl FnOnce(&mut Vec<u8>, &mut Vec<Raw>)) {
    let m = find(chunks, b"MSH0");
    let (mut fixed, mut kids) = split_container(&m.payload, 32);
    f(&mut fixed, &mut kids);
    m.payload = join_container(&fixed, &kids);
}

/// Applies `f` to the children of ANIM and reassembles it.
pub fn edit_anim(chunks: &mut [Raw], f: impl FnOnce(&mut Vec<u8>, &mut Vec<Raw>)) {
    let m = find(chunks, b"ANIM");
    let (mut fixed, mut kids) = split_container(&m.payload, 4);
    f(&mut fixed, &mut kids);
    m.payload = join_container(&fixed, &kids);
}

/// The file offset of the first top-level chunk `fourcc` in `file`.
pub fn offset_of(file: &[u8], fourcc: &[u8; 4]) -> usize {
    let mut at = 512;
    loop {
        if &file[at..at + 4] == fourcc {
            return at;
        }
        at += (16 + rd(file, at + 4) as usize + 15) & !15;
    }
}

/// The file offset of the first child `fourcc` of the container at `container`.
pub fn child_offset(file: &[u8], container: usize, fixed: usize, fourcc: &[u8; 4]) -> usize {
    let mut at = container + 16 + ((fixed + 15) & !15);
    loop {
        if &file[at..at + 4] == fourcc {
            return at;
        }
        at += (16 + rd(file, at + 4) as usize + 15) & !15;
    }
}
