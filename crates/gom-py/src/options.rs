//! The keyword options of `gom.convert`, `gom.build` and `gom.load`: the `gom`
//! command's flags by the same names (`--key-tolerance-mm` is `key_tolerance_mm`),
//! turned into the library's [`ImportOptions`] as the command line turns them, and
//! the `.tmd` output's options. The Python layer passes them as one JSON object.

use std::path::PathBuf;

use gom_import::source::ImportOptions;
use serde_json::{Map, Value};

use crate::error::{GomError, Result};

/// Flags whose [`ImportOptions`] field has the flag's name and takes its value as is
/// (the field's serde form: a number, a bool, a path, a list of `OLD=NEW` texts…).
const SAME_NAME: &[&str] = &[
    "sample_rate",
    "compress",
    "lod",
    "tkl",
    "tml",
    "anim",
    "bone_map",
    "keep_translations",
    "clip",
    "rename_clip",
    "clip_range",
    "root_motion",
    "additive",
    "event",
    "scale",
    "up",
    "forward",
    "unit",
];

/// Flags whose field has another name (and for lengths another unit): flag, field,
/// how the value becomes the field's.
const RENAMED: &[(&str, &str, Convert)] = &[
    ("key_tolerance_mm", "key_tolerance", Convert::Divide(1000.0)),
    (
        "key_tolerance_distance_cm",
        "key_tolerance_distance",
        Convert::Divide(100.0),
    ),
    ("no_optimize", "optimize_meshes", Convert::Not),
    ("handedness", "jpog_handedness", Convert::Same),
    ("channel_flag3", "jpog_channel_flag3", Convert::Same),
    ("drop_end_sites", "bvh_drop_end_sites", Convert::Same),
];

/// The options only a `.tmd` output takes (`gom convert … OUT.tmd`).
const TMD: &[&str] = &["tkl_out", "tkl_name", "loop", "template", "rename", "lods"];

#[derive(Clone, Copy)]
enum Convert {
    Same,
    Not,
    Divide(f64),
}

/// A `.tmd` output's options, as `gom convert`'s flags give them.
#[derive(Debug, Default, Clone)]
pub struct TmdOptions {
    /// Where the keyframe library is written instead of over `tkl`.
    pub tkl_out: Option<PathBuf>,
    /// The new keyframe library's name.
    pub tkl_name: Option<String>,
    /// Clips the game loops.
    pub loop_clips: Vec<String>,
    /// The model being replaced.
    pub template: Option<PathBuf>,
    /// Shorten names over the game's limits.
    pub rename: bool,
    /// Lower levels of detail to add.
    pub lods: usize,
}

/// Every option of one call, parsed.
#[derive(Debug, Clone)]
pub struct Options {
    /// The import's options.
    pub import: ImportOptions,
    /// The `.tmd` output's.
    pub tmd: TmdOptions,
    /// The names of the `.tmd` output's options the caller gave.
    pub tmd_given: Vec<String>,
    /// The options the caller named that only this call (not the import) takes.
    pub rest: Map<String, Value>,
}

/// Parses `json` (an object of option names and values); `extra` names the options
/// this call takes besides the import's and the `.tmd` output's (they are left in
/// [`Options::rest`]).
pub fn parse(json: &str, extra: &[&str], tmd_allowed: bool) -> Result<Options> {
    let given: Map<String, Value> = serde_json::from_str(json)
        .map_err(|e| GomError::option(format!("the options are not a JSON object: {e}")))?;
    let defaults = serde_json::to_value(ImportOptions::default())
        .map_err(|e| GomError::option(format!("the default options: {e}")))?;
    let Value::Object(mut fields) = defaults else {
        return Err(GomError::option("the default options are not an object"));
    };
    let mut tmd = Map::new();
    let mut rest = Map::new();
    for (name, value) in given {
        if value.is_null() {
            continue;
        }
        if SAME_NAME.contains(&name.as_str()) {
            fields.insert(name, value);
        } else if let Some((_, field, convert)) = RENAMED.iter().find(|(f, _, _)| *f == name) {
            fields.insert(field.to_string(), converted(&name, value, *convert)?);
        } else if tmd_allowed && TMD.contains(&name.as_str()) {
            tmd.insert(name, value);
        } else if extra.contains(&name.as_str()) {
            rest.insert(name, value);
        } else {
            return Err(unknown(&name, extra, tmd_allowed));
        }
    }
    let import: ImportOptions = serde_json::from_value(Value::Object(fields))
        .map_err(|e| GomError::option(format!("invalid option: {e}")))?;
    check_numbers(&import)?;
    let tmd_given = tmd.keys().cloned().collect();
    Ok(Options {
        import,
        tmd: tmd_options(tmd)?,
        tmd_given,
        rest,
    })
}

/// Refuses what the command line's number parsers refuse.
fn check_numbers(o: &ImportOptions) -> Result<()> {
    let finite = [
        ("sample_rate", o.sample_rate),
        ("key_tolerance_mm", o.key_tolerance),
        ("key_tolerance_distance_cm", o.key_tolerance_distance),
        ("scale", o.scale),
    ];
    for (name, v) in finite {
        if !v.is_finite() {
            return Err(GomError::option(format!(
                "{name}: {v} is not a finite number"
            )));
        }
    }
    if o.key_tolerance < 0.0 || o.key_tolerance_distance < 0.0 {
        return Err(GomError::option(
            "key_tolerance_mm and key_tolerance_distance_cm must not be negative",
        ));
    }
    Ok(())
}

fn converted(name: &str, value: Value, convert: Convert) -> Result<Value> {
    match convert {
        Convert::Same => Ok(value),
        Convert::Not => value
            .as_bool()
            .map(|b| Value::Bool(!b))
            .ok_or_else(|| GomError::option(format!("{name}: expected True or False"))),
        Convert::Divide(by) => value
            .as_f64()
            .map(|v| serde_json::json!(v / by))
            .ok_or_else(|| GomError::option(format!("{name}: expected a number"))),
    }
}

fn unknown(name: &str, extra: &[&str], tmd_allowed: bool) -> GomError {
    let mut known: Vec<&str> = SAME_NAME.to_vec();
    known.extend(RENAMED.iter().map(|(f, _, _)| *f));
    if tmd_allowed {
        known.extend(TMD);
    }
    known.extend(extra);
    known.sort_unstable();
    GomError::option(format!(
        "unknown option `{name}` (the options are: {})",
        known.join(", ")
    ))
}

fn tmd_options(given: Map<String, Value>) -> Result<TmdOptions> {
    let text = |name: &str| -> Result<Option<String>> {
        match given.get(name) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(GomError::option(format!(
                "{name}: expected a text or a path"
            ))),
        }
    };
    let loop_clips = match given.get("loop") {
        None => Vec::new(),
        Some(Value::String(s)) => vec![s.clone()],
        Some(v) => serde_json::from_value(v.clone())
            .map_err(|_| GomError::option("loop: expected a clip name or a list of them"))?,
    };
    let rename = match given.get("rename") {
        None => false,
        Some(v) => v
            .as_bool()
            .ok_or_else(|| GomError::option("rename: expected True or False"))?,
    };
    let lods = match given.get("lods") {
        None => 0,
        Some(v) => v
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| GomError::option("lods: expected a whole number, 0 or more"))?,
    };
    Ok(TmdOptions {
        tkl_out: text("tkl_out")?.map(PathBuf::from),
        tkl_name: text("tkl_name")?,
        loop_clips,
        template: text("template")?.map(PathBuf::from),
        rename,
        lods,
    })
}
