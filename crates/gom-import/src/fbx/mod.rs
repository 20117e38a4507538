//! FBX into GOM, through ufbx.
//!
//! [`convert`] loads an FBX file (binary or ASCII) with ufbx, asking it for GOM space
//! directly (D2: left-handed, +Y up, +X right, +Z forward, metres; the handedness change
//! is a mirror on Z applied to geometry and transforms alike), bakes geometric
//! transforms into the geometry and compensates non-standard inherit modes. It then
//! builds:
//!
//! * the skeleton: every skin-cluster bone, every animated node, the nodes carrying
//!   meshes in an animated model (and the nodes of skinned meshes with unweighted
//!   vertices), and all their ancestors, depth-first in source order;
//! * bind data from the skin clusters (never from FBX Pose objects);
//! * one mesh part per FBX mesh node (draft §6 rule M1), triangulated, welded, one
//!   submesh per material, ordered for the GPU;
//! * one clip per animation stack (clip time 0 = stack start), sampled at every source
//!   key and in between at about the sample rate, hemisphere-continuous, key-reduced
//!   ([`crate::optimize::keys`]). The curves are evaluated by gom itself (a port of
//!   ufbx's evaluation that uses `libm`, see `eval`), not by ufbx per sample.
//!
//! Two FBX situations get an explicit representation:
//! * a file without animation whose stored pose differs from the skin bind pose gets a
//!   zero-length clip [`STORED_POSE_CLIP`] holding the stored pose;
//! * a skinned mesh whose own node moves after binding follows its node as Maya does
//!   (see [`SkinnedMeshNodeMotion`]), through extra bones.
//!
//! Anything GOM v1 cannot hold (blend shapes, cameras, lights, animated non-transform
//! properties, extra UV or colour sets, a second skin deformer, dual-quaternion
//! skinning) is listed in the [`Report`]'s warnings; a static blend shape is baked into
//! the base geometry at its stored weight.
//!
//! Determinism (D11): the output depends only on the bytes and the options, at any
//! thread count and on any platform: sines and cosines come from `libm`, everything
//! else is plain IEEE arithmetic. (ufbx's own load does not evaluate trigonometry for
//! the data the converter reads, except for nodes whose transform properties are
//! driven by connections, which `eval` leaves to ufbx and the C library's `sin`/`cos`.)

mod anim;
mod eval;
mod follow;
mod mat;
mod mesh;
mod skeleton;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use sha2::{Digest, Sha256};

pub use follow::SkinnedMeshNodeMotion;

use crate::helper::{Helper, Task};
use crate::optimize::keys::KeyTolerance;
use crate::report::Report;

/// Conversion options.
#[derive(Debug, Clone, PartialEq)]
pub struct FbxOptions {
    /// Rate at which animation stacks are sampled, in samples per second (default 30).
    pub sample_rate: f32,
    /// Key-reduction tolerance (default 1 mm measured 10 cm beyond each joint's chain).
    pub key_tolerance: KeyTolerance,
    /// Whether to reduce keys at all (default true).
    pub reduce_keys: bool,
    /// Whether to order triangles and vertices for the GPU with meshoptimizer
    /// (default true).
    pub optimize_meshes: bool,
    /// For a file without animation whose stored node transforms differ from the skin
    /// bind pose (a posed but unanimated character): write the stored pose as a
    /// zero-length clip named [`STORED_POSE_CLIP`] (default true). The bind pose itself
    /// always comes from the skin clusters.
    pub stored_pose_clip: bool,
    /// Whether skinned meshes whose own node moves after binding move with it (see
    /// [`SkinnedMeshNodeMotion`]; default: as the file's authoring tool does).
    pub skinned_mesh_node_motion: SkinnedMeshNodeMotion,
}

/// Name of the clip that holds the file's stored pose (see
/// [`FbxOptions::stored_pose_clip`]).
pub const STORED_POSE_CLIP: &str = "stored pose";

