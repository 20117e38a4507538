//! `gom render`: pictures of a model, a pose, a clip as a filmstrip, or a whole folder
//! as a contact sheet.

use crate::input::{self, CliError};
use gom_render::{Filter, Image, TextureSource, View};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `gom render`.
#[derive(clap::Args)]
pub struct Args {
    /// The model to draw (any format gom reads); omit with --sheet.
    #[arg(required_unless_present = "sheet")]
    file: Option<PathBuf>,
    /// Draw this clip instead of the bind pose.
    #[arg(long)]
    clip: Option<String>,
    /// Time in seconds within the clip; outside the clip it is clamped to the clip
    /// (with a note), or wrapped with --loop.
    #[arg(
        long,
        default_value_t = 0.0,
        requires = "clip",
        allow_hyphen_values = true,
        value_parser = super::finite_f32
    )]
    time: f32,
    /// Wrap a --time outside the clip into it instead of clamping it.
    #[arg(long = "loop", requires = "clip")]
    looped: bool,
    /// A filmstrip of this many poses spread across the clip.
    #[arg(long, requires = "clip")]
    frames: Option<u32>,
    /// Image size, `WIDTHxHEIGHT`, or the size of each cell of a filmstrip or contact
    /// sheet [default: 512x512 for one picture, 256x256 per cell]
    #[arg(long, value_parser = parse_size)]
    size: Option<(u32, u32)>,
    /// Camera direction: front, side, top or three-quarter.
    #[arg(long, default_value = "three-quarter", value_parser = parse_view)]
    view: View,
    /// Draw the skeleton on top: bones as lines, joints as dots.
    #[arg(long)]
    skeleton: bool,
    /// Leave out the ground grid.
    #[arg(long)]
    no_grid: bool,
    /// Base-colour textures from this JPOG material library, by material name (at
    /// least one of its materials must be one of the model's).
    #[arg(long)]
    tml: Option<PathBuf>,
    #[command(flatten)]
    tkl: super::TklArg,
    /// A contact sheet of every model in this folder, each with its name.
    #[arg(long, conflicts_with_all = ["file", "clip", "frames"])]
    sheet: Option<PathBuf>,
    /// An animation of the clip, looping: an animated PNG, or a GIF when the output
    /// ends in `.gif`; each frame is the picture `--time` gives at that frame's time.
    #[arg(long, requires = "clip", conflicts_with_all = ["frames", "time", "sheet"])]
    animate: bool,
    /// An animation of every clip in turn, each under its name (implies --animate).
    #[arg(long, conflicts_with_all = ["clip", "frames", "time", "sheet"])]
    all_clips: bool,
    /// Frames per second of an animation (at most 100) [default: each clip's sample
    /// rate].
    #[arg(long, allow_hyphen_values = true, value_parser = super::finite_f32)]
    fps: Option<f32>,
    /// The PNG file to write (an animation: `.png` or `.gif`); `-` writes the PNG (an
    /// animation: an animated PNG) to standard output.
    #[arg(short, long)]
    output: PathBuf,
}

/// The size of one picture when --size is not given.
const PICTURE_SIZE: (u32, u32) = (512, 512);
/// The size of each filmstrip or contact-sheet cell when --size is not given.
const CELL_SIZE: (u32, u32) = (256, 256);

fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("'{s}' is not WIDTHxHEIGHT"))?;
    let w: u32 = w.parse().map_err(|_| format!("bad width in '{s}'"))?;
    let h: u32 = h.parse().map_err(|_| format!("bad height in '{s}'"))?;
    if w == 0 || h == 0 || w > 16384 || h > 16384 {
        return Err(format!("'{s}': each side must be 1..=16384"));
    }
    Ok((w, h))
}

fn parse_view(s: &str) -> Result<View, String> {
    Ok(match s {
        "front" => View::Front,
        "side" => View::Side,
        "top" => View::Top,
        "three-quarter" | "threequarter" | "3/4" => View::ThreeQuarter,
        _ => {
            return Err(format!(
                "unknown view '{s}' (front, side, top, three-quarter)"
            ))
        }
    })
}

