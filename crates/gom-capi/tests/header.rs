//! The checked-in `include/gom.h` is exactly what cbindgen generates from the code
//! now. Run with `GOM_BLESS=1` to rewrite it after changing the API.

use std::path::Path;

#[test]
fn checked_in_header_matches_cbindgen() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config =
        cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_config(config)
        .with_src(crate_dir.join("core/src/lib.rs"))
        .generate()
        .expect("cbindgen generates the header")
        .write(&mut generated);
    let generated = String::from_utf8(generated).expect("UTF-8 header");
    let path = crate_dir.join("include/gom.h");
    if std::env::var_os("GOM_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("write include/gom.h");
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "include/gom.h differs from what cbindgen generates now; run \
         `GOM_BLESS=1 cargo test -p gom-capi --test header` and commit the header"
    );
}