impl Default for FbxOptions {
    fn default() -> Self {
        FbxOptions {
            sample_rate: 30.0,
            key_tolerance: KeyTolerance::default(),
            reduce_keys: true,
            optimize_meshes: true,
            stored_pose_clip: true,
            skinned_mesh_node_motion: SkinnedMeshNodeMotion::Auto,
        }
    }
}

/// Why an FBX file could not be converted.
#[derive(Debug, thiserror::Error)]
pub enum FbxError {
    /// ufbx could not read the file (not FBX, truncated, malformed).
    #[error("{file}: cannot read FBX: {description}")]
    Load {
        /// The name given to [`convert`].
        file: String,
        /// ufbx's description of the error.
        description: String,
    },
    /// The file is readable but exceeds what GOM v1 can hold.
    #[error("{file}: {message}")]
    Limit {
        /// The name given to [`convert`].
        file: String,
        /// What is exceeded.
        message: String,
    },
    /// The file loads but its content gives no valid GOM model (for example non-finite
    /// coordinates): the structural check a GOMB writer applies failed.
    #[error("{file}: converted model is not valid GOM: {message}")]
    Model {
        /// The name given to [`convert`].
        file: String,
        /// The writer's description of the problem.
        message: String,
    },
    /// An option is out of range.
    #[error("invalid option: {0}")]
    Option(String),
}

/// The ufbx load options that give GOM space directly (what [`convert`] loads with).
pub fn load_options() -> ufbx::LoadOpts<'static> {
    ufbx::LoadOpts {
        target_axes: ufbx::CoordinateAxes {
            right: ufbx::CoordinateAxis::PositiveX,
            up: ufbx::CoordinateAxis::PositiveY,
            // ufbx's `front` is the opposite of forward: GOM's +Z forward.
            front: ufbx::CoordinateAxis::NegativeZ,
        },
        target_unit_meters: 1.0,
        space_conversion: ufbx::SpaceConversion::ModifyGeometry,
        handedness_conversion_axis: ufbx::MirrorAxis::Z,
        geometry_transform_handling: ufbx::GeometryTransformHandling::ModifyGeometry,
        inherit_mode_handling: ufbx::InheritModeHandling::Compensate,
        clean_skin_weights: true,
        file_format: ufbx::FileFormat::Fbx,
        ..Default::default()
    }
}

/// Loads `bytes` with ufbx using [`load_options`].
pub(crate) fn load(bytes: &[u8], name: &str) -> Result<ufbx::SceneRoot, FbxError> {
    ufbx::load_memory(bytes, load_options()).map_err(|e| {
        let mut buf = vec![0u8; 2048];
        let n = ufbx::format_error(&mut buf, &e).min(buf.len());
        let text = String::from_utf8_lossy(&buf[..n]);
        // The first line is the summary; keep the rest (the error stack) compact.
        let description = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join("; ");
        FbxError::Load {
            file: name.to_string(),
            description,
        }
    })
}

