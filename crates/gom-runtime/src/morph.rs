//! Blend shapes at run time (`docs/extensions.md` §4): a mesh's [`MorphTargets`], the
//! weights a clip's tracks give ([`sample_weights`]) or a game sets, and [`Morpher`],
//! which applies them to the bind attributes before skinning.
//!
//! ```text
//! Clip + time ──sample_weights──► weights (or the game's own, e.g. a face rig)
//! Mesh + MorphTargets + weights ──Morpher::apply──► morphed Mesh ──skin──► vertices
//! ```
//!
//! Only targets with a non-zero weight cost anything: [`Morpher::apply`] restores the
//! vertices the previous call moved, then adds each active target's sparse deltas
//! (`p += w·dp`, `n += w·dn`, `t.xyz += w·dt`) and renormalises the normals and
//! tangents it touched. The skinning kernels are the ones of [`crate::skinning`],
//! unchanged: they read the morphed mesh's words instead of the file's.
//!
//! A target keeps its deltas interleaved, one row per moved vertex (position delta,
//! then normal and tangent deltas when it has them), so that where the mesh's words
//! lie in the same order (position, normal, tangent.xyz: GOM's layout) one row is
//! added to one run of a vertex's words. Two paths add the rows ([`MorphPath`]):
//! plain `f32` (the reference) and, on x86-64 CPUs with AVX, one masked load, multiply,
//! add and masked store per row (`morph/avx.rs`); both multiply then add, so they give
//! the same bits (the tests check it). When many vertices move, a call adds the rows
//! into a packed copy of the bind attributes instead and writes the moved vertices in
//! one pass in vertex order (`morph/packed.rs`): the same bits again.

use gom::layout::Attribute;
use gom::morph::{sample_weight, MorphTarget, WeightTrack};

use crate::clip::Playback;
use crate::mesh::Mesh;
use crate::{Asset, Error};

/// One target as the runtime keeps it: the moved vertices and one row of deltas each.
#[derive(Debug, Clone, Default)]
struct Target {
    name: String,
    indices: Vec<u32>,
    /// The largest of `indices` (0 when there are none).
    max_index: u32,
    /// Which deltas a row holds besides the position's.
    normals: bool,
    tangents: bool,
    /// `indices.len()` rows of [`Target::width`] floats: position delta, then the normal
    /// delta (when `normals`), then the tangent delta (when `tangents`).
    rows: Vec<f32>,
}

impl Target {
    fn new(t: &MorphTarget) -> Target {
        let (normals, tangents) = (t.normals.is_some(), t.tangents.is_some());
        let width = 3 * (1 + usize::from(normals) + usize::from(tangents));
        let mut rows = Vec::with_capacity(t.indices.len() * width);
        let zero = [0.0f32; 3];
        // In vertex order (as `gom` checked them, or sorted here).
        let mut order: Vec<usize> = (0..t.indices.len()).collect();
        order.sort_by_key(|&j| t.indices[j]);
        for &j in &order {
            rows.extend(t.positions.get(j).unwrap_or(&zero));
            for d in [&t.normals, &t.tangents].into_iter().flatten() {
                rows.extend(d.get(j).unwrap_or(&zero));
            }
        }
        Target {
            name: t.name.clone(),
            indices: order.iter().map(|&j| t.indices[j]).collect(),
            max_index: t.indices.iter().copied().max().unwrap_or(0),
            normals,
            tangents,
            rows,
        }
    }

    /// Floats per row.
    fn width(&self) -> usize {
        3 * (1 + usize::from(self.normals) + usize::from(self.tangents))
    }

    /// Where each 3-float part of a row goes in a vertex of a mesh with normals at word
    /// `no` and tangents at `to`: `(word offset, row offset)` pairs (a part the mesh has
    /// no attribute for is dropped).
    fn parts(&self, no: Option<usize>, to: Option<usize>) -> Parts {
        let mut parts = Parts::default();
        parts.push(0, 0);
        let mut col = 3;
        for (has, at) in [(self.normals, no), (self.tangents, to)] {
            if has {
                if let Some(o) = at {
                    parts.push(o, col);
                }
                col += 3;
            }
        }
        parts
    }
}

/// Up to three `(word offset in a vertex, offset in a row)` pairs.
#[derive(Debug, Clone, Copy, Default)]
struct Parts {
    pairs: [(usize, usize); 3],
    len: usize,
}

impl Parts {
    fn push(&mut self, word: usize, col: usize) {
        if let Some(p) = self.pairs.get_mut(self.len) {
            *p = (word, col);
            self.len += 1;
        }
    }

