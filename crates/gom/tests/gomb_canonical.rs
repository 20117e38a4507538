//! Canonical-writer rules checked against expectations derived from the decisions, not
//! from the writer: the STR0 numbering of D6 on a model where every category of string
//! is present, and the BND0 rounding of D7 checked by its defining properties (the
//! largest f32 not above, the smallest f32 not below, the nearest f32) on thousands of
//! random meshes, with and without GBTM.

mod gomb_support;

use gom::gomb;
use gom::{Bone, Clip, Material, MeshPart, Model, Submesh, Track, Vertices, IDENTITY};
use gomb_support::{rd, split, Rng};

fn bone(name: &str, path: &str, parent: i32) -> Bone {
    Bone {
        name: name.into(),
        path: path.into(),
        parent,
        bind_local: IDENTITY,
    }
}

fn static_mesh(name: &str) -> MeshPart {
    MeshPart {
        name: name.into(),
        vertices: Vertices {
            positions: vec![[0.0; 3]; 3],
            ..Default::default()
        },
        indices: vec![0, 1, 2],
        submeshes: vec![Submesh {
            material_index: -1,
            index_start: 0,
            index_count: 3,
        }],
        ..Default::default()
    }
}

/// The strings of a STR0 payload, in index order.
fn strings(payload: &[u8]) -> Vec<String> {
    let n = rd(payload, 0) as usize;
    let data = &payload[4 + 4 * n + 4..];
    (0..n)
        .map(|i| {
            let o = rd(payload, 4 + 4 * i) as usize;
            let end = o + data[o..].iter().position(|&b| b == 0).unwrap();
            String::from_utf8(data[o..end].to_vec()).unwrap()
        })
        .collect()
}

#[test]
fn str0_numbers_strings_by_first_use_in_the_order_of_d6() {
    let mut m = Model::default();
    m.header.converter_version = "ver".into();
    // The third bone reuses "pa" as its name; material 3 reuses "t1" as its name.
    m.skeleton.bones = vec![bone("a", "pa", -1), bone("b", "pb", 0), bone("pa", "c", 1)];
    m.materials = vec![
        Material {
            name: "m1".into(),
            base_color_texture: Some("t1".into()),
            base_color_factor: [1.0; 4],
        },
        Material {
            name: "m2".into(),
            base_color_texture: None,
            base_color_factor: [1.0; 4],
        },
        Material {
            name: "t1".into(),
            base_color_texture: Some("t2".into()),
            base_color_factor: [1.0; 4],
        },
    ];
    m.meshes = vec![static_mesh("mesh"), static_mesh("b")];
    m.clips = vec![Clip {
        weight_tracks: Vec::new(),
        name: "clip".into(),
        duration: 1.0,
        sample_rate: 1.0,
        root_bone_index: -1,
        flags: Default::default(),
        tracks: vec![Track {
            bone: 0,
            keys: vec![gom::Key {
                time: 0.0,
                translation: [0.0; 3],
                rotation: [0.0, 0.0, 0.0, 1.0],
                scale: [1.0; 3],
            }],
        }],
        compressed: None,
        extras: Default::default(),
    }];
    let f = gomb::write(&m).unwrap();
    let (_, chunks) = split(&f);
    let str0 = chunks.iter().find(|c| &c.fourcc == b"STR0").unwrap();
    // D6: converter version; each bone's name then path; each material's name then
    // texture; mesh names; clip names; a string already numbered keeps its number.
    let want = [
        "ver", "a", "pa", "b", "pb", "c", "m1", "t1", "m2", "t2", "mesh", "clip",
    ];
    assert_eq!(strings(&str0.payload), want);
    // And the ids point at them: the header's converter version is 0, the third bone's
    // name "pa" reuses 2, the second mesh's name "b" reuses 3.
    assert_eq!(rd(&f, 56), 0);
    let skel = chunks.iter().find(|c| &c.fourcc == b"SKEL").unwrap();
    let name_ids: Vec<u32> = (0..3).map(|i| rd(&skel.payload, 4 + 12 + 4 * i)).collect();
    let path_ids: Vec<u32> = (0..3).map(|i| rd(&skel.payload, 4 + 24 + 4 * i)).collect();
    assert_eq!((name_ids, path_ids), (vec![1, 3, 2], vec![2, 4, 5]));
    let meshes: Vec<u32> = chunks
        .iter()
        .filter(|c| &c.fourcc == b"MSH0")
        .map(|c| rd(&c.payload, 0))
        .collect();
    assert_eq!(meshes, [10, 3]);
}

/// The next f32 above `f`, by its bits (test's own implementation).
fn up(f: f32) -> f32 {
    if f == 0.0 {
        f32::from_bits(1)
    } else if f > 0.0 {
        f32::from_bits(f.to_bits() + 1)
    } else {
        f32::from_bits(f.to_bits() - 1)
    }
}

fn down(f: f32) -> f32 {
    -up(-f)
}

/// D7's model-space position, written out from docs/format.md §2.7.
fn model_space(p: [f32; 3], g: Option<&[f32; 16]>) -> [f64; 3] {
    let [x, y, z] = p.map(f64::from);
    match g {
        None => [x, y, z],
        Some(g) => {
            let g = g.map(f64::from);
            [
                ((x * g[0] + y * g[4]) + z * g[8]) + g[12],
                ((x * g[1] + y * g[5]) + z * g[9]) + g[13],
                ((x * g[2] + y * g[6]) + z * g[10]) + g[14],
            ]
        }
    }
}