/// Converts FBX bytes into a GOM model, with a report of what was done and dropped.
///
/// `name_for_errors` names the file in errors and in the report. The result depends
/// only on `bytes`, `options` and the converter version (D11), not on the number of
/// threads.
///
/// The calling thread does the work with one helper from rayon's current thread pool
/// (the global one unless the caller installed another): the helper hashes the source
/// while the file loads, then shares sampling, mesh parts and clip tracks, task by
/// task (see `helper` and docs/design.md). Large conversions use the whole pool
/// ([`PARALLEL_WORK`]).
pub fn convert(
    bytes: &[u8],
    name_for_errors: &str,
    options: &FbxOptions,
) -> Result<(gom::Model, Report), FbxError> {
    if !(options.sample_rate.is_finite()
        && options.sample_rate > 0.0
        && options.sample_rate <= 10_000.0)
    {
        return Err(FbxError::Option(format!(
            "sample rate {} is not in (0, 10000]",
            options.sample_rate
        )));
    }
    let tol = options.key_tolerance;
    if !(tol.tolerance.is_finite()
        && tol.tolerance >= 0.0
        && tol.distance.is_finite()
        && tol.distance >= 0.0)
    {
        return Err(FbxError::Option(format!(
            "key tolerance {tol:?} is not finite and non-negative"
        )));
    }
    // The source hash is computed beside the conversion (it needs only the bytes); the
    // scope ends once it is done, usually long before the conversion is.
    let hash = std::sync::OnceLock::new();
    let helper = Helper::new();
    let (started, left) = (AtomicBool::new(false), AtomicBool::new(false));
    let result = rayon::in_place_scope(|s| {
        s.spawn(|_| {
            started.store(true, Ordering::Release);
            let digest: [u8; 32] = Sha256::digest(bytes).into();
            let _ = hash.set(digest);
            helper.serve();
            left.store(true, Ordering::Release);
        });
        let result = {
            // Closed however the conversion ends.
            let _close = CloseOnDrop(&helper);
            convert_unhashed(bytes, name_for_errors, options, &helper)
        };
        // Let a running helper finish before the scope ends: a thread that waits at the
        // end of a scope sleeps, and waking it costs more than this wait. (A helper
        // still queued is left to the scope.)
        if started.load(Ordering::Acquire) {
            while !left.load(Ordering::Acquire) {
                if !matches!(rayon::yield_now(), Some(rayon::Yield::Executed)) {
                    std::hint::spin_loop();
                }
            }
        }
        result
    });
    let (mut model, report) = result?;
    model.header.source_hash = hash
        .get()
        .copied()
        .unwrap_or_else(|| Sha256::digest(bytes).into());
    Ok((model, report))
}

/// Closes a [`Helper`] when dropped.
struct CloseOnDrop<'a>(&'a Helper);

impl Drop for CloseOnDrop<'_> {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// The amount of work (node samples, track keys, vertices) from which a step runs on
/// rayon's whole pool rather than on the calling thread and its helper thread.
#[cfg(not(test))]
pub const PARALLEL_WORK: usize = 100_000;
/// Lower in the unit tests, so that the generated test file reaches it.
#[cfg(test)]
pub const PARALLEL_WORK: usize = 50_000;