    fn as_slice(&self) -> &[(usize, usize)] {
        &self.pairs[..self.len]
    }

    /// The length of the run when every part lies at its own row offset, so that a row
    /// is added to words `0..run` of a vertex as a whole; `None` otherwise.
    fn run(&self, width: usize) -> Option<usize> {
        let whole = self.as_slice().iter().all(|&(w, c)| w == c) && 3 * self.len == width;
        whole.then_some(width)
    }
}

/// The morph targets of one mesh (none for most meshes).
#[derive(Debug, Clone, Default)]
pub struct MorphTargets {
    targets: Vec<Target>,
    defaults: Vec<f32>,
}

impl MorphTargets {
    /// The targets of a mesh of the model (as `gom` checked them: indices below the
    /// vertex count, deltas finite).
    pub fn new(targets: &[MorphTarget]) -> Self {
        MorphTargets {
            targets: targets.iter().map(Target::new).collect(),
            defaults: targets.iter().map(|t| t.default_weight).collect(),
        }
    }

    /// The number of targets.
    pub fn len(&self) -> usize {
        self.targets.len()
    }

    /// Whether the mesh has no targets.
    pub fn is_empty(&self) -> bool {
        self.targets.is_empty()
    }

    /// Target `k`'s name.
    pub fn name(&self, k: usize) -> Option<&str> {
        self.targets.get(k).map(|t| t.name.as_str())
    }

    /// The index of the target named `name`.
    pub fn find(&self, name: &str) -> Option<usize> {
        self.targets.iter().position(|t| t.name == name)
    }

    /// Each target's default weight (the weights without a clip).
    pub fn default_weights(&self) -> &[f32] {
        &self.defaults
    }

    /// The vertices target `k` moves.
    pub fn indices(&self, k: usize) -> &[u32] {
        self.targets.get(k).map_or(&[], |t| &t.indices)
    }
}

/// The weights of mesh `mesh`'s targets at `time` of a clip with `tracks` (its
/// [`Asset::weight_tracks`]), `duration` and `playback`: each target's default
/// weight (from `defaults`), overridden by its track where the clip has one. `out`
/// holds one weight per target.
pub fn sample_weights(
    tracks: &[WeightTrack],
    mesh: usize,
    defaults: &[f32],
    duration: f32,
    time: f32,
    playback: Playback,
    out: &mut [f32],
) -> Result<(), Error> {
    if out.len() != defaults.len() {
        return Err(Error::BufferLength {
            buffer: "weights",
            expected: defaults.len(),
            found: out.len(),
        });
    }
    out.copy_from_slice(defaults);
    let t = match playback {
        Playback::Loop if duration > 0.0 => time.rem_euclid(duration),
        _ => time,
    };
    for tr in tracks.iter().filter(|tr| tr.mesh as usize == mesh) {
        if let Some(w) = out.get_mut(tr.target as usize) {
            *w = sample_weight(&tr.keys, tr.interpolation, t);
        }
    }
    Ok(())
}

/// How [`Morpher::apply_with`] adds a target's rows to the vertices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MorphPath {
    /// Plain `f32`, one word at a time: the reference.
    Scalar,
    /// x86-64 with AVX: a row at a time, masked loads and stores of up to eight words.
    Avx,
}

impl MorphPath {
    /// Every path, the reference first.
    pub const ALL: [MorphPath; 2] = [MorphPath::Scalar, MorphPath::Avx];

    /// Whether this CPU can take the path.
    pub fn available(self) -> bool {
        match self {
            MorphPath::Scalar => true,
            #[cfg(target_arch = "x86_64")]
            MorphPath::Avx => avx::available(),
            #[cfg(not(target_arch = "x86_64"))]
            MorphPath::Avx => false,
        }
    }

    /// The fastest path this CPU has.
    pub fn best() -> MorphPath {
        if MorphPath::Avx.available() {
            MorphPath::Avx
        } else {
            MorphPath::Scalar
        }
    }
}

/// A mesh whose bind attributes carry the weights of the last [`Morpher::apply`]:
/// skin it, draw it, or read its vertices as any [`Mesh`].
#[derive(Debug, Clone)]
pub struct Morpher<'a> {
    mesh: Mesh<'a>,
    /// The bind attributes a morph changes, packed, and the dense walk's sums.
    packed: Packed,
    /// Vertices moved by the last call, to restore first on the next.
    touched: Vec<u32>,
    /// The same during a call: the vertices the call before moved.
    previous: Vec<u32>,
    /// Per vertex, the call that last touched it (`epoch` is the current one).
    stamp: Vec<u32>,
    epoch: u32,
}

