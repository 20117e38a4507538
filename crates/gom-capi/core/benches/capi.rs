//! The C boundary's cost: one frame of sample → local to model → palette → skin
//! (positions and normals) through the C entry points against the same pipeline
//! through `gom_runtime` directly, on the runtime benchmark's shape: a 64-bone tree,
//! a 2-second clip keyed at 30 Hz played at 60 frames per second, a 20,000-vertex mesh
//! with four influences per vertex. See docs/performance.md (section "C API").
//!
//! `GOM_CAPI_FRAMES=N GOM_CAPI_PATH=rust|c` runs N frames of one path without
//! criterion, for instruction counts (`valgrind --tool=callgrind`).

use criterion::{black_box, criterion_group, Criterion};
use gom::math::{bind_world, from_trs, inverse_affine};
use gom::{Bone, Clip, ClipFlags, Key, MeshPart, Model, Skeleton, SkinWeights, Submesh, Track};
use gom_capi_core as c;
use gom_demo::quat_from_axis_angle;
use gom_runtime::{
    local_to_model, sample, skin, Asset, LocalPose, ModelPose, Palette, Playback, SamplingContext,
    SkinTargets,
};
use gom_test_support::rng::Rng;

const BONES: usize = 64;
const VERTICES: usize = 20_000;
const FRAME: f32 = 1.0 / 60.0;

/// The benchmark's numbers: the tests' one generator, and unit vectors from it.
struct Noise(Rng);

impl Noise {
    fn next(&mut self) -> f32 {
        self.0.unit()
    }
    fn signed(&mut self) -> f32 {
        self.0.signed()
    }
    fn unit(&mut self) -> [f32; 3] {
        let v = [self.signed(), self.signed(), self.signed() + 1.5];
        let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        v.map(|x| x / l)
    }
}

/// The benchmark model: bone `i` hangs from `(i - 1) / 3`; every bone swings about its
/// own axis; vertices follow neighbouring bones.
fn bench_model() -> Model {
    let mut r = Noise(Rng::new(0xC0FFEE));
    let bones: Vec<Bone> = (0..BONES)
        .map(|i| Bone {
            name: format!("bone{i}"),
            path: format!("bone{i}"),
            parent: if i == 0 { -1 } else { ((i - 1) / 3) as i32 },
            bind_local: from_trs(
                [0.2 * r.signed(), 0.1 + 0.3 * r.next(), 0.2 * r.signed()],
                quat_from_axis_angle(r.unit(), 0.5 * r.signed()),
                [1.0; 3],
            ),
        })
        .collect();
    let tracks = (0..BONES as u32)
        .map(|bone| {
            let (axis, amp, phase) = (r.unit(), 0.2 + r.next(), 6.0 * r.next());
            let keys = (0..=60)
                .map(|k| {
                    let time = k as f32 / 30.0;
                    let a = amp * (phase + time * std::f32::consts::PI).sin();
                    Key {
                        time,
                        translation: [0.0, 0.2 + 0.01 * a, 0.0],
                        rotation: quat_from_axis_angle(axis, a),
                        scale: [1.0; 3],
                    }
                })
                .collect();
            Track { bone, keys }
        })
        .collect();
    let inverse_bind = bind_world(&bones)
        .iter()
        .map(|w| inverse_affine(w).unwrap_or(gom::IDENTITY))
        .collect();
    let skin = (0..VERTICES)
        .map(|v| {
            let p = v * BONES / VERTICES;
            SkinWeights {
                bones: [p, p.saturating_sub(1) / 3, (p + 1) % BONES, (p + 2) % BONES]
                    .map(|b| b as u16),
                weights: [0.4, 0.3, 0.2, 0.1],
            }
        })
        .collect();
    let count = (VERTICES / 3 * 3) as u32;
    Model {
        skeleton: Skeleton { bones },
        meshes: vec![MeshPart {
            morph_targets: Vec::new(),
            name: "body".into(),
            vertices: gom::Vertices {
                positions: (0..VERTICES)
                    .map(|_| [r.signed(), 2.0 * r.next(), r.signed()])
                    .collect(),
                normals: Some((0..VERTICES).map(|_| r.unit()).collect()),
                skin: Some(skin),
                ..Default::default()
            },
            indices: (0..count).collect(),
            submeshes: vec![Submesh {
                material_index: -1,
                index_start: 0,
                index_count: count,
            }],
            inverse_bind,
            mesh_bind_geo_to_model: None,
            bounds: None,
            skinning: Default::default(),
        }],
        clips: vec![Clip {
            weight_tracks: Vec::new(),
            name: "swing".into(),
            duration: 2.0,
            sample_rate: 30.0,
            root_bone_index: -1,
            flags: ClipFlags::empty(),
            tracks,
            compressed: None,
            extras: Default::default(),
        }],
        ..Default::default()
    }
}

/// One pipeline's state; `frame` advances the clock and runs one frame.
trait Pipeline {
    fn frame(&mut self, t: f32);
    fn positions(&self) -> &[f32];
}

/// The pipeline through `gom_runtime`.
struct Rust<'a> {
    asset: &'a Asset<'a>,
    ctx: SamplingContext,
    local: LocalPose,
    model: ModelPose,
    palette: Palette,
    positions: Vec<[f32; 3]>,
    normals: Vec<[f32; 3]>,
}