/// Runs `gom render`.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    if let Some(dir) = &args.sheet {
        return sheet(dir, &args);
    }
    let Some(file) = &args.file else {
        return Err("give a model file or --sheet DIR".into());
    };
    if args.fps.is_some() && !(args.animate || args.all_clips) {
        return Err("--fps needs --animate or --all-clips".into());
    }
    let options = gom_import::source::ImportOptions {
        tml: args.tml.clone(),
        ..args.tkl.options()
    };
    let mut reads = crate::output::import_reads(file, &options);
    reads.extend(args.tml.iter().cloned());
    crate::output::refuse_overwrite(reads, [args.output.as_path()])?;
    check_output_name(&args.output, args.animate || args.all_clips)?;
    let loaded = input::load(file, &options)?;
    super::print_load_warnings(&loaded);
    let model = &loaded.model;
    let (images, warnings) = load_textures(&loaded, file.parent(), args.tml.as_deref())?;
    for w in warnings {
        eprintln!("warning: {}: {w}", file.display());
    }
    let textures = TextureSource::ByMaterial {
        images: &images,
        filter: Filter::Bilinear,
    };
    if args.animate || args.all_clips {
        return super::animate::run(model, &args.clip, args.all_clips, args.fps, &args.output, {
            gom_render::RenderOptions {
                size: args.size.unwrap_or(PICTURE_SIZE),
                view: args.view,
                skeleton_overlay: args.skeleton,
                textures,
                grid: !args.no_grid,
                ..Default::default()
            }
        });
    }
    let image = if let (Some(clip), Some(frames)) = (&args.clip, args.frames) {
        let strip = gom_render::filmstrip::filmstrip(
            model,
            &gom_render::FilmstripOptions {
                frames,
                frame_size: args.size.unwrap_or(CELL_SIZE),
                view: args.view,
                skeleton_overlay: args.skeleton,
                textures,
                grid: !args.no_grid,
                ..gom_render::FilmstripOptions::new(clip)
            },
        )?;
        strip.image
    } else {
        gom_render::render(
            model,
            &gom_render::RenderOptions {
                size: args.size.unwrap_or(PICTURE_SIZE),
                view: args.view,
                clip: args.clip.as_deref().map(|c| {
                    let asked = format!("--time {}", args.time);
                    (
                        c,
                        super::clip_time(model, c, args.time, args.looped, &asked),
                    )
                }),
                skeleton_overlay: args.skeleton,
                textures,
                grid: !args.no_grid,
                ..Default::default()
            },
        )?
    };
    save(&image, &args.output)
}

/// Refuses an output whose name does not say what is written there: a PNG, or for an
/// animation an animated PNG or a GIF.
fn check_output_name(output: &Path, animation: bool) -> Result<(), CliError> {
    if animation {
        crate::output::expect_extension(output, &["png", "gif"], "an animation")
    } else {
        crate::output::expect_extension(output, &["png"], "a picture")
    }
}

fn save(image: &Image, path: &Path) -> Result<ExitCode, CliError> {
    let png = gom_render::encode_png(image)?;
    let shown = crate::output::write(path, &png)?;
    eprintln!("wrote {shown} ({}x{})", image.width(), image.height());
    Ok(ExitCode::SUCCESS)
}

