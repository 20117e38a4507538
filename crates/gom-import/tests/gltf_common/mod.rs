//! Shared helpers of the glTF tests: the sample data, an independent glTF posing
//! reference (column-vector math per the glTF spec, with glam), GOM posing with
//! `gom::math` (row vectors, D1/D9), and the Khronos validator.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use glam::{Mat4, Quat, Vec3, Vec4};
use gom::math::{from_trs, mul, transform_point};

/// `../shared/data/gltf`, or `None` after saying the test skips (a failure under
/// `GOM_REQUIRE_TEST_DATA=1`).
pub fn data_dir() -> Option<PathBuf> {
    gom_test_support::shared_data("gltf")
}

/// Every `.gltf` / `.glb` sample, sorted by name.
pub fn samples() -> Vec<PathBuf> {
    let Some(dir) = data_dir() else {
        return Vec::new();
    };
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("gltf") | Some("glb")
            )
        })
        .collect();
    v.sort();
    v
}

/// The document and buffers of a glTF file, read by the `gltf` crate's own loader
/// (images are not loaded: a sample's texture may be missing).
pub fn load(path: &Path) -> (gltf::Document, Vec<gltf::buffer::Data>) {
    let g = gltf::Gltf::open(path).expect("gltf::Gltf::open");
    let buffers = gltf::import_buffers(&g.document, path.parent(), g.blob).expect("buffers");
    (g.document, buffers)
}

/// The key times of an animation channel, read by the `gltf` crate.
pub fn input_times(ch: &gltf::animation::Channel<'_>, buffers: &[gltf::buffer::Data]) -> Vec<f32> {
    let reader = ch.reader(|b| Some(&buffers[b.index()].0[..]));
    match reader.read_inputs().unwrap() {
        gltf::accessor::Iter::Standard(it) => it.collect(),
        gltf::accessor::Iter::Sparse(it) => it.collect(),
    }
}

/// A triangle of three positions.
pub type Tri = [[f32; 3]; 3];

// ---------------------------------------------------------------------------------
// Reference: straight from the glTF document, glTF (right-handed, column-vector) math.

fn sample_channel(
    times: &[f32],
    values: &[Vec4],
    interp: gltf::animation::Interpolation,
    rotation: bool,
    t: f32,
) -> Vec4 {
    use gltf::animation::Interpolation::*;
    let cubic = interp == CubicSpline;
    let val = |k: usize| if cubic { values[3 * k + 1] } else { values[k] };
    if t <= times[0] {
        return val(0);
    }
    let n = times.len();
    if t >= times[n - 1] {
        return val(n - 1);
    }
    let k = times.iter().rposition(|&x| x <= t).unwrap();
    let (t0, t1) = (times[k], times[k + 1]);
    let u = (t - t0) / (t1 - t0);
    match interp {
        Step => val(k),
        Linear => {
            if rotation {
                let a = Quat::from_vec4(val(k)).normalize();
                let b = Quat::from_vec4(val(k + 1)).normalize();
                let b = if a.dot(b) < 0.0 { -b } else { b };
                Vec4::from(a.slerp(b, u))
            } else {
                val(k).lerp(val(k + 1), u)
            }
        }
        CubicSpline => {
            let td = t1 - t0;
            let (u2, u3) = (u * u, u * u * u);
            let p0 = values[3 * k + 1];
            let m0 = values[3 * k + 2] * td;
            let p1 = values[3 * (k + 1) + 1];
            let m1 = values[3 * (k + 1)] * td;
            (2.0 * u3 - 3.0 * u2 + 1.0) * p0
                + (u3 - 2.0 * u2 + u) * m0
                + (-2.0 * u3 + 3.0 * u2) * p1
                + (u3 - u2) * m1
        }
    }
}

