//! The fast pass of the vertex checks. A block's positions, tangent w and skins are
//! copied into one array per field, and every rule is then evaluated over the
//! arrays without branches or early exits, which the compiler vectorises. The pass
//! only answers "every vertex passes"; a block it does not pass goes through the
//! exact per-vertex checks (`mesh.rs`), which find the first error and the findings.
//!
//! The weight rules run on the weights' bits read as `i32` (finite weights none of
//! which is negative compare as their bits do) and their sum in `f32` against the
//! tolerance less 10⁻⁶: the `f32` sum of four weights of a passing skin is within
//! 4·10⁻⁷ of the exact one, so a skin passing here passes the `f64` rule.

use crate::bounds::Containment;
use crate::limits::WEIGHT_SUM_TOLERANCE;

/// Vertices a block holds.
pub(super) const BLOCK: usize = 64;

/// The weight-sum tolerance of the fast pass (see the module docs).
const SUM_TOLERANCE_32: f32 = (WEIGHT_SUM_TOLERANCE - 1e-6) as f32;

/// One block's fields, one array each.
pub(super) struct Lanes {
    /// Vertices held (at most [`BLOCK`]).
    n: usize,
    p: [[f32; BLOCK]; 3],
    tangent_w: [f32; BLOCK],
    /// Bone indices (16 bits, so `i32` holds them: signed compares vectorise best).
    bones: [[i32; BLOCK]; 4],
    /// Weights' bits.
    weights: [[i32; BLOCK]; 4],
}

/// Where a vertex's fields are, in bytes.
pub(super) struct Offsets {
    pub stride: usize,
    pub tangent_w: Option<usize>,
    pub skin: Option<usize>,
}

/// The four bytes of `b` at `at`.
#[inline]
fn four(b: &[u8], at: usize) -> [u8; 4] {
    [b[at], b[at + 1], b[at + 2], b[at + 3]]
}

impl Lanes {
    /// Empty lanes.
    pub fn new() -> Box<Lanes> {
        Box::new(Lanes {
            n: 0,
            p: [[0.0; BLOCK]; 3],
            tangent_w: [1.0; BLOCK],
            bones: [[0; BLOCK]; 4],
            weights: [[0; BLOCK]; 4],
        })
    }

    /// Copies the whole vertices of `block` (at most [`BLOCK`]) into the lanes.
    pub fn load(&mut self, block: &[u8], o: &Offsets) {
        self.n = (block.len() / o.stride).min(BLOCK);
        for (j, vx) in block.chunks_exact(o.stride).take(BLOCK).enumerate() {
            if let Some(p) = vx.get(..12) {
                for a in 0..3 {
                    self.p[a][j] = f32::from_le_bytes(four(p, 4 * a));
                }
            }
            if let Some(t) = o.tangent_w.and_then(|t| vx.get(t..t + 4)) {
                self.tangent_w[j] = f32::from_le_bytes(four(t, 0));
            }
            if let Some(sk) = o.skin.and_then(|s| vx.get(s..s + 24)) {
                for k in 0..4 {
                    self.bones[k][j] = i32::from(u16::from_le_bytes([sk[2 * k], sk[2 * k + 1]]));
                }
                for k in 0..4 {
                    self.weights[k][j] = i32::from_le_bytes(four(sk, 8 + 4 * k));
                }
            }
        }
    }

    /// Whether every position is surely inside the bounds
    /// ([`Containment::surely_inside`]).
    pub fn inside(&self, c: &Containment) -> bool {
        let (x, y, z) = (&self.p[0], &self.p[1], &self.p[2]);
        let mut bad = 0u32;
        for j in 0..self.n.min(BLOCK) {
            bad |= u32::from(!c.surely_inside([x[j], y[j], z[j]]));
        }
        bad == 0
    }

    /// Whether every tangent's w is +1 or −1.
    pub fn tangents_ok(&self) -> bool {
        let mut bad = 0u32;
        for &w in &self.tangent_w[..self.n.min(BLOCK)] {
            bad |= u32::from((w != 1.0) & (w != -1.0));
        }
        bad == 0
    }

