//! Fixtures built byte by byte from the layouts (independently of the crate's writers).
#![allow(dead_code)]

/// A little-endian byte builder with pointer patching.
#[derive(Default)]
pub struct B {
    pub v: Vec<u8>,
}

impl B {
    pub fn u8(&mut self, x: u8) -> &mut Self {
        self.v.push(x);
        self
    }
    pub fn u16(&mut self, x: u16) -> &mut Self {
        self.v.extend_from_slice(&x.to_le_bytes());
        self
    }
    pub fn i16(&mut self, x: i16) -> &mut Self {
        self.v.extend_from_slice(&x.to_le_bytes());
        self
    }
    pub fn u32(&mut self, x: u32) -> &mut Self {
        self.v.extend_from_slice(&x.to_le_bytes());
        self
    }
    pub fn i32(&mut self, x: i32) -> &mut Self {
        self.v.extend_from_slice(&x.to_le_bytes());
        self
    }
    pub fn f32(&mut self, x: f32) -> &mut Self {
        self.v.extend_from_slice(&x.to_le_bytes());
        self
    }
    pub fn fs(&mut self, xs: &[f32]) -> &mut Self {
        for &x in xs {
            self.f32(x);
        }
        self
    }
    pub fn raw(&mut self, b: &[u8]) -> &mut Self {
        self.v.extend_from_slice(b);
        self
    }
    pub fn name<const N: usize>(&mut self, s: &[u8]) -> &mut Self {
        let mut f = [0u8; N];
        f[..s.len()].copy_from_slice(s);
        self.raw(&f)
    }
    pub fn pos(&self) -> usize {
        self.v.len()
    }
    pub fn put_u32(&mut self, at: usize, x: u32) {
        self.v[at..at + 4].copy_from_slice(&x.to_le_bytes());
    }
}

// ---------------------------------------------------------------- TML

/// Texture 3 of the TML fixture: a DXT5 DDS, 4×4 with mips 2×2 and 1×1, every block
/// solid red (colour0 = 0xF800, indices 0) with alpha 255 (alpha0 = 255, indices 0).
pub fn dds_red_mips() -> Vec<u8> {
    let mut b = B::default();
    b.raw(b"DDS ")
        .u32(124)
        .u32(0x1 | 0x2 | 0x4 | 0x1000 | 0x20000 | 0x80000);
    b.u32(4).u32(4).u32(16).u32(0).u32(3);
    for _ in 0..11 {
        b.u32(0);
    }
    b.u32(32)
        .u32(4)
        .raw(b"DXT5")
        .u32(0)
        .u32(0)
        .u32(0)
        .u32(0)
        .u32(0);
    b.u32(0x1000 | 0x8 | 0x40_0000).u32(0).u32(0).u32(0).u32(0);
    assert_eq!(b.pos(), 128);
    for _ in 0..3 {
        b.raw(&[255, 0, 0, 0, 0, 0, 0, 0])
            .u16(0xF800)
            .u16(0x001F)
            .u32(0);
    }
    b.v
}

/// (format, width, height, data) of the TML fixture's five textures, file order.
pub fn tml_textures() -> Vec<(u16, u16, u16, Vec<u8>)> {
    vec![
        (0, 2, 1, vec![10, 20, 30, 40, 50, 60, 70, 80]),
        (
            2,
            2,
            1,
            [0x801Fu16, 0x03E0]
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect(),
        ),
        (
            7,
            1,
            2,
            [0xF00Fu16, 0x1234]
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect(),
        ),
        (6, 4, 4, dds_red_mips()),
        (9, 2, 2, vec![1, 2, 3, 4]),
    ]
}

/// Material names (raw 32-byte fields), flags and texture ids of the TML fixture.
pub fn tml_materials() -> Vec<([u8; 32], u16, Vec<u32>)> {
    let f = |s: &[u8]| {
        let mut a = [0u8; 32];
        a[..s.len()].copy_from_slice(s);
        a
    };
    let mut beta2 = f(b"Beta_2");
    beta2[10..14].copy_from_slice(b"junk");
    vec![
        (f(b"alpha"), 0x3000, vec![4]),
        (f(b"beta1"), 0x0000, vec![3]),
        (beta2, 0x0001, vec![2, 1]),
        (f(b"Zed"), 0x4000, vec![0]),
    ]
}

