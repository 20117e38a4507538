//! Converts every FBX and glTF file of one or more folders (corpora) to `.glb` and
//! `.gom`, checks each output, and prints a table per corpus: files tried, converted,
//! refused (grouped by reason), outputs valid. A `.gom` is valid when it reads back
//! with no validation finding; a `.glb` when the Khronos glTF Validator reports no
//! error (run when `GLTF_VALIDATOR_DIR` names a folder where `gltf-validator` is
//! installed; `corpus_validate.mjs` beside this file runs it).
//!
//! `cargo run --release -p gom-import --example corpus -- OUTDIR FOLDER...`
//!
//! Every file's line (result, warnings, first problem) goes to `OUTDIR/results.tsv`;
//! the outputs are written under `OUTDIR/<corpus>/`.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use gom_import::source::{self, ImportOptions, OutputFormat};

/// What became of one source file.
struct Outcome {
    corpus: String,
    file: PathBuf,
    /// `Ok(glb path)` or the refusal's reason.
    result: Result<PathBuf, String>,
    warnings: usize,
    gom_findings: Vec<String>,
    glb_errors: Option<(usize, String)>,
    empty: bool,
}

fn main() {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let Some((out_dir, folders)) = args.split_first().filter(|(_, f)| !f.is_empty()) else {
        eprintln!("usage: corpus OUTDIR FOLDER...");
        std::process::exit(2);
    };
    let mut outcomes = Vec::new();
    for folder in folders {
        let corpus = folder.display().to_string();
        let dest = out_dir.join(corpus.replace(['/', '\\'], "_"));
        for file in sources(folder) {
            outcomes.push(convert(&corpus, folder, &file, &dest));
        }
    }
    validate_glbs(&mut outcomes);
    if let Err(e) = write_results(&out_dir.join("results.tsv"), &outcomes) {
        eprintln!("results.tsv: {e}");
    }
    print_table(&outcomes);
}

