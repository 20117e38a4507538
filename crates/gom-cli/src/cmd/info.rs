//! `gom info FILE`: what a model holds.

use crate::input::{self, CliError};
use gom::layout::{Attribute, VertexLayout};
use gom::{Model, ValidationFlags, VertexFormat};
use gom_import::compress::CompressedSize;
use serde::Serialize;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `gom info`.
#[derive(clap::Args)]
pub struct Args {
    /// The models to describe.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Print JSON for scripts instead of text.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    tkl: super::TklArg,
}

/// Runs `gom info`: each file in turn (a blank line between them); a file that
/// cannot be read is reported and the others are still described (exit 2). With
/// `--json`, one JSON document: the file's, or for several files an array of them in
/// the order given; each names its `file`, and a file that cannot be read is an entry
/// of its `file` and `error`.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let mut code = ExitCode::SUCCESS;
    let mut docs = Vec::new();
    let options = args.tkl.options();
    for (i, file) in args.files.iter().enumerate() {
        if i > 0 && !args.json {
            println!();
        }
        let described = if args.json {
            describe_json(file, &options).map(|d| docs.push(named(file, d)))
        } else {
            describe_text(file, &options)
        };
        if let Err(e) = described {
            if args.files.len() == 1 {
                return Err(e);
            }
            eprintln!("error: {e}");
            if args.json {
                let error = input::reason(file, &e);
                docs.push(named(file, serde_json::json!({ "error": error })));
            }
            code = ExitCode::from(2);
        }
    }
    if args.json {
        let doc = match docs.len() {
            1 if args.files.len() == 1 => docs.remove(0),
            _ => Value::Array(docs),
        };
        println!("{}", serde_json::to_string_pretty(&doc)?);
    }
    Ok(code)
}

/// `doc` with the file it describes as its `file` member.
fn named(file: &Path, mut doc: Value) -> Value {
    if let Some(object) = doc.as_object_mut() {
        object.insert("file".to_string(), Value::from(file.display().to_string()));
    }
    doc
}

/// What reading a model said beside the model itself.
#[derive(Debug, Default)]
pub struct Notes {
    /// Reader and importer warnings and validation findings.
    pub warnings: Vec<String>,
    /// Facts that are no fault of the file: a `.tmd`'s open fields (kept verbatim,
    /// meaning unknown), which every file of the game has.
    pub information: Vec<String>,
}

/// What `file` holds, read with the warnings, findings and information its reading
/// gave.
fn read_model(
    file: &Path,
    options: &gom_import::source::ImportOptions,
) -> Result<(input::Loaded, Notes), CliError> {
    let read = input::load(file, options)?;
    let mut notes = Notes {
        warnings: read.warnings.clone(),
        information: Vec::new(),
    };
    let is_tmd = file
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("tmd"));
    if is_tmd {
        notes.information = super::game_files::tmd_open_fields(file)?;
    }
    notes
        .warnings
        .extend(read.findings.iter().map(|f| f.to_string()));
    Ok((read, notes))
}

/// Prints what `file` holds, as text.
fn describe_text(file: &Path, options: &gom_import::source::ImportOptions) -> Result<(), CliError> {
    if let Some(kind) = super::game_files::Library::of_path(file) {
        return super::game_files::info(file, kind);
    }
    let (read, notes) = read_model(file, options)?;
    print_text(&file.display().to_string(), &read.model, &notes);
    Ok(())
}

/// What `file` holds, as JSON.
fn describe_json(
    file: &Path,
    options: &gom_import::source::ImportOptions,
) -> Result<Value, CliError> {
    if let Some(kind) = super::game_files::Library::of_path(file) {
        return super::game_files::info_json(file, kind);
    }
    let (read, notes) = read_model(file, options)?;
    Ok(describe(&read.model, &notes))
}

/// The names of the attributes in a vertex format, in layout order.
pub fn format_names(f: VertexFormat) -> Vec<&'static str> {
    VertexLayout::of(f)
        .attributes()
        .map(Attribute::name)
        .collect()
}

/// The names of the validation flags that are set.
pub fn flag_names(f: ValidationFlags) -> Vec<&'static str> {
    let names = [
        (ValidationFlags::BIND_POSE_PASS, "bindPosePass"),
        (ValidationFlags::WEIGHTS_PASS, "weightsPass"),
        (
            ValidationFlags::SUBMESH_MATERIALS_PASS,
            "submeshMaterialsPass",
        ),
    ];
    names
        .iter()
        .filter(|(bit, _)| f.contains(*bit))
        .map(|(_, n)| *n)
        .collect()
}

/// The bounds the file stores, or (for a model converted on the fly) the ones a
/// writer would store.
fn bounds_of(m: &gom::MeshPart) -> gom::Bounds {
    m.bounds.unwrap_or_else(|| gom::bounds::compute_bounds(m))
}

