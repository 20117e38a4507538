//! Skin weights as the game stores them: four `u8` summing to exactly 255.

/// Quantises four weights to `u8` summing to exactly 255 with the largest-remainder rule:
/// each weight (normalised to sum 1) times 255 is rounded down, and the units still
/// missing go one each to the largest remainders (ties to the lower slot). Every
/// quantised weight is then within one step (1/255) of the normalised weight. Weights
/// that are all zero (or not finite) put 255 on slot 0.
pub(crate) fn quantise(w: [f32; 4]) -> [u8; 4] {
    let w = w.map(|v| {
        if v.is_finite() && v > 0.0 {
            f64::from(v)
        } else {
            0.0
        }
    });
    let sum: f64 = w.iter().sum();
    if sum <= 0.0 {
        return [255, 0, 0, 0];
    }
    let scaled = w.map(|v| v / sum * 255.0);
    let mut q = scaled.map(|v| v.floor().min(255.0) as u8);
    let given: u32 = q.iter().map(|&v| u32::from(v)).sum();
    let mut order = [0usize, 1, 2, 3];
    // largest remainder first; the sort is stable, so ties keep the lower slot first
    order.sort_by(|&a, &b| {
        let ra = scaled[a] - scaled[a].floor();
        let rb = scaled[b] - scaled[b].floor();
        rb.total_cmp(&ra)
    });
    for &slot in order.iter().take(255u32.saturating_sub(given) as usize) {
        q[slot] += 1;
    }
    q
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sum(q: [u8; 4]) -> u32 {
        q.iter().map(|&v| u32::from(v)).sum()
    }

    #[test]
    fn missing_units_go_to_the_largest_remainders_ties_to_the_lower_slot() {
        // 85 each would sum to 255 already: thirds divide evenly
        assert_eq!(quantise([1.0, 1.0, 1.0, 0.0]), [85, 85, 85, 0]);
        // 0.5/0.25/0.25 → 127.5, 63.75, 63.75: floors sum to 253, the two missing units
        // go to the largest remainders (slots 1 and 2)
        assert_eq!(quantise([0.5, 0.25, 0.25, 0.0]), [127, 64, 64, 0]);
        // 0.375/0.375/0.25 → 95.625, 95.625, 63.75: slot 2 first, then the tie between
        // slots 0 and 1 goes to the lower slot
        assert_eq!(quantise([0.375, 0.375, 0.25, 0.0]), [96, 95, 64, 0]);
        assert_eq!(quantise([0.0; 4]), [255, 0, 0, 0]);
        assert_eq!(quantise([2.0, 0.0, 0.0, 0.0]), [255, 0, 0, 0]);
    }

    #[test]
    fn always_sums_to_255_within_one_step() {
        let mut seed = 12345u32;
        for _ in 0..10_000 {
            let mut w = [0.0f32; 4];
            for v in &mut w {
                seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                *v = (seed >> 8) as f32 / (1u32 << 24) as f32;
            }
            let q = quantise(w);
            assert_eq!(sum(q), 255, "{w:?} → {q:?}");
            let total: f32 = w.iter().sum();
            for k in 0..4 {
                let err = (f32::from(q[k]) / 255.0 - w[k] / total).abs();
                assert!(err < 1.0 / 255.0 + 1e-6, "{w:?} → {q:?}");
            }
        }
    }
}