    /// Whether every skin passes the structural and weight rules (D13) against
    /// `bone_count` bones. The weights must be finite (checked before).
    pub fn skins_ok(&self, bone_count: u32) -> bool {
        let (b, w) = (&self.bones, &self.weights);
        let mut bad = 0u32;
        for j in 0..self.n.min(BLOCK) {
            let ok = skin_ok(
                [b[0][j], b[1][j], b[2][j], b[3][j]],
                [w[0][j], w[1][j], w[2][j], w[3][j]],
                bone_count.min(1 << 16) as i32,
            );
            bad |= u32::from(!ok);
        }
        bad == 0
    }

    /// Marks the bones of the slots of positive weight, for skins that passed
    /// [`skins_ok`](Self::skins_ok): there slot 0 is always in use (its weight is at
    /// least a quarter), so an unused slot marks slot 0's bone again. Four
    /// unconditional stores a vertex, no branch to mispredict.
    pub fn mark_used(&self, used: &mut [bool]) {
        let (b, w) = (&self.bones, &self.weights);
        for j in 0..self.n.min(BLOCK) {
            for k in 0..4 {
                let bone = if w[k][j] > 0 { b[k][j] } else { b[0][j] };
                if let Some(x) = used.get_mut(bone.unsigned_abs() as usize) {
                    *x = true;
                }
            }
        }
    }
}

