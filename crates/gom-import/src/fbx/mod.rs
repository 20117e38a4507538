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
//! * one mesh part per FBX mesh node (docs/format.md §2.7), triangulated, welded, one
//!   submesh per material, ordered for the GPU;
//! * one clip per animation stack (clip time 0 = stack start), sampled at every source
//!   key and in between at about the sample rate, hemisphere-continuous, key-reduced
//!   ([`crate::optimize::keys`]). The curves are evaluated by gom itself (a port of
//!   ufbx's evaluation that uses `libm`, see `eval`), not by ufbx per sample.
//!
//! Three FBX situations get an explicit representation:
//! * a file without animation whose stored pose differs from the skin bind pose gets a
//!   zero-length clip [`STORED_POSE_CLIP`] holding the stored pose (in an animated
//!   file every clip keys the stored pose of the bones it does not move);
//! * a skinned mesh whose own node moves after binding follows its node as Maya does
//!   (see [`SkinnedMeshNodeMotion`]), through extra bones;
//! * a skin that binds a joint at another pose than an earlier skin is skinned through
//!   extra bones that sit on their joints (`rebind`).
//!
//! Blend shapes become morph targets (the `MRPH` extension, one target per keyframe
//! shape, in-betweens by FBX's rule) and their animated `DeformPercent` weight tracks
//! (`MWGT`), docs/extensions.md §4.4. Anything else GOM cannot hold (cameras, lights,
//! animated non-transform properties, extra UV or colour sets, a second skin deformer)
//! is listed in the [`Report`]'s warnings. Dual-quaternion and blended skinning and up to eight influences are
//! kept with the `SKNX` extension (docs/extensions.md §3).
//!
//! Determinism (D11): the output depends only on the bytes and the options, at any
//! thread count and on any platform: sines and cosines come from `libm`, everything
//! else is plain IEEE arithmetic. (ufbx's own load does not evaluate trigonometry for
//! the data the converter reads, except for nodes whose transform properties are
//! driven by connections, which `eval` leaves to ufbx and the C library's `sin`/`cos`.)

mod anim;
mod custom_props;
mod eval;
mod follow;
mod mat;
mod mesh;
mod rebind;
mod shape_anim;
mod skeleton;
mod textures;
mod times;

use sha2::{Digest, Sha256};

pub use follow::SkinnedMeshNodeMotion;

use crate::imported::SideFile;
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
#[non_exhaustive]
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
    /// The file holds more bones than GOM v1 allows.
    #[error("{file}: {bones} bones, more than GOM v1 allows ({max})")]
    TooManyBones {
        /// The name given to [`convert`].
        file: String,
        /// The bones the skeleton needs (at least `max + 1`).
        bones: usize,
        /// The limit, [`gom::limits::MAX_BONES`].
        max: u32,
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

/// The space the file's header declares, as [`load_options`] converts from it: its
/// right, up and (the opposite of ufbx's `front`) forward axes, and its unit. Axes
/// the file leaves unknown read as ufbx's default (Y up, Z front).
fn declared_space(settings: &ufbx::SceneSettings) -> crate::pipeline::SourceSpace {
    use crate::pipeline::Axis;
    use ufbx::CoordinateAxis as C;
    let axis = |a: C, default: Axis, negate: bool| {
        let a = match a {
            C::PositiveX => Axis::PosX,
            C::NegativeX => Axis::NegX,
            C::PositiveY => Axis::PosY,
            C::NegativeY => Axis::NegY,
            C::PositiveZ => Axis::PosZ,
            C::NegativeZ => Axis::NegZ,
            C::Unknown => default,
        };
        let v = if negate { -a.vector() } else { a.vector() };
        Axis::of_vector(v).unwrap_or(a)
    };
    let unit = settings.unit_meters;
    crate::pipeline::SourceSpace {
        right: axis(settings.axes.right, Axis::PosX, false),
        up: axis(settings.axes.up, Axis::PosY, false),
        forward: axis(settings.axes.front, Axis::PosZ, true),
        unit_metres: if unit.is_finite() && unit > 0.0 {
            unit
        } else {
            1.0
        },
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
/// The source hash runs beside the conversion on rayon's current thread pool (the
/// global one unless the caller installed another); the conversion itself runs on the
/// calling thread, and its sampling, mesh and track steps spread over the pool when
/// they are large (100,000 node samples, vertices or track keys).
///
/// A material whose texture the file embeds names it by a safe file name
/// (`<stem>_image<k>.<ext>`); [`convert_with_images`] also returns those images.
pub fn convert(
    bytes: &[u8],
    name_for_errors: &str,
    options: &FbxOptions,
) -> Result<(gom::Model, Report), FbxError> {
    convert_with(bytes, name_for_errors, options, PARALLEL_WORK).map(|(m, r, _)| (m, r))
}

/// [`convert`], with the images the file embeds that the materials name, each as
/// the side file of the name the model uses (bytes unchanged).
pub fn convert_with_images(
    bytes: &[u8],
    name_for_errors: &str,
    options: &FbxOptions,
) -> Result<(gom::Model, Report, Vec<SideFile>), FbxError> {
    convert_with(bytes, name_for_errors, options, PARALLEL_WORK)
}

/// [`convert`], with the steps whose work reaches `parallel_work` spread over rayon's
/// pool.
fn convert_with(
    bytes: &[u8],
    name_for_errors: &str,
    options: &FbxOptions,
    parallel_work: usize,
) -> Result<(gom::Model, Report, Vec<SideFile>), FbxError> {
    check_options(options)?;
    // The source hash needs only the bytes: a free thread of the pool computes it while
    // this one loads the file (with one thread, it runs when the conversion is done).
    let mut hash: Option<[u8; 32]> = None;
    let result = rayon::in_place_scope(|s| {
        s.spawn(|_| hash = Some(Sha256::digest(bytes).into()));
        convert_unhashed(bytes, name_for_errors, options, parallel_work)
    });
    let (mut model, report, images) = result?;
    model.header.source_hash = hash.unwrap_or_else(|| Sha256::digest(bytes).into());
    Ok((model, report, images))
}

/// Rejects options out of range.
fn check_options(options: &FbxOptions) -> Result<(), FbxError> {
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
            "key tolerance {} mm measured {} mm from the joint: both must be finite and \
             not negative",
            tol.tolerance * 1000.0,
            tol.distance * 1000.0
        )));
    }
    Ok(())
}

