//! `gom view FILE... [--port N] [--no-open] [--html OUT.html]`: the models in the
//! browser, skinned on the GPU with palettes from the GOM runtime (`gom-view`).

use crate::input::CliError;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `gom view`.
#[derive(clap::Args)]
pub struct Args {
    /// The models (any format gom reads).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// The port on 127.0.0.1 (a free one when omitted).
    #[arg(long)]
    port: Option<u16>,
    /// Print the address without opening a browser.
    #[arg(long)]
    no_open: bool,
    /// Write one self-contained HTML file (model and every clip's palettes embedded)
    /// instead of serving.
    #[arg(long, value_name = "OUT.html")]
    html: Option<PathBuf>,
    /// The largest file a dropped upload may be, in MiB.
    #[arg(long, default_value_t = 256)]
    max_upload_mib: usize,
    #[command(flatten)]
    import: super::ImportArgs,
}

/// Runs `gom view`.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let options = args.import.options();
    if let Some(out) = &args.html {
        let [file] = args.files.as_slice() else {
            return Err("--html writes one model: give one file".into());
        };
        crate::output::refuse_overwrite(
            crate::output::import_reads(file, &options),
            [out.as_path()],
        )?;
        crate::output::expect_extension(out, &["html", "htm"], "a web page")?;
        let model = gom_view::load_path(file, &options)?;
        let page = gom_view::html::self_contained(&model)?;
        crate::output::write(out, page.as_bytes())?;
        eprintln!(
            "wrote {} ({})",
            out.display(),
            super::plural(page.len(), "byte", "bytes")
        );
        return Ok(ExitCode::SUCCESS);
    }
    let models = args
        .files
        .iter()
        .map(|f| gom_view::load_path(f, &options))
        .collect::<Result<Vec<_>, _>>()?;
    let server = gom_view::ViewServer::start(
        models,
        gom_view::Config {
            port: args.port.unwrap_or(0),
            max_upload: args.max_upload_mib.saturating_mul(1 << 20),
            options,
            ..Default::default()
        },
    )?;
    let url = server.url();
    println!("gom view: {url}  (Ctrl-C stops)");
    if !args.no_open {
        open_browser(&url);
    }
    let (tx, rx) = std::sync::mpsc::channel();
    ctrlc::set_handler(move || {
        let _ = tx.send(());
    })
    .map_err(|e| format!("cannot catch Ctrl-C: {e}"))?;
    let _ = rx.recv();
    server.stop();
    eprintln!("stopped");
    Ok(ExitCode::SUCCESS)
}

/// Opens `url` in the user's browser; a failure only leaves the address to copy.
fn open_browser(url: &str) {
    let launcher: &[&str] = if cfg!(target_os = "macos") {
        &["open"]
    } else if cfg!(windows) {
        &["cmd", "/C", "start", ""]
    } else {
        &["xdg-open"]
    };
    let result = std::process::Command::new(launcher[0])
        .args(&launcher[1..])
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if result.is_err() {
        eprintln!("note: no browser could be opened; open {url}");
    }
}
