//! `gom convert IN OUT.tmd`: any model into the game's `.tmd`, with its `.tkl` keyframe
//! library and `.tml` material library beside it.

use std::path::{Path, PathBuf};

use gom_import::jpog::export::{self, ExportOptions, NameLimit};
use gom_import::source::Imported;

use crate::input::CliError;

/// The options only a `.tmd` output takes.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct TmdArgs {
    /// `.tmd` output: write the keyframe library here instead of over `--tkl` (or
    /// beside the output).
    #[arg(long, value_name = "PATH")]
    tkl_out: Option<PathBuf>,
    /// `.tmd` output: the name of the new keyframe library (the model's header names
    /// it, the `.tkl` file takes it). By default a name of at most 8 bytes made from
    /// the output's name, unique in its folder; modding tools read only 8 bytes.
    #[arg(long, value_name = "NAME", conflicts_with = "tkl")]
    tkl_name: Option<String>,
    /// `.tmd` output: a clip the game loops (`_lp` suffix); may be repeated. Clips
    /// whose name ends in `_lp` loop already.
    #[arg(long = "loop", value_name = "CLIP")]
    loop_clips: Vec<String>,
    /// `.tmd` output: the model being replaced; the game's fields GOM does not carry
    /// are copied from it (its node names must match the model's).
    #[arg(long, value_name = "ORIGINAL.tmd")]
    template: Option<PathBuf>,
    /// `.tmd` output: shorten names over the game's limits (15 bytes for nodes,
    /// animations and the output's stem, 31 for materials) instead of refusing them.
    #[arg(long)]
    rename: bool,
    /// `.tmd` output: add N lower levels of detail (at most 8), each with about half the
    /// triangles of the one before, made with meshopt's simplifier.
    #[arg(long, value_name = "N", default_value_t = 0)]
    lods: usize,
}

/// The folder a path lies in (`.` for a bare file name).
fn folder(p: &Path) -> PathBuf {
    p.parent()
        .filter(|d| !d.as_os_str().is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// What a `.tmd` export wrote and had to say.
pub struct Written {
    /// What the game's files cannot hold of the model, and names shortened.
    pub notes: Vec<String>,
    /// The `wrote …` line naming the three files.
    pub wrote: String,
}

/// The name of a new keyframe library: `--tkl-name`, else the stem of `--tkl-out`, else
/// a name of at most 8 bytes made from the output's stem, unique in its folder.
fn library_name(output: &Path, stem: &str, args: &TmdArgs) -> Result<String, CliError> {
    export::new_library_name(
        output,
        stem,
        args.tkl_name.as_deref(),
        args.tkl_out.as_deref(),
    )
    .map_err(|e| format!("{}: {e}", output.display()))?
    .ok_or_else(|| {
        format!(
            "{}: no library name of at most 8 bytes made from {stem:?} is free in its folder",
            output.display()
        )
        .into()
    })
}

/// Exports `imported` (read from `input`) as `output` (a `.tmd`) with its libraries.
/// Every file is built and checked before the first is written, and they are written
/// all or none; none of them may replace a file the conversion reads.
pub fn run(
    imported: &Imported,
    input: &Path,
    output: &Path,
    import: &gom_import::source::ImportOptions,
    handedness: gom_import::jpog::Handedness,
    args: &TmdArgs,
) -> Result<Written, CliError> {
    if let Some(p) = &args.tkl_out {
        crate::output::expect_extension(p, &["tkl"], "a keyframe library")?;
    }
    let stem = output
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = export::fit_name(&stem, NameLimit::Library, false, "output name")
        .map_err(|e| format!("{}: {e}", output.display()))?;
    let tkl = import.tkl.as_deref();
    let name = library_name(output, &stem, args)?;
    let existing = match tkl {
        Some(p) => {
            let bytes = std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))?;
            Some(jpog::Tkl::read(&bytes).map_err(|e| format!("{}: {e}", p.display()))?)
        }
        None => None,
    };
    let template = match &args.template {
        Some(p) => {
            let bytes = std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))?;
            Some(jpog::Tmd::read(&bytes).map_err(|e| format!("{}: {e}", p.display()))?)
        }
        None => None,
    };
    let options = ExportOptions {
        template,
        name: name.clone(),
        key_tolerance: import.insertion_tolerance(),
        handedness,
        loop_clips: args.loop_clips.clone(),
        rename: args.rename,
        lods: args.lods,
        tkl: existing,
        textures: gom_import::source::texture_images(
            &imported.model,
            &folder(input),
            &imported.side_files,
        ),
    };
    let exported = export::export(&imported.model, &options)
        .map_err(|e| format!("{}: {e}", output.display()))?;
    let (tmd, tkl_bytes, tml) = exported
        .write()
        .map_err(|e| format!("{}: {e}", output.display()))?;
    let dir = folder(output);
    let tkl_path = match (&args.tkl_out, tkl) {
        (Some(p), _) => p.clone(),
        (None, Some(p)) => p.to_path_buf(),
        (None, None) => dir.join(format!("{name}.tkl")),
    };
    let tml_path = dir.join(format!("{stem}.tml"));
    // The library named by --tkl is rewritten in place on purpose (unless --tkl-out);
    // every other output must not be one of the files the conversion reads.
    let appended_in_place = tkl.is_some() && args.tkl_out.is_none();
    let guarded = [output, tml_path.as_path()]
        .into_iter()
        .chain((!appended_in_place).then_some(tkl_path.as_path()));
    let mut reads = crate::output::import_reads(input, import);
    reads.extend(args.template.iter().cloned());
    reads.extend(tkl.filter(|_| !appended_in_place).map(Path::to_path_buf));
    crate::output::refuse_overwrite(reads, guarded)?;
    // all three or none: a failure leaves no new file and the library as it was
    export::write_all_or_nothing(&[
        (tkl_path.as_path(), tkl_bytes.as_slice()),
        (tml_path.as_path(), tml.as_slice()),
        (output, tmd.as_slice()),
    ])?;
    let size = |n: usize| super::plural(n, "byte", "bytes");
    Ok(Written {
        notes: exported.notes.clone(),
        wrote: format!(
            "wrote {} ({}), {} ({}), {} ({})",
            tkl_path.display(),
            size(tkl_bytes.len()),
            tml_path.display(),
            size(tml.len()),
            output.display(),
            size(tmd.len())
        ),
    })
}
