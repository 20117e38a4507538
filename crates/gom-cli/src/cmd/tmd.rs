//! `gom tmd …`: inspect a Jurassic Park: Operation Genesis model (`.tmd`). The summary
//! comes from `jpog::ops`; this module parses arguments and prints.

use crate::input::CliError;
use std::path::PathBuf;
use std::process::ExitCode;

/// The `gom tmd` subcommands.
#[derive(clap::Subcommand)]
pub enum Command {
    /// Summarise a model: keyframe library, nodes, animations, LODs (with the LOD
    /// distance) and meshes, and each mesh's pieces: palette node names, strip length,
    /// triangles.
    Info {
        /// The model.
        file: PathBuf,
        /// Print JSON for scripts instead of text.
        #[arg(long)]
        json: bool,
        /// Also list every field whose meaning is open, with its stored value.
        #[arg(long)]
        open_fields: bool,
    },
}

/// Runs a `gom tmd` subcommand.
pub fn run(cmd: Command) -> Result<ExitCode, CliError> {
    match cmd {
        Command::Info {
            file,
            json,
            open_fields,
        } => {
            let bytes = std::fs::read(&file).map_err(|e| format!("{}: {e}", file.display()))?;
            let tmd = jpog::Tmd::read(&bytes).map_err(|e| format!("{}: {e}", file.display()))?;
            let info = jpog::ops::tmd_info(&tmd);
            let open = if open_fields {
                tmd.open_fields()
            } else {
                Vec::new()
            };
            if json {
                if open_fields {
                    let doc = serde_json::json!({ "info": info, "open_fields": open });
                    println!("{doc}");
                } else {
                    println!("{}", info.to_json());
                }
                return Ok(ExitCode::SUCCESS);
            }
            println!("{}", file.display());
            println!(
                "  keyframe library: {}",
                if info.tkl_name.is_empty() {
                    "(none)"
                } else {
                    &info.tkl_name
                }
            );
            println!(
                "  pointer layout: {} (raw base {:#x})",
                info.node_layout, info.raw_base
            );
            println!("  nodes: {}", info.nodes.len());
            for (i, (name, parent)) in info.nodes.iter().enumerate() {
                println!("    {i}: {name} (parent {parent})");
            }
            println!("  animations: {}", info.animations.len());
            for a in &info.animations {
                println!(
                    "    {}: {} s, {}{}",
                    a.name,
                    a.duration,
                    super::plural(a.keys, "key", "keys"),
                    if a.looping { ", loops" } else { "" }
                );
            }
            println!(
                "  LODs: {} (distance {})",
                info.lods.len(),
                info.lod_distance
            );
            for (l, lod) in info.lods.iter().enumerate() {
                println!(
                    "    lod {l}: shader type {}, {}",
                    lod.shader_type,
                    super::plural(lod.meshes.len(), "mesh", "meshes")
                );
                for m in &lod.meshes {
                    println!(
                        "      \"{}\": {}, {}, {} ({}), palette up to {}",
                        m.material,
                        super::plural(m.pieces, "piece", "pieces"),
                        super::plural(m.vertices, "vertex", "vertices"),
                        super::plural(m.triangles, "triangle", "triangles"),
                        super::plural(m.stitches, "stitch", "stitches"),
                        m.max_palette
                    );
                    for (k, p) in m.piece_details.iter().enumerate() {
                        println!(
                            "        piece {k}: strip of {} indices, {}, {}, palette ({}): {}",
                            p.strip_indices,
                            super::plural(p.triangles, "triangle", "triangles"),
                            super::plural(p.vertices, "vertex", "vertices"),
                            p.palette.len(),
                            p.palette_names.join(" ")
                        );
                    }
                }
            }
            println!("  open fields: {}", info.open_fields);
            for f in &open {
                println!("    {} {} at {}: {}", f.record, f.field, f.offset, f.value);
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}