#[test]
fn bnd0_is_the_directed_rounding_of_d7() {
    let mut rng = Rng::new(0xB0B0_5EED);
    // How often the f64 value was not an f32, so that the rounding direction mattered.
    let mut inexact = 0;
    for case in 0..2000 {
        let n = 1 + rng.below(40) as usize;
        // Coordinates of very different magnitudes, so that f64 → f32 rounds.
        let scale = [1e-3f32, 1.0, 7.3, 1e4][rng.below(4) as usize];
        let positions: Vec<[f32; 3]> = (0..n)
            .map(|_| {
                [
                    rng.range(-1.0, 1.0) * scale,
                    rng.range(-1.0, 1.0) * scale,
                    rng.range(-1.0, 1.0) * scale,
                ]
            })
            .collect();
        let g = if case % 2 == 0 {
            let mut g = IDENTITY;
            for v in &mut g[..12] {
                if rng.below(3) > 0 {
                    *v = rng.range(-2.0, 2.0);
                }
            }
            for v in &mut g[12..15] {
                *v = rng.range(-100.0, 100.0);
            }
            g[3] = 0.0;
            g[7] = 0.0;
            g[11] = 0.0;
            Some(g)
        } else {
            None
        };
        let mesh = MeshPart {
            vertices: Vertices {
                positions: positions.clone(),
                ..Default::default()
            },
            mesh_bind_geo_to_model: g,
            ..Default::default()
        };
        let mut m = Model::default();
        m.meshes.push(mesh);
        let f = gomb::write(&m).unwrap();
        let (_, chunks) = split(&f);
        let msh = chunks.iter().find(|c| &c.fourcc == b"MSH0").unwrap();
        // BND0 is the fifth child (after VB0, IB0, SUB0, IBND): find it by walking.
        let mut at = 32;
        let bnd = loop {
            let size = rd(&msh.payload, at + 4) as usize;
            if &msh.payload[at..at + 4] == b"BND0" {
                break &msh.payload[at + 16..at + 16 + size];
            }
            at += 16 + size.div_ceil(16) * 16;
        };
        let v: Vec<f32> = (0..10).map(|k| f32::from_bits(rd(bnd, 4 * k))).collect();
        let q: Vec<[f64; 3]> = positions
            .iter()
            .map(|&p| model_space(p, g.as_ref()))
            .collect();
        for a in 0..3 {
            let lo = q.iter().map(|p| p[a]).fold(f64::INFINITY, f64::min);
            let hi = q.iter().map(|p| p[a]).fold(f64::NEG_INFINITY, f64::max);
            let (mn, mx) = (v[a], v[3 + a]);
            // The largest f32 not above lo, the smallest not below hi.
            assert!(f64::from(mn) <= lo && f64::from(up(mn)) > lo, "case {case}");
            assert!(
                f64::from(mx) >= hi && f64::from(down(mx)) < hi,
                "case {case}"
            );
            inexact += usize::from(f64::from(mn) != lo) + usize::from(f64::from(mx) != hi);
            // The centre: the f32 nearest to the f64 midpoint of the f32 box.
            let mid = (f64::from(mn) + f64::from(mx)) * 0.5;
            let c = v[6 + a];
            let err = (f64::from(c) - mid).abs();
            assert!(
                err <= (f64::from(up(c)) - mid).abs() && err <= (f64::from(down(c)) - mid).abs(),
                "case {case}"
            );
            for x in [mn, mx, c] {
                assert!(x.to_bits() != 0x8000_0000, "-0.0 written, case {case}");
            }
        }
        let c = [v[6], v[7], v[8]].map(f64::from);
        let dmax = q
            .iter()
            .map(|p| {
                (((p[0] - c[0]) * (p[0] - c[0]) + (p[1] - c[1]) * (p[1] - c[1]))
                    + (p[2] - c[2]) * (p[2] - c[2]))
                    .sqrt()
            })
            .fold(0.0, f64::max);
        let r = v[9];
        assert!(f64::from(r) >= dmax, "case {case}");
        assert!(r == 0.0 || f64::from(down(r)) < dmax, "case {case}");
    }
    // The GBTM half of the cases rounds almost always (6000 box sides).
    assert!(inexact > 4000, "{inexact}");
}

#[test]
fn the_empty_model_is_header_str0_skel_and_table_only() {
    // Assembled by hand from D3–D6, D13: no MATL, no MSH0, no ANIM; the chunk table is
    // always written; every check passes vacuously, so validationFlags = 7.
    let mut want = Vec::new();
    let u = |v: &mut Vec<u8>, x: u32| v.extend_from_slice(&x.to_le_bytes());
    want.extend_from_slice(b"GOMB0001");
    for x in [512, 1, 1, 1] {
        u(&mut want, x);
    }
    want.resize(56, 0); // sourceHash: zero
    for x in [0, 7, 576, 2, 1] {
        u(&mut want, x); // converterVersionStr, flags, table offset, count, endianness
    }
    want.resize(512, 0);
    // STR0: one string, "" (the empty converter version): 13 payload bytes + 3 padding.
    want.extend_from_slice(b"STR0");
    for x in [13, 1, 0, 1, 0, 1] {
        u(&mut want, x); // size, version, flags, stringCount, offsets[0], dataSize
    }
    want.extend_from_slice(&[0, 0, 0, 0]); // the NUL, then 3 bytes of padding
                                           // SKEL: boneCount 0, padded to 16.
    want.extend_from_slice(b"SKEL");
    for x in [4, 1, 0, 0] {
        u(&mut want, x);
    }
    want.resize(576, 0);
    for (f, off, size) in [(b"STR0", 512, 13), (b"SKEL", 544, 4)] {
        want.extend_from_slice(f);
        for x in [off, size, 0] {
            u(&mut want, x);
        }
    }
    assert_eq!(gomb::write(&Model::default()).unwrap(), want);
}
