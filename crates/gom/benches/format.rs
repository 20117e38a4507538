//! Format throughput: strict GOMB reading (every check of D3–D13 plus copying into a
//! `Model`) and canonical writing, each against a plain memcpy of the same bytes; and
//! GOMT parsing against `serde_json` parsing an equivalent JSON document.
//!
//! Run: `cargo bench -p gom-format --bench format -- --warm-up-time 1 --measurement-time 3`

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use gom::math::{bind_world, from_trs, inverse_affine};
use gom::{
    gomb, Bone, Clip, ClipFlags, Key, MeshPart, Model, Skeleton, SkinWeights, Submesh, Track,
    Vertices, IDENTITY,
};
use gom_demo::quat_from_axis_angle;

const BONES: usize = 64;

/// A deterministic model: `meshes` skinned grids of `w × h` vertices (position,
/// normal, tangent, uv0, skin: 72 bytes each), a 64-bone skeleton and 4 clips.
fn model(meshes: usize, w: usize, h: usize) -> Model {
    let bones: Vec<Bone> = (0..BONES)
        .map(|i| Bone {
            name: format!("bone{i}"),
            path: format!("root/bone{i}"),
            parent: i as i32 - 1,
            bind_local: from_trs(
                [0.0, 0.1, 0.0],
                quat_from_axis_angle([0.0, 1.0, 0.0], 0.01 * i as f32),
                [1.0; 3],
            ),
        })
        .collect();
    let inverse_bind: Vec<_> = bind_world(&bones)
        .iter()
        .map(|m| inverse_affine(m).unwrap_or(IDENTITY))
        .collect();
    let mut out = Model {
        skeleton: Skeleton { bones },
        ..Default::default()
    };
    out.header.converter_version = "bench".into();
    for m in 0..meshes {
        let n = w * h;
        let mut positions = Vec::with_capacity(n);
        let mut skin = Vec::with_capacity(n);
        for y in 0..h {
            for x in 0..w {
                positions.push([x as f32 * 0.01, y as f32 * 0.01, m as f32 * 0.1]);
                let a = (y * BONES / h) as u16;
                let b = (a + 1) % BONES as u16;
                let (lo, hi) = if a < b { (a, b) } else { (b, a) };
                skin.push(if x % 2 == 0 {
                    SkinWeights {
                        bones: [a, 0, 0, 0],
                        weights: [1.0, 0.0, 0.0, 0.0],
                    }
                } else {
                    SkinWeights {
                        bones: [lo, hi, 0, 0],
                        weights: [0.5, 0.5, 0.0, 0.0],
                    }
                });
            }
        }
        let mut indices = Vec::with_capacity((w - 1) * (h - 1) * 6);
        for y in 0..(h - 1) as u32 {
            for x in 0..(w - 1) as u32 {
                let a = y * w as u32 + x;
                let b = a + w as u32;
                indices.extend_from_slice(&[a, a + 1, b, a + 1, b + 1, b]);
            }
        }
        out.meshes.push(MeshPart {
            name: format!("mesh{m}"),
            vertices: Vertices {
                normals: Some(vec![[0.0, 0.0, -1.0]; n]),
                tangents: Some(vec![[1.0, 0.0, 0.0, 1.0]; n]),
                uv0: Some(positions.iter().map(|p| [p[0], p[1]]).collect()),
                skin: Some(skin),
                positions,
                ..Default::default()
            },
            submeshes: vec![Submesh {
                material_index: -1,
                index_start: 0,
                index_count: indices.len() as u32,
            }],
            indices,
            inverse_bind: inverse_bind.clone(),
            ..Default::default()
        });
    }
    for c in 0..4 {
        let keys = 60;
        out.clips.push(Clip {
            weight_tracks: Vec::new(),
            name: format!("clip{c}"),
            duration: (keys - 1) as f32 / 30.0,
            sample_rate: 30.0,
            root_bone_index: -1,
            flags: ClipFlags::empty(),
            tracks: (0..BONES as u32)
                .map(|bone| Track {
                    bone,
                    keys: (0..keys)
                        .map(|k| Key {
                            time: k as f32 / 30.0,
                            translation: [0.0, 0.1, 0.0],
                            rotation: quat_from_axis_angle([0.0, 1.0, 0.0], 0.01 * k as f32),
                            scale: [1.0; 3],
                        })
                        .collect(),
                })
                .collect(),
            compressed: None,
            extras: Default::default(),
        });
    }
    out
}

