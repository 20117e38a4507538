//! `gom info FILE`: what a model holds.

use crate::input::{self, CliError};
use gom::layout::{Attribute, VertexLayout};
use gom::{Model, ValidationFlags, VertexFormat};
use serde_json::{json, Value};
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
}

/// Runs `gom info`: each file in turn (a blank line between them); a file that
/// cannot be read is reported and the others are still described (exit 2).
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let mut code = ExitCode::SUCCESS;
    for (i, file) in args.files.iter().enumerate() {
        if i > 0 && !args.json {
            println!();
        }
        if let Err(e) = describe_file(file, args.json) {
            if args.files.len() == 1 {
                return Err(e);
            }
            eprintln!("error: {e}");
            code = ExitCode::from(2);
        }
    }
    Ok(code)
}

/// Prints what `file` holds, as text or JSON.
fn describe_file(file: &Path, json: bool) -> Result<(), CliError> {
    if let Some(kind) = super::game_files::Library::of_path(file) {
        return super::game_files::info(file, kind, json);
    }
    let read = input::load(file)?;
    let mut warnings = read.warnings.clone();
    let is_tmd = file
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("tmd"));
    if is_tmd {
        warnings.extend(super::game_files::tmd_open_fields(file)?);
    }
    warnings.extend(read.findings.iter().map(|f| f.to_string()));
    let summary = describe(&read.model, &warnings);
    if json {
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        print_text(&file.display().to_string(), &read.model, &warnings);
    }
    Ok(())
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

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The model summary as JSON.
pub fn describe(model: &Model, warnings: &[String]) -> Value {
    let bones: Vec<Value> = model
        .skeleton
        .bones
        .iter()
        .map(|b| json!({ "name": b.name, "path": b.path, "parent": b.parent }))
        .collect();
    let meshes: Vec<Value> = model
        .meshes
        .iter()
        .map(|m| {
            let b = bounds_of(m);
            json!({
                "name": m.name,
                "vertexFormat": format_names(m.vertices.format()),
                "stride": m.vertices.format().stride(),
                "vertexCount": m.vertices.len(),
                "indexCount": m.indices.len(),
                "triangleCount": m.indices.len() / 3,
                "skinned": m.is_skinned(),
                "hasGBTM": m.mesh_bind_geo_to_model.is_some(),
                "submeshes": m.submeshes.iter().map(|s| json!({
                    "materialIndex": s.material_index,
                    "indexStart": s.index_start,
                    "indexCount": s.index_count,
                })).collect::<Vec<_>>(),
                "bounds": {
                    "min": b.aabb_min, "max": b.aabb_max,
                    "sphereCenter": b.sphere_center, "sphereRadius": b.sphere_radius,
                },
            })
        })
        .collect();
    let materials: Vec<Value> = model
        .materials
        .iter()
        .map(|m| {
            json!({
                "name": m.name,
                "baseColorTexture": m.base_color_texture,
                "baseColorFactor": m.base_color_factor,
            })
        })
        .collect();
    let clips: Vec<Value> = model
        .clips
        .iter()
        .map(|c| {
            let keys: usize = c.tracks.iter().map(|t| t.keys.len()).sum();
            json!({
                "name": c.name,
                "duration": c.duration,
                "sampleRate": c.sample_rate,
                "rootBoneIndex": c.root_bone_index,
                "hasRootMotion": c.flags.has_root_motion(),
                "trackCount": c.tracks.len(),
                "keyCount": keys,
                "tracks": c.tracks.iter().map(|t| json!({
                    "bone": t.bone,
                    "keys": t.keys.len(),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "converterVersion": model.header.converter_version,
        "sourceHash": hex(&model.header.source_hash),
        "validationFlags": flag_names(model.header.validation_flags),
        "skeleton": { "boneCount": bones.len(), "bones": bones },
        "materials": materials,
        "meshes": meshes,
        "clips": clips,
        "warnings": warnings,
    })
}

fn print_text(name: &str, model: &Model, warnings: &[String]) {
    println!("{name}");
    println!("  converter: {}", model.header.converter_version);
    println!("  source sha256: {}", hex(&model.header.source_hash));
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
        let per: Vec<String> = c
            .tracks
            .iter()
            .map(|t| format!("{}:{}", t.bone, t.keys.len()))
            .collect();
        println!("    keys per bone: {}", per.join(" "));
    }
    if !warnings.is_empty() {
        println!("warnings: {}", warnings.len());
        for w in warnings {
            println!("  {w}");
        }
    }
}