/// [`convert`] without the source hash (left zero).
fn convert_unhashed(
    bytes: &[u8],
    name_for_errors: &str,
    options: &FbxOptions,
    helper: &Helper,
) -> Result<(gom::Model, Report), FbxError> {
    let scene = Arc::new(load(bytes, name_for_errors)?);
    let mut report = Report {
        source: name_for_errors.to_string(),
        ..Default::default()
    };
    for w in scene.metadata.warnings.iter() {
        let count = if w.count > 1 {
            format!(" ({} times)", w.count)
        } else {
            String::new()
        };
        report
            .loader_warnings
            .push(format!("{}{count}", &*w.description));
    }
    other_content_warnings(&scene, &mut report);

    let statics: Arc<Vec<eval::NodeStatic>> = Arc::new(
        scene
            .nodes
            .iter()
            .map(|n| eval::NodeStatic::new(&scene, n))
            .collect(),
    );
    let stored = eval::Stored::new(&scene, &statics);
    let stacks = anim::sample_stacks(&scene, &statics, &stored, options, &mut report, helper);
    let animated = anim::animated_nodes(&scene, &stored, &stacks);
    let model_animated = animated.iter().any(|a| *a);
    let mut skel = skeleton::build(&scene, &stored, &animated, model_animated, &mut report)
        .map_err(|message| FbxError::Limit {
            file: name_for_errors.to_string(),
            message,
        })?;
    let follow = follow::add_bones(
        &scene,
        &stored,
        &mut skel,
        &animated,
        options.skinned_mesh_node_motion,
        &mut report,
    );
    if skel.bones.len() > 4096 {
        return Err(FbxError::Limit {
            file: name_for_errors.to_string(),
            message: format!("{} bones, more than GOM v1 allows (4096)", skel.bones.len()),
        });
    }

    let mut model = gom::Model::default();
    model.header.converter_version = gom::CONVERTER_VERSION.to_string();
    model.skeleton.bones = skel.bones.clone();
    // Mesh parts and clip tracks are independent tasks: on this thread and the helper
    // (or rayon's pool, when large). What needs the report or the whole model is done
    // here, before and after.
    let prepared =
        mesh::prepare_meshes(&scene, &stored, &skel, &follow, model_animated, &mut report);
    let stacks = Arc::new(stacks);
    let (plan, track_tasks) = if model_animated {
        let skinned: Vec<_> = prepared
            .iter()
            .filter_map(|p| Some((&p.vertex_positions[..], p.vertex_skin.as_deref()?)))
            .collect();
        let (plan, tasks) = anim::track_tasks(&stacks, &skel, &skinned, options);
        (Some(plan), tasks)
    } else {
        (None, Vec::new())
    };
    let work = stacks
        .iter()
        .map(|s| s.times.len().saturating_mul(skel.bones.len()))
        .sum::<usize>()
        .saturating_add(prepared.iter().map(|p| p.vertex_positions.len()).sum());
    // First the parts' pieces (shading, corners, triangles), then welding each part
    // together with the clip tracks, so that both lists split evenly.
    let mut heads = Vec::with_capacity(prepared.len());
    let mut piece_tasks: Vec<Task<mesh::Piece>> = Vec::new();
    for p in prepared {
        let (head, pieces) = mesh::pieces(&scene, p);
        heads.push(head);
        piece_tasks.extend(pieces);
    }
    let mut pieces = run_tasks(helper, piece_tasks, work).into_iter();
    let optimize = options.optimize_meshes;
    let mut tasks: Vec<Task<Done>> = heads
        .into_iter()
        .filter_map(|head| {
            let p = [pieces.next()?, pieces.next()?, pieces.next()?];
            Some(
                Box::new(move || Done::Part(Box::new(mesh::assemble(head, p, optimize))))
                    as Task<Done>,
            )
        })
        .collect();
    tasks.extend(
        track_tasks
            .into_iter()
            .map(|t| Box::new(move || Done::Track(t())) as Task<Done>),
    );
    let (mut built, mut tracks) = (Vec::new(), Vec::new());
    for d in run_tasks(helper, tasks, work) {
        match d {
            Done::Part(b) => built.push(*b),
            Done::Track(t) => tracks.push(t),
        }
    }
    mesh::finish(&scene, built, &mut model, &mut report);
    if let Some(plan) = plan {
        model.clips =
            anim::build_clips(&stacks, &plan, tracks, &skel, &follow, options, &mut report);
    } else {
        for s in stacks.iter() {
            report.warn(format!(
                "animation stack \"{}\" moves no node: no clip written",
                s.name
            ));
        }
        if options.stored_pose_clip {
            if let Some(clip) = anim::stored_pose_clip(&stored, &skel, options, STORED_POSE_CLIP) {
                report.warn(format!(
                    "the stored pose differs from the skin bind pose for {} bone(s): written as the zero-length clip \"{STORED_POSE_CLIP}\"",
                    clip.tracks.len()
                ));
                report.clips.push(crate::report::ClipReport {
                    name: clip.name.clone(),
                    duration: 0.0,
                    tracks: clip.tracks.len(),
                    keys_before: clip.tracks.len() as u64,
                    keys_after: clip.tracks.len() as u64,
                });
                model.clips.push(clip);
            }
        }
    }
    report.bones = model.skeleton.bones.len();
    gom::validate::check_structure(&model).map_err(|e| FbxError::Model {
        file: name_for_errors.to_string(),
        message: e.to_string(),
    })?;
    Ok((model, report))
}

/// The outcome of one conversion task.
enum Done {
    Part(Box<mesh::Built>),
    Track(anim::TrackOut),
}