/// Base-colour textures by material index, with a warning for each texture that
/// cannot be drawn. With a `.tml` given, its textures by material name come first;
/// the others are found as `gom view` finds them ([`gom_import::texture`]: images the
/// import extracted — embedded in a `.glb`, `.gltf` or `.fbx`, or a `.tmd`'s `.tml` —
/// else files beside the model) and decoded as PNG or JPEG.
pub fn load_textures(
    loaded: &input::Loaded,
    dir: Option<&Path>,
    tml: Option<&Path>,
) -> Result<(BTreeMap<usize, Image>, Vec<String>), CliError> {
    let model = &loaded.model;
    let mut out = BTreeMap::new();
    if let Some(p) = tml {
        let bytes = std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))?;
        let library = jpog::Tml::read(&bytes).map_err(|e| format!("{}: {e}", p.display()))?;
        refuse_unmatched_library(model, &library, p)?;
        for (i, m) in model.materials.iter().enumerate() {
            let textures = library.material_textures(&m.name);
            if let Some(&first) = textures.as_deref().and_then(|t| t.first()) {
                out.insert(
                    i,
                    library.decode_texture(first, jpog::CodecOptions::default())?,
                );
            }
        }
    }
    let dir = dir.unwrap_or(Path::new("."));
    let found = gom_import::texture::find_textures(model, dir, &loaded.side_files);
    let mut warnings: Vec<String> = found
        .missing
        .iter()
        .map(|name| format!("texture {name} not found; drawing the colour factor"))
        .collect();
    let mut decoded = BTreeMap::new();
    for (name, bytes) in &found.found {
        match gom_image::decode(bytes) {
            Ok(image) => {
                decoded.insert(name.as_str(), image);
            }
            Err(e) => warnings.push(format!(
                "texture {name} cannot be drawn ({e}); drawing the colour factor"
            )),
        }
    }
    for (i, m) in model.materials.iter().enumerate() {
        let image = m.base_color_texture.as_deref().and_then(|n| decoded.get(n));
        if let (false, Some(image)) = (out.contains_key(&i), image) {
            out.insert(i, image.clone());
        }
    }
    Ok((out, warnings))
}

/// Refuses a material library none of whose materials the model has: naming both
/// lists, as it would otherwise add nothing to the picture without a word.
fn refuse_unmatched_library(
    model: &gom::Model,
    lib: &jpog::Tml,
    path: &Path,
) -> Result<(), CliError> {
    if model
        .materials
        .iter()
        .any(|m| lib.material_textures(&m.name).is_some())
    {
        return Ok(());
    }
    let quoted = |names: Vec<&str>| {
        if names.is_empty() {
            return "none".to_string();
        }
        names
            .iter()
            .map(|n| format!("\"{n}\""))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let listing = jpog::ops::list_tml(lib);
    Err(format!(
        "--tml {}: none of its materials ({}) is one of the model's ({})",
        path.display(),
        quoted(listing.materials.iter().map(|m| m.name.as_str()).collect()),
        quoted(model.materials.iter().map(|m| m.name.as_str()).collect()),
    )
    .into())
}

fn sheet(dir: &Path, args: &Args) -> Result<ExitCode, CliError> {
    let sources = gom_import::build::find_sources(dir, None)?;
    if sources.is_empty() {
        return Err(format!("{}: no model files found", dir.display()).into());
    }
    let mut reads = sources.clone();
    reads.extend(args.tml.iter().cloned());
    crate::output::refuse_overwrite(reads, [args.output.as_path()])?;
    check_output_name(&args.output, false)?;
    let options = args.tkl.options();
    let mut models = Vec::new();
    for path in &sources {
        match input::load(path, &options) {
            Ok(l) => {
                let name = path.strip_prefix(dir).unwrap_or(path).display().to_string();
                let (textures, warnings) =
                    load_textures(&l, path.parent(), None).unwrap_or_default();
                for w in warnings {
                    eprintln!("warning: {}: {w}", path.display());
                }
                models.push((name, l.model, textures));
            }
            Err(e) => eprintln!("warning: skipped {e}"),
        }
    }
    let items: Vec<gom_render::sheet::SheetItem> = models
        .iter()
        .map(|(name, model, images)| gom_render::sheet::SheetItem {
            name,
            model,
            textures: TextureSource::ByMaterial {
                images,
                filter: Filter::Bilinear,
            },
        })
        .collect();
    let bar = crate::cmd::progress_bar(items.len() as u64, "rendering");
    let image = gom_render::sheet::contact_sheet(
        &items,
        &gom_render::sheet::SheetOptions {
            cell_size: args.size.unwrap_or(CELL_SIZE),
            view: args.view,
            skeleton_overlay: args.skeleton,
            grid: !args.no_grid,
            ..Default::default()
        },
        &|_done, _total| bar.inc(1),
    )?;
    bar.finish_and_clear();
    save(&image, &args.output)
}
