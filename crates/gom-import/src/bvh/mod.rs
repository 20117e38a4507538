//! BVH (Biovision Hierarchy) motion capture into GOM.
//!
//! [`convert`] reads the text (any ASCII whitespace, LF, CR LF or lone CR line endings,
//! mixed), builds the skeleton from `HIERARCHY` and one clip from `MOTION`:
//!
//! * every `ROOT` and `JOINT` is a bone, in file order; every `End Site` is a leaf bone
//!   named after its parent with `_End` appended (a game attaches to them) unless
//!   [`BvhOptions::end_sites`] is false;
//! * the bind pose is the `OFFSET` pose, what BVH tools take as rest (a first frame
//!   that is a T-pose is not assumed);
//! * a joint's channels may come in any order and number (0 to 6, translation on any
//!   joint); rotations are intrinsic Euler angles in the file's channel order, in
//!   degrees; position channels are added to the joint's `OFFSET` (files whose root
//!   `OFFSET` is zero read the same either way; a file exported with a non-zero root
//!   offset keeps its feet on the floor only this way);
//! * frame `k` is at `k × Frame Time`; the clip's sample rate is `1 / Frame Time`; a
//!   key per frame for every joint with channels, reduced like any clip
//!   ([`crate::optimize::keys`]); a joint whose channels never leave its bind pose
//!   gets no track;
//! * lengths are read as [`UNIT_METRES`] (centimetres: BVH has no unit field; the
//!   pipeline's `--unit` and `--scale` say otherwise), and the file's right-handed,
//!   Y-up axes are mirrored on Z into GOM space, as glTF's are ([`SOURCE_SPACE`]).
//!
//! Every error names the file; errors in the text name the line and column
//! ([`BvhError`]). Nothing in the input can make the reader panic, recurse or allocate
//! more than the text justifies (values are read one a word; the nesting is kept on
//! the heap; the hierarchy stops at GOM's bone limit).

mod build;
mod error;
mod lexer;
mod parse;

use sha2::{Digest, Sha256};

pub use error::{BvhError, BvhErrorKind};

use crate::optimize::keys::KeyTolerance;
use crate::pipeline::{Axis, SourceSpace};
use crate::report::Report;

/// The length of one BVH file unit when nothing says otherwise: a centimetre, the
/// unit of iClone, MotionBuilder and most re-exported mocap libraries.
pub const UNIT_METRES: f64 = 0.01;

/// The space the importer reads a BVH file in: right-handed, Y up, mirrored on Z
/// (the file's −Z becomes GOM's forward), [`UNIT_METRES`] a unit.
pub const SOURCE_SPACE: SourceSpace = SourceSpace {
    right: Axis::PosX,
    up: Axis::PosY,
    forward: Axis::NegZ,
    unit_metres: UNIT_METRES,
};

/// Conversion options.
#[derive(Debug, Clone, PartialEq)]
pub struct BvhOptions {
    /// Keep `End Site`s as leaf bones (default true).
    pub end_sites: bool,
    /// Key-reduction tolerance (default 1 mm measured 10 cm beyond each joint's chain).
    pub key_tolerance: KeyTolerance,
    /// Whether to reduce keys at all (default true).
    pub reduce_keys: bool,
    /// Metres one file unit becomes once the pipeline's `--unit` and `--scale` are
    /// applied, for the report's skeleton height (default [`UNIT_METRES`]).
    pub report_metres_per_unit: f64,
}

impl Default for BvhOptions {
    fn default() -> Self {
        BvhOptions {
            end_sites: true,
            key_tolerance: KeyTolerance::default(),
            reduce_keys: true,
            report_metres_per_unit: UNIT_METRES,
        }
    }
}

impl BvhOptions {
    /// The options [`crate::source::ImportOptions`] select.
    pub fn from_import(options: &crate::source::ImportOptions) -> BvhOptions {
        let unit = options.unit.map_or(UNIT_METRES, |u| u.metres());
        BvhOptions {
            end_sites: !options.bvh_drop_end_sites,
            key_tolerance: options.reduction_tolerance(),
            reduce_keys: options.reduces_keys(),
            report_metres_per_unit: unit * f64::from(options.scale),
        }
    }
}