/// The structural and weight rules of one skin (`skin_structure(..).is_none() &&
/// weights_rule(..).is_none()` in `validate.rs`) for finite weights, given as their
/// bits; a weight of −0.0 is refused (the exact checks then decide: it is a zero).
/// `mesh::tests::skin_ok_is_both_rules` checks the equivalence.
#[inline]
pub(super) fn skin_ok(b: [i32; 4], wi: [i32; 4], bone_count: i32) -> bool {
    let f = |k: usize| f32::from_bits(wi[k] as u32);
    let sum = f(0) + f(1) + f(2) + f(3);
    let mut ok = (sum - 1.0).abs() <= SUM_TOLERANCE_32;
    // No negative weight (nor −0.0); descending weights.
    ok &= (wi[0] | wi[1] | wi[2] | wi[3]) >= 0;
    ok &= (wi[0] >= wi[1]) & (wi[1] >= wi[2]) & (wi[2] >= wi[3]);
    for k in 0..4 {
        // A used slot names a bone of the skeleton; an unused slot names bone 0.
        let limit = if wi[k] != 0 { bone_count } else { 1 };
        ok &= b[k] < limit;
    }
    for k in 0..3 {
        // Equal used weights list their bones ascending.
        ok &= (wi[k] != wi[k + 1]) | (wi[k] == 0) | (b[k] < b[k + 1]);
    }
    for j in 1..4 {
        for i in 0..j {
            // No bone used twice (weights descend, so slot j used means slot i is).
            ok &= (wi[j] == 0) | (b[i] != b[j]);
        }
    }
    ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Bounds;
    use crate::validate::{mark_used, skin_structure, weights_rule};

    use gom_test_support::rng::Rng;

    /// A skin that passes the rules (`k` influences, weights descending, bones
    /// distinct and below `bones`), sometimes spoiled in one field.
    fn skin(rng: &mut Rng, bones: u16) -> ([u16; 4], [f32; 4]) {
        let k = 1 + rng.below(4) as usize;
        let mut w = [0.0f32; 4];
        let mut b = [0u16; 4];
        let raw: Vec<f32> = (0..k).map(|_| 1.0 + rng.below(4) as f32).collect();
        let sum: f32 = raw.iter().sum();
        let mut sorted: Vec<f32> = raw.iter().map(|x| x / sum).collect();
        sorted.sort_by(|a, b| b.total_cmp(a));
        let mut picked: Vec<u16> = Vec::new();
        while picked.len() < k {
            let c = rng.below(u64::from(bones)) as u16;
            if !picked.contains(&c) {
                picked.push(c);
            }
        }
        w[..k].copy_from_slice(&sorted);
        b[..k].copy_from_slice(&picked);
        // Equal weights list their bones ascending.
        for s in 0..3 {
            for t in 0..3 - s {
                if w[t] == w[t + 1] && w[t] > 0.0 && b[t] > b[t + 1] {
                    b.swap(t, t + 1);
                }
            }
        }
        match rng.below(400) {
            0 => w[rng.below(4) as usize] += 1e-4,
            1 => b[rng.below(4) as usize] = rng.below(u64::from(bones) + 2) as u16,
            2 => w.swap(0, 3),
            3 => w[3] = -0.0,
            _ => {}
        }
        (b, w)
    }

    fn bytes_of(skins: &[([u16; 4], [f32; 4])]) -> Vec<u8> {
        let mut v = Vec::new();
        for (b, w) in skins {
            v.extend_from_slice(&[0u8; 12]);
            b.iter().for_each(|x| v.extend_from_slice(&x.to_le_bytes()));
            w.iter().for_each(|x| v.extend_from_slice(&x.to_le_bytes()));
        }
        v
    }

    #[test]
    fn the_fast_skin_pass_accepts_only_what_the_exact_rules_accept_and_marks_the_same_bones() {
        let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
        let (mut accepted, mut refused, mut single_refused) = (0, 0, 0);
        for _ in 0..2000 {
            let n = 1 + rng.below(BLOCK as u64) as usize;
            let skins: Vec<_> = (0..n).map(|_| skin(&mut rng, 7)).collect();
            let mut lanes = Lanes::new();
            let o = Offsets {
                stride: 36,
                tangent_w: None,
                skin: Some(12),
            };
            lanes.load(&bytes_of(&skins), &o);
            let exact = skins
                .iter()
                .all(|&(b, w)| skin_structure(b, w, 7).is_none() && weights_rule(b, w).is_none());
            let fast = lanes.skins_ok(7);
            // Never accepts what the exact rules refuse.
            assert!(!fast || exact, "{skins:?}");
            if fast {
                accepted += 1;
                let (mut f, mut e) = ([false; 7], [false; 7]);
                lanes.mark_used(&mut f);
                skins.iter().for_each(|&(b, w)| mark_used(&mut e, b, w));
                assert_eq!(f, e, "{skins:?}");
            } else {
                refused += 1;
            }
            // Skin by skin, the fast rules equal the exact ones, but for -0.0.
            for &(b, w) in &skins {
                if w.iter().any(|x| x.to_bits() == (-0.0f32).to_bits()) {
                    continue;
                }
                let single = skin_ok(b.map(i32::from), w.map(|x| x.to_bits() as i32), 7);
                let want = skin_structure(b, w, 7).is_none() && weights_rule(b, w).is_none();
                assert_eq!(single, want, "{b:?} {w:?}");
                single_refused += usize::from(!want);
            }
        }
        assert!(single_refused > 100, "{single_refused}");
        assert!(accepted > 100 && refused > 100, "{accepted} {refused}");
    }

    #[test]
    fn surely_inside_implies_inside_near_the_bounds() {
        let mut rng = Rng::new(0xD1B5_4A32_D192_ED03);
        let b = Bounds {
            aabb_min: [-1.0, 0.25, -3.0],
            aabb_max: [2.0, 0.75, 3.0],
            sphere_center: [0.5, 0.5, 0.0],
            sphere_radius: 3.4,
        };
        let c = Containment::new(&b);
        let mut inside = 0;
        for _ in 0..200_000 {
            let p = [0, 1, 2].map(|a| {
                let (lo, hi) = (b.aabb_min[a], b.aabb_max[a]);
                let t = rng.below(1 << 20) as f32 / (1 << 20) as f32;
                let x = lo - 0.01 + t * (hi - lo + 0.02);
                // Often exactly on, or one step off, a face.
                match rng.below(6) {
                    0 => lo,
                    1 => hi,
                    2 => crate::bounds::next_up(hi),
                    3 => crate::bounds::next_down(lo),
                    _ => x,
                }
            });
            let q = p.map(f64::from);
            if c.surely_inside(p) {
                inside += 1;
                assert!(c.in_box(q) && c.in_sphere(q), "{p:?}");
            } else if c.in_sphere(q) {
                // The box test is exact.
                assert!(
                    !c.in_box(q) || {
                        let d: f64 = (0..3)
                            .map(|a| (q[a] - f64::from(b.sphere_center[a])).powi(2))
                            .sum();
                        d > f64::from(b.sphere_radius).powi(2) * (1.0 - 1e-5)
                    },
                    "{p:?}"
                );
            }
        }
        assert!(inside > 1000, "{inside}");
    }
}
