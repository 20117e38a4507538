//! `gom tml …`: list, extract, pack and replace the textures of a Jurassic Park:
//! Operation Genesis material library (`.tml`). The work is done by `jpog::ops`; this
//! module parses arguments and prints.

use crate::input::CliError;
use jpog::ops::{self, PackMaterial, PackTexture, ReplaceOptions};
use jpog::texture::{CodecOptions, DdsOptions, Dxt, Order4444, Order8888};
use jpog::Tml;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Byte order of format 0 (RGBA 8888), which is open.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default)]
pub enum Order0 {
    /// Bytes R, G, B, A (the public tools).
    #[default]
    Rgba,
    /// Bytes A, R, G, B (one decompiled engine path).
    Argb,
}

/// Nibble order of format 7 (RGBA 4444), which is open.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default)]
pub enum Order7 {
    /// R in bits 0-3 (as the engine reads it).
    #[default]
    RLow,
    /// B in bits 0-3 (one public tool).
    BLow,
}

/// Channel orders for the texture formats whose order is open.
#[derive(clap::Args, Clone, Copy, Debug)]
pub struct CodecArgs {
    /// Byte order of format 0 textures.
    #[arg(long, value_enum, default_value_t = Order0::Rgba)]
    order_8888: Order0,
    /// Nibble order of format 7 textures.
    #[arg(long, value_enum, default_value_t = Order7::RLow)]
    order_4444: Order7,
}

impl CodecArgs {
    fn options(self) -> CodecOptions {
        CodecOptions {
            order_8888: match self.order_8888 {
                Order0::Rgba => Order8888::Rgba,
                Order0::Argb => Order8888::Argb,
            },
            order_4444: match self.order_4444 {
                Order7::RLow => Order4444::RLow,
                Order7::BLow => Order4444::BLow,
            },
        }
    }
}

/// The `gom tml` subcommands.
#[derive(clap::Subcommand)]
pub enum Command {
    /// List a library's textures and materials.
    List {
        /// The material library.
        file: PathBuf,
        /// Print JSON for scripts instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Decode every texture to `OUTDIR/<material>.png` (named after the first material
    /// using it; names are made safe and never leave OUTDIR).
    Extract {
        /// The material library.
        file: PathBuf,
        /// The folder to write the PNG files into (created if needed).
        outdir: PathBuf,
        /// Print what was written as JSON instead of text.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        codec: CodecArgs,
    },
    /// Build a library from PNG files: one `--material NAME=A.png[,B.png…]` per
    /// material (at most 4 textures each); names are sorted as the game needs.
    Pack {
        /// The library to write.
        output: PathBuf,
        /// A material and its textures, `NAME=A.png[,B.png…]`.
        #[arg(long = "material", value_name = "NAME=PNG[,PNG…]", required = true)]
        materials: Vec<String>,
        /// Storage format of every texture: 0 (RGBA 8888), 2 (RGBA 5551), 6 (DDS),
        /// 7 (RGBA 4444).
        #[arg(long, default_value_t = 6)]
        format: u16,
        /// Material flags (`flags & 0xF000` selects the shader), decimal or 0x-hex.
        #[arg(long, default_value = "0", value_parser = parse_u16)]
        flags: u16,
        /// Format 6: DXT3 instead of DXT5.
        #[arg(long)]
        dxt3: bool,
        /// Format 6: a single level instead of a full mip chain.
        #[arg(long)]
        no_mipmaps: bool,
        #[command(flatten)]
        codec: CodecArgs,
    },
    /// Replace one texture of a material with a PNG, re-encoded in the texture's own
    /// format; the library is rewritten in place unless `--out` is given.
    Replace {
        /// The material library.
        file: PathBuf,
        /// The material whose texture is replaced (case-insensitive).
        material: String,
        /// The new image.
        png: PathBuf,
        /// Which of the material's textures (0 to 3).
        #[arg(long, default_value_t = 0)]
        slot: usize,
        /// Write the edited library here instead of over FILE.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Accept an image whose size differs from the texture's.
        #[arg(long)]
        allow_resize: bool,
        #[command(flatten)]
        codec: CodecArgs,
    },
    /// Draw every texture of a library on one sheet, each with its material's name.
    Sheet {
        /// The material library.
        file: PathBuf,
        /// The PNG file to write.
        #[arg(short, long)]
        output: PathBuf,
        /// Side of each square cell in pixels.
        #[arg(long, default_value_t = 128)]
        cell: u32,
        #[command(flatten)]
        codec: CodecArgs,
    },
}

fn parse_u16(s: &str) -> Result<u16, String> {
    let r = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u16::from_str_radix(h, 16),
        None => s.parse(),
    };
    r.map_err(|e| format!("'{s}' is not a 16-bit number: {e}"))
}