fn gomb_read(c: &mut Criterion) {
    let bytes = gomb::write(&model(9, 260, 250)).expect("the bench model is valid");
    eprintln!("GOMB bench file: {} bytes", bytes.len());
    // GOM_BENCH_SAVE=FILE keeps the file, for `examples/read_repeat.rs`.
    if let Ok(path) = std::env::var("GOM_BENCH_SAVE") {
        std::fs::write(&path, &bytes).expect("GOM_BENCH_SAVE names a writable file");
    }
    let mut g = c.benchmark_group("gomb_read");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    let mut dst = vec![0u8; bytes.len()];
    g.bench_function("memcpy", |b| {
        b.iter(|| {
            dst.copy_from_slice(black_box(&bytes));
            black_box(&dst);
        })
    });
    // The same copy into freshly allocated memory: the fair reference for `read`,
    // which must also hand out (and fault in) new memory for the owned model.
    g.bench_function("memcpy into a new Vec", |b| {
        b.iter(|| black_box(black_box(&bytes).to_vec()).len())
    });
    g.bench_function("FileView::parse", |b| {
        b.iter(|| {
            black_box(gomb::FileView::parse(black_box(&bytes)).expect("valid"))
                .meshes()
                .len()
        })
    });
    // Parse and memcpy alternating, one of each per iteration, each timed in the
    // thread's CPU time: both see the same machine state, so their ratio holds on a
    // busy machine. Criterion reports the wall time of the parses; the median of the
    // per-pair CPU-time ratios is printed at the end.
    let mut ratios = Vec::new();
    g.bench_function("FileView::parse, interleaved with memcpy", |b| {
        b.iter_custom(|iters| {
            let mut parse = std::time::Duration::ZERO;
            for _ in 0..iters {
                let c0 = thread_cpu_ns();
                dst.copy_from_slice(black_box(&bytes));
                black_box(&dst);
                let (c1, t1) = (thread_cpu_ns(), std::time::Instant::now());
                let view = gomb::FileView::parse(black_box(&bytes)).expect("valid");
                black_box(view.meshes().len());
                let c2 = thread_cpu_ns();
                parse += t1.elapsed();
                ratios.push((c1 - c0) as f64 / (c2 - c1).max(1) as f64);
            }
            parse
        })
    });
    if !ratios.is_empty() {
        ratios.sort_by(f64::total_cmp);
        let q = |f: f64| ratios[((ratios.len() - 1) as f64 * f) as usize];
        eprintln!(
            "FileView::parse speed / memcpy speed, interleaved, CPU time: median {:.2} \
             (p10 {:.2}, p90 {:.2}; {} pairs)",
            q(0.5),
            q(0.1),
            q(0.9),
            ratios.len()
        );
    }
    g.bench_function("read (parse + to_model)", |b| {
        b.iter(|| {
            black_box(gomb::read(black_box(&bytes)).expect("valid"))
                .model
                .meshes
                .len()
        })
    });
    g.finish();
}

/// The calling thread's CPU time in nanoseconds (`CLOCK_THREAD_CPUTIME_ID`, exact to
/// the nanosecond, unlike the tick-granular counters under `/proc`).
fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable `timespec` for the call's duration, and
    // `CLOCK_THREAD_CPUTIME_ID` is a clock every Linux kernel provides.
    let r = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if r != 0 {
        return 0;
    }
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