impl Pipeline for Rust<'_> {
    fn frame(&mut self, t: f32) {
        let a = self.asset;
        let (skeleton, clip, mesh) = (a.skeleton(), &a.clips()[0], &a.meshes()[0]);
        sample(
            clip,
            skeleton,
            t,
            Playback::Loop,
            &mut self.ctx,
            &mut self.local,
        )
        .unwrap();
        local_to_model(skeleton, &self.local, &mut self.model).unwrap();
        self.palette.compute(mesh, &self.model).unwrap();
        let targets = SkinTargets {
            positions: Some(&mut self.positions),
            normals: Some(&mut self.normals),
            tangents: None,
        };
        skin(mesh, &self.palette, targets).unwrap();
    }
    fn positions(&self) -> &[f32] {
        self.positions.as_flattened()
    }
}

/// The pipeline through the C entry points.
struct CApi {
    asset: *mut c::gom_asset,
    sampler: *mut c::gom_sampler,
    local: Vec<c::gom_transform>,
    model: Vec<f32>,
    palette: Vec<f32>,
    positions: Vec<f32>,
    normals: Vec<f32>,
}

impl CApi {
    fn new(bytes: &[u8]) -> Self {
        // SAFETY: `bytes` outlives the asset (both live for the whole benchmark run).
        let asset =
            unsafe { c::gom_asset_open(bytes.as_ptr().cast(), bytes.len(), std::ptr::null_mut()) };
        assert!(!asset.is_null());
        // SAFETY: a live asset.
        let sampler = unsafe { c::gom_sampler_create(asset, 0, std::ptr::null_mut()) };
        assert!(!sampler.is_null());
        CApi {
            asset,
            sampler,
            local: vec![c::gom_transform::default(); BONES],
            model: vec![0.0; 16 * BONES],
            palette: vec![0.0; 16 * BONES],
            positions: vec![0.0; 3 * VERTICES],
            normals: vec![0.0; 3 * VERTICES],
        }
    }
}

impl Pipeline for CApi {
    fn frame(&mut self, t: f32) {
        let (a, n, v) = (self.asset, BONES as u32, VERTICES as u32);
        // SAFETY: live asset and sampler; every buffer is as long as its count says.
        let rc = unsafe {
            c::gom_sample(self.sampler, t, 1, self.local.as_mut_ptr(), n)
                | c::gom_local_to_model(a, self.local.as_ptr(), self.model.as_mut_ptr(), n)
                | c::gom_palette(a, 0, self.model.as_ptr(), self.palette.as_mut_ptr(), n)
                | c::gom_skin(
                    a,
                    0,
                    self.palette.as_ptr(),
                    n,
                    self.positions.as_mut_ptr(),
                    self.normals.as_mut_ptr(),
                    v,
                )
        };
        assert_eq!(rc, 0);
    }
    fn positions(&self) -> &[f32] {
        &self.positions
    }
}

impl Drop for CApi {
    fn drop(&mut self) {
        // SAFETY: made by this struct, freed once, sampler before asset.
        unsafe {
            c::gom_sampler_free(self.sampler);
            c::gom_asset_free(self.asset);
        }
    }
}

/// Runs frames on a 60 Hz clock that wraps at the clip's end.
fn run(p: &mut dyn Pipeline, t: &mut f32) {
    *t += FRAME;
    if *t >= 2.0 {
        *t -= 2.0;
    }
    p.frame(black_box(*t));
}

fn pipelines(bytes: &[u8]) -> (Asset<'_>, CApi) {
    (Asset::parse(bytes).expect("valid model"), CApi::new(bytes))
}

fn rust_pipeline<'a>(asset: &'a Asset<'a>) -> Rust<'a> {
    Rust {
        asset,
        ctx: SamplingContext::new(),
        local: LocalPose::default(),
        model: ModelPose::new(),
        palette: Palette::new(),
        positions: vec![[0.0; 3]; VERTICES],
        normals: vec![[0.0; 3]; VERTICES],
    }
}

fn bench(cr: &mut Criterion) {
    let bytes = gom::gomb::write(&bench_model()).expect("model");
    let (asset, mut capi) = pipelines(&bytes);
    let mut rust = rust_pipeline(&asset);
    // Both paths give the same bytes.
    rust.frame(0.3);
    capi.frame(0.3);
    assert_eq!(rust.positions(), capi.positions());
    let mut g = cr.benchmark_group("capi_frame_64_bones_20000_vertices");
    let (mut tr, mut tc) = (0.0, 0.0);
    g.bench_function("rust", |b| b.iter(|| run(&mut rust, &mut tr)));
    g.bench_function("c_api", |b| b.iter(|| run(&mut capi, &mut tc)));
    g.finish();
}

criterion_group!(benches, bench);

fn main() {
    if let (Some(frames), Some(path)) = (
        std::env::var("GOM_CAPI_FRAMES")
            .ok()
            .and_then(|f| f.parse::<u32>().ok()),
        std::env::var("GOM_CAPI_PATH").ok(),
    ) {
        let bytes = gom::gomb::write(&bench_model()).expect("model");
        let (asset, mut capi) = pipelines(&bytes);
        let mut rust = rust_pipeline(&asset);
        let p: &mut dyn Pipeline = if path == "c" { &mut capi } else { &mut rust };
        let mut t = 0.0;
        for _ in 0..frames {
            run(p, &mut t);
        }
        println!(
            "{path}: {frames} frames, checksum {}",
            p.positions().iter().sum::<f32>()
        );
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