pub fn tml_fixture() -> Vec<u8> {
    let mut b = B::default();
    b.raw(b"TML1").u32(0);
    let tex = tml_textures();
    b.u32(tex.len() as u32);
    for (i, (format, w, h, data)) in tex.iter().enumerate() {
        let flags = if *format == 6 { 0 } else { 2 };
        b.u32((tex.len() - 1 - i) as u32)
            .u32(data.len() as u32)
            .u16(flags)
            .i16(-3)
            .u32(7);
        b.u16(*format)
            .u16(*w)
            .u16(*h)
            .u16(0xFFFF)
            .u32(0x4300_0000)
            .raw(data);
    }
    let mats = tml_materials();
    b.u32(mats.len() as u32);
    for (name, _, _) in &mats {
        b.raw(name);
    }
    for (i, (_, flags, ids)) in mats.iter().enumerate() {
        b.u32(i as u32).u16(*flags).u16(ids.len() as u16);
        for &id in ids {
            b.u32(id);
        }
    }
    b.v
}

// ---------------------------------------------------------------- TMD

pub const RAW_BASE: u32 = 0x0001_0000;

pub fn raw(off: usize) -> u32 {
    (off as u32) - 0x3C + RAW_BASE
}

/// (name, parent, flag, translation) of the direct fixture's nodes; node 1's parent comes
/// after it.
pub fn tmd_nodes() -> Vec<(&'static str, i16, u16, [f32; 3])> {
    vec![
        ("Root", -1, 1, [0.0, 0.0, 0.0]),
        ("Spine", 2, 0, [0.0, 0.0, 2.0]),
        ("Hip", 0, 0, [0.0, 0.0, 1.0]),
    ]
}

fn node(b: &mut B, name: &str, parent: i16, flag: u16, t: [f32; 3]) {
    b.fs(&[0.0, 0.0, 0.0, 1.0]);
    b.fs(&[
        1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, t[0], t[1], t[2], 1.0,
    ]);
    b.fs(&[
        1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, -t[0], -t[1], -t[2], 1.0,
    ]);
    b.u8(name.len() as u8).name::<15>(name.as_bytes());
    b.i16(parent).u16(flag).fs(&t);
}

/// (time, loc, rot) keys per channel for the two animations of the direct fixture.
/// (name, overlay, unknown, duration, [(flags, [(time, loc, rot)])]) of one animation.
pub type AnimSpec = (
    &'static str,
    u32,
    u32,
    f32,
    Vec<(u16, Vec<(f32, u16, u16)>)>,
);

pub fn tmd_anims() -> Vec<AnimSpec> {
    vec![
        (
            "Walk_lp",
            0,
            7,
            1.5,
            vec![
                (1, vec![(0.0, 0, 0), (1.5, 1, 1)]),
                (0, vec![(0.0, 0, 2)]),
                (3, vec![]),
            ],
        ),
        (
            "Idle",
            1,
            0,
            2.0,
            vec![
                (0, vec![(0.0, 2, 0)]),
                (0, vec![(0.5, 1, 1)]),
                (1, vec![(1.0, 0, 2)]),
            ],
        ),
    ]
}

/// One vertex: position, weights, bones.
fn vertex(b: &mut B, p: [f32; 3], w: [u8; 4], bones: [u8; 4], uv: [f32; 2]) {
    b.fs(&p).fs(&[0.0, 0.0, 1.0]).raw(&w).raw(&bones).fs(&uv);
}

/// Vertices of LOD 0's mesh (7, all in piece 0).
pub fn lod0_vertices() -> Vec<([f32; 3], [u8; 4], [u8; 4])> {
    vec![
        ([0.0, 0.0, 0.0], [255, 0, 0, 0], [0, 0, 0, 0]),
        ([1.0, 0.0, 0.0], [128, 127, 0, 0], [0, 3, 0, 0]),
        ([0.0, 1.0, 0.0], [255, 0, 0, 0], [3, 0, 0, 0]),
        ([1.0, 1.0, 0.0], [255, 0, 0, 0], [3, 0, 0, 0]),
        ([0.0, 0.0, 2.0], [255, 0, 0, 0], [0, 0, 0, 0]),
        ([1.0, 0.0, 2.0], [255, 0, 0, 0], [0, 0, 0, 0]),
        ([0.0, 1.0, 2.0], [200, 55, 0, 0], [0, 0, 0, 0]),
    ]
}

