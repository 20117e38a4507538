//! Bounds for culling: exact bounds of a skinned pose, and a fast conservative bound
//! from per-bone boxes.

use glam::{Affine3A, Vec3, Vec3A};
use gom::layout::Attribute;

use crate::mesh::{skin_of, vec3a_at, Mesh};
use crate::palette::Palette;
use crate::skin_blocks::SKIN_BLOCK;
use crate::skinning::{run, Job, SkinPath, SkinTargets};
use crate::Error;

/// An axis-aligned box. The empty box has `min > max`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aabb {
    /// Minimum corner.
    pub min: Vec3,
    /// Maximum corner.
    pub max: Vec3,
}

impl Aabb {
    /// The empty box (contains nothing; the identity of [`Aabb::union`]).
    pub const EMPTY: Aabb = Aabb {
        min: Vec3::INFINITY,
        max: Vec3::NEG_INFINITY,
    };

    /// Whether the box contains nothing.
    pub fn is_empty(&self) -> bool {
        !(self.min.cmple(self.max).all())
    }

    /// The smallest box containing `points`.
    pub fn from_points(points: &[[f32; 3]]) -> Aabb {
        let mut b = Aabb::EMPTY;
        for p in points {
            b.add_point(Vec3::from_array(*p));
        }
        b
    }

    /// Grows the box to contain `p`.
    #[inline]
    pub fn add_point(&mut self, p: Vec3) {
        self.min = self.min.min(p);
        self.max = self.max.max(p);
    }

    /// The smallest box containing both (a new box: `self` is unchanged).
    #[must_use]
    pub fn union(&self, other: &Aabb) -> Aabb {
        Aabb {
            min: self.min.min(other.min),
            max: self.max.max(other.max),
        }
    }

    /// Whether `p` lies inside, allowing `tolerance` on every side.
    pub fn contains(&self, p: Vec3, tolerance: f32) -> bool {
        (p + tolerance).cmpge(self.min).all() && (p - tolerance).cmple(self.max).all()
    }

    /// A box containing this box transformed by `m` (exact for the eight corners).
    pub fn transformed(&self, m: &Affine3A) -> Aabb {
        if self.is_empty() {
            return *self;
        }
        let c = Vec3A::from((self.min + self.max) * 0.5);
        let e = Vec3A::from((self.max - self.min) * 0.5);
        let nc = m.transform_point3a(c);
        let ne = m.matrix3.x_axis.abs() * e.x
            + m.matrix3.y_axis.abs() * e.y
            + m.matrix3.z_axis.abs() * e.z;
        Aabb {
            min: Vec3::from(nc - ne),
            max: Vec3::from(nc + ne),
        }
    }
}

/// Vertices skinned at a time by [`skinned_bounds`] (a multiple of every path's block).
const BOUNDS_CHUNK: usize = 64;
const _: () = assert!(BOUNDS_CHUNK.is_multiple_of(SKIN_BLOCK));

