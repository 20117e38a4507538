//! The attributes a morph changes, packed: per vertex its position, then its normal and
//! its tangent's xyz when the mesh has them, in one run of floats. [`Packed::bind`] is
//! the bind mesh's, read to restore a vertex (a few contiguous floats instead of a
//! 64-byte line of the interleaved words each); [`Packed::sums`] is where the dense
//! walk adds the active targets' rows before writing each moved vertex once, in vertex
//! order.

use gom::layout::Attribute;

use super::{renormalise, Frame};
use crate::mesh::Mesh;

/// Packed bind attributes and the dense walk's sums (see the module's doc).
#[derive(Debug, Clone)]
pub(super) struct Packed {
    /// The word offset in a mesh vertex of each packed attribute, position first.
    at: [Option<usize>; 3],
    /// Attributes (three floats each) per vertex.
    parts: usize,
    /// The bind values, `parts` a vertex.
    bind: Vec<[f32; 3]>,
    /// The dense walk's sums; equal to `bind` between calls.
    sums: Vec<[f32; 3]>,
}

/// Vertices the dense walk's pass takes together: their flags are the bits of a
/// `u64`, and their square roots and divisions are done as a vector (64 so that the
/// vector loads find the lengths' stores done).
const BLOCK: usize = 64;

impl Packed {
    /// The packed bind attributes of `mesh`.
    pub(super) fn new(mesh: &Mesh<'_>) -> Packed {
        let at = [
            Some(0),
            mesh.word_offset(Attribute::Normal),
            mesh.word_offset(Attribute::Tangent),
        ];
        let parts = at.iter().flatten().count();
        let stride = mesh.stride_words().max(1);
        let mut bind = Vec::with_capacity(mesh.vertex_count() * parts);
        for vertex in mesh.vertex_words().chunks_exact(stride) {
            for &o in at.iter().flatten() {
                let part = vertex.get(o..o + 3).and_then(|p| p.try_into().ok());
                bind.push(part.unwrap_or([0.0; 3]));
            }
        }
        Packed {
            at,
            parts,
            sums: bind.clone(),
            bind,
        }
    }

    /// Where the normal and the tangent lie in a packed vertex, in floats.
    pub(super) fn offsets(&self) -> (Option<usize>, Option<usize>) {
        let [normal, tangent] = self.units();
        (normal.map(|u| 3 * u), tangent.map(|u| 3 * u))
    }

    /// Which attribute of a packed vertex the normal and the tangent are.
    fn units(&self) -> [Option<usize>; 2] {
        let normal = self.at[1].map(|_| 1);
        let tangent = self.at[2].map(|_| 1 + usize::from(self.at[1].is_some()));
        [normal, tangent]
    }