/// The mesh block of the direct fixture: two LODs; LOD 0 has one mesh of two pieces
/// (palettes [0, 2] and [1]), LOD 1 one mesh of one piece whose strip starts with a stitch.
fn mesh_block(b: &mut B) {
    b.u32(2).f32(25.0);
    // LOD 0
    b.u32(1).u32(0).fs(&[0.0, 0.0, 1.0, 2.0]);
    b.u32(2).u32(4 + 3).u32(7).name::<32>(b"Skin01");
    b.u32(4)
        .u32(7)
        .u32(2)
        .u32(4)
        .fs(&[0.5, 0.5, 0.0])
        .fs(&[0.5, 0.5, 0.0]);
    b.u32(0).u32(2);
    for (i, (p, w, bo)) in lod0_vertices().into_iter().enumerate() {
        vertex(b, p, w, bo, [i as f32 * 0.125, -0.5]);
    }
    for s in [0u16, 1, 2, 3] {
        b.u16(s);
    }
    b.u32(3)
        .u32(0)
        .u32(1)
        .u32(7)
        .fs(&[0.5, 0.5, 2.0])
        .fs(&[0.5, 0.5, 0.0]);
    b.u32(1);
    for s in [4u16, 5, 6] {
        b.u16(s);
    }
    // LOD 1
    b.u32(1).u32(2).fs(&[0.0, 0.0, 0.0, 1.0]);
    b.u32(1).u32(4).u32(3).name::<32>(b"Skin01_lo");
    b.u32(4).u32(3).u32(1).u32(3).fs(&[0.0; 3]).fs(&[1.0; 3]);
    b.u32(0);
    vertex(b, [0.0, 0.0, 0.0], [255, 0, 0, 0], [0, 0, 0, 0], [0.0, 0.0]);
    vertex(b, [1.0, 0.0, 0.0], [255, 0, 0, 0], [0, 0, 0, 0], [1.0, 0.0]);
    vertex(
        b,
        [0.0, 1.0, 0.0],
        [255, 0, 0, 0],
        [0, 0, 0, 0],
        [0.0, -1.0],
    );
    for s in [0u16, 0, 1, 2] {
        b.u16(s);
    }
}

fn header(b: &mut B, tkl: &[u8], nodes: u16, anims: u16) {
    b.raw(b"TMDL")
        .u32(0)
        .u32(0)
        .raw(tkl)
        .u32(0)
        .u32(RAW_BASE)
        .u32(5)
        .u32(9);
    b.u32(0).u32(0).u32(0).u32(0).u32(0);
    b.u16(nodes).u16(1).u16(anims).u16(2);
    b.raw(&[0u8; 44]);
    assert_eq!(b.pos(), 0x74);
}

fn finish(b: &mut B, mesh_off: usize) {
    let scene = (mesh_off - 0x3C) as u32;
    b.put_u32(0x1C, scene);
    b.put_u32(0x3C, scene);
    let n = b.pos() as u32 - 12;
    b.put_u32(8, n);
}

