//! The golden minimal file: the writer's bytes for the minimal model equal the
//! checked-in fixture `tests/fixtures/minimal.gomb`, and both equal a file assembled
//! here field by field from decisions D3–D9 (annotated in docs/format.md).

mod gomb_support;

use gom::gomb;
use gomb_support::{minimal_model, rich_model};

const FIXTURE: &[u8] = include_bytes!("fixtures/minimal.gomb");

/// Little-endian field writer for the hand-assembled file.
#[derive(Default)]
struct B(Vec<u8>);

impl B {
    fn u32(&mut self, v: u32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn i32(&mut self, v: i32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn f32(&mut self, v: f32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn bytes(&mut self, b: &[u8]) -> &mut Self {
        self.0.extend_from_slice(b);
        self
    }
    fn zeros(&mut self, n: usize) -> &mut Self {
        self.0.resize(self.0.len() + n, 0);
        self
    }
    /// A chunk header with this payload size.
    fn chunk(&mut self, fourcc: &[u8; 4], size: u32) -> &mut Self {
        self.bytes(fourcc).u32(size).u32(1).u32(0)
    }
    fn mat(&mut self, m: [f32; 16]) -> &mut Self {
        for x in m {
            self.f32(x);
        }
        self
    }
}

const I: [f32; 16] = [
    1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1.,
];

/// The minimal file, written from D3–D9 by hand. Offsets in the comments.
fn hand_assembled() -> Vec<u8> {
    let mut b = B::default();
    // Header (D3), 512 bytes.
    b.bytes(b"GOMB0001").u32(512).u32(1).u32(1).u32(1);
    b.bytes(&core::array::from_fn::<u8, 32, _>(|i| i as u8));
    b.u32(0) // converterVersionStr: string 0
        .u32(0b111) // every check passes
        .u32(1392) // chunkTableOffset
        .u32(5) // chunkTableCount
        .u32(1) // endianness LE
        .zeros(436);
    assert_eq!(b.0.len(), 512);

    // STR0 at 512: 6 strings in first-use order, "root" once for name and path.
    b.chunk(b"STR0", 67).u32(6);
    for off in [0, 9, 14, 18, 26, 30] {
        b.u32(off);
    }
    b.u32(35)
        .bytes(b"gom test\0root\0mat\0tex.png\0tri\0idle\0")
        .zeros(13);
    assert_eq!(b.0.len(), 608);

    // SKEL at 608: one root bone, bind translation (0, 1, 0) in the last row.
    let mut bind = I;
    bind[13] = 1.0;
    b.chunk(b"SKEL", 80).u32(1).i32(-1).u32(1).u32(1).mat(bind);
    assert_eq!(b.0.len(), 704);

    // MATL at 704: name 2, texture 3, factor.
    b.chunk(b"MATL", 28)
        .u32(1)
        .u32(2)
        .u32(3)
        .f32(1.0)
        .f32(0.5)
        .f32(0.25)
        .f32(1.0)
        .zeros(4);
    assert_eq!(b.0.len(), 752);

    // MSH0 at 752: 32 fixed bytes + VB0 176 + IB0 48 + SUB0 32 + IBND 96 + BND0 64.
    b.chunk(b"MSH0", 448)
        .u32(4) // name "tri"
        .u32(0b100_1001) // position | uv0 | skin
        .u32(3)
        .u32(3)
        .u32(1) // boneCount = SKEL's
        .u32(1) // indices16
        .u32(0)
        .u32(0);
    // VB0: stride 12 + 8 + 24 = 44.
    b.chunk(b"VB0 ", 16 + 3 * 44)
        .u32(3)
        .u32(44)
        .u32(0b100_1001)
        .u32(0);
    for (p, uv) in [
        ([0., 0., 0.], [0., 1.]),
        ([1., 0., 0.], [1., 1.]),
        ([0., 1., 0.], [0., 0.]),
    ] {
        for x in p {
            b.f32(x);
        }
        for x in uv {
            b.f32(x);
        }
        b.bytes(&[0; 8]).f32(1.0).f32(0.0).f32(0.0).f32(0.0);
    }
    b.zeros(12);
    // IB0: 16-bit indices 0 1 2.
    b.chunk(b"IB0 ", 22)
        .u32(3)
        .u32(2)
        .u32(0)
        .u32(0)
        .bytes(&[0, 0, 1, 0, 2, 0])
        .zeros(10);
    // SUB0: material 0, indices [0, 3).
    b.chunk(b"SUB0", 16).u32(1).i32(0).u32(0).u32(3);
    // IBND: the inverse of the bind, translation (0, -1, 0).
    let mut inv = I;
    inv[13] = -1.0;
    b.chunk(b"IBND", 68).u32(1).mat(inv).zeros(12);
    // BND0: box [0,0,0]..[1,1,0]; centre (0.5, 0.5, 0); radius sqrt(0.5) rounded UP
    // to f32: sqrt(0.5) = 0.70710678118..., the nearest f32 0x3F3504F3 is below it.
    b.chunk(b"BND0", 40);
    b.f32(0.)
        .f32(0.)
        .f32(0.)
        .f32(1.)
        .f32(1.)
        .f32(0.)
        .f32(0.5)
        .f32(0.5)
        .f32(0.);
    b.u32(0x3F35_04F4).zeros(8);
    assert_eq!(b.0.len(), 1216);

    // ANIM at 1216: clipCount 1 padded to 16, then CLP0 (24 fixed + 8 + 2 × 44).
    b.chunk(b"ANIM", 160).u32(1).zeros(12);
    b.chunk(b"CLP0", 120)
        .u32(5)
        .f32(1.0)
        .f32(1.0)
        .i32(-1)
        .u32(0)
        .u32(1);
    b.i32(0).u32(2);
    let s = core::f32::consts::FRAC_1_SQRT_2;
    b.f32(0.)
        .f32(0.)
        .f32(1.)
        .f32(0.)
        .f32(0.)
        .f32(0.)
        .f32(0.)
        .f32(1.)
        .f32(1.)
        .f32(1.)
        .f32(1.);
    b.f32(1.)
        .f32(0.)
        .f32(2.)
        .f32(0.)
        .f32(0.)
        .f32(s)
        .f32(0.)
        .f32(s)
        .f32(1.)
        .f32(1.)
        .f32(1.);
    b.zeros(8);
    assert_eq!(b.0.len(), 1392);

    // Chunk table (D5).
    for (f, o, s) in [
        (b"STR0", 512, 67),
        (b"SKEL", 608, 80),
        (b"MATL", 704, 28),
        (b"MSH0", 752, 448),
        (b"ANIM", 1216, 160),
    ] {
        b.bytes(f).u32(o).u32(s).u32(0);
    }
    b.0
}

#[test]
fn fixture_matches_the_file_assembled_from_the_decisions() {
    let hand = hand_assembled();
    assert_eq!(hand.len(), 1472);
    assert_eq!(FIXTURE, &hand[..]);
}

#[test]
fn writer_output_is_the_golden_file() {
    let bytes = gomb::write(&minimal_model()).unwrap();
    assert_eq!(bytes, FIXTURE);
}

#[test]
fn golden_file_reads_back_to_the_model() {
    let r = gomb::read(FIXTURE).unwrap();
    assert!(r.unknown_chunks.is_empty());
    assert!(r.findings.is_empty());
    let mut want = minimal_model();
    want.header.validation_flags = gom::ValidationFlags::all();
    // The bounds worked out in docs/format.md §6: box (0,0,0)–(1,1,0), centre
    // (0.5, 0.5, 0), radius √½ rounded up to the f32 0x3F3504F4.
    want.meshes[0].bounds = Some(gom::Bounds {
        aabb_min: [0.0; 3],
        aabb_max: [1.0, 1.0, 0.0],
        sphere_center: [0.5, 0.5, 0.0],
        sphere_radius: f32::from_bits(0x3F35_04F4),
    });
    assert_eq!(r.model, want);
    assert_eq!(gomb::write(&r.model).unwrap(), FIXTURE);
}

#[test]
fn view_exposes_the_file_fields() {
    let v = gomb::FileView::parse(FIXTURE).unwrap();
    assert_eq!(v.converter_version(), "gom test");
    assert_eq!(v.string(1), Some("root"));
    assert_eq!(v.string(6), None);
    assert_eq!(v.skeleton().bone_count, 1);
    let m = &v.meshes()[0];
    assert_eq!(
        (m.name, m.stride, m.index_size, m.offset),
        ("tri", 44, 2, 752)
    );
    assert_eq!(
        m.vertex_data.as_ptr() as usize - FIXTURE.as_ptr() as usize,
        752 + 48 + 32
    );
    assert_eq!(m.bounds.sphere_radius.to_bits(), 0x3F35_04F4);
    let c = &v.clips()[0];
    assert_eq!(
        (c.name, c.offset, c.tracks[0].key_count),
        ("idle", 1216 + 16 + 16, 2)
    );
    assert_eq!(c.tracks[0].key(1).translation, [0.0, 2.0, 0.0]);
}

#[test]
fn rich_model_round_trips_byte_for_byte() {
    let m = rich_model(7);
    let bytes = gomb::write(&m).unwrap();
    let r = gomb::read(&bytes).unwrap();
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    assert_eq!(r.model.header.validation_flags.bits(), 7);
    assert_eq!(r.model.meshes.len(), 3);
    assert_eq!(r.model.clips.len(), 3);
    assert_eq!(gomb::write(&r.model).unwrap(), bytes);
    // The view's own decoding gives the same model as the fused decoding of `read`.
    assert_eq!(gomb::FileView::parse(&bytes).unwrap().to_model(), r.model);
    let mut back = r.model.clone();
    for mesh in &mut back.meshes {
        mesh.bounds = None;
    }
    back.header.validation_flags = Default::default();
    assert_eq!(back, m);
}

#[test]
fn large_mesh_uses_32_bit_indices_exactly_above_65536_vertices() {
    for (n, size) in [(65536usize, 2u32), (65537, 4)] {
        let mut m = gom::Model::default();
        let positions: Vec<[f32; 3]> = (0..n).map(|i| [i as f32, 0.0, 0.0]).collect();
        let last = n as u32 - 1;
        m.meshes.push(gom::MeshPart {
            name: "big".into(),
            vertices: gom::Vertices {
                positions,
                ..Default::default()
            },
            indices: vec![0, 1, last],
            submeshes: vec![gom::Submesh {
                material_index: -1,
                index_start: 0,
                index_count: 3,
            }],
            ..Default::default()
        });
        let bytes = gomb::write(&m).unwrap();
        let v = gomb::FileView::parse(&bytes).unwrap();
        assert_eq!(v.meshes()[0].index_size, size);
        assert_eq!(v.meshes()[0].index(2), last);
        assert_eq!(v.to_model().meshes[0].indices, vec![0, 1, last]);
    }
}

#[test]
fn negative_zero_is_written_as_positive_zero() {
    let mut m = minimal_model();
    m.meshes[0].vertices.positions[0] = [-0.0, -0.0, -0.0];
    m.clips[0].tracks[0].keys[0].time = -0.0;
    assert_eq!(gomb::write(&m).unwrap(), FIXTURE);
}