/// The amount of work (node samples, track keys, vertices) from which a step runs on
/// rayon's whole pool rather than on the calling thread alone: about 6 ms of sampling
/// (a node sample costs 60–80 ns, docs/performance.md), against the 5–20 µs it takes
/// to wake a sleeping thread. Smaller steps run serially: a typical file's steps take
/// 10–50 µs each, where waking threads does not pay.
const PARALLEL_WORK: usize = 100_000;

/// `f` over `items`, results in order: on rayon's pool when `parallel`, on the calling
/// thread otherwise. Each result depends only on its item, so the output is the same
/// either way (D11).
pub(crate) fn map_in_order<T: Send, U: Send>(
    items: Vec<T>,
    parallel: bool,
    f: impl Fn(T) -> U + Sync + Send,
) -> Vec<U> {
    use rayon::prelude::*;
    if parallel {
        items.into_par_iter().map(f).collect()
    } else {
        items.into_iter().map(f).collect()
    }
}

/// [`convert`] without the source hash (left zero).
fn convert_unhashed(
    bytes: &[u8],
    name_for_errors: &str,
    options: &FbxOptions,
    parallel_work: usize,
) -> Result<(gom::Model, Report, Vec<SideFile>), FbxError> {
    let scene = load(bytes, name_for_errors)?;
    let mut report = Report {
        source: name_for_errors.to_string(),
        ..Default::default()
    };
    loader_warnings(&scene, &mut report);
    other_content_warnings(&scene, &mut report);
    report.source_space = Some(declared_space(&scene.settings));

    let statics: Vec<eval::NodeStatic> = scene
        .nodes
        .iter()
        .map(|n| eval::NodeStatic::new(&scene, n))
        .collect();
    let stored = eval::Stored::new(&scene, &statics);
    let stacks = anim::sample_stacks(
        &scene,
        &statics,
        &stored,
        options,
        &mut report,
        parallel_work,
    );
    let animated = anim::animated_nodes(&scene, &stored, &stacks);
    let model_animated = animated.iter().any(|a| *a);
    let mut skel = skeleton::build(
        &scene,
        &stored,
        &animated,
        model_animated,
        name_for_errors,
        &mut report,
    )?;
    let mut follow = follow::add_bones(
        &scene,
        &stored,
        &mut skel,
        &animated,
        options.skinned_mesh_node_motion,
        &mut report,
    );
    rebind::add_bones(&scene, &mut skel, &mut follow, &mut report);
    skeleton::check_bone_count(skel.bones.len(), name_for_errors)?;

    let mut model = gom::Model::default();
    model.header.converter_version = gom::CONVERTER_VERSION.to_string();
    model.skeleton.bones = skel.bones.clone();
    let prepared =
        mesh::prepare_meshes(&scene, &stored, &skel, &follow, model_animated, &mut report);
    let plan = model_animated.then(|| {
        let skinned: Vec<_> = prepared
            .iter()
            .filter_map(|p| Some((&p.vertex_positions[..], p.vertex_skin.as_deref()?)))
            .collect();
        anim::ClipPlan::new(&stacks, &skel, &skinned, options)
    });
    let vertices: usize = prepared.iter().map(|p| p.vertex_positions.len()).sum();
    let optimize = options.optimize_meshes;
    let built = map_in_order(prepared, vertices >= parallel_work, |p| {
        mesh::build(&scene, p, optimize)
    });
    let mut embedded = textures::Embedded::new(name_for_errors);
    let morph_sources = mesh::finish(&scene, built, &mut model, &mut report, &mut embedded);
    match plan {
        Some(plan) => {
            let tracks = plan.tracks(&stacks, &skel, options, parallel_work);
            model.clips =
                anim::build_clips(&stacks, &plan, tracks, &skel, &follow, options, &mut report);
        }
        None => unanimated_clips(
            &stacks,
            &stored,
            &skel,
            &follow.held,
            options,
            &mut model,
            &mut report,
        ),
    }
    shape_anim::add_weight_tracks(&scene, &morph_sources, options, &mut model, &mut report);
    custom_props::add_float_tracks(&scene, options, &mut model, &mut report);
    default_axes_when_undeclared(&scene.settings, &mut model, &mut report);
    report.bones = model.skeleton.bones.len();
    report.warn_if_empty(&model);
    gom::validate::check_structure(&model).map_err(|e| FbxError::Model {
        file: name_for_errors.to_string(),
        message: e.to_string(),
    })?;
    Ok((model, report, embedded.images))
}