fn gomb_write(c: &mut Criterion) {
    let m = model(9, 260, 250);
    let bytes = gomb::write(&m).expect("the bench model is valid");
    let mut g = c.benchmark_group("gomb_write");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    let mut dst = vec![0u8; bytes.len()];
    g.bench_function("memcpy", |b| {
        b.iter(|| {
            dst.copy_from_slice(black_box(&bytes));
            black_box(&dst);
        })
    });
    g.bench_function("memcpy into a new Vec", |b| {
        b.iter(|| black_box(black_box(&bytes).to_vec()).len())
    });
    g.bench_function("write", |b| {
        b.iter(|| black_box(gomb::write(black_box(&m)).expect("valid")).len())
    });
    g.finish();
}

/// The model as a JSON document with the same content as its GOMT text.
fn json_of(m: &Model) -> String {
    use serde_json::{json, Value};
    let mat =
        |x: &[f32; 16]| -> Value { json!(x.chunks(4).map(|r| r.to_vec()).collect::<Vec<_>>()) };
    let meshes: Vec<Value> = m
        .meshes
        .iter()
        .map(|mesh| {
            let v = &mesh.vertices;
            let verts: Vec<Value> = (0..v.len())
                .map(|i| {
                    let mut o = serde_json::Map::new();
                    o.insert("p".into(), json!(v.positions[i]));
                    if let Some(n) = &v.normals {
                        o.insert("n".into(), json!(n[i]));
                    }
                    if let Some(t) = &v.tangents {
                        o.insert("t".into(), json!(t[i]));
                    }
                    if let Some(uv) = &v.uv0 {
                        o.insert("uv".into(), json!(uv[i]));
                    }
                    if let Some(s) = &v.skin {
                        o.insert("bi".into(), json!(s[i].bones));
                        o.insert("bw".into(), json!(s[i].weights));
                    }
                    Value::Object(o)
                })
                .collect();
            json!({
                "name": mesh.name,
                "vertices": verts,
                "indices": mesh.indices,
                "submeshes": mesh.submeshes.iter().map(|s| json!({
                    "materialIndex": s.material_index, "indexStart": s.index_start, "indexCount": s.index_count
                })).collect::<Vec<_>>(),
                "inverseBind": mesh.inverse_bind.iter().map(mat).collect::<Vec<_>>(),
            })
        })
        .collect();
    let doc = json!({
        "Header": { "converterVersion": m.header.converter_version },
        "Skeleton": {
            "boneCount": m.skeleton.bones.len(),
            "bones": m.skeleton.bones.iter().map(|b| json!({
                "parent": b.parent, "name": b.name, "path": b.path, "bindLocal": mat(&b.bind_local)
            })).collect::<Vec<_>>(),
        },
        "Meshes": meshes,
        "Animations": m.clips.iter().map(|c| json!({
            "name": c.name, "duration": c.duration, "sampleRate": c.sample_rate,
            "rootBoneIndex": c.root_bone_index,
            "tracks": c.tracks.iter().map(|t| json!({
                "bone": t.bone,
                "keys": t.keys.iter().map(|k| json!({
                    "time": k.time, "t": k.translation, "r": k.rotation, "s": k.scale
                })).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    });
    doc.to_string()
}

/// GOMT parse vs serde_json parse of an equivalent JSON document.
fn gomt_vs_json(c: &mut Criterion) {
    let m = model(1, 200, 100);
    let text = gom::gomt::write(&m).expect("the bench model is valid");
    let json = json_of(&m);
    eprintln!(
        "GOMT bench text: {} bytes, JSON: {} bytes",
        text.len(),
        json.len()
    );
    let mut g = c.benchmark_group("gomt_parse");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function("gomt::read", |b| {
        b.iter(|| {
            black_box(gom::gomt::read(black_box(&text)).expect("valid"))
                .meshes
                .len()
        })
    });
    g.throughput(Throughput::Bytes(json.len() as u64));
    g.bench_function("serde_json::Value", |b| {
        b.iter(|| {
            black_box(serde_json::from_str::<serde_json::Value>(black_box(&json)).expect("valid"))
                .is_object()
        })
    });
    g.finish();
}

criterion_group!(benches, gomb_read, gomb_write, gomt_vs_json);
criterion_main!(benches);