/// What `gom info --json` prints for one model.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Summary<'a> {
    converter_version: &'a str,
    source_hash: String,
    validation_flags: Vec<&'static str>,
    skeleton: SkeletonSummary<'a>,
    materials: Vec<MaterialSummary<'a>>,
    meshes: Vec<MeshSummary<'a>>,
    clips: Vec<ClipSummary<'a>>,
    warnings: &'a [String],
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    information: &'a [String],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SkeletonSummary<'a> {
    bone_count: usize,
    bones: Vec<BoneSummary<'a>>,
}

#[derive(Serialize)]
struct BoneSummary<'a> {
    name: &'a str,
    path: &'a str,
    parent: i32,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MaterialSummary<'a> {
    name: &'a str,
    base_color_texture: Option<&'a str>,
    base_color_factor: [f32; 4],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MeshSummary<'a> {
    name: &'a str,
    vertex_format: Vec<&'static str>,
    stride: u32,
    vertex_count: usize,
    index_count: usize,
    triangle_count: usize,
    skinned: bool,
    #[serde(rename = "hasGBTM")]
    has_gbtm: bool,
    submeshes: Vec<SubmeshSummary>,
    bounds: BoundsSummary,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    morph_targets: Vec<super::info_morph::TargetSummary<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SubmeshSummary {
    material_index: i32,
    index_start: u32,
    index_count: u32,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct BoundsSummary {
    min: [f32; 3],
    max: [f32; 3],
    sphere_center: [f32; 3],
    sphere_radius: f32,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ClipSummary<'a> {
    name: &'a str,
    duration: f32,
    sample_rate: f32,
    root_bone_index: i32,
    has_root_motion: bool,
    track_count: usize,
    key_count: usize,
    tracks: Vec<TrackSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    compressed: Option<CompressedSize>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    weight_tracks: Vec<super::info_morph::WeightTrackSummary<'a>>,
    /// An additive clip's reference pose (`the bind pose`, `clip "NAME" at T s`).
    #[serde(skip_serializing_if = "Option::is_none")]
    additive: Option<String>,
    /// Float tracks: name, components, interpolation, keys.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    float_tracks: Vec<FloatTrackSummary<'a>>,
    /// Events in time order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    events: Vec<EventSummary<'a>>,
}

#[derive(Serialize)]
struct FloatTrackSummary<'a> {
    name: &'a str,
    components: u32,
    interpolation: &'static str,
    keys: usize,
}

#[derive(Serialize)]
struct EventSummary<'a> {
    time: f32,
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    payload: Option<&'a str>,
}

#[derive(Serialize)]
struct TrackSummary {
    bone: u32,
    keys: usize,
}

fn mesh_summary(m: &gom::MeshPart) -> MeshSummary<'_> {
    let b = bounds_of(m);
    MeshSummary {
        name: &m.name,
        vertex_format: format_names(m.vertices.format()),
        stride: m.vertices.format().stride(),
        vertex_count: m.vertices.len(),
        index_count: m.indices.len(),
        triangle_count: m.indices.len() / 3,
        skinned: m.is_skinned(),
        has_gbtm: m.mesh_bind_geo_to_model.is_some(),
        submeshes: m
            .submeshes
            .iter()
            .map(|s| SubmeshSummary {
                material_index: s.material_index,
                index_start: s.index_start,
                index_count: s.index_count,
            })
            .collect(),
        bounds: BoundsSummary {
            min: b.aabb_min,
            max: b.aabb_max,
            sphere_center: b.sphere_center,
            sphere_radius: b.sphere_radius,
        },
        morph_targets: super::info_morph::targets(m),
    }
}

fn clip_summary<'a>(model: &'a Model, c: &'a gom::Clip, bones: usize) -> ClipSummary<'a> {
    ClipSummary {
        name: &c.name,
        duration: c.duration,
        sample_rate: c.sample_rate,
        root_bone_index: c.root_bone_index,
        has_root_motion: c.flags.has_root_motion(),
        track_count: c.tracks.len(),
        key_count: c.tracks.iter().map(|t| t.keys.len()).sum(),
        tracks: c
            .tracks
            .iter()
            .map(|t| TrackSummary {
                bone: t.bone,
                keys: t.keys.len(),
            })
            .collect(),
        compressed: CompressedSize::of(c, bones),
        weight_tracks: super::info_morph::tracks(model, c),
        additive: c.extras.additive.as_ref().map(|r| r.to_string()),
        float_tracks: c
            .extras
            .float_tracks
            .iter()
            .map(|t| FloatTrackSummary {
                name: &t.name,
                components: t.components,
                interpolation: t.interpolation.name(),
                keys: t.times.len(),
            })
            .collect(),
        events: c
            .extras
            .events
            .iter()
            .map(|e| EventSummary {
                time: e.time,
                name: &e.name,
                payload: e.payload.as_deref(),
            })
            .collect(),
    }
}