/// Posed triangles of the default scene of `path` at time `t` of animation
/// `animation` (`None`: rest pose), in GOM space: computed in glTF space with glam,
/// then z mirrored and the winding reversed (D2).
pub fn reference_triangles(path: &Path, animation: Option<usize>, t: f32) -> Vec<Tri> {
    let (doc, buffers) = load(path);
    let get = |b: gltf::Buffer| Some(&buffers[b.index()].0[..]);
    let n = doc.nodes().len();
    let mut trs: Vec<(Vec3, Quat, Vec3)> = doc
        .nodes()
        .map(|nd| {
            let (t, r, s) = nd.transform().decomposed();
            (Vec3::from(t), Quat::from_array(r), Vec3::from(s))
        })
        .collect();
    let mut matrix_nodes: Vec<Option<Mat4>> = doc
        .nodes()
        .map(|nd| match nd.transform() {
            gltf::scene::Transform::Matrix { matrix } => Some(Mat4::from_cols_array_2d(&matrix)),
            _ => None,
        })
        .collect();
    if let Some(ai) = animation {
        let anim = doc.animations().nth(ai).unwrap();
        for ch in anim.channels() {
            let r = ch.reader(get);
            let times = input_times(&ch, &buffers);
            let node = ch.target().node().index();
            let interp = ch.sampler().interpolation();
            use gltf::animation::util::ReadOutputs::*;
            match r.read_outputs().unwrap() {
                Translations(it) => {
                    let v: Vec<Vec4> = it.map(|x| Vec3::from(x).extend(0.0)).collect();
                    trs[node].0 = sample_channel(&times, &v, interp, false, t).truncate();
                }
                Rotations(it) => {
                    let v: Vec<Vec4> = it.into_f32().map(Vec4::from).collect();
                    trs[node].1 =
                        Quat::from_vec4(sample_channel(&times, &v, interp, true, t)).normalize();
                }
                Scales(it) => {
                    let v: Vec<Vec4> = it.map(|x| Vec3::from(x).extend(0.0)).collect();
                    trs[node].2 = sample_channel(&times, &v, interp, false, t).truncate();
                }
                MorphTargetWeights(_) => {}
            }
            matrix_nodes[node] = None;
        }
    }
    let local: Vec<Mat4> = (0..n)
        .map(|i| {
            matrix_nodes[i].unwrap_or_else(|| {
                Mat4::from_scale_rotation_translation(trs[i].2, trs[i].1, trs[i].0)
            })
        })
        .collect();
    let mut parent = vec![None; n];
    for nd in doc.nodes() {
        for c in nd.children() {
            parent[c.index()] = Some(nd.index());
        }
    }
    fn global(i: usize, parent: &[Option<usize>], local: &[Mat4]) -> Mat4 {
        match parent[i] {
            Some(p) => global(p, parent, local) * local[i],
            None => local[i],
        }
    }
    let globals: Vec<Mat4> = (0..n).map(|i| global(i, &parent, &local)).collect();

    let scene = doc.default_scene().or_else(|| doc.scenes().next()).unwrap();
    let mut stack: Vec<gltf::Node> = scene.nodes().collect();
    let mut out = Vec::new();
    while let Some(node) = stack.pop() {
        stack.extend(node.children());
        let Some(mesh) = node.mesh() else { continue };
        for prim in mesh.primitives() {
            let r = prim.reader(get);
            let pos: Vec<Vec3> = r.read_positions().unwrap().map(Vec3::from).collect();
            let skin = node.skin();
            let mut influences: Vec<Vec<(usize, f32)>> = vec![Vec::new(); pos.len()];
            if skin.is_some() {
                let mut set = 0;
                while let (Some(j), Some(w)) = (r.read_joints(set), r.read_weights(set)) {
                    for (v, (j, w)) in j.into_u16().zip(w.into_f32()).enumerate() {
                        for k in 0..4 {
                            if w[k] > 0.0 {
                                influences[v].push((j[k] as usize, w[k]));
                            }
                        }
                    }
                    set += 1;
                }
            }
            let posed: Vec<Vec3> = match &skin {
                Some(s) if influences.iter().any(|i| !i.is_empty()) => {
                    let sr = s.reader(get);
                    let joints: Vec<usize> = s.joints().map(|j| j.index()).collect();
                    let ibm: Vec<Mat4> = match sr.read_inverse_bind_matrices() {
                        Some(it) => it.map(|m| Mat4::from_cols_array_2d(&m)).collect(),
                        None => vec![Mat4::IDENTITY; joints.len()],
                    };
                    let joint_mats: Vec<Mat4> = joints
                        .iter()
                        .zip(&ibm)
                        .map(|(&j, ib)| globals[j] * *ib)
                        .collect();
                    pos.iter()
                        .zip(&influences)
                        .map(|(p, inf)| {
                            let mut acc = Vec3::ZERO;
                            for &(j, w) in inf {
                                acc += w * joint_mats[j].transform_point3(*p);
                            }
                            acc
                        })
                        .collect()
                }
                _ => pos
                    .iter()
                    .map(|p| globals[node.index()].transform_point3(*p))
                    .collect(),
            };
            let idx: Vec<usize> = match r.read_indices() {
                Some(i) => i.into_u32().map(|x| x as usize).collect(),
                None => (0..pos.len()).collect(),
            };
            let tris: Vec<[usize; 3]> = match prim.mode() {
                gltf::mesh::Mode::Triangles => {
                    idx.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect()
                }
                gltf::mesh::Mode::TriangleStrip => (0..idx.len().saturating_sub(2))
                    .map(|i| {
                        if i % 2 == 0 {
                            [idx[i], idx[i + 1], idx[i + 2]]
                        } else {
                            [idx[i + 1], idx[i], idx[i + 2]]
                        }
                    })
                    .collect(),
                gltf::mesh::Mode::TriangleFan => (0..idx.len().saturating_sub(2))
                    .map(|i| [idx[i + 1], idx[i + 2], idx[0]])
                    .collect(),
                _ => Vec::new(),
            };
            // The glTF spec: a node whose world matrix mirrors flips the front face.
            let mirrored = skin.is_none() && globals[node.index()].determinant() < 0.0;
            let m = |v: Vec3| [v.x, v.y, -v.z];
            for [a, b, c] in tris {
                let (a, b, c) = (m(posed[a]), m(posed[b]), m(posed[c]));
                out.push(if mirrored { [a, b, c] } else { [a, c, b] });
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------
// GOM posing with gom::math (row vectors, D1), sampling per D9.

fn slerp(a: [f32; 4], b: [f32; 4], u: f32) -> [f32; 4] {
    let a = a.map(f64::from);
    let mut b = b.map(f64::from);
    let mut d: f64 = (0..4).map(|i| a[i] * b[i]).sum();
    if d < 0.0 {
        d = -d;
        b = b.map(|x| -x);
    }
    let u = f64::from(u);
    let (wa, wb) = if d > 0.9995 {
        (1.0 - u, u)
    } else {
        let th = d.min(1.0).acos();
        (((1.0 - u) * th).sin() / th.sin(), (u * th).sin() / th.sin())
    };
    let q: Vec<f64> = (0..4).map(|i| wa * a[i] + wb * b[i]).collect();
    let l = q.iter().map(|x| x * x).sum::<f64>().sqrt();
    [
        (q[0] / l) as f32,
        (q[1] / l) as f32,
        (q[2] / l) as f32,
        (q[3] / l) as f32,
    ]
}

/// The local matrix of a track at time `t` (D9).
pub fn sample_track(keys: &[gom::Key], t: f32) -> gom::Mat4 {
    let k = if t <= keys[0].time {
        keys[0]
    } else if t >= keys[keys.len() - 1].time {
        keys[keys.len() - 1]
    } else {
        let i = keys.iter().rposition(|k| k.time <= t).unwrap();
        let (a, b) = (keys[i], keys[i + 1]);
        let u = (t - a.time) / (b.time - a.time);
        let lerp3 = |x: [f32; 3], y: [f32; 3]| [0, 1, 2].map(|j| x[j] + (y[j] - x[j]) * u);
        gom::Key {
            time: t,
            translation: lerp3(a.translation, b.translation),
            rotation: slerp(a.rotation, b.rotation, u),
            scale: lerp3(a.scale, b.scale),
        }
    };
    from_trs(k.translation, k.rotation, k.scale)
}

/// Bone world matrices of `model` at time `t` of clip `clip` (`None`: bind pose).
pub fn pose(model: &gom::Model, clip: Option<usize>, t: f32) -> Vec<gom::Mat4> {
    let bones = &model.skeleton.bones;
    let mut local: Vec<gom::Mat4> = bones.iter().map(|b| b.bind_local).collect();
    if let Some(c) = clip {
        for tr in &model.clips[c].tracks {
            local[tr.bone as usize] = sample_track(&tr.keys, t);
        }
    }
    let mut world: Vec<gom::Mat4> = Vec::with_capacity(bones.len());
    for (i, b) in bones.iter().enumerate() {
        let w = match b.parent_index() {
            Some(p) => mul(&local[i], &world[p]),
            None => local[i],
        };
        world.push(w);
    }
    world
}

/// Posed triangles of every mesh part: `p' = Σ w · p * G * (inverseBind * world)` (D1).
pub fn gom_triangles(model: &gom::Model, clip: Option<usize>, t: f32) -> Vec<Tri> {
    let world = pose(model, clip, t);
    let mut out = Vec::new();
    for part in &model.meshes {
        let g = part.mesh_bind_geo_to_model.unwrap_or(gom::IDENTITY);
        let palette: Vec<gom::Mat4> = part
            .inverse_bind
            .iter()
            .zip(&world)
            .map(|(ib, w)| mul(ib, w))
            .collect();
        let posed: Vec<[f32; 3]> = part
            .vertices
            .positions
            .iter()
            .enumerate()
            .map(|(v, p)| {
                let p = transform_point(&g, *p);
                match &part.vertices.skin {
                    Some(s) => {
                        let mut acc = [0.0f32; 3];
                        for k in 0..4 {
                            let w = s[v].weights[k];
                            if w > 0.0 {
                                let q = transform_point(&palette[s[v].bones[k] as usize], p);
                                for j in 0..3 {
                                    acc[j] += w * q[j];
                                }
                            }
                        }
                        acc
                    }
                    None => p,
                }
            })
            .collect();
        for tri in part.indices.chunks_exact(3) {
            out.push([
                posed[tri[0] as usize],
                posed[tri[1] as usize],
                posed[tri[2] as usize],
            ]);
        }
    }
    out
}

fn close(a: &Tri, b: &Tri, tol: f32) -> bool {
    // Same triangle up to a cyclic rotation (the winding must match).
    (0..3).any(|r| {
        (0..3).all(|i| {
            let (p, q) = (a[i], b[(i + r) % 3]);
            (0..3).all(|j| (p[j] - q[j]).abs() <= tol)
        })
    })
}

/// Whether every triangle of `a` has a matching triangle in `b` and vice versa;
/// returns a description of the first mismatch.
pub fn same_triangles(a: &[Tri], b: &[Tri], tol: f32) -> Result<(), String> {
    if a.len() != b.len() {
        return Err(format!("{} triangles vs {}", a.len(), b.len()));
    }
    for (name, x, y) in [("first", a, b), ("second", b, a)] {
        for (i, t) in x.iter().enumerate() {
            if !y.iter().any(|u| close(t, u, tol)) {
                let nearest = y
                    .iter()
                    .map(|u| {
                        let d = (0..3)
                            .flat_map(|k| (0..3).map(move |j| (t[k][j] - u[k][j]).abs()))
                            .fold(0.0f32, f32::max);
                        (d, *u)
                    })
                    .min_by(|p, q| p.0.total_cmp(&q.0));
                return Err(format!(
                    "triangle {i} of the {name} set {t:?} has no match within {tol}; nearest {nearest:?}"
                ));
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------
// The Khronos glTF Validator (npm package `gltf-validator`), when installed.

/// Runs the validator on `file`; `None` when node or the package is not available.
pub fn validate_with_khronos(file: &Path) -> Option<serde_json::Value> {
    let script = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/gltf_validator.mjs"
    ));
    // Where GLTF_VALIDATOR_DIR names an installed validator (as `.ci/run` arranges),
    // it must run; elsewhere its absence only skips this check.
    let required = std::env::var_os("GLTF_VALIDATOR_DIR").is_some();
    let out = match Command::new("node").arg(script).arg(file).output() {
        Ok(out) => out,
        Err(e) if required => panic!("GLTF_VALIDATOR_DIR is set but node cannot run: {e}"),
        Err(_) => return None,
    };
    if out.status.code() == Some(3) || !out.status.success() {
        let why = String::from_utf8_lossy(&out.stderr);
        assert!(
            !required,
            "GLTF_VALIDATOR_DIR is set but the validator did not run: {why}"
        );
        eprintln!("gltf-validator not run: {}", why.trim());
        return None;
    }
    serde_json::from_slice(&out.stdout).ok()
}

/// Error messages of a validator report.
pub fn validator_errors(report: &serde_json::Value) -> Vec<String> {
    report["issues"]["messages"]
        .as_array()
        .map(|m| {
            m.iter()
                .filter(|x| x["severity"] == 0)
                .map(|x| format!("{} {} {}", x["code"], x["pointer"], x["message"]))
                .collect()
        })
        .unwrap_or_default()
}

/// A `.glb` container holding `doc` and `bin` (GLB 2.0 layout).
pub fn glb(doc: &serde_json::Value, bin: &[u8]) -> Vec<u8> {
    let pad = |mut v: Vec<u8>, with: u8| {
        while !v.len().is_multiple_of(4) {
            v.push(with);
        }
        v
    };
    let text = pad(doc.to_string().into_bytes(), b' ');
    let bin = pad(bin.to_vec(), 0);
    let total = 12 + 8 + text.len() + 8 + bin.len();
    let mut out = b"glTF".to_vec();
    for word in [2, total as u32, text.len() as u32] {
        out.extend_from_slice(&word.to_le_bytes());
    }
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&text);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(&bin);
    out
}