/// The direct-variant model: 3 nodes, 2 animations, a 4-byte gap after the animation
/// table, 2 LODs, trailing bytes.
pub fn tmd_direct() -> Vec<u8> {
    let mut b = B::default();
    let mut tkl = [0u8; 16];
    tkl[..6].copy_from_slice(b"TESTKL");
    tkl[8..11].copy_from_slice(b"IX2");
    let anims = tmd_anims();
    header(&mut b, &tkl, 3, anims.len() as u16);
    b.u32(raw(0x7C)).u32(0); // ptrA -> nodes, anim table patched below
    for (n, p, f, t) in tmd_nodes() {
        node(&mut b, n, p, f, t);
    }
    let table = b.pos();
    b.put_u32(0x78, raw(table));
    for _ in &anims {
        b.u32(0);
    }
    b.u32(0xDEAD_BEEF); // gap
    for (i, (name, overlay, unknown, dur, chans)) in anims.iter().enumerate() {
        let rec = b.pos();
        b.put_u32(table + 4 * i, raw(rec));
        b.u8(name.len() as u8).name::<15>(name.as_bytes());
        b.u32(*overlay).u32(*unknown).u32(3).f32(*dur);
        let ptrs = b.pos();
        for _ in chans {
            b.u32(0);
        }
        for (c, (flags, keys)) in chans.iter().enumerate() {
            let at = b.pos();
            b.put_u32(ptrs + 4 * c, raw(at));
            b.u16(*flags).u16(keys.len() as u16);
            for &(t, l, r) in keys {
                b.f32(t).u16(l).u16(r);
            }
        }
    }
    let mesh_off = b.pos();
    mesh_block(&mut b);
    b.raw(b"TRAIL");
    finish(&mut b, mesh_off);
    b.v
}

/// The indexed-variant model: header of 0x80 bytes, node-order table [1, 0], 2 nodes, no
/// animations, one LOD with one single-piece mesh.
pub fn tmd_indexed() -> Vec<u8> {
    let mut b = B::default();
    header(
        &mut b,
        &{
            let mut t = [0u8; 16];
            t[..4].copy_from_slice(b"MISC");
            t
        },
        2,
        0,
    );
    let order = 0x80;
    let nodes = order + 8;
    let mesh_off = nodes + 2 * 0xB0;
    b.u32(raw(order)).u32(raw(nodes)).u32(raw(mesh_off));
    b.i32(1).i32(0);
    node(&mut b, "Turret", -1, 0, [0.0, 0.0, 0.0]);
    node(&mut b, "Gun", 0, 0, [0.0, 1.0, 0.5]);
    assert_eq!(b.pos(), mesh_off);
    b.u32(1).f32(10.0);
    b.u32(1).u32(2).fs(&[0.0, 0.0, 0.0, 1.0]);
    b.u32(1).u32(3).u32(3).name::<32>(b"Metal");
    b.u32(3).u32(3).u32(1).u32(3).fs(&[0.0; 3]).fs(&[1.0; 3]);
    b.u32(1);
    vertex(
        &mut b,
        [0.0, 0.0, 0.0],
        [255, 0, 0, 0],
        [0, 0, 0, 0],
        [0.0, 0.0],
    );
    vertex(
        &mut b,
        [1.0, 0.0, 0.0],
        [255, 0, 0, 0],
        [0, 0, 0, 0],
        [1.0, 0.0],
    );
    vertex(
        &mut b,
        [0.0, 1.0, 0.0],
        [255, 0, 0, 0],
        [0, 0, 0, 0],
        [0.0, -1.0],
    );
    for s in [0u16, 1, 2] {
        b.u16(s);
    }
    finish(&mut b, mesh_off);
    b.v
}

// ---------------------------------------------------------------- TKL

pub fn tkl_locations() -> Vec<[f32; 3]> {
    vec![[0.0, 0.0, 0.0], [1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
}

pub fn tkl_rotations() -> Vec<[f32; 4]> {
    vec![
        [0.0, 0.0, 0.0, 1.0],
        [0.0, 0.0, 0.5, 0.75],
        [1.0, 0.0, 0.0, 0.0],
    ]
}

pub fn tkl_fixture() -> Vec<u8> {
    let mut b = B::default();
    let (l, q) = (tkl_locations(), tkl_rotations());
    let data = l.len() * 12 + q.len() * 16;
    b.raw(b"TPKL")
        .u32(0)
        .u32(data as u32 + 44)
        .name::<16>(b"TESTKL");
    b.u32(l.len() as u32)
        .u32(q.len() as u32)
        .u32(0)
        .u32(12)
        .u32(16)
        .u32(4)
        .u32(data as u32);
    for v in &l {
        b.fs(v);
    }
    for v in &q {
        b.fs(v);
    }
    b.v
}

/// Every fixture with a label.
pub fn all() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("tml", tml_fixture()),
        ("tmd_direct", tmd_direct()),
        ("tmd_indexed", tmd_indexed()),
        ("tkl", tkl_fixture()),
    ]
}