/// Runs `tasks`, results in task order: on this thread and the [`Helper`] while it
/// serves; on rayon's pool when the helper has left (a long load) and the work is worth
/// waking threads for ([`WAKE_WORK`]), or when it is large ([`PARALLEL_WORK`], where
/// more than two threads pay); serially otherwise. `work` counts node samples, track
/// keys and vertices.
pub(crate) fn run_tasks<T: Send + 'static>(
    helper: &Helper,
    tasks: Vec<Task<T>>,
    work: usize,
) -> Vec<T> {
    use rayon::prelude::*;
    if work >= PARALLEL_WORK || (work >= WAKE_WORK && !helper.is_serving()) {
        tasks.into_par_iter().map(|t| t()).collect()
    } else {
        helper.map(tasks)
    }
}

/// The work (see [`run_tasks`]) from which waking rayon's threads pays when the
/// [`Helper`] is not there: about 100 µs of sampling or reduction.
const WAKE_WORK: usize = 2_000;

/// A ufbx transform as a key at time 0.
pub(crate) fn anim_key(t: &ufbx::Transform) -> gom::Key {
    anim::key_of(0.0, t)
}

/// Warnings for scene content GOM v1 has no place for.
fn other_content_warnings(scene: &ufbx::Scene, report: &mut Report) {
    let counts = [
        (scene.cameras.count, "camera"),
        (scene.lights.count, "light"),
        (
            scene.nurbs_curves.count + scene.nurbs_surfaces.count,
            "NURBS object",
        ),
        (scene.line_curves.count, "line curve"),
        (scene.constraints.count, "constraint"),
        (scene.cache_deformers.count, "geometry cache"),
        (scene.audio_clips.count, "audio clip"),
    ];
    for (n, what) in counts {
        if n > 0 {
            report.warn(format!(
                "{n} {what}(s) not converted: GOM v1 has no place for them"
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_fbx_is_a_clean_error() {
        let err = convert(
            b"hello, this is not an FBX file",
            "x.txt",
            &FbxOptions::default(),
        )
        .unwrap_err();
        match &err {
            FbxError::Load { file, description } => {
                assert_eq!(file, "x.txt");
                assert!(!description.is_empty());
            }
            other => panic!("unexpected error {other:?}"),
        }
        assert!(err.to_string().starts_with("x.txt: cannot read FBX"));
        assert!(convert(&[], "empty.fbx", &FbxOptions::default()).is_err());
    }

    /// Large animations are sampled and reduced in parallel; the bytes are the same at
    /// every thread count, and the same as the serial path's.
    #[test]
    fn parallel_sampling_gives_the_same_bytes_at_every_thread_count() {
        // With constant extrapolation only: outside their keys some of its curves
        // extrapolate to NaN (as in ufbx), which no GOM file can hold. (It then holds
        // still outside its keys, so it has fewer samples than 10 kHz over the whole
        // stack would give: the unit tests' PARALLEL_WORK is lower than the library's.)
        let text = ["Type: 65", "Type: 75", "Type: 77", "Type: 82"]
            .iter()
            .fold(eval::tests::synthetic_fbx(), |t, e| {
                t.replace(e, "Type: 67")
            });
        let options = FbxOptions {
            sample_rate: 10_000.0,
            ..Default::default()
        };
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let (model, report) = pool
                .install(|| convert(text.as_bytes(), "synthetic.fbx", &options))
                .unwrap();
            (gom::gomb::write(&model).unwrap(), report)
        };
        let (one, report) = run(1);
        let keys: u64 = report.clips.iter().map(|c| c.keys_before).sum();
        assert!(
            keys as usize >= PARALLEL_WORK,
            "{keys} keys: the parallel path is not taken"
        );
        for threads in [2, 4] {
            assert!(run(threads).0 == one, "{threads} threads give other bytes");
        }
    }

    #[test]
    fn bad_options_are_rejected() {
        let o = FbxOptions {
            sample_rate: 0.0,
            ..Default::default()
        };
        assert!(matches!(convert(b"", "x", &o), Err(FbxError::Option(_))));
    }
}