/// The exact box of `mesh` skinned with `palette` (every vertex skinned, nothing
/// stored). Costs a skinning pass over positions.
pub fn skinned_bounds(mesh: &Mesh, palette: &Palette) -> Result<Aabb, Error> {
    let expected = if mesh.is_skinned() {
        mesh.bone_count()
    } else {
        1
    };
    if palette.skin.len() != expected {
        return Err(Error::BoneCount {
            what: "bounds palette",
            expected,
            found: palette.skin.len(),
        });
    }
    let mut b = Aabb::EMPTY;
    let stride = mesh.stride_words();
    let pal = &palette.skin[..];
    match (mesh.word_offset(Attribute::Skin), pal.len().checked_sub(1)) {
        (Some(so), Some(last)) => {
            // Through `skin`'s own path, so that the box is exactly its points'.
            let job = Job {
                stride,
                so,
                no: 0,
                to: 0,
                pal,
                nrm: &[],
                rigid: true,
                packed: &palette.packed,
                last,
                blocks: &[],
                by_bone: mesh.skin_blocks(),
                finite: palette.finite,
            };
            let mut buf = [[0.0f32; 3]; BOUNDS_CHUNK];
            let blocks = mesh.skin_blocks().blocks.chunks(BOUNDS_CHUNK / SKIN_BLOCK);
            for (words, blocks) in mesh
                .vertex_words()
                .chunks(stride * BOUNDS_CHUNK)
                .zip(blocks)
            {
                let job = Job { blocks, ..job };
                let out = &mut buf[..words.len() / stride];
                let targets = SkinTargets {
                    positions: Some(&mut *out),
                    ..Default::default()
                };
                run(&job, words, targets, SkinPath::best());
                for p in out.iter() {
                    b.add_point(Vec3::from_array(*p));
                }
            }
        }
        (Some(_), None) => {
            if mesh.vertex_count() > 0 {
                b.add_point(Vec3::ZERO);
            }
        }
        (None, _) => {
            let m = pal.first().copied().unwrap_or(Affine3A::IDENTITY);
            for v in mesh.vertex_words().chunks_exact(stride) {
                b.add_point(Vec3::from(m.transform_point3a(vec3a_at(v, 0))));
            }
        }
    }
    Ok(b)
}

/// Per bone, the box (in geometry space) of the vertices the bone influences with a
/// weight above zero; for a static mesh one box of all vertices.
///
/// Because a skinned vertex is a weighted average (weights ≥ 0 summing to 1) of its
/// influences' transforms, it lies inside the union of each influencing bone's box
/// moved by that bone's palette matrix. [`BoneBounds::bound`] therefore never culls
/// an animated mesh, wherever its rest pose was. (For a mesh whose weights do not
/// sum to 1, i.e. without the weightsPass flag, the bound does not hold; nor, strictly,
/// for a dual-quaternion or blended mesh, whose vertices follow a blended rigid
/// motion rather than the average of the bones' transforms: between bones turned far
/// apart the bound may miss them.)
#[derive(Debug, Clone, PartialEq)]
pub struct BoneBounds {
    boxes: Vec<Aabb>,
}

impl BoneBounds {
    /// Precomputes the boxes: one pass over the vertices (O(vertices), once per mesh).
    pub fn new(mesh: &Mesh) -> BoneBounds {
        let stride = mesh.stride_words();
        let words = mesh.vertex_words();
        match mesh.word_offset(Attribute::Skin) {
            Some(so) => {
                let mut boxes = vec![Aabb::EMPTY; mesh.bone_count()];
                for (i, v) in words.chunks_exact(stride).enumerate() {
                    let p = Vec3::from(vec3a_at(v, 0));
                    // The skin attribute's four slots, then the extension's four more.
                    for (bi, w) in [Some(skin_of(v, so)), mesh.skin_extra(i)]
                        .into_iter()
                        .flatten()
                    {
                        for k in 0..4 {
                            if w[k] > 0.0 {
                                if let Some(b) = boxes.get_mut(bi[k] as usize) {
                                    b.add_point(p);
                                }
                            }
                        }
                    }
                }
                BoneBounds { boxes }
            }
            None => {
                let mut b = Aabb::EMPTY;
                for v in words.chunks_exact(stride) {
                    b.add_point(Vec3::from(vec3a_at(v, 0)));
                }
                BoneBounds { boxes: vec![b] }
            }
        }
    }

    /// The per-bone boxes in geometry space (empty boxes for bones with no vertex).
    pub fn boxes(&self) -> &[Aabb] {
        &self.boxes
    }

    /// A box containing the mesh skinned with `palette`: each bone's box moved by its
    /// palette matrix, all united. O(bones).
    pub fn bound(&self, palette: &Palette) -> Aabb {
        let mut out = Aabb::EMPTY;
        for (b, m) in self.boxes.iter().zip(palette.matrices()) {
            if !b.is_empty() {
                out = out.union(&b.transformed(m));
            }
        }
        out
    }
}