/// The model summary as JSON (`information` only when there is some).
pub fn describe(model: &Model, notes: &Notes) -> Value {
    let bones: Vec<BoneSummary> = model
        .skeleton
        .bones
        .iter()
        .map(|b| BoneSummary {
            name: &b.name,
            path: &b.path,
            parent: b.parent,
        })
        .collect();
    let summary = Summary {
        converter_version: &model.header.converter_version,
        source_hash: hex::encode(model.header.source_hash),
        validation_flags: flag_names(model.header.validation_flags),
        skeleton: SkeletonSummary {
            bone_count: bones.len(),
            bones,
        },
        materials: model
            .materials
            .iter()
            .map(|m| MaterialSummary {
                name: &m.name,
                base_color_texture: m.base_color_texture.as_deref(),
                base_color_factor: m.base_color_factor,
            })
            .collect(),
        meshes: model.meshes.iter().map(mesh_summary).collect(),
        clips: model
            .clips
            .iter()
            .map(|c| clip_summary(model, c, model.skeleton.bones.len()))
            .collect(),
        warnings: &notes.warnings,
        information: &notes.information,
    };
    // Plain strings, numbers and arrays: serialising cannot fail (a non-finite float,
    // which the readers refuse, would become `null`).
    serde_json::to_value(summary).unwrap_or(Value::Null)
}

fn print_text(name: &str, model: &Model, notes: &Notes) {
    println!("{name}");
    println!("  converter: {}", model.header.converter_version);
    println!("  source sha256: {}", hex::encode(model.header.source_hash));
    let flags = flag_names(model.header.validation_flags);
    println!(
        "  validation flags: {}",
        if flags.is_empty() {
            "none".to_string()
        } else {
            flags.join(", ")
        }
    );
    let bones = model.skeleton.bones.len();
    println!("skeleton: {}", super::plural(bones, "bone", "bones"));
    for (i, b) in model.skeleton.bones.iter().enumerate() {
        println!(
            "  [{i:>3}] {:<24} parent {:>3}  {}",
            b.name, b.parent, b.path
        );
    }
    println!("materials: {}", model.materials.len());
    for (i, m) in model.materials.iter().enumerate() {
        let [r, g, b, a] = m.base_color_factor;
        println!(
            "  [{i}] {}  color ({r}, {g}, {b}, {a}){}",
            m.name,
            m.base_color_texture
                .as_deref()
                .map(|t| format!("  texture {t}"))
                .unwrap_or_default()
        );
    }
    println!("meshes: {}", model.meshes.len());
    for m in &model.meshes {
        let f = m.vertices.format();
        let b = bounds_of(m);
        println!(
            "  {}: {} ({}; {} each), {}, {}{}",
            m.name,
            super::plural(m.vertices.len(), "vertex", "vertices"),
            format_names(f).join(" "),
            super::plural(f.stride() as usize, "byte", "bytes"),
            super::plural(m.indices.len() / 3, "triangle", "triangles"),
            if m.is_skinned() { "skinned" } else { "static" },
            if m.mesh_bind_geo_to_model.is_some() {
                ", GBTM"
            } else {
                ""
            }
        );
        println!(
            "    bounds min {:?} max {:?}, sphere {:?} r {}",
            b.aabb_min, b.aabb_max, b.sphere_center, b.sphere_radius
        );
        for s in &m.submeshes {
            println!(
                "    submesh material {:>2}: indices {}..{}",
                s.material_index,
                s.index_start,
                s.index_start + s.index_count
            );
        }
        super::info_morph::print_targets(m);
    }
    println!("clips: {}", model.clips.len());
    for c in &model.clips {
        let keys: usize = c.tracks.iter().map(|t| t.keys.len()).sum();
        println!(
            "  {}: {} s at {} Hz, {}, {}{}",
            c.name,
            c.duration,
            c.sample_rate,
            super::plural(c.tracks.len(), "track", "tracks"),
            super::plural(keys, "key", "keys"),
            if c.flags.has_root_motion() {
                format!(", root motion on bone {}", c.root_bone_index)
            } else {
                String::new()
            }
        );
        if let Some(z) = CompressedSize::of(c, model.skeleton.bones.len()) {
            println!("    compressed: {z}");
        }
        if let Some(r) = &c.extras.additive {
            println!("    additive: deltas from {r}");
        }
        for t in &c.extras.float_tracks {
            println!(
                "    float track {}: {} component{}, {}, {}",
                t.name,
                t.components,
                if t.components == 1 { "" } else { "s" },
                t.interpolation.name(),
                super::plural(t.times.len(), "key", "keys")
            );
        }
        for e in &c.extras.events {
            match &e.payload {
                Some(p) => println!("    event at {} s: {} ({p})", e.time, e.name),
                None => println!("    event at {} s: {}", e.time, e.name),
            }
        }
        let per: Vec<String> = c
            .tracks
            .iter()
            .map(|t| format!("{}:{}", t.bone, t.keys.len()))
            .collect();
        println!("    keys per bone: {}", per.join(" "));
        super::info_morph::print_tracks(model, c);
    }
    for (title, lines) in [
        ("warnings", &notes.warnings),
        ("information", &notes.information),
    ] {
        if !lines.is_empty() {
            println!("{title}: {}", lines.len());
            for line in lines {
                println!("  {line}");
            }
        }
    }
}
