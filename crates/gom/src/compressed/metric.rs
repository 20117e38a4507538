//! The error metric, written once: forward kinematics in `f64` and the distance
//! between two poses at each joint and at three points a distance out along its axes
//! (the "shell" ACL measures with), used by the encoder and by the tools that report
//! a compressed clip's error.

use super::Trs;

/// A joint's model-space frame in column-vector form: `m`'s columns are its scaled
/// axes, `p` its position.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct World {
    /// Scaled axes (columns).
    pub m: [[f64; 3]; 3],
    /// Position.
    pub p: [f64; 3],
}

/// Forward kinematics of one pose: `world = parent ∘ local` with `local = T · R · S`.
pub fn fk(parents: &[i32], local: &dyn Fn(usize) -> Trs, out: &mut [World]) {
    for b in 0..out.len() {
        let l = local(b);
        let r = rot_matrix(l.r.map(f64::from));
        let s = l.s.map(f64::from);
        let t = l.t.map(f64::from);
        // Columns of R · S.
        let mut m = [[0.0; 3]; 3];
        for c in 0..3 {
            for row in 0..3 {
                m[c][row] = r[c][row] * s[c];
            }
        }
        let parent = usize::try_from(parents[b])
            .ok()
            .filter(|&p| p < b)
            .map(|p| out[p]);
        out[b] = match parent {
            None => World { m, p: t },
            Some(pw) => World {
                m: [0, 1, 2].map(|c| apply(&pw.m, m[c])),
                p: add(pw.p, apply(&pw.m, t)),
            },
        };
    }
}

/// Columns of the rotation matrix of a unit quaternion (x, y, z, w).
pub fn rot_matrix(q: [f64; 4]) -> [[f64; 3]; 3] {
    let n = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    let [x, y, z, w] = if n > 0.0 {
        q.map(|v| v / n)
    } else {
        [0.0, 0.0, 0.0, 1.0]
    };
    [
        [
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y + w * z),
            2.0 * (x * z - w * y),
        ],
        [
            2.0 * (x * y - w * z),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (y * z + w * x),
        ],
        [
            2.0 * (x * z + w * y),
            2.0 * (y * z - w * x),
            1.0 - 2.0 * (x * x + y * y),
        ],
    ]
}

/// `m · v`.
pub fn apply(m: &[[f64; 3]; 3], v: [f64; 3]) -> [f64; 3] {
    [0, 1, 2].map(|r| m[0][r] * v[0] + m[1][r] * v[1] + m[2][r] * v[2])
}

/// `a + b`.
pub fn add(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

/// The distance between two points.
pub fn dist(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

/// The worst distance between two joint frames over the joint and the three points
/// `d` out along its axes.
pub fn shell_error(a: &World, b: &World, d: f64) -> f64 {
    let mut e = dist(a.p, b.p);
    for c in 0..3 {
        let pa = add(a.p, a.m[c].map(|v| v * d));
        let pb = add(b.p, b.m[c].map(|v| v * d));
        e = e.max(dist(pa, pb));
    }
    e
}

/// The worst errors of a decoded clip against its source, over every frame and bone:
/// joint positions, and the shell at `distance`. `source` and `decoded` are
/// frame-major, `parents.len()` transforms per frame.
pub fn clip_errors(parents: &[i32], source: &[Trs], decoded: &[Trs], distance: f64) -> (f64, f64) {
    let bones = parents.len();
    if bones == 0 {
        return (0.0, 0.0);
    }
    let (mut a, mut b) = (vec![World::default(); bones], vec![World::default(); bones]);
    let (mut joint, mut shell) = (0.0f64, 0.0f64);
    for (s, d) in source.chunks_exact(bones).zip(decoded.chunks_exact(bones)) {
        fk(parents, &|i| s[i], &mut a);
        fk(parents, &|i| d[i], &mut b);
        for (x, y) in a.iter().zip(&b) {
            joint = joint.max(dist(x.p, y.p));
            shell = shell.max(shell_error(x, y, distance));
        }
    }
    (joint, shell)
}