/// The FBX and glTF files under `folder`, sorted.
fn sources(folder: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![folder.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if matches!(
                source::SourceFormat::of_path(&path),
                Some(
                    source::SourceFormat::Fbx
                        | source::SourceFormat::Gltf
                        | source::SourceFormat::Glb
                )
            ) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Imports `file` and writes its `.glb` and `.gom` under `dest`.
fn convert(corpus: &str, folder: &Path, file: &Path, dest: &Path) -> Outcome {
    let mut outcome = Outcome {
        corpus: corpus.to_string(),
        file: file.to_path_buf(),
        result: Err(String::new()),
        warnings: 0,
        gom_findings: Vec::new(),
        glb_errors: None,
        empty: false,
    };
    let imported = match source::import_path(file, &ImportOptions::default()) {
        Ok(i) => i,
        Err(e) => {
            outcome.result = Err(reason(&e.to_string(), file));
            return outcome;
        }
    };
    let m = &imported.model;
    outcome.empty = m.meshes.is_empty() && m.skeleton.bones.is_empty() && m.clips.is_empty();
    let relative = file.strip_prefix(folder).unwrap_or(file);
    let base = dest.join(relative);
    let mut written = None;
    for format in [OutputFormat::Glb, OutputFormat::Gomb] {
        let out = base.with_extension(format!("{}.{}", extension(file), format.extension()));
        match source::export_imported(&imported, file, format, &out) {
            Ok(e) => {
                outcome.warnings = e.warnings.len();
                if format == OutputFormat::Gomb {
                    outcome.gom_findings = gom_findings(&e.bytes);
                }
                let saved = out
                    .parent()
                    .map_or(Ok(()), std::fs::create_dir_all)
                    .and_then(|()| std::fs::write(&out, &e.bytes));
                if let Err(err) = saved {
                    outcome.result = Err(format!("cannot write {}: {err}", out.display()));
                    return outcome;
                }
                if format == OutputFormat::Glb {
                    written = Some(out);
                }
            }
            Err(e) => {
                outcome.result = Err(format!("export: {}", reason(&e.to_string(), file)));
                return outcome;
            }
        }
    }
    outcome.result = written.ok_or_else(|| "no output".to_string());
    outcome
}

fn extension(file: &Path) -> String {
    file.extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .unwrap_or_default()
}

/// The error message without the file name it starts with.
fn reason(message: &str, file: &Path) -> String {
    let name = file.display().to_string();
    let line = message.lines().next().unwrap_or_default();
    line.strip_prefix(&name)
        .map(|r| r.trim_start_matches(':').trim())
        .unwrap_or(line)
        .to_string()
}

/// The validation findings of a written `.gom`, or why it does not read back.
fn gom_findings(bytes: &[u8]) -> Vec<String> {
    match gom::gomb::read(bytes) {
        Ok(read) => read.findings.iter().map(ToString::to_string).collect(),
        Err(e) => vec![format!("does not read back: {e}")],
    }
}

/// Runs the Khronos validator over every `.glb` written, in one process.
fn validate_glbs(outcomes: &mut [Outcome]) {
    if std::env::var_os("GLTF_VALIDATOR_DIR").is_none() {
        eprintln!("GLTF_VALIDATOR_DIR is not set: .glb outputs not validated");
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/corpus_validate.mjs");
    let child = Command::new("node")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn();
    let Ok(mut child) = child else {
        eprintln!("node cannot run: .glb outputs not validated");
        return;
    };
    let list: String = outcomes
        .iter()
        .filter_map(|o| o.result.as_ref().ok())
        .map(|p| format!("{}\n", p.display()))
        .collect();
    if let Some(mut stdin) = child.stdin.take() {
        // A validator that exits early leaves the rest unvalidated (reported below).
        let _ = stdin.write_all(list.as_bytes());
    }
    let Ok(output) = child.wait_with_output() else {
        return;
    };
    let mut by_file = BTreeMap::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(line) {
            let file = v["file"].as_str().unwrap_or_default().to_string();
            let errors = v["errors"].as_u64().unwrap_or(0) as usize;
            let first = v["first"].as_str().unwrap_or_default().to_string();
            by_file.insert(PathBuf::from(file), (errors, first));
        }
    }
    for o in outcomes.iter_mut() {
        if let Ok(p) = &o.result {
            o.glb_errors = by_file.get(p).cloned();
        }
    }
}

fn write_results(path: &Path, outcomes: &[Outcome]) -> std::io::Result<()> {
    let mut text = String::from("corpus\tfile\tresult\twarnings\tgom\tglb\n");
    for o in outcomes {
        let (result, gom, glb) = match &o.result {
            Ok(_) => (
                if o.empty { "empty" } else { "converted" }.to_string(),
                o.gom_findings.first().cloned().unwrap_or("valid".into()),
                match &o.glb_errors {
                    Some((0, _)) => "valid".to_string(),
                    Some((n, first)) => format!("{n} errors: {first}"),
                    None => "not validated".to_string(),
                },
            ),
            Err(r) => (format!("refused: {r}"), String::new(), String::new()),
        };
        text += &format!(
            "{}\t{}\t{result}\t{}\t{gom}\t{glb}\n",
            o.corpus,
            o.file.display(),
            o.warnings
        );
    }
    std::fs::write(path, text)
}

/// One Markdown table: a row per corpus, then the refusals grouped by reason.
fn print_table(outcomes: &[Outcome]) {
    let mut corpora: BTreeMap<&str, Vec<&Outcome>> = BTreeMap::new();
    for o in outcomes {
        corpora.entry(&o.corpus).or_default().push(o);
    }
    println!("| corpus | tried | converted | of which empty | refused | valid .gom | valid .glb |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for (name, list) in &corpora {
        let ok: Vec<_> = list.iter().filter(|o| o.result.is_ok()).collect();
        let empty = ok.iter().filter(|o| o.empty).count();
        let gom_valid = ok.iter().filter(|o| o.gom_findings.is_empty()).count();
        let glb_valid = ok
            .iter()
            .filter(|o| matches!(o.glb_errors, Some((0, _))))
            .count();
        println!(
            "| {name} | {} | {} | {empty} | {} | {gom_valid} | {glb_valid} |",
            list.len(),
            ok.len(),
            list.len() - ok.len()
        );
    }
    println!();
    for o in outcomes {
        if let Err(r) = &o.result {
            println!("- refused {}: {r}", o.file.display());
        }
        for f in o.gom_findings.iter().take(1) {
            println!("- invalid .gom from {}: {f}", o.file.display());
        }
        if let Some((n, first)) = o.glb_errors.as_ref().filter(|(n, _)| *n > 0) {
            println!(
                "- invalid .glb from {} ({n} errors): {first}",
                o.file.display()
            );
        }
    }
}