/// `NAME=A.png[,B.png…]` as the name and the image paths.
fn parse_material(spec: &str) -> Result<(String, Vec<PathBuf>), CliError> {
    let (name, files) = spec
        .split_once('=')
        .ok_or_else(|| format!("--material '{spec}': expected NAME=PNG[,PNG…]"))?;
    let files = files
        .split(',')
        .filter(|f| !f.is_empty())
        .map(PathBuf::from)
        .collect();
    Ok((name.to_string(), files))
}

fn read(path: &Path) -> Result<Vec<u8>, CliError> {
    std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()).into())
}

fn load(path: &Path) -> Result<Tml, CliError> {
    Tml::read(&read(path)?).map_err(|e| format!("{}: {e}", path.display()).into())
}

/// Runs a `gom tml` subcommand.
pub fn run(cmd: Command) -> Result<ExitCode, CliError> {
    match cmd {
        Command::Sheet {
            file,
            output,
            cell,
            codec,
        } => sheet(&file, &output, cell, codec)?,
        Command::List { file, json } => list(&file, json)?,
        Command::Extract {
            file,
            outdir,
            json,
            codec,
        } => extract(&file, &outdir, json, codec)?,
        Command::Pack {
            output,
            materials,
            format,
            flags,
            dxt3,
            no_mipmaps,
            codec,
        } => {
            let dds = (format == 6).then_some(DdsOptions {
                dxt: if dxt3 { Dxt::Dxt3 } else { Dxt::Dxt5 },
                mipmaps: !no_mipmaps,
            });
            let specs = materials
                .iter()
                .map(|spec| parse_material(spec))
                .collect::<Result<Vec<_>, _>>()?;
            pack(&output, &specs, format, flags, dds, codec)?
        }
        Command::Replace {
            file,
            material,
            png,
            slot,
            out,
            allow_resize,
            codec,
        } => {
            let opts = ReplaceOptions {
                codec: codec.options(),
                allow_resize,
            };
            // Without --out the library is rewritten in place, as documented; the
            // image it reads must never be the file written.
            let target = out.unwrap_or_else(|| file.clone());
            replace(&file, &material, slot, &png, opts, &target)?
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `gom tml sheet`: every decodable texture on one PNG sheet, labelled with the
/// materials using it.
fn sheet(file: &Path, output: &Path, cell: u32, codec: CodecArgs) -> Result<(), CliError> {
    crate::output::refuse_overwrite([file.to_path_buf()], [output])?;
    crate::output::expect_extension(output, &["png"], "a texture sheet")?;
    let tml = load(file)?;
    let listing = ops::list_tml(&tml);
    let mut names = Vec::new();
    let mut images = Vec::new();
    for (i, t) in listing.textures.iter().enumerate() {
        match tml.decode_texture(i, codec.options()) {
            Ok(img) => {
                names.push(texture_label(t));
                images.push(img);
            }
            Err(e) => eprintln!("warning: texture {} not drawn: {e}", t.index),
        }
    }
    let items: Vec<(&str, &gom_render::Image)> = names
        .iter()
        .map(String::as_str)
        .zip(images.iter())
        .collect();
    let sheet = gom_render::texture_sheet(
        &items,
        &gom_render::TextureSheetOptions {
            cell: cell.clamp(16, 4096),
            columns: None,
        },
    )?;
    let png = gom_render::encode_png(&sheet)?;
    crate::output::write(output, &png)?;
    eprintln!(
        "wrote {} ({}, {}x{})",
        output.display(),
        super::plural(items.len(), "texture", "textures"),
        sheet.width(),
        sheet.height()
    );
    Ok(())
}

/// A texture's label on the sheet: the materials using it, or its index.
fn texture_label(t: &ops::TextureInfo) -> String {
    if t.materials.is_empty() {
        format!("texture {}", t.index)
    } else {
        t.materials.join(", ")
    }
}

/// `gom tml list`: the textures and materials, as text or JSON.
fn list(file: &Path, json: bool) -> Result<(), CliError> {
    let listing = ops::list_tml(&load(file)?);
    if json {
        println!("{}", listing.to_json());
        return Ok(());
    }
    println!(
        "{}: {}, {}",
        file.display(),
        super::plural(listing.textures.len(), "texture", "textures"),
        super::plural(listing.materials.len(), "material", "materials")
    );
    for t in &listing.textures {
        println!(
            "  texture {} id {}: format {}{} {}x{}, {} bytes, used by {}",
            t.index,
            t.id,
            t.format,
            if t.supported { "" } else { " (unsupported)" },
            t.width,
            t.height,
            t.data_size,
            if t.materials.is_empty() {
                "no material".to_string()
            } else {
                t.materials.join(", ")
            }
        );
    }
    for m in &listing.materials {
        println!(
            "  material {} \"{}\": flags {:#06x}, textures {:?}",
            m.index, m.name, m.flags, m.texture_ids
        );
    }
    Ok(())
}

/// `gom tml extract`: every texture to `outdir` as PNG, reported as text or JSON.
fn extract(file: &Path, outdir: &Path, json: bool, codec: CodecArgs) -> Result<(), CliError> {
    let tml = load(file)?;
    let planned: Vec<PathBuf> = ops::texture_file_names(&tml)
        .iter()
        .map(|n| outdir.join(n))
        .collect();
    crate::output::refuse_overwrite([file.to_path_buf()], planned.iter().map(PathBuf::as_path))?;
    let manifest = ops::extract_textures(&tml, outdir, codec.options())
        .map_err(|e| format!("{}: {e}", file.display()))?;
    if json {
        println!("{}", manifest.to_json());
        return Ok(());
    }
    for t in &manifest.textures {
        match (&t.file, &t.skipped) {
            (Some(f), _) => println!("texture {} -> {}", t.index, outdir.join(f).display()),
            (None, Some(why)) => println!("texture {} skipped: {why}", t.index),
            (None, None) => println!("texture {} skipped", t.index),
        }
    }
    Ok(())
}

/// One `--material NAME=A.png[,B.png…]` of `gom tml pack`, its PNGs decoded.
fn pack_material(
    (name, files): &(String, Vec<PathBuf>),
    format: u16,
    flags: u16,
    dds: Option<DdsOptions>,
) -> Result<PackMaterial, CliError> {
    let mut textures = Vec::new();
    for path in files {
        let image = jpog::png_io::decode_png(&read(path)?)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        textures.push(PackTexture {
            image,
            format,
            flags: 0,
            dds,
        });
    }
    Ok(PackMaterial {
        name: name.to_string(),
        flags,
        textures,
    })
}

/// `gom tml pack`: a library of the materials `specs` name, written to `output`.
fn pack(
    output: &Path,
    specs: &[(String, Vec<PathBuf>)],
    format: u16,
    flags: u16,
    dds: Option<DdsOptions>,
    codec: CodecArgs,
) -> Result<(), CliError> {
    let pngs = specs.iter().flat_map(|(_, files)| files.iter().cloned());
    crate::output::refuse_overwrite(pngs, [output])?;
    crate::output::expect_extension(output, &["tml"], "a material library")?;
    let list = specs
        .iter()
        .map(|spec| pack_material(spec, format, flags, dds))
        .collect::<Result<Vec<_>, _>>()?;
    let tml = ops::pack_tml(&list, codec.options())?;
    let bytes = tml.write()?;
    crate::output::write(output, &bytes)?;
    eprintln!(
        "wrote {} ({}, {})",
        output.display(),
        super::plural(bytes.len(), "byte", "bytes"),
        super::plural(list.len(), "material", "materials")
    );
    Ok(())
}

/// `gom tml replace`: one texture of `material` replaced by the PNG at `png`, the
/// library written to `target`.
fn replace(
    file: &Path,
    material: &str,
    slot: usize,
    png: &Path,
    opts: ReplaceOptions,
    target: &Path,
) -> Result<(), CliError> {
    crate::output::refuse_overwrite([png.to_path_buf()], [target])?;
    crate::output::expect_extension(target, &["tml"], "a material library")?;
    let mut tml = load(file)?;
    let index = ops::replace_texture_png(&mut tml, material, slot, &read(png)?, opts)
        .map_err(|e| format!("{}: {e}", file.display()))?;
    let bytes = tml
        .write()
        .map_err(|e| format!("{}: {e}", file.display()))?;
    crate::output::write(target, &bytes)?;
    eprintln!(
        "replaced texture {index} of \"{material}\"; wrote {}",
        target.display()
    );
    Ok(())
}
