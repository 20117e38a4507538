//! Eight lanes of interpolation data laid out for copying records in: what a
//! [`crate::PreparedContext`] keeps per block of eight bones.

use glam::Vec4;

use super::{Group, LaneData, LANE_FLOATS};

/// The interpolation data of eight lanes (two [`Group`]s) with each lane's floats kept
/// in pairs: pair `k` of lane `l` is fields `2k` and `2k + 1` of its [`LaneData`],
/// side by side, so that setting a lane is twelve 8-byte stores where a [`Group`]
/// takes 24 four-byte ones (stores are what copying a record costs). Reading eight
/// lanes of two fields back is two 256-bit loads and two in-lane shuffles, for which
/// lane `l` sits in slot [`Paired::SLOT`]`[l]` of each pair row.
#[derive(Debug, Clone, Copy)]
#[repr(C, align(64))]
pub(crate) struct Paired {
    /// `pairs[k][SLOT[l]]`: fields `2k`, `2k + 1` of lane `l`.
    pub(crate) pairs: [[[f32; 2]; 8]; LANE_FLOATS / 2],
}

impl Paired {
    /// The slot of lane `l` in a pair row: rows are read as two halves of four slots,
    /// `[s0 s1 s2 s3]` and `[s4 s5 s6 s7]`, and an in-lane shuffle of the two gives the
    /// lanes in the order of slots 0, 1, 4, 5, 2, 3, 6, 7; storing lane `l` at `SLOT[l]`
    /// makes that order 0 … 7.
    pub(crate) const SLOT: [usize; 8] = [0, 1, 4, 5, 2, 3, 6, 7];

    /// Eight lanes of zeros, to be set with [`Paired::set_lane`].
    pub(crate) const ZERO: Paired = Paired {
        pairs: [[[0.0; 2]; 8]; LANE_FLOATS / 2],
    };

    /// Sets lane `l`'s interpolation data (lanes past 7 wrap).
    #[inline(always)]
    pub(crate) fn set_lane(&mut self, l: usize, d: &LaneData) {
        let slot = Self::SLOT[l & 7];
        for (row, pair) in self.pairs.iter_mut().zip(d.chunks_exact(2)) {
            if let (Some(dst), [a, b]) = (row.get_mut(slot), pair) {
                *dst = [*a, *b];
            }
        }
    }

    /// The two groups of four lanes (lanes 0–3, then 4–7).
    pub(crate) fn groups(&self) -> [Group; 2] {
        std::array::from_fn(|h| {
            let lanes = |f: usize| {
                let (row, half) = (f / 2, f % 2);
                let at = |l: usize| self.pairs[row][Self::SLOT[4 * h + l]][half];
                Vec4::new(at(0), at(1), at(2), at(3))
            };
            Group::from_fields(std::array::from_fn(lanes))
        })
    }
}