/// Rows added to `dst`, `stride` words a vertex: the morphed mesh's interleaved words
/// (the sparse walk) or the packed sums (the dense walk).
struct Frame<'s> {
    dst: &'s mut [f32],
    stride: usize,
}

/// How one call walks the moved vertices (see [`Morpher::apply_with`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Walk {
    /// Restore the previous call's vertices, add the rows into the morphed words,
    /// renormalise each moved vertex: each step a scattered access per vertex.
    Sparse,
    /// Add the rows into the packed sums, then one pass in vertex order that writes
    /// each moved vertex once and restores the previous call's.
    Dense,
}

impl Walk {
    /// The walk for a call that restores `previous` vertices and adds `rows` rows to a
    /// mesh of `vertices`: the dense walk once those scattered accesses reach a quarter
    /// of the vertices (a pass in order costs a fraction of a scattered access per
    /// vertex; the quarter is a round figure, not a measured crossover).
    fn choose(previous: usize, rows: usize, vertices: usize) -> Walk {
        if 4 * (previous + rows) >= vertices {
            Walk::Dense
        } else {
            Walk::Sparse
        }
    }
}

impl<'a> Morpher<'a> {
    /// A morpher for `mesh` (copied once; the copy is what [`Morpher::apply`] changes).
    pub fn new(mesh: &Mesh<'a>) -> Self {
        Morpher {
            mesh: mesh.clone(),
            packed: Packed::new(mesh),
            // At most every vertex, listed once: never grown during a call.
            touched: Vec::with_capacity(mesh.vertex_count()),
            previous: Vec::with_capacity(mesh.vertex_count()),
            stamp: vec![0; mesh.vertex_count()],
            epoch: 0,
        }
    }

