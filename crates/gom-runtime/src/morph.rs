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

use gom::layout::Attribute;
use gom::morph::{sample_weight, MorphTarget, WeightTrack};

use crate::clip::Playback;
use crate::mesh::Mesh;
use crate::{Asset, Error};

/// One target as the runtime keeps it: indices and deltas as parallel arrays.
#[derive(Debug, Clone, Default)]
struct Target {
    name: String,
    indices: Vec<u32>,
    positions: Vec<[f32; 3]>,
    normals: Vec<[f32; 3]>,
    tangents: Vec<[f32; 3]>,
}

/// The morph targets of one mesh (none for most meshes).
#[derive(Debug, Clone, Default)]
pub struct MorphTargets {
    targets: Vec<Target>,
    defaults: Vec<f32>,
}

impl MorphTargets {
    /// The targets of a mesh of the model (as `gom` checked them: indices ascending
    /// and below the vertex count, deltas finite).
    pub fn new(targets: &[MorphTarget]) -> Self {
        MorphTargets {
            targets: targets
                .iter()
                .map(|t| Target {
                    name: t.name.clone(),
                    indices: t.indices.clone(),
                    positions: t.positions.clone(),
                    normals: t.normals.clone().unwrap_or_default(),
                    tangents: t.tangents.clone().unwrap_or_default(),
                })
                .collect(),
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

/// A mesh whose bind attributes carry the weights of the last [`Morpher::apply`]:
/// skin it, draw it, or read its vertices as any [`Mesh`].
#[derive(Debug, Clone)]
pub struct Morpher<'a> {
    mesh: Mesh<'a>,
    /// Vertices moved by the last call, to restore first on the next.
    touched: Vec<u32>,
    /// Per vertex, whether it is in `touched`.
    marked: Vec<bool>,
}

impl<'a> Morpher<'a> {
    /// A morpher for `mesh` (copied once; the copy is what [`Morpher::apply`] changes).
    pub fn new(mesh: &Mesh<'a>) -> Self {
        Morpher {
            mesh: mesh.clone(),
            touched: Vec::new(),
            marked: vec![false; mesh.vertex_count()],
        }
    }

    /// The mesh with the last weights applied.
    pub fn mesh(&self) -> &Mesh<'a> {
        &self.mesh
    }

    /// Applies `weights` (one per target of `targets`, the targets of `base`) to
    /// `base`'s bind positions, normals and tangents, and returns the morphed mesh.
    /// Costs O(vertices moved by the previous call + deltas of targets whose weight
    /// is not 0); allocates nothing after the first call.
    pub fn apply(
        &mut self,
        base: &Mesh<'_>,
        targets: &MorphTargets,
        weights: &[f32],
    ) -> Result<&Mesh<'a>, Error> {
        if weights.len() != targets.len() {
            return Err(Error::BufferLength {
                buffer: "weights",
                expected: targets.len(),
                found: weights.len(),
            });
        }
        let n = base.vertex_count();
        if n != self.mesh.vertex_count() || base.stride_words() != self.mesh.stride_words() {
            return Err(Error::InvalidModel {
                location: format!("mesh \"{}\"", base.name()),
                problem: "the morpher was made for another mesh".into(),
            });
        }
        if let Some(t) = targets
            .targets
            .iter()
            .find(|t| t.indices.last().is_some_and(|&i| i as usize >= n))
        {
            return Err(Error::InvalidModel {
                location: format!("mesh \"{}\", target \"{}\"", base.name(), t.name),
                problem: "a target moves a vertex the mesh does not have".into(),
            });
        }
        let stride = base.stride_words();
        let no = base.word_offset(Attribute::Normal);
        let to = base.word_offset(Attribute::Tangent);
        let src = base.vertex_words();
        let dst = self.mesh.vertex_words_mut();
        // Restore the attributes the previous weights moved (the other words of a
        // vertex never change).
        let offsets = [Some(0), no, to];
        for &v in &self.touched {
            let v = v as usize * stride;
            for o in offsets.into_iter().flatten() {
                dst[v + o..v + o + 3].copy_from_slice(&src[v + o..v + o + 3]);
            }
            self.marked[v / stride] = false;
        }
        self.touched.clear();
        for (t, &w) in targets.targets.iter().zip(weights) {
            if w == 0.0 {
                continue;
            }
            // Positions, and the list of vertices moved, in one pass.
            for (&i, d) in t.indices.iter().zip(&t.positions) {
                let m = &mut self.marked[i as usize];
                if !*m {
                    *m = true;
                    self.touched.push(i);
                }
                let at = i as usize * stride;
                let v = &mut dst[at..at + 3];
                v[0] += w * d[0];
                v[1] += w * d[1];
                v[2] += w * d[2];
            }
            if let Some(o) = no.filter(|_| !t.normals.is_empty()) {
                accumulate(dst, stride, o, &t.indices, &t.normals, w);
            }
            if let Some(o) = to.filter(|_| !t.tangents.is_empty()) {
                accumulate(dst, stride, o, &t.indices, &t.tangents, w);
            }
        }
        for &v in &self.touched {
            let v = v as usize * stride;
            for o in [no, to].into_iter().flatten() {
                renormalise(&mut dst[v + o..v + o + 3], &src[v + o..v + o + 3]);
            }
        }
        Ok(&self.mesh)
    }
}

/// `words[i·stride + o ..][..3] += w · d` for each listed vertex.
#[inline]
fn accumulate(
    words: &mut [f32],
    stride: usize,
    o: usize,
    indices: &[u32],
    deltas: &[[f32; 3]],
    w: f32,
) {
    for (&i, d) in indices.iter().zip(deltas) {
        let at = i as usize * stride + o;
        let v = &mut words[at..at + 3];
        v[0] += w * d[0];
        v[1] += w * d[1];
        v[2] += w * d[2];
    }
}

/// Scales `v` to unit length; a zero-length (or non-finite) sum keeps the bind
/// vector `base`.
#[inline]
fn renormalise(v: &mut [f32], base: &[f32]) {
    let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    if len > 0.0 && len.is_finite() {
        v.iter_mut().for_each(|x| *x /= len);
    } else {
        v.copy_from_slice(base);
    }
}

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
