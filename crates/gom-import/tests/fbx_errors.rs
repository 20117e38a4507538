//! Malformed input gives a clean `FbxError` naming the file and carrying ufbx's
//! description, never a panic.

use gom_import::fbx::{convert, FbxError, FbxOptions};

mod shared_data;
use shared_data::fbx_dir as data_dir;

fn expect_load_error(bytes: &[u8], name: &str) -> String {
    match convert(bytes, name, &FbxOptions::default()) {
        Err(FbxError::Load { file, description }) => {
            assert_eq!(file, name);
            assert!(!description.is_empty(), "{name}: empty description");
            description
        }
        Err(other) => panic!("{name}: unexpected error {other}"),
        Ok(_) => panic!("{name}: malformed input converted"),
    }
}

#[test]
fn fbx_truncated_files_are_clean_errors() {
    let Some(dir) = data_dir() else { return };
    for name in [
        "maya_game_sausage_7500_binary_wiggle.fbx",
        "maya_game_sausage_7500_ascii_wiggle.fbx",
        "blender_279_sausage_7400_binary.fbx",
    ] {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let ascii = name.contains("ascii");
        for cut in [0, 10, 23, 27, 100, bytes.len() / 3, bytes.len() / 2] {
            let label = format!("{name}[..{cut}]");
            if ascii && (27..=100).contains(&cut) {
                // An ASCII file cut right after its leading comment block is an empty
                // document to ufbx, and one cut inside its header block an unfinished
                // one it reads leniently: either a clean error or an empty model.
                if let Ok((model, _)) = convert(&bytes[..cut], &label, &FbxOptions::default()) {
                    assert!(
                        model.meshes.is_empty() && model.skeleton.bones.is_empty(),
                        "{label}"
                    );
                    continue;
                }
            }
            let d = expect_load_error(&bytes[..cut], &label);
            eprintln!("{label}: {d}");
        }
        // Cutting the last bytes may leave a complete scene (the footer is optional
        // to ufbx): either way, no panic.
        for cut in [bytes.len() - 1, bytes.len() - 200] {
            let _ = convert(&bytes[..cut], name, &FbxOptions::default());
        }
    }
}

#[test]
fn fbx_non_fbx_input_is_a_clean_error() {
    let d = expect_load_error(b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "triangle.obj");
    eprintln!("obj text: {d}");
    expect_load_error(b"GOMB0001\0\0\0\0", "model.gomb");
    expect_load_error(&[0xFFu8; 4096], "ff.bin");
    // A binary FBX header followed by garbage.
    let mut fake = b"Kaydara FBX Binary  \x00\x1a\x00".to_vec();
    fake.extend_from_slice(&7400u32.to_le_bytes());
    fake.extend((0..2000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8));
    expect_load_error(&fake, "garbage.fbx");
}

/// Corrupted bytes (deterministic pseudo-random byte changes in real files) either load
/// and convert into a model that the strict reader accepts once written, or give a
/// clean error naming the file: never a panic. Each outcome is also reproducible (the
/// same bytes convert to the same file or fail with the same message), and the rounds
/// reach both outcomes, so the checks on each are exercised.
#[test]
fn fbx_corrupted_files_never_panic() {
    let Some(dir) = data_dir() else { return };
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let (mut ok, mut err) = (0, 0);
    for name in [
        "maya_game_sausage_7500_binary_wiggle.fbx",
        "blender_293_half_skinned_7400_binary.fbx",
        "maya_game_sausage_7500_ascii_wiggle.fbx",
    ] {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        for round in 0..60 {
            let mut b = bytes.clone();
            for _ in 0..1 + round % 8 {
                let at = (next() % b.len() as u64) as usize;
                b[at] = (next() & 0xff) as u8;
            }
            let label = format!("{name} round {round}");
            let outcome = corrupted_outcome(&b, name, &label);
            assert_eq!(outcome, corrupted_outcome(&b, name, &label), "{label}");
            match outcome {
                Ok(_) => ok += 1,
                Err(_) => err += 1,
            }
        }
    }
    eprintln!("corrupted inputs: {ok} converted, {err} clean errors");
    assert!(ok > 0 && err > 0, "{ok} converted, {err} errors");
}

/// What converting corrupted `bytes` gives: the GOMB file of the model (checked to
/// read back under the strict reader) or the error's message (checked to be a load
/// or model error naming `name`).
fn corrupted_outcome(bytes: &[u8], name: &str, label: &str) -> Result<Vec<u8>, String> {
    match convert(bytes, name, &FbxOptions::default()) {
        Ok((model, _)) => {
            let file = gom::gomb::write(&model)
                .unwrap_or_else(|e| panic!("{label}: converted model not writable: {e}"));
            if let Err(e) = gom::gomb::FileView::parse(&file) {
                panic!("{label}: the written model is refused by the reader: {e}");
            }
            Ok(file)
        }
        Err(e @ (FbxError::Load { .. } | FbxError::Model { .. })) => {
            let message = e.to_string();
            assert!(
                message.starts_with(&format!("{name}: ")),
                "{label}: {message}"
            );
            Err(message)
        }
        Err(e) => panic!("{label}: unexpected error {e}"),
    }
}
