//! The runtime skeleton: parents and bind pose.

use std::sync::atomic::{AtomicU64, Ordering};

use glam::Affine3A;

use crate::transform::{affine_from_row_major, Transform};

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A process-wide unique number, so that caches can tell data sets apart.
pub(crate) fn next_id() -> u64 {
    NEXT_ID.fetch_add(1, Ordering::Relaxed)
}

/// A skeleton ready for animation: bones in index order, a parent always before its
/// children.
#[derive(Debug, Clone)]
pub struct Skeleton {
    pub(crate) id: u64,
    names: Vec<String>,
    paths: Vec<String>,
    parents: Vec<i32>,
    bind_local_matrices: Vec<[f32; 16]>,
    bind_local: Vec<Transform>,
    bind_world: Vec<Affine3A>,
}

impl Skeleton {
    /// Builds a skeleton from its bones' names, paths, parents and bind-local matrices
    /// (GOM convention). A parent that is not an earlier bone is an error.
    pub fn new(
        names: Vec<String>,
        paths: Vec<String>,
        parents: Vec<i32>,
        bind_local: Vec<[f32; 16]>,
    ) -> Result<Self, crate::Error> {
        let n = parents.len();
        if names.len() != n || paths.len() != n || bind_local.len() != n {
            return Err(crate::Error::InvalidModel {
                location: "skeleton".into(),
                problem: "names, paths, parents and bind matrices differ in count".into(),
            });
        }
        let mut bind_world: Vec<Affine3A> = Vec::with_capacity(n);
        for (i, (&p, m)) in parents.iter().zip(&bind_local).enumerate() {
            let local = affine_from_row_major(m);
            let world = if p < 0 {
                local
            } else {
                match usize::try_from(p).ok().and_then(|p| bind_world.get(p)) {
                    Some(parent) => *parent * local,
                    None => {
                        return Err(crate::Error::InvalidModel {
                            location: format!("bone {i}"),
                            problem: format!("parent {p} is not an earlier bone"),
                        })
                    }
                }
            };
            bind_world.push(world);
        }
        let bind_trs = bind_local.iter().map(Transform::from_row_major).collect();
        Ok(Skeleton {
            id: next_id(),
            names,
            paths,
            parents,
            bind_local_matrices: bind_local,
            bind_local: bind_trs,
            bind_world,
        })
    }

    /// Builds the runtime skeleton of a [`gom::Skeleton`].
    pub fn from_model(skeleton: &gom::Skeleton) -> Result<Self, crate::Error> {
        let b = &skeleton.bones;
        Skeleton::new(
            b.iter().map(|b| b.name.clone()).collect(),
            b.iter().map(|b| b.path.clone()).collect(),
            b.iter().map(|b| b.parent).collect(),
            b.iter().map(|b| b.bind_local).collect(),
        )
    }

    /// The number of bones.
    #[inline]
    pub fn bone_count(&self) -> usize {
        self.parents.len()
    }

    /// Parent indices, −1 for a root.
    #[inline]
    pub fn parents(&self) -> &[i32] {
        &self.parents
    }

    /// Bone names.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Unique bone paths.
    pub fn paths(&self) -> &[String] {
        &self.paths
    }

    /// The index of the first bone with this name or path.
    pub fn find(&self, name_or_path: &str) -> Option<usize> {
        self.paths
            .iter()
            .position(|p| p == name_or_path)
            .or_else(|| self.names.iter().position(|n| n == name_or_path))
    }

    /// Bind-local matrices as stored (GOM convention, row-major, row vectors).
    pub fn bind_local_matrices(&self) -> &[[f32; 16]] {
        &self.bind_local_matrices
    }

    /// Bind-local transforms split into translation, rotation and scale. This is what
    /// a bone without a track keeps during sampling.
    #[inline]
    pub fn bind_local(&self) -> &[Transform] {
        &self.bind_local
    }

    /// Model-space bind matrices: `world[i] = bind_local[i] * world[parent]` (D1),
    /// computed from the stored matrices (glam form; see [`crate::transform::to_glam`]).
    pub fn bind_world(&self) -> &[Affine3A] {
        &self.bind_world
    }
}
