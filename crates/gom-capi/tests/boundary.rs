//! The C entry points called from Rust against `gom_runtime` called directly: the same
//! poses, palettes and skinned vertices bit for bit, the same verdict on hostile bytes
//! as the strict reader, the same results on several threads.

use std::ptr::{null, null_mut};

use gom_capi_core as c;
use gom_runtime::{
    local_to_model, sample, skin, Asset, LocalPose, ModelPose, Palette, Playback, SamplingContext,
    SkinTargets,
};

fn demo_bytes() -> Vec<u8> {
    gom::gomb::write(&gom_demo::build()).expect("demo model")
}

/// An asset opened through the C API on `bytes` (which outlive it).
struct Opened(*mut c::gom_asset);

impl Opened {
    /// The asset, or the error's code, offset and message.
    fn new(bytes: &[u8]) -> Result<Self, (i32, u64, String)> {
        let mut err = c::gom_error {
            code: -1,
            offset: 0,
            message: [0; 256],
        };
        // SAFETY: `bytes` outlives the returned asset in every test below.
        let a = unsafe { c::gom_asset_open(bytes.as_ptr().cast(), bytes.len(), &mut err) };
        if a.is_null() {
            Err((err.code, err.offset, message(&err)))
        } else {
            assert_eq!(err.code, 0);
            Ok(Opened(a))
        }
    }
}

impl Drop for Opened {
    fn drop(&mut self) {
        // SAFETY: opened by `Opened::new`, freed once.
        unsafe { c::gom_asset_free(self.0) };
    }
}

fn message(e: &c::gom_error) -> String {
    let bytes: Vec<u8> = e
        .message
        .iter()
        .take_while(|&&b| b != 0)
        .map(|&b| b as u8)
        .collect();
    String::from_utf8(bytes).expect("UTF-8 message")
}

/// Opens `bytes` both ways and checks the verdicts agree.
fn same_verdict(bytes: &[u8]) -> bool {
    match (Asset::parse(bytes), Opened::new(bytes)) {
        (Ok(_), Ok(_)) => true,
        (Err(want), Err((code, got_offset, m))) => {
            let offset = match &want {
                gom_runtime::Error::Read(r) => r.offset,
                _ => 0,
            };
            assert_eq!(got_offset, offset, "{want}");
            assert_ne!(code, 0);
            let text = want.to_string();
            assert!(!m.is_empty() && text.starts_with(&m), "{m} vs {text}");
            false
        }
        (want, got) => panic!(
            "the strict reader says {:?}, gom_asset_open says {:?}",
            want.err(),
            got.err().map(|e| e.2)
        ),
    }
}

#[test]
fn hostile_bytes_get_the_strict_readers_verdict_and_offset() {
    let bytes = demo_bytes();
    // Truncations (every 7th length, and the last 64) and 3,000 corrupted copies.
    let lengths = (0..bytes.len())
        .step_by(7)
        .chain(bytes.len().saturating_sub(64)..bytes.len());
    for len in lengths {
        assert!(!same_verdict(&bytes[..len]), "truncation to {len} accepted");
    }
    let mut rng = gom_test_support::rng::Rng::new(0x2545F4914F6CDD1D);
    let mut next = move || rng.next_u64();
    let mut refused = 0;
    for _ in 0..3000 {
        let mut bad = bytes.clone();
        for _ in 0..1 + next() % 4 {
            let at = (next() % bad.len().min(4096) as u64) as usize;
            bad[at] = next() as u8;
        }
        refused += usize::from(!same_verdict(&bad));
    }
    assert!(refused > 100, "only {refused} corruptions were refused");
}