    /// The mesh with the last weights applied.
    pub fn mesh(&self) -> &Mesh<'a> {
        &self.mesh
    }

    /// Applies `weights` (one per target of `targets`, the targets of `base`) to
    /// `base`'s bind positions, normals and tangents, and returns the morphed mesh.
    /// Costs O(vertices moved by the previous call + deltas of targets whose weight
    /// is not 0), or one pass over the vertices when that is cheaper; allocates
    /// nothing after the first call. Takes the fastest [`MorphPath`] this CPU has.
    pub fn apply(
        &mut self,
        base: &Mesh<'_>,
        targets: &MorphTargets,
        weights: &[f32],
    ) -> Result<&Mesh<'a>, Error> {
        self.apply_with(base, targets, weights, MorphPath::best())
    }

    /// [`Morpher::apply`] on `path` (the scalar path when the CPU lacks it); every path
    /// gives the same bits.
    ///
    /// `base` must be the mesh the morpher was made for: the bind attributes are the
    /// ones [`Morpher::new`] packed. A call walks the moved vertices one of two ways,
    /// which give the same bits: when few vertices move, it restores the previous
    /// call's, adds each active target's rows into the morphed words and renormalises
    /// the moved normals and tangents; when many do, it adds the rows into a packed
    /// copy of the bind attributes and then writes every moved (or previously moved)
    /// vertex once, in vertex order.
    pub fn apply_with(
        &mut self,
        base: &Mesh<'_>,
        targets: &MorphTargets,
        weights: &[f32],
        path: MorphPath,
    ) -> Result<&Mesh<'a>, Error> {
        self.check(base, targets, weights)?;
        let rows = active(targets, weights).map(|(t, _)| t.indices.len()).sum();
        let walk = Walk::choose(self.touched.len(), rows, base.vertex_count());
        self.apply_walk(targets, weights, path, walk);
        Ok(&self.mesh)
    }

    /// [`Morpher::apply_with`] after its checks, on `walk`.
    fn apply_walk(&mut self, targets: &MorphTargets, weights: &[f32], path: MorphPath, walk: Walk) {
        std::mem::swap(&mut self.touched, &mut self.previous);
        self.touched.clear();
        self.next_epoch();
        let avx = path != MorphPath::Scalar && path.available();
        match walk {
            Walk::Sparse => self.sparse(targets, weights, avx),
            Walk::Dense => self.dense(targets, weights, avx),
        }
    }

    /// The sparse walk (see [`Walk::Sparse`]).
    fn sparse(&mut self, targets: &MorphTargets, weights: &[f32], avx: bool) {
        let stride = self.mesh.stride_words();
        let no = self.mesh.word_offset(Attribute::Normal);
        let to = self.mesh.word_offset(Attribute::Tangent);
        let words = self.mesh.vertex_words_mut();
        // Restore the attributes the previous weights moved (the other words of a
        // vertex never change).
        for &v in &self.previous {
            self.packed.restore(words, stride, v as usize);
        }
        let mut frame = Frame { dst: words, stride };
        for (t, w) in active(targets, weights) {
            mark(&t.indices, &mut self.stamp, self.epoch, &mut self.touched);
            add(&mut frame, t, t.parts(no, to), w, avx);
        }
        for &v in &self.touched {
            self.packed.renormalise(frame.dst, stride, v as usize);
        }
    }

    /// The dense walk (see [`Walk::Dense`]).
    fn dense(&mut self, targets: &MorphTargets, weights: &[f32], avx: bool) {
        let (no, to) = self.packed.offsets();
        let mut frame = self.packed.frame();
        for (t, w) in active(targets, weights) {
            for &i in &t.indices {
                self.stamp[i as usize] = self.epoch;
            }
            add(&mut frame, t, t.parts(no, to), w, avx);
        }
        let stride = self.mesh.stride_words();
        self.packed.write_moved(packed::Moved {
            words: self.mesh.vertex_words_mut(),
            stride,
            stamp: &self.stamp,
            epoch: self.epoch,
            touched: &mut self.touched,
        });
    }

    /// The arguments' checks: one weight per target, the mesh the morpher was made
    /// for, every moved vertex inside it (the AVX path relies on the last).
    fn check(&self, base: &Mesh<'_>, targets: &MorphTargets, weights: &[f32]) -> Result<(), Error> {
        if weights.len() != targets.len() {
            return Err(Error::BufferLength {
                buffer: "weights",
                expected: targets.len(),
                found: weights.len(),
            });
        }
        let n = base.vertex_count();
        if n != self.mesh.vertex_count()
            || base.stride_words() != self.mesh.stride_words()
            || base.layout() != self.mesh.layout()
        {
            return Err(Error::InvalidModel {
                location: format!("mesh \"{}\"", base.name()),
                problem: "the morpher was made for another mesh".into(),
            });
        }
        if let Some(t) = targets
            .targets
            .iter()
            .find(|t| !t.indices.is_empty() && t.max_index as usize >= n)
        {
            return Err(Error::InvalidModel {
                location: format!("mesh \"{}\", target \"{}\"", base.name(), t.name),
                problem: "a target moves a vertex the mesh does not have".into(),
            });
        }
        Ok(())
    }

    /// Starts a call, after `previous` took the last call's vertices: a new stamp.
    /// When the counter wraps, every stamp is cleared and the previous call's vertices
    /// get the stamp before the new one (what the dense walk restores).
    fn next_epoch(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch <= 1 {
            self.stamp.fill(0);
            for &v in &self.previous {
                self.stamp[v as usize] = 1;
            }
            self.epoch = 2;
        }
    }
}

/// The targets of `targets` whose weight is not 0, with their weights.
fn active<'t>(
    targets: &'t MorphTargets,
    weights: &'t [f32],
) -> impl Iterator<Item = (&'t Target, f32)> + 't {
    targets
        .targets
        .iter()
        .zip(weights)
        .filter(|(_, &w)| w != 0.0)
        .map(|(t, &w)| (t, w))
}

/// Stamps each of `indices` with `epoch`, listing in `touched` those not stamped yet.
fn mark(indices: &[u32], stamp: &mut [u32], epoch: u32, touched: &mut Vec<u32>) {
    for &i in indices {
        let s = &mut stamp[i as usize];
        if *s != epoch {
            *s = epoch;
            touched.push(i);
        }
    }
}

/// Adds `w` times target `t`'s rows to `frame` on the AVX path when `avx` and the
/// parts of a row lie as the frame's words do, on the reference otherwise.
fn add(frame: &mut Frame<'_>, t: &Target, parts: Parts, w: f32, avx: bool) {
    let rows = Rows::of(t, 0..t.indices.len());
    match parts.run(t.width()) {
        #[cfg(target_arch = "x86_64")]
        Some(run) if avx => avx::add_rows(frame, &rows, parts, run, w),
        _ => {
            let _ = avx;
            add_parts(frame, &rows, parts, w)
        }
    }
}

/// Some of a target's moved vertices and their rows.
struct Rows<'t> {
    indices: &'t [u32],
    rows: &'t [f32],
    width: usize,
    /// The largest index of the whole target.
    max_index: u32,
}

