//! GOM models into the game's files (`.tmd` + `.tkl` + `.tml`): round trips of the shared
//! models, foreign models posed against their source, the game's rules on pieces and
//! strips, library sharing, big meshes, refusals and determinism.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use gom_import::jpog::export::{export, ExportError, ExportOptions, Exported};
use gom_import::jpog::{self as gj, Handedness, JpogOptions};
use gom_import::pose::{pose_model, PoseAt};
use gom_import::source::{import_path, ImportOptions};
use gom_test_support::model::{bone_chain, one_material_mesh};
use jpog::scene::decode_strip;
use jpog::{Tkl, Tmd};

fn shared(kind: &str) -> Option<PathBuf> {
    gom_test_support::shared_data(kind)
}

fn options(name: &str, handedness: Handedness) -> ExportOptions {
    ExportOptions {
        name: name.into(),
        handedness,
        ..ExportOptions::default()
    }
}

/// Writes the exported files and reads them back with the `jpog` readers.
fn written(e: &Exported) -> (Tmd, Tkl, jpog::Tml) {
    let (tmd, tkl, tml) = e.write().expect("written");
    (
        Tmd::read(&tmd).expect("tmd read back"),
        Tkl::read(&tkl).expect("tkl read back"),
        jpog::Tml::read(&tml).expect("tml read back"),
    )
}

/// Imports written game files back into GOM with the importer.
fn reimport(e: &Exported, h: Handedness) -> gom::Model {
    let (tmd, tkl, tml) = e.write().expect("written");
    let o = JpogOptions {
        handedness: h,
        texture_files: false,
        ..JpogOptions::default()
    };
    gj::convert(
        &tmd,
        "out.tmd",
        Some((&tkl, "out.tkl")),
        Some((&tml, "out.tml")),
        &o,
    )
    .expect("reimported")
    .model
}

fn shared_tmd(dir: &Path, stem: &str, h: Handedness) -> (Tmd, Option<Tkl>, gom::Model) {
    let bytes = std::fs::read(dir.join(format!("{stem}.tmd"))).unwrap();
    let tmd = Tmd::read(&bytes).unwrap();
    let tkl_bytes = std::fs::read(dir.join(format!("{}.tkl", tmd.header.tkl_name()))).ok();
    let tkl = tkl_bytes.as_deref().map(|b| Tkl::read(b).unwrap());
    let o = JpogOptions {
        handedness: h,
        texture_files: false,
        ..JpogOptions::default()
    };
    let model = gj::convert(
        &bytes,
        stem,
        tkl_bytes.as_deref().map(|b| (b, "lib")),
        None,
        &o,
    )
    .unwrap()
    .model;
    (tmd, tkl, model)
}

fn close(a: &[f32], b: &[f32], tol: f32) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol)
}

/// A vertex told apart by its stored values (bits of position, normal and uv).
type VKey = [u32; 8];

fn vkey(v: &jpog::scene::SkinnedVertex) -> VKey {
    let p = v.position.map(f32::to_bits);
    let n = v.normal.map(f32::to_bits);
    let u = v.uv.map(f32::to_bits);
    [p[0], p[1], p[2], n[0], n[1], n[2], u[0], u[1]]
}

/// Every LOD-0 triangle as vertex keys, rotated to start at its smallest key (winding
/// kept), sorted; and every vertex's influences by node name.
#[allow(clippy::type_complexity)]
fn geometry(t: &Tmd) -> (Vec<[VKey; 3]>, HashMap<VKey, BTreeMap<String, u8>>) {
    let names: Vec<String> = t.nodes.iter().map(|n| n.name()).collect();
    let mut tris = Vec::new();
    let mut weights = HashMap::new();
    for g in t.lod_geometry(0).unwrap() {
        for tri in &g.triangles {
            let k = tri.map(|i| vkey(&g.vertices[i as usize]));
            let m = (0..3).min_by_key(|&i| k[i]).unwrap();
            tris.push([k[m], k[(m + 1) % 3], k[(m + 2) % 3]]);
        }
        for v in &g.vertices {
            let mut w = BTreeMap::new();
            for s in 0..4 {
                if let Some(n) = v.nodes[s] {
                    *w.entry(names[n as usize].clone()).or_insert(0u8) += v.weights_u8[s];
                }
            }
            weights.insert(vkey(v), w);
        }
    }
    tris.sort_unstable();
    (tris, weights)
}

fn same_rotation(a: [f32; 4], b: [f32; 4], tol: f32) -> bool {
    close(&a, &b, tol) || close(&a, &b.map(|v| -v), tol)
}