#[test]
fn the_c_pipeline_equals_the_rust_pipeline_bit_for_bit() {
    let bytes = demo_bytes();
    let asset = Asset::parse(&bytes).expect("demo");
    let opened = Opened::new(&bytes).expect("demo");
    let a = opened.0;
    let n = asset.skeleton().bone_count();
    let nb = n as u32;
    for (ci, clip) in asset.clips().iter().enumerate() {
        // SAFETY: a live asset.
        let s = unsafe { c::gom_sampler_create(a, ci as u32, null_mut()) };
        assert!(!s.is_null());
        let mut ctx = SamplingContext::new();
        let (mut local, mut model) = (LocalPose::default(), ModelPose::new());
        for &t in &[0.0f32, 0.1, 0.55, clip.duration(), 3.7 * clip.duration()] {
            sample(
                clip,
                asset.skeleton(),
                t,
                Playback::Loop,
                &mut ctx,
                &mut local,
            )
            .unwrap();
            local_to_model(asset.skeleton(), &local, &mut model).unwrap();
            let mut c_local = vec![c::gom_transform::default(); n];
            let mut c_model = vec![0f32; 16 * n];
            // SAFETY: live sampler and asset; buffers of the stated sizes.
            unsafe {
                assert_eq!(c::gom_sample(s, t, 1, c_local.as_mut_ptr(), nb), 0);
                assert_eq!(
                    c::gom_local_to_model(a, c_local.as_ptr(), c_model.as_mut_ptr(), nb),
                    0
                );
            }
            for (i, t) in c_local.iter().enumerate() {
                assert_eq!(*t, c::gom_transform::from(local.get(i).unwrap()));
            }
            for i in 0..n {
                assert_eq!(c_model[16 * i..16 * i + 16], model.row_major(i).unwrap());
            }
            for (mi, mesh) in asset.meshes().iter().enumerate() {
                let mut palette = Palette::new();
                palette.compute(mesh, &model).unwrap();
                let pn = palette.matrices().len();
                assert_eq!(c::gom_mesh_palette_size(a, mi as u32), pn as u32);
                let mut c_pal = vec![0f32; 16 * pn];
                let v = mesh.vertex_count();
                let normals = mesh
                    .layout()
                    .offset(gom::layout::Attribute::Normal)
                    .is_some();
                let (mut p, mut nr) = (vec![[0f32; 3]; v], vec![[0f32; 3]; v]);
                skin(
                    mesh,
                    &palette,
                    SkinTargets {
                        positions: Some(&mut p),
                        normals: normals.then_some(&mut nr[..]),
                        tangents: None,
                    },
                )
                .unwrap();
                let (mut cp, mut cn) = (vec![0f32; 3 * v], vec![0f32; 3 * v]);
                let cn_ptr = if normals { cn.as_mut_ptr() } else { null_mut() };
                // SAFETY: buffers of the stated sizes.
                unsafe {
                    let m = mi as u32;
                    let model_ptr = if mesh.is_skinned() {
                        c_model.as_ptr()
                    } else {
                        null()
                    };
                    assert_eq!(
                        c::gom_palette(a, m, model_ptr, c_pal.as_mut_ptr(), pn as u32),
                        0
                    );
                    assert_eq!(
                        c::gom_skin(
                            a,
                            m,
                            c_pal.as_ptr(),
                            pn as u32,
                            cp.as_mut_ptr(),
                            cn_ptr,
                            v as u32
                        ),
                        0
                    );
                }
                for b in 0..pn {
                    assert_eq!(c_pal[16 * b..16 * b + 16], palette.row_major(b).unwrap());
                }
                assert_eq!(cp, p.as_flattened());
                if normals {
                    assert_eq!(cn, nr.as_flattened());
                }
            }
        }
        // SAFETY: made above, freed once.
        unsafe { c::gom_sampler_free(s) };
    }
}

/// Every clip at 30 frames, every mesh skinned: all positions of all frames.
fn frames(a: *const c::gom_asset) -> Vec<f32> {
    let mut out = Vec::new();
    // SAFETY: a live asset shared read-only; buffers of the stated sizes; each thread
    // has its own sampler.
    unsafe {
        let n = c::gom_bone_count(a);
        let mut local = vec![c::gom_transform::default(); n as usize];
        let mut model = vec![0f32; 16 * n as usize];
        for clip in 0..c::gom_clip_count(a) {
            let s = c::gom_sampler_create(a, clip, null_mut());
            for f in 0..30 {
                assert_eq!(
                    c::gom_sample(s, f as f32 / 30.0, 1, local.as_mut_ptr(), n),
                    0
                );
                assert_eq!(
                    c::gom_local_to_model(a, local.as_ptr(), model.as_mut_ptr(), n),
                    0
                );
                for m in 0..c::gom_mesh_count(a) {
                    let pn = c::gom_mesh_palette_size(a, m);
                    let v = c::gom_mesh_vertex_count(a, m);
                    let mut pal = vec![0f32; 16 * pn as usize];
                    let mut pos = vec![0f32; 3 * v as usize];
                    assert_eq!(
                        c::gom_palette(a, m, model.as_ptr(), pal.as_mut_ptr(), pn),
                        0
                    );
                    assert_eq!(
                        c::gom_skin(a, m, pal.as_ptr(), pn, pos.as_mut_ptr(), null_mut(), v),
                        0
                    );
                    out.extend_from_slice(&pos);
                }
            }
            c::gom_sampler_free(s);
        }
    }
    out
}

