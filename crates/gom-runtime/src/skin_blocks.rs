//! What the vector skinning paths know of a mesh's skin, block by block of
//! [`SKIN_BLOCK`] vertices, made once per mesh on first use.
//!
//! Besides how many influence slots a block uses, a block whose weighted slots name
//! at most [`MAX_COLUMN_BONES`] distinct bones is also kept *by bone*: per distinct
//! bone `b`, the sixteen vertices' weights of `b` (zero where a vertex does not use
//! it). The blended matrices of the block, one matrix element of all sixteen vertices
//! per register, are then
//!
//! `M[e] = Σ_b W_b · P[b][e]`
//!
//! twelve multiply-adds a distinct bone, with `P[b][e]` broadcast: no per-vertex
//! matrix loads and no transposition of sixteen blended matrices. Neighbouring
//! vertices of a real mesh follow neighbouring bones, so a block often names only a
//! few; a vertex that names one bone in two slots gets the sum of their weights.

use crate::mesh::skin_of;

/// Vertices per [`SkinBlock`].
pub(crate) const SKIN_BLOCK: usize = 16;

/// The most distinct bones a block keeps by bone. Past it the per-vertex blend
/// (four matrix loads and four weight broadcasts a vertex) costs less than twelve
/// multiply-adds a bone.
pub(crate) const MAX_COLUMN_BONES: usize = 16;

/// What the vector skinning paths need to know of one block before they blend.
///
/// The fields are private to this module and [`SkinBlocks::new`] (by `push`) is the
/// only constructor that can say the block's bone indices are small: a vector path
/// reads palette entries unchecked by those indices, so whether it may skip the clamp
/// depends on `bone_end` being true, and only the code that measured the indices sets
/// it. A path asks [`SkinBlock::indices_below`] with the length of the palette it
/// reads, so the answer never depends on which palette a caller paired the block with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SkinBlock {
    /// Influence slots any vertex of the block uses, 1 to 4: the slots after the last
    /// with a weight in some vertex are skipped, as a runtime that groups vertices by
    /// influence count does.
    slots: u8,
    /// One past the largest bone index of the block, any slot (`u32::MAX` when
    /// unknown): every index is below it.
    bone_end: u32,
    /// Distinct bones of the block kept by bone, 0 when it is not (see the module).
    bones: u8,
    /// Index of the block's first entry in [`SkinBlocks::bones`] and
    /// [`SkinBlocks::weights`].
    first: u32,
}

impl SkinBlock {
    /// A block the paths must treat as using every slot, clamped, not by bone.
    pub const UNKNOWN: SkinBlock = SkinBlock {
        slots: 4,
        bone_end: u32::MAX,
        bones: 0,
        first: 0,
    };

    /// Influence slots any vertex of the block uses, 1 to 4.
    pub fn slots(&self) -> u8 {
        self.slots
    }

    /// Whether every bone index of the block, in any slot, is below `len`: then a
    /// palette of `len` entries may be indexed by them without clamping.
    pub fn indices_below(&self, len: usize) -> bool {
        (self.bone_end as usize) <= len
    }

    /// Distinct bones of the block kept by bone, 0 when it is not.
    pub fn bones(&self) -> u8 {
        self.bones
    }

    /// Index of the block's first entry in [`SkinBlocks::bones`] and
    /// [`SkinBlocks::weights`].
    pub fn first(&self) -> u32 {
        self.first
    }
}

/// One distinct bone's weights in the sixteen vertices of a block, on a 64-byte line
/// of its own (one 512-bit load).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[repr(C, align(64))]
pub(crate) struct Weights16(pub [f32; SKIN_BLOCK]);

/// A mesh's blocks and the by-bone weights of those kept by bone.
#[derive(Debug, Clone, Default)]
pub(crate) struct SkinBlocks {
    /// Per block of [`SKIN_BLOCK`] vertices (the last may be partial).
    pub blocks: Vec<SkinBlock>,
    /// The distinct bones of every block kept by bone, block after block.
    pub bones: Vec<u16>,
    /// Their weights, entry for entry with `bones`.
    pub weights: Vec<Weights16>,
}

impl SkinBlocks {
    /// The blocks of `words` (vertices of `stride` words, the skin at word `so`) for
    /// a skeleton of `bone_count` bones.
    pub fn new(words: &[f32], stride: usize, so: usize, bone_count: usize) -> SkinBlocks {
        let mut out = SkinBlocks::default();
        for block in words.chunks(stride.max(1) * SKIN_BLOCK) {
            let b = out.push(block, stride.max(1), so, bone_count);
            out.blocks.push(b);
        }
        out
    }

    /// Summarises one block, appending its by-bone weights when it has few bones.
    fn push(&mut self, block: &[f32], stride: usize, so: usize, bone_count: usize) -> SkinBlock {
        let mut b = SkinBlock {
            slots: 1,
            bone_end: 0,
            bones: 0,
            first: 0,
        };
        for v in block.chunks_exact(stride) {
            let (i, w) = skin_of(v, so);
            let used = (1..4).rev().find(|&k| w[k] != 0.0).map_or(1, |k| k + 1);
            b.slots = b.slots.max(used as u8);
            let end = i.iter().map(|&i| u32::from(i) + 1).max().unwrap_or(0);
            b.bone_end = b.bone_end.max(end);
        }
        let whole = block.len() == stride * SKIN_BLOCK;
        let first = u32::try_from(self.bones.len()).ok();
        if let (true, Some(first)) = (whole, first) {
            if let Some(bones) = self.push_by_bone(block, stride, so, bone_count) {
                b.bones = bones;
                b.first = first;
            }
        }
        b
    }