/// What a BVH conversion read and made.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BvhReport {
    /// The report every importer gives.
    pub report: Report,
    /// `ROOT` and `JOINT` blocks.
    pub joints: usize,
    /// `End Site` blocks.
    pub end_sites: usize,
    /// Whether the End Sites became bones.
    pub end_sites_kept: bool,
    /// Values per frame.
    pub channels: usize,
    /// `Frames:`.
    pub frames: u64,
    /// `Frame Time:` in seconds.
    pub frame_time: f64,
    /// The largest side of the box around the joints in the `OFFSET` pose, in file
    /// units.
    pub height_units: f64,
    /// The same in metres, at [`BvhOptions::report_metres_per_unit`].
    pub height_metres: f64,
    /// [`BvhOptions::report_metres_per_unit`].
    pub metres_per_unit: f64,
}

impl BvhReport {
    /// The report as JSON: [`Report::to_json`] with a `bvh` object.
    pub fn to_json(&self) -> serde_json::Value {
        let mut value = self.report.to_json();
        let bvh = serde_json::json!({
            "joints": self.joints,
            "endSites": self.end_sites,
            "endSitesKept": self.end_sites_kept,
            "channels": self.channels,
            "frames": self.frames,
            "frameTime": self.frame_time,
            "heightUnits": self.height_units,
            "heightMetres": self.height_metres,
            "metresPerUnit": self.metres_per_unit,
        });
        if let Some(object) = value.as_object_mut() {
            object.insert("bvh".to_string(), bvh);
        }
        value
    }

    /// [`Report::summary`] with the BVH file's counts and the skeleton's height, which
    /// shows a wrong unit at once.
    pub fn summary(&self) -> Vec<String> {
        let mut lines = self.report.summary();
        let kept = if self.end_sites_kept {
            "kept"
        } else {
            "dropped"
        };
        lines.push(format!(
            "  bvh: {} joints, {} End Sites ({kept}), {} channels, {} frames of {} s",
            self.joints, self.end_sites, self.channels, self.frames, self.frame_time
        ));
        lines.push(format!(
            "  skeleton height {:.3} m ({:.3} file units at {} m a unit; --unit and --scale change it)",
            self.height_metres, self.height_units, self.metres_per_unit
        ));
        lines
    }
}

/// Converts BVH text into a GOM model (a skeleton and at most one clip, named after
/// `name_for_errors`'s file stem), with a report. The result depends only on `bytes`
/// and `options` (D11).
pub fn convert(
    bytes: &[u8],
    name_for_errors: &str,
    options: &BvhOptions,
) -> Result<(gom::Model, BvhReport), BvhError> {
    let file = name_for_errors;
    let tol = options.key_tolerance;
    let finite = |v: f32| v.is_finite() && v >= 0.0;
    if !(finite(tol.tolerance) && finite(tol.distance)) {
        return Err(BvhError::Option(format!(
            "key tolerance {tol:?} is not finite and non-negative"
        )));
    }
    let bvh = parse::parse(bytes, options.end_sites).map_err(|e| BvhError::Syntax {
        file: file.to_string(),
        line: e.line,
        column: e.column,
        kind: e.kind,
    })?;
    let (bones, bone_of) = build::bones(&bvh, options.end_sites);
    if let Some(b) = bones
        .iter()
        .find(|b| b.bind_local.iter().any(|v| !v.is_finite()))
    {
        return Err(BvhError::Invalid {
            file: file.to_string(),
            record: format!("joint \"{}\"", b.name),
            problem: "its OFFSET overflows f32".into(),
        });
    }
    let clip_name = std::path::Path::new(file).file_stem().map_or_else(
        || "motion".to_string(),
        |s| s.to_string_lossy().into_owned(),
    );
    let clip = build::clip(&bvh, &bones, &bone_of, &clip_name, file, options)?;
    let height_units = build::bind_extent(&bvh);
    let end_sites = bvh.joints.iter().filter(|j| j.end_site).count();
    let mut model = gom::Model::default();
    model.header.converter_version = gom::CONVERTER_VERSION.to_string();
    model.header.source_hash = Sha256::digest(bytes).into();
    let mut report = BvhReport {
        report: Report {
            source: file.to_string(),
            bones: bones.len(),
            source_space: Some(SOURCE_SPACE),
            ..Default::default()
        },
        joints: bvh.joints.len() - end_sites,
        end_sites,
        end_sites_kept: options.end_sites,
        channels: bvh.channels,
        frames: bvh.frames,
        frame_time: bvh.frame_time,
        height_units,
        height_metres: height_units * options.report_metres_per_unit,
        metres_per_unit: options.report_metres_per_unit,
    };
    model.skeleton.bones = bones;
    if let Some((clip, clip_report)) = clip {
        model.clips.push(clip);
        report.report.clips.push(clip_report);
    }
    Ok((model, report))
}