/// A shared asset pointer that threads may read (the asset is read-only).
#[derive(Clone, Copy)]
struct Shared(*const c::gom_asset);
// SAFETY: a gom_asset is immutable once opened; the header allows calls taking a
// `const gom_asset*` on several threads at once.
unsafe impl Send for Shared {}
// SAFETY: as above.
unsafe impl Sync for Shared {}

#[test]
fn threads_sharing_one_asset_get_identical_results() {
    let bytes = demo_bytes();
    let opened = Opened::new(&bytes).expect("demo");
    let shared = Shared(opened.0);
    let reference = frames(shared.0);
    assert!(!reference.is_empty());
    let results: Vec<Vec<f32>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|_| s.spawn(move || frames({ shared }.0)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for r in results {
        assert!(r == reference);
    }
}

/// `gom_skin` uses the palette `gom_palette` just made when given its floats
/// unchanged, and derives it again from floats changed after that: every result
/// equals the Rust path's `set_row_major` of the floats given, bit for bit, and the
/// unchanged palette given again gives the first result.
#[test]
fn a_palette_changed_after_gom_palette_skins_as_changed() {
    let bytes = demo_bytes();
    let asset = Asset::parse(&bytes).expect("demo");
    let opened = Opened::new(&bytes).expect("demo");
    let a = opened.0;
    let (mi, mesh) = asset
        .meshes()
        .iter()
        .enumerate()
        .find(|(_, m)| m.is_skinned())
        .expect("a skinned mesh in the demo");
    let n = asset.skeleton().bone_count();
    let (mut ctx, mut local, mut model) = (
        SamplingContext::new(),
        LocalPose::default(),
        ModelPose::new(),
    );
    sample(
        &asset.clips()[0],
        asset.skeleton(),
        0.3,
        Playback::Loop,
        &mut ctx,
        &mut local,
    )
    .unwrap();
    local_to_model(asset.skeleton(), &local, &mut model).unwrap();
    let c_model: Vec<f32> = (0..n).flat_map(|i| model.row_major(i).unwrap()).collect();
    let (m, pn, v) = (mi as u32, n as u32, mesh.vertex_count());
    let rust = |floats: &[f32]| {
        let mut palette = Palette::new();
        let matrices: Vec<[f32; 16]> = floats
            .chunks_exact(16)
            .map(|c| c.try_into().unwrap())
            .collect();
        palette.set_row_major(&matrices);
        let (mut p, mut nr) = (vec![[0f32; 3]; v], vec![[0f32; 3]; v]);
        let targets = SkinTargets {
            positions: Some(&mut p),
            normals: Some(&mut nr),
            tangents: None,
        };
        skin(mesh, &palette, targets).unwrap();
        (p.concat(), nr.concat())
    };
    let c_skin = |floats: &[f32]| {
        let (mut p, mut nr) = (vec![0f32; 3 * v], vec![0f32; 3 * v]);
        let (pp, np) = (p.as_mut_ptr(), nr.as_mut_ptr());
        // SAFETY: a live asset; buffers of the stated sizes.
        let r = unsafe { c::gom_skin(a, m, floats.as_ptr(), pn, pp, np, v as u32) };
        assert_eq!(r, 0);
        (p, nr)
    };
    let mut made = vec![0f32; 16 * n];
    // SAFETY: a live asset; buffers of the stated sizes.
    let r = unsafe { c::gom_palette(a, m, c_model.as_ptr(), made.as_mut_ptr(), pn) };
    assert_eq!(r, 0);
    let first = c_skin(&made);
    assert!(first == rust(&made));
    // Every bone moved along x: every vertex moves.
    let mut moved = made.clone();
    for b in 0..n {
        moved[16 * b + 12] += 0.5;
    }
    assert!(c_skin(&moved) == rust(&moved));
    assert!(c_skin(&moved) != first);
    assert!(c_skin(&made) == first);
}