    /// Appends the block's distinct bones and their weights (see [`by_bone`]) and
    /// returns how many, or appends nothing.
    fn push_by_bone(
        &mut self,
        block: &[f32],
        stride: usize,
        so: usize,
        bone_count: usize,
    ) -> Option<u8> {
        let start = self.bones.len();
        let kept = by_bone(block, stride, so, bone_count, self, start);
        if kept.is_none() {
            self.bones.truncate(start);
            self.weights.truncate(start);
        }
        kept
    }
}

/// Appends to `out` from entry `start` on the distinct bones that the block's
/// positive weights name, in order of first use, with their weights per vertex, and
/// returns how many; `None` past [`MAX_COLUMN_BONES`], when a weighted slot names a
/// bone past the skeleton, or when no weight is positive (the caller then drops what
/// was appended).
fn by_bone(
    block: &[f32],
    stride: usize,
    so: usize,
    bone_count: usize,
    out: &mut SkinBlocks,
    start: usize,
) -> Option<u8> {
    for (j, v) in block.chunks_exact(stride).enumerate() {
        let (i, w) = skin_of(v, so);
        for (&bone, &weight) in i.iter().zip(&w) {
            // Zero-weight slots add nothing (and may name any bone, D13).
            if weight == 0.0 {
                continue;
            }
            if usize::from(bone) >= bone_count || !weight.is_finite() {
                return None;
            }
            let kept = out.bones.get(start..)?;
            let d = match kept.iter().position(|&b| b == bone) {
                Some(d) => d,
                None if kept.len() < MAX_COLUMN_BONES => {
                    let d = kept.len();
                    out.bones.push(bone);
                    out.weights.push(Weights16::default());
                    d
                }
                None => return None,
            };
            out.weights.get_mut(start + d)?.0[j] += weight;
        }
    }
    let n = out.bones.len() - start;
    (n > 0).then_some(n as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One vertex of six words: the skin alone.
    fn vertex(bones: [u16; 4], weights: [f32; 4]) -> [f32; 6] {
        let pair = |a: u16, b: u16| f32::from_bits(u32::from(a) | u32::from(b) << 16);
        let [w0, w1, w2, w3] = weights;
        [
            pair(bones[0], bones[1]),
            pair(bones[2], bones[3]),
            w0,
            w1,
            w2,
            w3,
        ]
    }

    fn blocks(vertices: &[[f32; 6]], bone_count: usize) -> SkinBlocks {
        SkinBlocks::new(vertices.as_flattened(), 6, 0, bone_count)
    }

    #[test]
    fn a_block_of_few_bones_is_kept_by_bone_in_order_of_first_use() {
        // Vertex j: bone j % 3 at 0.5, bone 7 twice at 0.25, an unused slot naming
        // a bone past the skeleton.
        let v: Vec<_> = (0..16u16)
            .map(|j| vertex([j % 3, 7, 0xFFFF, 7], [0.5, 0.25, 0.0, 0.25]))
            .collect();
        let b = blocks(&v, 8);
        let expected = SkinBlock {
            slots: 4,
            bone_end: 0x1_0000,
            bones: 4,
            first: 0,
        };
        assert_eq!(b.blocks, [expected]);
        assert_eq!(b.bones, [0, 7, 1, 2]);
        let column = |f: &dyn Fn(usize) -> f32| Weights16(std::array::from_fn(f));
        let of = |r: usize| column(&move |j| if j % 3 == r { 0.5 } else { 0.0 });
        assert_eq!(b.weights, [of(0), column(&|_| 0.5), of(1), of(2)]);
    }

    #[test]
    fn a_block_of_many_bones_a_partial_block_and_a_bone_past_the_skeleton_are_not() {
        // Sixteen vertices of one bone each, bones 0..16: sixteen bones, kept. Then
        // the same with a second bone, 20, in every vertex: seventeen; then a weighted
        // bone past the skeleton; then five vertices.
        let one = |b: u16| vertex([b, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]);
        let mut v: Vec<_> = (0..16).map(one).collect();
        v.extend((0..16).map(|b| vertex([b, 20, 0, 0], [0.5, 0.5, 0.0, 0.0])));
        v.extend((0..15).map(one).chain([one(40)]));
        v.extend((0..5).map(one));
        let b = blocks(&v, 40);
        let kept: Vec<u8> = b.blocks.iter().map(|b| b.bones).collect();
        assert_eq!(MAX_COLUMN_BONES, 16);
        assert_eq!(kept, [16, 0, 0, 0]);
        assert_eq!(b.bones.len(), 16);
        let slots: Vec<u8> = b.blocks.iter().map(|b| b.slots).collect();
        assert_eq!(slots, [1, 2, 1, 1]);
        assert!(!b.blocks[2].indices_below(40));
        assert!(b.blocks[2].indices_below(41));
    }

    #[test]
    fn indices_below_answers_for_the_palette_asked_not_the_skeleton_measured() {
        // Bones 0..16, measured against a skeleton of 40 bones: in range for a
        // palette of 16 or more entries, not for a shorter one, and an unknown block
        // never is.
        let v: Vec<_> = (0..16u16)
            .map(|b| vertex([b, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]))
            .collect();
        let b = blocks(&v, 40).blocks[0];
        assert_eq!((b.slots(), b.bones(), b.first()), (1, 16, 0));
        assert!(b.indices_below(16) && b.indices_below(40));
        assert!(!b.indices_below(15) && !b.indices_below(0));
        assert!(!SkinBlock::UNKNOWN.indices_below(usize::from(u16::MAX) + 1));
    }
}