/// A file that declares no axes (FBX before 6.1 has no `GlobalSettings`) is left by
/// ufbx as it is, so without this it would come out mirrored next to the same scene
/// saved by a later version. It is read in FBX's documented default axes (X right,
/// Y up, Z towards the viewer: right-handed), which [`load_options`] would have turned
/// into GOM's left-handed space by mirroring z, and the report says so.
fn default_axes_when_undeclared(
    settings: &ufbx::SceneSettings,
    model: &mut gom::Model,
    report: &mut Report,
) {
    if ufbx::coordinate_axes_valid(settings.axes) {
        return;
    }
    crate::gltf::convert::mirror_model(model);
    report.warn(
        "the file declares no axes (FBX before 6.1): read in FBX's default axes, Y up and \
         Z towards the viewer, right-handed (--up and --forward say otherwise)",
    );
}

/// ufbx's load warnings, into the report.
fn loader_warnings(scene: &ufbx::Scene, report: &mut Report) {
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
}

/// The clips of a model no stack moves: none, or the stored pose
/// ([`FbxOptions::stored_pose_clip`]).
fn unanimated_clips(
    stacks: &[anim::SampledStack],
    stored: &eval::Stored,
    skel: &skeleton::Skel,
    held: &[usize],
    options: &FbxOptions,
    model: &mut gom::Model,
    report: &mut Report,
) {
    for s in stacks {
        report.clip_moves_no_node("animation stack", &s.name);
    }
    if !options.stored_pose_clip {
        return;
    }
    let Some(clip) = anim::stored_pose_clip(stored, skel, held, options, STORED_POSE_CLIP) else {
        return;
    };
    let extra = if held.is_empty() {
        String::new()
    } else {
        format!(
            " (and {} extra bone(s) of meshes bound elsewhere)",
            held.len()
        )
    };
    report.warn(format!(
        "the stored pose differs from the skin bind pose for {} bone(s){extra}: written as the zero-length clip \"{STORED_POSE_CLIP}\"",
        clip.tracks.len() - held.len()
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

    /// Sampling, meshes and tracks give the same bytes on rayon's pool as on the
    /// calling thread alone, at every thread count.
    #[test]
    fn parallel_steps_give_the_serial_bytes_at_every_thread_count() {
        // With constant extrapolation only: outside their keys some of its curves
        // extrapolate to NaN (as in ufbx), which no GOM file can hold.
        let text = ["Type: 65", "Type: 75", "Type: 77", "Type: 82"]
            .iter()
            .fold(eval::tests::synthetic_fbx(), |t, e| {
                t.replace(e, "Type: 67")
            });
        let options = FbxOptions {
            sample_rate: 10_000.0,
            ..Default::default()
        };
        let run = |bytes: &[u8], threads: usize, parallel_work: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let convert = || convert_with(bytes, "test.fbx", &options, parallel_work);
            let (model, report, _) = pool.install(convert).unwrap();
            (gom::gomb::write(&model).unwrap(), report)
        };
        let (serial, report) = run(text.as_bytes(), 1, usize::MAX);
        let keys: u64 = report.clips.iter().map(|c| c.keys_before).sum();
        assert!(keys >= 10_000, "{keys} keys: too few to share");
        for threads in [1, 2, 4] {
            let shared = run(text.as_bytes(), threads, 0).0;
            assert!(shared == serial, "{threads} threads give other bytes");
        }
        // Meshes too (the generated file has none).
        for path in eval::tests::shared_fbx_files() {
            let bytes = std::fs::read(&path).unwrap();
            let (serial, report) = run(&bytes, 1, usize::MAX);
            let shared = run(&bytes, 2, 0).0;
            assert!(shared == serial, "{}: other bytes", path.display());
            assert!(!report.meshes.is_empty(), "{}: no mesh", path.display());
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