impl<'t> Rows<'t> {
    /// Moved vertices `range` of `t` (a range of its indices).
    fn of(t: &'t Target, range: std::ops::Range<usize>) -> Rows<'t> {
        let width = t.width();
        let rows = t.rows.get(range.start * width..range.end * width);
        Rows {
            indices: t.indices.get(range).unwrap_or(&[]),
            rows: rows.unwrap_or(&[]),
            width,
            max_index: t.max_index,
        }
    }
}

/// The reference: `words[i·stride + o ..][..3] += w · row[c..][..3]` for each moved
/// vertex `i` and each part `(o, c)`.
fn add_parts(frame: &mut Frame<'_>, t: &Rows<'_>, parts: Parts, w: f32) {
    let width = t.width;
    for (&i, row) in t.indices.iter().zip(t.rows.chunks_exact(width)) {
        let at = i as usize * frame.stride;
        for &(o, c) in parts.as_slice() {
            let v = &mut frame.dst[at + o..at + o + 3];
            let d = &row[c..c + 3];
            v[0] += w * d[0];
            v[1] += w * d[1];
            v[2] += w * d[2];
        }
    }
}

/// Scales `v` to unit length (times the reciprocal of the length); a zero-length (or
/// non-finite) sum keeps the bind vector `base`.
#[inline]
fn renormalise(v: &mut [f32], base: &[f32; 3]) {
    let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    if len > 0.0 && len.is_finite() {
        let inv = 1.0 / len;
        v.iter_mut().for_each(|x| *x *= inv);
    } else {
        v.copy_from_slice(base);
    }
}

#[cfg(target_arch = "x86_64")]
mod avx;
mod packed;

use packed::Packed;

impl Asset<'_> {
    /// The morph targets of mesh `mesh` (empty when it has none or does not exist).
    pub fn morph_targets(&self, mesh: usize) -> &MorphTargets {
        static NONE: MorphTargets = MorphTargets {
            targets: Vec::new(),
            defaults: Vec::new(),
        };
        self.morphs.get(mesh).unwrap_or(&NONE)
    }

    /// The weight tracks of clip `clip`, sorted by (mesh, target); empty when it has
    /// none or does not exist.
    pub fn weight_tracks(&self, clip: usize) -> &[WeightTrack] {
        self.weights.get(clip).map_or(&[], Vec::as_slice)
    }

    /// The weights of mesh `mesh`'s targets at `time` of clip `clip`
    /// ([`sample_weights`]); the default weights when `clip` is `None`.
    pub fn sample_weights(
        &self,
        clip: Option<usize>,
        mesh: usize,
        time: f32,
        playback: Playback,
        out: &mut [f32],
    ) -> Result<(), Error> {
        let defaults = self.morph_targets(mesh).default_weights();
        let (tracks, duration) = match clip.and_then(|c| self.clips().get(c)) {
            Some(c) => (self.weight_tracks(clip.unwrap_or(0)), c.duration()),
            None => (&[][..], 0.0),
        };
        sample_weights(tracks, mesh, defaults, duration, time, playback, out)
    }
}

/// Per mesh of `view`, its morph targets.
pub(crate) fn of_view(view: &gom::gomb::FileView<'_>) -> Vec<MorphTargets> {
    view.meshes()
        .iter()
        .map(|m| {
            let targets: Vec<MorphTarget> = m.morph_targets.iter().map(|t| t.to_target()).collect();
            MorphTargets::new(&targets)
        })
        .collect()
}

impl<'a> Asset<'a> {
    /// Every mesh with the weights of clip `clip` at `time` applied (the default
    /// weights when `clip` is `None`); meshes without targets, or whose weights are
    /// all 0, are the asset's own. Allocates; a game keeps a [`Morpher`] per mesh.
    pub fn morphed_meshes(
        &self,
        clip: Option<usize>,
        time: f32,
        playback: Playback,
    ) -> Result<Vec<Mesh<'a>>, Error> {
        let mut out = Vec::with_capacity(self.meshes().len());
        for (i, mesh) in self.meshes().iter().enumerate() {
            let targets = self.morph_targets(i);
            let mut w = vec![0.0; targets.len()];
            self.sample_weights(clip, i, time, playback, &mut w)?;
            if w.iter().all(|&x| x == 0.0) {
                out.push(mesh.clone());
                continue;
            }
            let mut m = Morpher::new(mesh);
            m.apply(mesh, targets, &w)?;
            out.push(m.mesh);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests;
