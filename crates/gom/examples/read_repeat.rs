//! Reads one GOMB file N times, for instruction counts under
//! `valgrind --tool=callgrind` (docs/performance.md): the cost of one read is
//! (count at N = 3 − count at N = 1) / 2, which leaves out the start-up.
//!
//! `cargo run --release -p gom-format --example read_repeat -- parse|read FILE N`

use gom::gomb;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [mode, file, n] = &args[..] else {
        eprintln!("usage: read_repeat parse|read FILE N");
        return ExitCode::from(2);
    };
    let (Ok(bytes), Ok(n)) = (std::fs::read(file), n.parse::<usize>()) else {
        eprintln!("read_repeat: cannot read {file}, or N is not a count");
        return ExitCode::from(2);
    };
    for _ in 0..n {
        let ok = match mode.as_str() {
            "read" => std::hint::black_box(gomb::read(&bytes)).is_ok(),
            _ => std::hint::black_box(gomb::FileView::parse(&bytes)).is_ok(),
        };
        if !ok {
            eprintln!("read_repeat: {file} is not a valid GOMB file");
            return ExitCode::from(1);
        }
    }
    ExitCode::SUCCESS
}