    /// The sums as a [`Frame`] the row adds write into (`3 · parts` floats a vertex).
    pub(super) fn frame(&mut self) -> Frame<'_> {
        Frame {
            dst: bytemuck::cast_slice_mut(&mut self.sums),
            stride: 3 * self.parts,
        }
    }

    /// The word offsets of the packed attributes in a mesh vertex, in packed order
    /// (the first `parts` count).
    fn word_offsets(&self) -> [usize; 3] {
        let mut out = [0; 3];
        for (w, o) in out.iter_mut().zip(self.at.into_iter().flatten()) {
            *w = o;
        }
        out
    }

    /// Vertex `v`'s packed bind attributes.
    #[inline]
    fn bind_of(&self, v: usize) -> &[[f32; 3]] {
        &self.bind[v * self.parts..(v + 1) * self.parts]
    }

    /// Writes vertex `v`'s bind attributes into `words` (interleaved, `stride` words a
    /// vertex).
    #[inline]
    pub(super) fn restore(&self, words: &mut [f32], stride: usize, v: usize) {
        let at = &self.word_offsets()[..self.parts];
        write(&mut words[v * stride..], at, self.bind_of(v));
    }

    /// Renormalises vertex `v`'s normal and tangent in `words` (interleaved), keeping
    /// the bind vector where the sum has no direction.
    #[inline]
    pub(super) fn renormalise(&self, words: &mut [f32], stride: usize, v: usize) {
        let bind = self.bind_of(v);
        for (o, u) in self.at[1..].iter().zip(self.units()) {
            if let (Some(o), Some(u)) = (o, u) {
                let at = v * stride + o;
                renormalise(&mut words[at..at + 3], &bind[u]);
            }
        }
    }

    /// The dense walk's last step, one pass over the vertices in order, [`BLOCK`] at a
    /// time: each vertex stamped `epoch` (moved by this call) gets its sums
    /// renormalised, written to `words` (interleaved, `stride` words a vertex) and reset
    /// to bind, and is listed in `touched`; each vertex stamped the call before gets
    /// its bind attributes back. A block with neither is skipped; in the others every
    /// vertex is written, without a branch (a vertex's sums are its bind attributes
    /// unless it moved).
    pub(super) fn write_moved(&mut self, out: Moved<'_>) {
        match self.parts {
            1 => self.pass::<1>(out),
            2 => self.pass::<2>(out),
            _ => self.pass::<3>(out),
        }
    }

    /// [`Packed::write_moved`] for `P` attributes a vertex.
    fn pass<const P: usize>(&mut self, out: Moved<'_>) {
        let mut at = [0; P];
        at.copy_from_slice(&self.word_offsets()[..P]);
        let (sums, _) = self.sums.as_chunks_mut::<P>();
        let (binds, _) = self.bind.as_chunks::<P>();
        let blocks = sums
            .chunks_mut(BLOCK)
            .zip(binds.chunks(BLOCK))
            .zip(out.stamp.chunks(BLOCK));
        let before = out.epoch.wrapping_sub(1);
        // GOM's layouts: position, normal and tangent one after the other.
        let contiguous = at.iter().enumerate().all(|(k, &o)| o == 3 * k);
        let mut touched = std::mem::take(out.touched);
        for (b, ((sums, binds), stamps)) in blocks.enumerate() {
            let (mut moved, mut restore) = (0u64, 0u64);
            for (j, &s) in stamps.iter().enumerate() {
                moved |= u64::from(s == out.epoch) << j;
                restore |= u64::from(s == before) << j;
            }
            if moved | restore == 0 {
                continue;
            }
            if moved != 0 {
                for u in 1..P {
                    renormalise_block(sums, binds, u, moved);
                }
            }
            // Every vertex of the block: the sums of a vertex not moved are its bind
            // attributes, which restores it or writes what it holds.
            let first = b * BLOCK;
            let words = &mut out.words[first * out.stride..(first + sums.len()) * out.stride];
            for (sum, vertex) in sums.iter().zip(words.chunks_exact_mut(out.stride)) {
                write_as(vertex, &at, contiguous, sum);
            }
            let mut bits = moved;
            while bits != 0 {
                let j = bits.trailing_zeros() as usize;
                sums[j] = binds[j];
                touched.push((first + j) as u32);
                bits &= bits - 1;
            }
        }
        *out.touched = touched;
    }
}

/// Where the dense walk's pass writes: the morphed mesh's interleaved words
/// (`stride` a vertex), the stamps of the vertices and the current call's, and the
/// list of the vertices this call moved.
pub(super) struct Moved<'w> {
    pub words: &'w mut [f32],
    pub stride: usize,
    pub stamp: &'w [u32],
    pub epoch: u32,
    pub touched: &'w mut Vec<u32>,
}

/// [`renormalise`] of attribute `u` of each vertex of a block whose bit is set in
/// `moved`, the square roots and divisions of the block together: the same operations
/// in the same order, so the same bits.
fn renormalise_block<const P: usize>(
    sums: &mut [[[f32; 3]; P]],
    binds: &[[[f32; 3]; P]],
    u: usize,
    moved: u64,
) {
    let mut len = [0.0f32; BLOCK];
    for (l, s) in len.iter_mut().zip(sums.iter()) {
        let s = s[u];
        *l = s[0] * s[0] + s[1] * s[1] + s[2] * s[2];
    }
    let len = len.map(f32::sqrt);
    let inv = len.map(|l| 1.0 / l);
    for (j, (s, b)) in sums.iter_mut().zip(binds).enumerate() {
        if moved >> j & 1 != 0 {
            s[u] = if len[j] > 0.0 && len[j].is_finite() {
                s[u].map(|c| c * inv[j])
            } else {
                b[u]
            };
        }
    }
}

/// [`write`], as one copy of `3 · P` floats when the attributes lie `contiguous`ly from
/// the vertex's first word.
#[inline]
fn write_as<const P: usize>(
    vertex: &mut [f32],
    at: &[usize; P],
    contiguous: bool,
    packed: &[[f32; 3]; P],
) {
    if contiguous {
        vertex[..3 * P].copy_from_slice(packed.as_flattened());
    } else {
        write(vertex, at, packed);
    }
}

/// Writes a packed vertex into the words of its interleaved vertex: each attribute to
/// its offset `at`.
#[inline]
fn write(vertex: &mut [f32], at: &[usize], packed: &[[f32; 3]]) {
    for (&o, part) in at.iter().zip(packed) {
        vertex[o..o + 3].copy_from_slice(part);
    }
}
