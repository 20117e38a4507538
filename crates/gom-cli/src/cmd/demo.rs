//! `gom demo OUTDIR`: builds the procedural demo model and writes it.

use crate::input::{self, CliError};
use gom_import::build::write_atomic;
use gom_import::source::{export, OutputFormat};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `gom demo`.
#[derive(clap::Args)]
pub struct Args {
    /// The folder to write into (created when missing).
    outdir: PathBuf,
}

/// Runs `gom demo`.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    std::fs::create_dir_all(&args.outdir).map_err(|e| format!("{}: {e}", args.outdir.display()))?;
    let model = gom_demo::build();
    let mut ok = true;
    for (name, kind) in [
        ("demo.gom", OutputFormat::Gomb),
        ("demo.gomt", OutputFormat::Gomt),
    ] {
        let path = args.outdir.join(name);
        let (bytes, _) = export(&model, kind, &path)?;
        write_atomic(&path, &bytes)?;
        let read = input::load(&path, &gom_import::source::ImportOptions::default())?;
        // A second path: what was read must encode to the very same bytes.
        let (again, _) = export(&read.model, kind, &path)?;
        let verdict = if read.findings.is_empty() && again == bytes {
            "valid, reads back to the same bytes"
        } else {
            ok = false;
            "INVALID"
        };
        println!(
            "wrote {} ({} bytes): {verdict}",
            path.display(),
            bytes.len()
        );
    }
    // glTF for every viewer: read back through the glTF importer as a check.
    let glb_path = args.outdir.join("demo.glb");
    let (glb, _) = export(&model, OutputFormat::Glb, &glb_path)?;
    write_atomic(&glb_path, &glb)?;
    let back = gom_import::gltf::import(&glb_path, &Default::default())
        .map_err(|e| format!("{}: {e}", glb_path.display()))?;
    let glb_findings = gom::validate::validate(&back.0);
    let verdict = if glb_findings.is_empty() {
        "reads back as a valid model"
    } else {
        ok = false;
        "INVALID when read back"
    };
    println!(
        "wrote {} ({} bytes): {verdict}",
        glb_path.display(),
        glb.len()
    );
    // A picture of it: the swish clip as a filmstrip.
    let png_path = args.outdir.join("demo.png");
    let strip = gom_render::filmstrip(
        &model,
        &gom_render::FilmstripOptions {
            frames: 5,
            frame_size: (192, 256),
            ..gom_render::FilmstripOptions::new("swish")
        },
    )?;
    let png = gom_render::encode_png(&strip.image)?;
    write_atomic(&png_path, &png)?;
    println!(
        "wrote {} ({}x{}): the \"swish\" clip in {} frames",
        png_path.display(),
        strip.image.width(),
        strip.image.height(),
        strip.frames.len()
    );
    let keys: usize = model
        .clips
        .iter()
        .flat_map(|c| &c.tracks)
        .map(|t| t.keys.len())
        .sum();
    println!(
        "demo model: {} bones, {} meshes ({} vertices), {} materials, {} clips ({} keys)",
        model.skeleton.bones.len(),
        model.meshes.len(),
        model.meshes.iter().map(|m| m.vertices.len()).sum::<usize>(),
        model.materials.len(),
        model.clips.len(),
        keys
    );
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