/// Reads `tmd` (with `tkl`) into GOM, writes it back as game files and checks that they
/// hold the original's nodes, triangles, weights (within one step) and keys.
fn assert_round_trip(stem: &str, orig: Tmd, tkl: Option<Tkl>, model: gom::Model, h: Handedness) {
    {
        {
            let e = export(&model, &options("RoundTrip", h)).expect("exported");
            let (back, back_tkl, _) = written(&e);
            // nodes: names, parents, matrices and rest pose
            assert_eq!(back.nodes.len(), orig.nodes.len(), "{stem} {h:?}");
            let by_name: HashMap<String, &jpog::tmd::Node> =
                back.nodes.iter().map(|n| (n.name(), n)).collect();
            let parent_name = |t: &Tmd, n: &jpog::tmd::Node| {
                usize::try_from(n.parent).ok().map(|p| t.nodes[p].name())
            };
            for n in &orig.nodes {
                let b = by_name[&n.name()];
                assert_eq!(parent_name(&back, b), parent_name(&orig, n), "{}", n.name());
                assert!(
                    close(&b.bind, &n.bind, 1e-6),
                    "{stem} {h:?} {} bind",
                    n.name()
                );
                assert!(
                    close(&b.inverse_bind, &n.inverse_bind, 1e-6),
                    "{} inverse",
                    n.name()
                );
                assert!(
                    close(&b.rest_translation, &n.rest_translation, 1e-6),
                    "{}",
                    n.name()
                );
                assert!(
                    same_rotation(b.rest_rotation, n.rest_rotation, 1e-6),
                    "{}",
                    n.name()
                );
            }
            // triangles as sets with winding, weights within one step
            let (ot, ow) = geometry(&orig);
            let (bt, bw) = geometry(&back);
            assert_eq!(bt, ot, "{stem} {h:?} triangles");
            for (k, w) in &ow {
                let Some(b) = bw.get(k) else { continue };
                for (node, &q) in w.iter().filter(|(_, &q)| q > 0) {
                    let got = b.get(node).copied().unwrap_or(0);
                    assert!(got.abs_diff(q) <= 1, "{stem} {node}: {got} vs {q}");
                }
            }
            // the same animation values: both files read back into GOM clips
            if let Some(tkl) = tkl {
                let ra = orig.resolve_animations(&tkl).unwrap();
                let rb = back.resolve_animations(&back_tkl).unwrap();
                assert_eq!(ra.len(), rb.len());
                let again = reimport(&e, h);
                assert_eq!(again.clips.len(), model.clips.len());
                for (a, b) in model.clips.iter().zip(&again.clips) {
                    assert_eq!(a.name, b.name);
                    assert_eq!(a.duration, b.duration);
                    assert_eq!(a.tracks.len(), b.tracks.len(), "{}", a.name);
                    for (ta, tb) in a.tracks.iter().zip(&b.tracks) {
                        let bone =
                            |m: &gom::Model, i: u32| m.skeleton.bones[i as usize].name.clone();
                        assert_eq!(bone(&model, ta.bone), bone(&again, tb.bone));
                        // every key is kept; keys may be inserted between them so that
                        // interpolations agree
                        assert!(tb.keys.len() >= ta.keys.len());
                        for ka in &ta.keys {
                            let kb = tb.keys.iter().find(|k| k.time == ka.time);
                            let kb = kb.unwrap_or_else(|| panic!("{} {} lost", a.name, ka.time));
                            assert!(close(&ka.translation, &kb.translation, 1e-6), "{}", a.name);
                            assert!(same_rotation(ka.rotation, kb.rotation, 1e-6), "{}", a.name);
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn shared_models_round_trip_through_gom() {
    let Some(dir) = shared("jpog") else { return };
    for stem in ["tmd_creature", "tmd_static"] {
        for h in [Handedness::Right, Handedness::Left] {
            let (orig, tkl, model) = shared_tmd(&dir, stem, h);
            assert_round_trip(stem, orig, tkl, model, h);
        }
    }
}

/// Game files built in code (a 60-bone ribbon with several pieces and an animation,
/// and a static grid) read into GOM and written again give the same nodes, triangles,
/// weights and keys.
#[test]
fn code_built_models_round_trip_through_gom() {
    let mut grid = ribbon(3, 2, "Wave");
    grid.meshes[0].vertices.skin = None;
    grid.meshes[0].inverse_bind.clear();
    grid.skeleton.bones.clear();
    grid.clips.clear();
    for (label, source) in [("ribbon", ribbon(60, 2, "Wave_lp")), ("static", grid)] {
        for h in [Handedness::Right, Handedness::Left] {
            let e = export(&source, &options("Fixture", h)).expect("fixture");
            let (tmd, tkl, _) = e.write().unwrap();
            let o = JpogOptions {
                handedness: h,
                texture_files: false,
                ..JpogOptions::default()
            };
            let model = gj::convert(&tmd, label, Some((&tkl, "lib")), None, &o)
                .unwrap()
                .model;
            let orig = Tmd::read(&tmd).unwrap();
            assert!(orig.mesh.lods[0].meshes[0].pieces.len() > 1 || label == "static");
            assert_round_trip(label, orig, Some(Tkl::read(&tkl).unwrap()), model, h);
        }
    }
}

/// Largest distance between two points of a posed model (its box's diagonal).
fn diagonal(meshes: &[gom_import::pose::PosedMesh]) -> f32 {
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for p in meshes.iter().flat_map(|m| &m.positions) {
        for k in 0..3 {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    }
    (0..3)
        .map(|k| (hi[k] - lo[k]).max(0.0).powi(2))
        .sum::<f32>()
        .sqrt()
}

/// Poses the source and the game files read back at one moment and compares every
/// written vertex with the source vertex it came from. The tolerance: a skinned
/// position is `Σ wₖ Pₖ(v)`; quantising moves each of the four weights by less than one
/// step (1/255) while they still sum to 1, so the position moves by less than
/// `4/255 × max |Pₖ(v) − x|`, bounded here by the posed model's diagonal `D`; plus
/// `1e-4 × (1 + D)` for f32 rounding in the two skinning paths.
fn assert_same_pose(
    label: &str,
    src: &gom::Model,
    back: &gom::Model,
    e: &Exported,
    at: Option<(usize, f32)>,
) {
    let pose = |m: &gom::Model, c: Option<(usize, f32)>| {
        let at = PoseAt {
            clip: c.map(|(i, _)| m.clips[i].name.clone()),
            time: c.map_or(0.0, |(_, t)| t),
            looped: false,
        };
        pose_model(m, &at).expect("posed")
    };
    let a = pose(src, at);
    let b = pose(back, at);
    let d = diagonal(&a);
    let tol = 4.0 / 255.0 * d + 1e-4 * (1.0 + d);
    assert_eq!(b.len(), e.vertex_sources.len(), "{label}");
    for (mi, sources) in e.vertex_sources.iter().enumerate() {
        for (vi, &(part, v)) in sources.iter().enumerate() {
            let want = a[part].positions[v as usize];
            let got = b[mi].positions[vi];
            let err = (0..3)
                .map(|k| (want[k] - got[k]).powi(2))
                .sum::<f32>()
                .sqrt();
            assert!(
                err <= tol,
                "{label} {at:?}: mesh {mi} vertex {vi} off by {err} > {tol}"
            );
        }
    }
}

/// Whether a clip scales a bone by more than 1e-4 (the game's keys hold no scale;
/// smaller deviations are f32 noise in the samples, far inside the tolerance).
fn scales(c: &gom::Clip) -> bool {
    c.tracks
        .iter()
        .flat_map(|t| &t.keys)
        .any(|k| k.scale.iter().any(|&s| (s - 1.0).abs() > 1e-4))
}

fn check_foreign(path: &Path) {
    let label = path.file_name().unwrap().to_string_lossy().into_owned();
    let src = import_path(path, &ImportOptions::default())
        .expect("imported")
        .model;
    if src.meshes.iter().all(|m| m.indices.is_empty()) {
        eprintln!("{label}: no triangles, nothing to pose");
        return;
    }
    for h in [Handedness::Right, Handedness::Left] {
        let mut o = options("Foreign", h);
        o.rename = true;
        let e = export(&src, &o).unwrap_or_else(|err| panic!("{label}: {err}"));
        let back = reimport(&e, h);
        assert_same_pose(&label, &src, &back, &e, None);
        for (ci, clip) in src.clips.iter().enumerate() {
            if scales(clip) {
                eprintln!(
                    "{label}: clip {:?} scales bones; the game cannot",
                    clip.name
                );
                continue;
            }
            for k in 0..5 {
                let t = clip.duration * k as f32 / 4.0;
                assert_same_pose(&label, &src, &back, &e, Some((ci, t)));
            }
        }
    }
}

#[test]
fn gltf_samples_pose_like_their_source() {
    let Some(dir) = shared("gltf") else { return };
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "gltf"))
        .collect();
    names.sort();
    assert!(!names.is_empty());
    for p in names {
        check_foreign(&p);
    }
}

#[test]
fn skinned_fbx_samples_pose_like_their_source() {
    let Some(dir) = shared("fbx") else { return };
    for name in [
        "blender_279_sausage_7400_binary.fbx",
        "blender_293_half_skinned_7400_binary.fbx",
        "max_transformed_skin_7500_binary.fbx",
        "maya_game_sausage_7500_binary_wiggle.fbx",
        "maya_transformed_skin_7700_binary.fbx",
    ] {
        check_foreign(&dir.join(name));
    }
}

fn ribbon(bones: usize, segments: usize, clip: &str) -> gom::Model {
    let (skeleton, inverse) = bone_chain(bones, [0.0; 3], [1.0, 0.0, 0.0]);
    let mut m = gom::Model {
        skeleton,
        ..Default::default()
    };
    let cols = bones * segments + 1;
    let mut v = gom::Vertices::default();
    let (mut normals, mut uvs, mut skin) = (Vec::new(), Vec::new(), Vec::new());
    for c in 0..cols {
        for r in 0..2 {
            let x = c as f32 / segments as f32;
            v.positions.push([x, r as f32 * 0.5, 0.0]);
            normals.push([0.0, 0.0, -1.0]);
            uvs.push([x / bones as f32, r as f32]);
            let b0 = (c / segments).min(bones - 1);
            let bs = [0, 1, 2, 3].map(|k| ((b0 + k) % bones) as u16);
            skin.push(gom::SkinWeights {
                bones: bs,
                weights: [0.4, 0.3, 0.2, 0.1],
            });
        }
    }
    v.normals = Some(normals);
    v.uv0 = Some(uvs);
    v.skin = Some(skin);
    let mut indices = Vec::new();
    for c in 0..cols as u32 - 1 {
        let (a, b) = (2 * c, 2 * c + 2);
        indices.extend_from_slice(&[a, a + 1, b, b, a + 1, b + 1]);
    }
    one_material_mesh(&mut m, "Skin", v, indices, inverse);
    let bend = |t: f32| gom_demo::quat_from_axis_angle([0.0, 0.0, 1.0], 0.1 * t);
    m.clips.push(gom::Clip {
        weight_tracks: Vec::new(),
        name: clip.into(),
        duration: 1.0,
        sample_rate: 2.0,
        root_bone_index: -1,
        flags: gom::ClipFlags::default(),
        tracks: (0..bones as u32)
            .map(|b| gom::Track {
                bone: b,
                keys: [0.0f32, 0.5, 1.0]
                    .iter()
                    .map(|&t| gom::Key {
                        time: t,
                        translation: m.skeleton.bones[b as usize].bind_local[12..15]
                            .try_into()
                            .unwrap(),
                        rotation: bend(t + b as f32),
                        scale: [1.0; 3],
                    })
                    .collect(),
            })
            .collect(),
        compressed: None,
        extras: Default::default(),
    });
    m
}

#[test]
fn sixty_bones_split_into_valid_pieces_whose_strips_draw_exactly_their_triangles() {
    let model = ribbon(60, 3, "Wave");
    // the left-handed reading keeps the winding, so the game's triangles are the
    // source's as they are
    let e = export(&model, &options("Ribbon", Handedness::Left)).unwrap();
    let (back, _, _) = written(&e);
    let mesh = &back.mesh.lods[0].meshes;
    assert_eq!(mesh.len(), 1);
    let pieces = &mesh[0].pieces;
    assert!(pieces.len() > 1, "60 bones cannot share one palette");
    let verts: Vec<_> = mesh[0].vertices().copied().collect();
    let mut drawn = Vec::new();
    for p in pieces {
        assert!(p.palette.len() <= 28, "{} palette nodes", p.palette.len());
        assert!(p.strip.len() < 7500);
        for t in decode_strip(&p.strip).triangles {
            for &i in &t {
                let v = verts[i as usize];
                assert_eq!(v.weights.iter().map(|&w| u32::from(w)).sum::<u32>(), 255);
                for k in 0..4 {
                    if v.weights[k] > 0 {
                        assert!(usize::from(v.bones[k] / 3) < p.palette.len());
                    }
                }
            }
            drawn.push(t.map(|i| e.vertex_sources[0][i as usize].1));
        }
    }
    let src: Vec<[u32; 3]> = model.meshes[0]
        .indices
        .chunks(3)
        .map(|t| [t[0], t[1], t[2]])
        .collect();
    let canon = |v: &[[u32; 3]]| {
        let mut c: Vec<[u32; 3]> = v
            .iter()
            .map(|t| {
                let m = (0..3).min_by_key(|&k| t[k]).unwrap();
                [t[m], t[(m + 1) % 3], t[(m + 2) % 3]]
            })
            .collect();
        c.sort_unstable();
        c
    };
    assert_eq!(canon(&drawn), canon(&src));
}

#[test]
fn models_share_a_library_without_changing_its_keys() {
    let a = ribbon(6, 2, "Wave_lp");
    let b = ribbon(9, 1, "Bend");
    let ea = export(&a, &options("Herd", Handedness::Right)).unwrap();
    let (ta, lib_a, _) = written(&ea);
    let before = ta.resolve_animations(&lib_a).unwrap();
    let mut o = options("Other", Handedness::Right);
    o.tkl = Some(lib_a.clone());
    let eb = export(&b, &o).unwrap();
    let (tb, lib_ab, _) = written(&eb);
    assert_eq!(tb.header.tkl_name(), "Herd");
    assert!(lib_ab.locations.len() >= lib_a.locations.len());
    assert_eq!(
        &lib_ab.locations[..lib_a.locations.len()],
        &lib_a.locations[..]
    );
    assert_eq!(
        &lib_ab.rotations[..lib_a.rotations.len()],
        &lib_a.rotations[..]
    );
    assert_eq!(ta.resolve_animations(&lib_ab).unwrap(), before);
    // the second model's animation resolves in the shared library to its own values
    let mut ob = options("Other", Handedness::Right);
    ob.tkl = None;
    let alone = export(&b, &ob).unwrap();
    let (tb_alone, lib_b, _) = written(&alone);
    let values = |t: &Tmd, l: &Tkl| {
        t.resolve_animations(l)
            .unwrap()
            .iter()
            .flat_map(|a| {
                a.channels
                    .iter()
                    .flat_map(|c| c.keys.iter().map(|k| (k.time, k.translation, k.rotation)))
            })
            .map(|(t, l, r)| format!("{t:?} {l:?} {r:?}"))
            .collect::<Vec<_>>()
    };
    assert_eq!(values(&tb, &lib_ab), values(&tb_alone, &lib_b));
    // the same model added again adds nothing
    let mut o2 = options("Herd", Handedness::Right);
    o2.tkl = Some(lib_ab.clone());
    let (_, lib_again, _) = written(&export(&a, &o2).unwrap());
    assert_eq!(lib_again.locations.len(), lib_ab.locations.len());
    assert_eq!(lib_again.rotations.len(), lib_ab.rotations.len());
    assert_eq!(lib_again.write().unwrap(), lib_ab.write().unwrap());
}

#[test]
fn a_mesh_past_u16_indices_becomes_several_valid_meshes() {
    // a 260×260 grid: 67,600 vertices, more than 16-bit strip indices address; static
    let n = 260u32;
    let mut m = gom::Model::default();
    let mut v = gom::Vertices::default();
    for y in 0..n {
        for x in 0..n {
            v.positions.push([x as f32, 0.0, y as f32]);
        }
    }
    let mut indices = Vec::new();
    for y in 0..n - 1 {
        for x in 0..n - 1 {
            let i = y * n + x;
            indices.extend_from_slice(&[i, i + n, i + 1, i + 1, i + n, i + n + 1]);
        }
    }
    let count = indices.len();
    one_material_mesh(&mut m, "Ground", v, indices, Vec::new());
    let e = export(&m, &options("Grid", Handedness::Right)).unwrap();
    let (back, _, tml) = written(&e);
    let meshes = &back.mesh.lods[0].meshes;
    assert!(meshes.len() >= 2, "{} meshes", meshes.len());
    let mut tris = 0;
    for g in meshes {
        assert_eq!(g.material(), "Ground");
        assert!(g.vertex_count() <= 65_536);
        for p in &g.pieces {
            assert!(p.strip.len() < 7500);
            tris += decode_strip(&p.strip).triangles.len();
        }
    }
    assert_eq!(tris * 3, count);
    // a static model: one root node, every vertex weighted 255 to it
    assert_eq!(back.nodes.len(), 1);
    assert!(meshes
        .iter()
        .flat_map(|g| g.vertices())
        .all(|v| v.weights == [255, 0, 0, 0]));
    assert_eq!(tml.materials.len(), 1);
}

#[test]
fn a_long_bone_name_is_refused_without_rename() {
    let mut m = ribbon(3, 1, "Wave");
    m.skeleton.bones[1].name = "Sixteen_chars_ab".into();
    let err = export(&m, &options("Long", Handedness::Right)).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, ExportError::Refused { .. }));
    assert!(
        msg.contains("bone 1") && msg.contains("at most 15"),
        "{msg}"
    );
    let mut o = options("Long", Handedness::Right);
    o.rename = true;
    let e = export(&m, &o).unwrap();
    assert_eq!(e.tmd.nodes[1].name(), "Sixteen_chars_a");
    assert!(e.notes.iter().any(|n| n.contains("Sixteen_chars_ab")));
}

/// The exporter runs on the calling thread today; the pools check that it keeps giving
/// the same bytes, run after run, also if its work is ever shared out.
#[test]
fn the_same_model_gives_the_same_bytes_every_run_and_on_any_pool() {
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let e = export(
                &ribbon(40, 2, "Wave_lp"),
                &options("Same", Handedness::Right),
            )
            .unwrap();
            e.write().unwrap()
        })
    };
    let one = run(1);
    assert_eq!(run(4), one);
    assert_eq!(run(1), one);
}

#[test]
fn a_template_lends_its_game_fields_and_must_name_the_same_nodes() {
    let Some(dir) = shared("jpog") else { return };
    let (orig, _, model) = shared_tmd(&dir, "tmd_creature", Handedness::Right);
    let plain = export(&model, &options("Ddev", Handedness::Right)).unwrap();
    let mut o = options("Ddev", Handedness::Right);
    o.template = Some(orig.clone());
    let e = export(&model, &o).unwrap();
    let (back, _, _) = written(&e);
    assert_eq!(
        back.header.tkl_name, orig.header.tkl_name,
        "bytes after the NUL"
    );
    assert_eq!(
        (back.header.u3, back.header.u4),
        (orig.header.u3, orig.header.u4)
    );
    assert_eq!(back.mesh.lod_distance, orig.mesh.lod_distance);
    assert_eq!(back.mesh.lods[0].shader_type, orig.mesh.lods[0].shader_type);
    for n in &orig.nodes {
        let b = back.nodes.iter().find(|b| b.name() == n.name()).unwrap();
        assert_eq!(b.flag, n.flag, "{}", n.name());
    }
    // the creature's root is flagged; without a template no node is
    assert!(orig.nodes.iter().any(|n| n.flag != 0));
    assert!(plain.tmd.nodes.iter().all(|n| n.flag == 0));
    // a template of another creature is refused, naming a node
    let mut o = options("Ribbon", Handedness::Right);
    o.template = Some(orig);
    let err = export(&ribbon(3, 1, "Wave"), &o).unwrap_err().to_string();
    assert!(err.contains("template") && err.contains("node"), "{err}");
}

#[test]
fn a_clip_named_by_loop_gets_the_loop_suffix() {
    let mut m = ribbon(3, 1, "Wave");
    m.clips.push(gom::Clip {
        name: "Idle".into(),
        ..m.clips[0].clone()
    });
    let mut o = options("Loops", Handedness::Right);
    o.loop_clips = vec!["Wave".into()];
    let e = export(&m, &o).unwrap();
    let names: Vec<String> = e.tmd.animations.iter().map(|a| a.name()).collect();
    assert_eq!(names, ["Wave_lp", "Idle"]);
    assert!(e.tmd.animations[0].is_looping() && !e.tmd.animations[1].is_looping());
}

#[test]
fn material_names_equal_ignoring_case_become_unique_and_are_reported() {
    let mut m = ribbon(3, 1, "Wave");
    let part = m.meshes[0].clone();
    for name in ["skin", "Skin"] {
        one_material_mesh(
            &mut m,
            name,
            part.vertices.clone(),
            part.indices.clone(),
            part.inverse_bind.clone(),
        );
    }
    let e = export(&m, &options("Mats", Handedness::Right)).expect("exported");
    let (back, _, tml) = written(&e);
    let mut meshes: Vec<String> = back.mesh.lods[0]
        .meshes
        .iter()
        .map(|g| g.material())
        .collect();
    meshes.sort();
    assert_eq!(meshes, ["Skin", "Skin~3", "skin~2"]);
    let mut lib: Vec<String> = tml.materials.iter().map(|x| x.name()).collect();
    lib.sort();
    assert_eq!(lib, meshes, "each mesh finds its own material");
    for (from, to) in [("skin", "skin~2"), ("Skin", "Skin~3")] {
        let line = format!("\"{from}\" renamed (another has that name, ignoring case) to \"{to}\"");
        assert!(e.notes.iter().any(|n| n.contains(&line)), "{:?}", e.notes);
    }
}

/// A ribbon made into a surface: `cols × rows` vertices over a 60-bone chain, each
/// vertex weighted as the ribbon's, bending in a wave so that simplification has
/// something to keep.
fn sheet(cols: usize, rows: usize) -> gom::Model {
    let mut m = ribbon(60, 2, "Wave");
    let part = &mut m.meshes[0];
    let v = &mut part.vertices;
    let (mut pos, mut nrm, mut uv, mut skin) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let src_skin = v.skin.clone().unwrap();
    for c in 0..cols {
        for r in 0..rows {
            let x = c as f32 * 60.0 / (cols - 1) as f32;
            let y = r as f32 / (rows - 1) as f32;
            pos.push([x, y, (x * 0.7).sin() * 0.3 + (y * 3.0).cos() * 0.1]);
            nrm.push([0.0, 0.0, -1.0]);
            uv.push([x / 60.0, y]);
            let k = ((x * 2.0) as usize).min(src_skin.len() / 2 - 1) * 2;
            skin.push(src_skin[k]);
        }
    }
    let mut indices = Vec::new();
    for c in 0..cols as u32 - 1 {
        for r in 0..rows as u32 - 1 {
            let i = c * rows as u32 + r;
            let j = i + rows as u32;
            indices.extend_from_slice(&[i, i + 1, j, j, i + 1, j + 1]);
        }
    }
    v.positions = pos;
    v.normals = Some(nrm);
    v.uv0 = Some(uv);
    v.skin = Some(skin);
    part.submeshes[0].index_count = indices.len() as u32;
    part.indices = indices;
    m
}

#[test]
fn lods_halve_the_triangles_and_each_level_is_valid_and_reads_back() {
    let model = sheet(121, 9);
    let mut o = options("Levels", Handedness::Right);
    o.lods = 3;
    let e = export(&model, &o).expect("exported");
    let (back, tkl, tml) = written(&e);
    let lods = &back.mesh.lods;
    assert_eq!(lods.len(), 4);
    assert_eq!(back.mesh.lod_distance, gj::export::DEFAULT_LOD_DISTANCE);
    let mut counts = Vec::new();
    for (l, lod) in lods.iter().enumerate() {
        let mut tris = 0;
        for g in &lod.meshes {
            let verts: Vec<_> = g.vertices().copied().collect();
            assert!(verts.len() <= 65_536);
            for p in &g.pieces {
                assert!(p.palette.len() <= 28, "lod {l}: {} nodes", p.palette.len());
                assert!(p.strip.len() < 7500);
                let drawn = decode_strip(&p.strip).triangles;
                for t in &drawn {
                    for &i in t {
                        let v = verts[i as usize];
                        assert_eq!(v.weights.iter().map(|&w| u32::from(w)).sum::<u32>(), 255);
                        for k in 0..4 {
                            if v.weights[k] > 0 {
                                assert!(usize::from(v.bones[k] / 3) < p.palette.len());
                            }
                        }
                    }
                }
                tris += drawn.len();
            }
        }
        // the sphere holds every vertex of its level
        let [cx, cy, cz, r] = lod.sphere;
        for v in lod.meshes.iter().flat_map(|g| g.vertices()) {
            let d = ((v.position[0] - cx).powi(2)
                + (v.position[1] - cy).powi(2)
                + (v.position[2] - cz).powi(2))
            .sqrt();
            assert!(d <= r * (1.0 + 1e-5), "lod {l}");
        }
        counts.push(tris);
    }
    assert_eq!(counts[0], 120 * 8 * 2);
    for l in 1..counts.len() {
        let ratio = counts[l] as f32 / counts[l - 1] as f32;
        assert!(
            (0.35..=0.65).contains(&ratio),
            "lod {l}: {} of {} triangles",
            counts[l],
            counts[l - 1]
        );
    }
    // each level reads back through the importer, with its triangles and the skeleton
    let (tmd_bytes, tkl_bytes, tml_bytes) = e.write().unwrap();
    for (l, &count) in counts.iter().enumerate() {
        let jo = JpogOptions {
            handedness: Handedness::Right,
            texture_files: false,
            lod: l,
            ..JpogOptions::default()
        };
        let m = gj::convert(
            &tmd_bytes,
            "levels.tmd",
            Some((&tkl_bytes, "levels.tkl")),
            Some((&tml_bytes, "levels.tml")),
            &jo,
        )
        .unwrap_or_else(|err| panic!("lod {l}: {err}"))
        .model;
        let tris: usize = m.meshes.iter().map(|p| p.indices.len() / 3).sum();
        assert_eq!(tris, count, "lod {l}");
        assert_eq!(m.skeleton.bones.len(), 60);
        assert_eq!(m.clips.len(), 1);
    }
    assert_eq!(tkl.name(), "Levels");
    assert_eq!(tml.materials.len(), 1);
    // without --lods there is one level
    let one = export(&model, &options("Levels", Handedness::Right)).unwrap();
    assert_eq!(one.tmd.mesh.lods.len(), 1);
    // too many levels are refused, naming the option and the limit
    o.lods = gj::export::MAX_LOWER_LODS + 1;
    let err = export(&model, &o).unwrap_err().to_string();
    assert!(err.contains("--lods") && err.contains("at most 8"), "{err}");
}

#[test]
fn a_template_gives_every_level_its_lod_distance_and_shader_type() {
    let Some(dir) = shared("jpog") else { return };
    let (orig, _, model) = shared_tmd(&dir, "tmd_creature", Handedness::Right);
    let mut o = options("Ddev", Handedness::Right);
    o.template = Some(orig.clone());
    o.lods = 2;
    let e = export(&model, &o).unwrap();
    let (back, _, _) = written(&e);
    assert_eq!(back.mesh.lods.len(), 3);
    assert_eq!(back.mesh.lod_distance, orig.mesh.lod_distance);
    let last = orig.mesh.lods.last().unwrap().shader_type;
    for (k, l) in back.mesh.lods.iter().enumerate() {
        let want = orig.mesh.lods.get(k).map_or(last, |t| t.shader_type);
        assert_eq!(l.shader_type, want, "lod {k}");
    }
}

#[test]
fn meshes_binding_a_bone_differently_are_reported() {
    let mut m = ribbon(4, 1, "Wave");
    let part = m.meshes[0].clone();
    let mut moved = part.inverse_bind.clone();
    moved[2][12] += 0.5;
    one_material_mesh(
        &mut m,
        "Other",
        part.vertices.clone(),
        part.indices.clone(),
        moved,
    );
    let e = export(&m, &options("Binds", Handedness::Right)).unwrap();
    let about: Vec<&String> = e
        .notes
        .iter()
        .filter(|n| n.contains("inverse bind"))
        .collect();
    assert_eq!(about.len(), 1, "{:?}", e.notes);
    assert!(about[0].contains("bone 2 \"b2\"") && about[0].contains("\"other\""));
    // equal matrices give no note
    let same = export(&ribbon(4, 1, "Wave"), &options("Binds", Handedness::Right)).unwrap();
    assert!(!same.notes.iter().any(|n| n.contains("inverse bind")));
    // and the first mesh's matrix is the one written
    assert_eq!(e.tmd.nodes[2].inverse_bind, same.tmd.nodes[2].inverse_bind);
}

#[test]
fn blend_shapes_are_baked_at_their_default_weights_with_a_warning() {
    let model = gom_demo::with_morphs(gom_demo::build());
    let e = export(&model, &options("morph", Handedness::Right)).expect("exported");
    assert!(
        e.notes
            .iter()
            .any(|n| n.contains("\"tentacle\"") && n.contains("baked")),
        "{:?}",
        e.notes
    );
    // The same files as the model with the default weights baked by hand.
    let mut baked = model.clone();
    gom::morph::bake_defaults(&mut baked);
    assert_ne!(baked.meshes[0].vertices, model.meshes[0].vertices);
    let b = export(&baked, &options("morph", Handedness::Right)).expect("exported");
    assert_eq!(e.write().unwrap(), b.write().unwrap());
    let plain = export(&gom_demo::build(), &options("morph", Handedness::Right)).unwrap();
    assert_ne!(
        e.write().unwrap().0,
        plain.write().unwrap().0,
        "the bulge shows"
    );
}

#[test]
fn a_dual_quaternion_mesh_goes_to_tmd_as_linear_with_a_warning_naming_it() {
    let mut model = gom_demo::build();
    gom_test_support::model::skinned_with(&mut model, gom::SkinningMethod::DualQuaternion, false);
    let e = export(&model, &options("dq", Handedness::Right)).expect("exported");
    let warned: Vec<&String> = e
        .notes
        .iter()
        .filter(|n| n.contains("\"tentacle\"") && n.contains("linear blend skinning"))
        .collect();
    assert_eq!(warned.len(), 1, "{:?}", e.notes);
    // The files are those of the same model skinned linearly, and only that warning
    // is new.
    let plain = export(&gom_demo::build(), &options("dq", Handedness::Right)).unwrap();
    assert_eq!(e.write().unwrap(), plain.write().unwrap());
    assert_eq!(e.notes.len(), plain.notes.len() + 1, "{:?}", e.notes);
}
