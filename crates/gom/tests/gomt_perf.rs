//! Parse speed of GOMT against serde_json parsing the equivalent JSON document.
//! Ignored by default (timing needs a release build):
//! `cargo test -p gom-format --release --test gomt_perf -- --ignored --nocapture`.

use std::time::{Duration, Instant};

/// The GOMT text as JSON: keys quoted, `=` as `:`, the magic line and comments gone,
/// the top level wrapped in an object. Same numbers, same nesting.
fn to_json(gomt: &str) -> String {
    let mut out = String::with_capacity(gomt.len() + gomt.len() / 4);
    out.push('{');
    let body = gomt.strip_prefix("GOMT0001\n").unwrap();
    let mut first_top = true;
    for line in body.lines() {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        if indent.is_empty() && !trimmed.starts_with('}') && !trimmed.starts_with(']') {
            if !first_top {
                out.push(',');
            }
            first_top = false;
        }
        out.push_str(indent);
        out.push_str(&quote_keys(trimmed));
        out.push('\n');
    }
    out.push('}');
    // JSON has no trailing commas.
    let mut cleaned = String::with_capacity(out.len());
    let bytes = out.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b',' {
            let mut j = i + 1;
            while j < bytes.len() && bytes[j].is_ascii_whitespace() {
                j += 1;
            }
            if j < bytes.len() && (bytes[j] == b'}' || bytes[j] == b']') {
                i += 1;
                continue;
            }
        }
        cleaned.push(bytes[i] as char);
        i += 1;
    }
    cleaned
}

/// `name = value` → `"name": value` outside strings.
fn quote_keys(line: &str) -> String {
    let mut out = String::with_capacity(line.len() + 16);
    let b = line.as_bytes();
    let mut i = 0;
    let mut in_str = false;
    while i < b.len() {
        let c = b[i];
        if in_str {
            out.push(c as char);
            if c == b'\\' {
                out.push(b[i + 1] as char);
                i += 2;
                continue;
            }
            if c == b'"' {
                in_str = false;
            }
            i += 1;
            continue;
        }
        if c == b'"' {
            in_str = true;
            out.push('"');
            i += 1;
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let word = &line[start..i];
            let rest = line[i..].trim_start();
            if let Some(after) = rest.strip_prefix('=') {
                out.push('"');
                out.push_str(word);
                out.push_str("\":");
                i = line.len() - after.len();
            } else {
                out.push_str(word);
            }
            continue;
        }
        out.push(c as char);
        i += 1;
    }
    out
}

fn best_of(n: usize, mut f: impl FnMut()) -> Duration {
    let mut best = Duration::MAX;
    for _ in 0..n {
        let t = Instant::now();
        f();
        best = best.min(t.elapsed());
    }
    best
}

#[test]
fn json_conversion_is_equivalent() {
    let text = gom::gomt::write(&gom_demo::build()).unwrap();
    let json = to_json(&text);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let meshes = v["Meshes"].as_array().unwrap();
    assert_eq!(meshes.len(), 2);
    assert_eq!(meshes[0]["vertices"].as_array().unwrap().len(), 273);
    assert_eq!(v["Skeleton"]["boneCount"], 6);
}

#[test]
#[ignore]
fn gomt_parses_at_least_as_fast_as_serde_json() {
    let text = gom::gomt::write(&gom_demo::build()).unwrap();
    let json = to_json(&text);
    let runs = 50;
    let t_gomt = best_of(runs, || {
        std::hint::black_box(gom::gomt::read(std::hint::black_box(&text)).unwrap());
    });
    let t_json = best_of(runs, || {
        let v: serde_json::Value = serde_json::from_str(std::hint::black_box(&json)).unwrap();
        std::hint::black_box(v);
    });
    let model = gom_demo::build();
    let t_write = best_of(runs, || {
        std::hint::black_box(gom::gomt::write(std::hint::black_box(&model)).unwrap());
    });
    let mb = |t: Duration, len: usize| len as f64 / t.as_secs_f64() / 1e6;
    println!(
        "GOMT write: {:?} ({:.0} MB/s)",
        t_write,
        mb(t_write, text.len())
    );
    println!(
        "GOMT read: {:?} ({:.0} MB/s, {} bytes); serde_json::Value: {:?} ({:.0} MB/s, {} bytes)",
        t_gomt,
        mb(t_gomt, text.len()),
        text.len(),
        t_json,
        mb(t_json, json.len()),
        json.len()
    );
    assert!(t_gomt <= t_json, "GOMT is slower than serde_json");
}
