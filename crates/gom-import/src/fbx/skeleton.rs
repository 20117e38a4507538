//! The skeleton: which nodes become bones, their names, paths and bind pose.

use std::collections::HashSet;

use gom::{Bone, Key};

use gom::limits::MAX_BONES;

use super::mat::{self, M64};
use super::FbxError;
use crate::report::Report;

/// The skeleton under construction and its links back to the scene.
pub(crate) struct Skel {
    /// Bones, parents first.
    pub bones: Vec<Bone>,
    /// Per bone: the ufbx node typed id.
    pub bone_nodes: Vec<u32>,
    /// Per node typed id: its bone, if any.
    pub node_bone: Vec<Option<usize>>,
    /// Per bone: model-space bind matrix (`f64`, as derived from the file).
    pub bind_world: Vec<M64>,
    /// Per bone: model-space bind matrix as a GOM reader computes it from the `f32`
    /// bind locals (D1), used for inverse binds.
    pub bind_world_f32: Vec<gom::Mat4>,
    /// Per bone: the node's stored local transform as a key, when the bind local equals
    /// it (a track that never leaves it can be omitted: the bone keeps its bind local).
    pub rest_keys: Vec<Option<Key>>,
}

impl Skel {
    /// The bone of a skin cluster's joint node, if it is one.
    pub(crate) fn cluster_bone(&self, cluster: &ufbx::SkinCluster) -> Option<usize> {
        let node = cluster.bone_node.as_ref()?;
        self.node_bone
            .get(node.element.typed_id as usize)
            .copied()
            .flatten()
    }

    /// Adds an extra bone (one without a source node) for joint bone `joint` of mesh
    /// `mesh`, named `joint@mesh`, under bone `parent`, with its bind local and world
    /// matrices; returns its index. `bind_world_f32` is left for the caller to update.
    pub(crate) fn push_extra(
        &mut self,
        joint: usize,
        mesh: &str,
        parent: usize,
        local: &M64,
        world: M64,
    ) -> usize {
        let name = format!("{}@{mesh}", self.bones[joint].name);
        let path = format!("{}/{}", self.bones[parent].path, name);
        self.bones.push(Bone {
            name,
            path,
            parent: parent as i32,
            bind_local: mat::to_f32(local),
        });
        self.bone_nodes.push(u32::MAX);
        self.bind_world.push(world);
        self.rest_keys.push(None);
        self.bones.len() - 1
    }
}

/// Mesh nodes in depth-first source order.
pub(crate) fn mesh_nodes(scene: &ufbx::Scene) -> Vec<&ufbx::Node> {
    dfs(scene)
        .into_iter()
        .filter(|n| n.mesh.is_some())
        .collect()
}

/// All nodes except the root, depth-first in source order.
pub(crate) fn dfs(scene: &ufbx::Scene) -> Vec<&ufbx::Node> {
    let mut out = Vec::with_capacity(scene.nodes.count);
    let root: &ufbx::Node = &scene.root_node;
    let mut stack: Vec<&ufbx::Node> = root.children.iter().rev().map(|c| &**c).collect();
    let mut visited = vec![false; scene.nodes.count];
    while let Some(n) = stack.pop() {
        let id = n.element.typed_id as usize;
        if id >= visited.len() || visited[id] {
            continue;
        }
        visited[id] = true;
        out.push(n);
        stack.extend(n.children.iter().rev().map(|c| &**c));
    }
    out
}

/// Whether a skinned mesh has vertices without any positive weight.
pub(crate) fn has_unweighted(mesh: &ufbx::Mesh) -> bool {
    let Some(skin) = mesh.skin_deformers.first() else {
        return false;
    };
    (0..mesh.num_vertices).any(|v| match skin.vertices.get(v) {
        None => true,
        Some(sv) => {
            let begin = sv.weight_begin as usize;
            let end = begin
                .saturating_add(sv.num_weights as usize)
                .min(skin.weights.len());
            !skin.weights.as_ref()[begin.min(end)..end]
                .iter()
                .any(|w| w.weight > 0.0)
        }
    })
}

/// A node's display name; helper nodes ufbx adds are named after their node.
fn node_name(node: &ufbx::Node) -> String {
    let base = |n: &ufbx::Node| {
        if n.element.name.is_empty() {
            format!("node{}", n.element.typed_id)
        } else {
            n.element.name.to_string()
        }
    };
    let parent_name = node.parent.as_ref().map(|p| base(p)).unwrap_or_default();
    if node.is_scale_helper {
        format!("{parent_name}.scale")
    } else if node.is_geometry_transform_helper {
        format!("{parent_name}.geometry")
    } else {
        base(node)
    }
}

/// Builds the skeleton; `file` names the file in errors.
pub(crate) fn build(
    scene: &ufbx::Scene,
    stored: &super::eval::Stored,
    animated: &[bool],
    model_animated: bool,
    file: &str,
    report: &mut Report,
) -> Result<Skel, FbxError> {
    let n = scene.nodes.count;
    let mut needed = vec![false; n];
    let mut cluster_bind: Vec<Option<M64>> = vec![None; n];
    for node in mesh_nodes(scene) {
        let Some(mesh) = node.mesh.as_ref() else {
            continue;
        };
        let id = node.element.typed_id as usize;
        if model_animated || has_unweighted(mesh) {
            needed[id] = true;
        }
        for skin in mesh.skin_deformers.iter().take(1) {
            for cluster in skin.clusters.iter() {
                if let Some(bone) = cluster.bone_node.as_ref() {
                    let b = bone.element.typed_id as usize;
                    needed[b] = true;
                    if cluster_bind[b].is_none() {
                        cluster_bind[b] = Some(mat::from_ufbx(&cluster.bind_to_world));
                    }
                }
            }
        }
    }
    for (i, a) in animated.iter().enumerate() {
        if *a {
            needed[i] = true;
        }
    }
    // A file without meshes (an animation export, a rig) keeps its whole skeleton:
    // every joint, animated or not, is a bone.
    if mesh_nodes(scene).is_empty() {
        for node in scene.nodes.iter().filter(|n| n.bone.is_some()) {
            needed[node.element.typed_id as usize] = true;
        }
    }
    // Ancestors.
    for node in scene.nodes.iter() {
        if !needed[node.element.typed_id as usize] {
            continue;
        }
        let mut p = node.parent.as_ref();
        while let Some(parent) = p {
            if parent.is_root {
                break;
            }
            let pid = parent.element.typed_id as usize;
            if needed[pid] {
                break;
            }
            needed[pid] = true;
            p = parent.parent.as_ref();
        }
    }

    let root_world = mat::from_ufbx(&scene.root_node.node_to_world);
    if !mat::approx_eq(&root_world, &mat::ID, 1e-9) {
        report.warn(
            "the scene root carries a transform; it is folded into the root bones".to_string(),
        );
    }
    let mut skel = Skel {
        bones: Vec::new(),
        bone_nodes: Vec::new(),
        node_bone: vec![None; n],
        bind_world: Vec::new(),
        bind_world_f32: Vec::new(),
        rest_keys: Vec::new(),
    };
    let mut paths: HashSet<String> = HashSet::new();
    for node in dfs(scene) {
        let id = node.element.typed_id as usize;
        if !needed[id] {
            continue;
        }
        if skel.bones.len() >= MAX_BONES as usize {
            let bones = needed.iter().filter(|n| **n).count();
            check_bone_count(bones.max(skel.bones.len() + 1), file)?;
        }
        if node.inherit_mode != ufbx::InheritMode::Normal {
            report.warn(format!(
                "node \"{}\": inherit mode {:?} kept by ufbx; evaluated as normal inheritance",
                &*node.element.name, node.inherit_mode
            ));
        }
        let parent_bone = node.parent.as_ref().and_then(|p| {
            skel.node_bone
                .get(p.element.typed_id as usize)
                .copied()
                .flatten()
        });
        let parent_world = match parent_bone {
            Some(p) => skel.bind_world[p],
            None => root_world,
        };
        let stored_local = mat::from_transform(&stored.local[id]);
        let world = match cluster_bind[id] {
            Some(b) => b,
            None => mat::mul(&stored_local, &parent_world),
        };
        let local = match mat::inverse(&parent_world) {
            Some(inv) => mat::mul(&world, &inv),
            None => {
                report.warn(format!("node \"{}\": parent bind matrix is singular; bind local set to the model-space matrix", &*node.element.name));
                world
            }
        };
        let name = node_name(node);
        let mut path = match parent_bone {
            Some(p) => format!("{}/{}", skel.bones[p].path, name),
            None => name.clone(),
        };
        if paths.contains(&path) {
            let mut k = 2;
            while paths.contains(&format!("{path}#{k}")) {
                k += 1;
            }
            path = format!("{path}#{k}");
        }
        paths.insert(path.clone());
        let rest = if parent_bone.is_none() && !mat::approx_eq(&root_world, &mat::ID, 1e-9) {
            None
        } else if mat::approx_eq(&local, &stored_local, 1e-6) {
            Some(super::anim_key(&stored.local[id]))
        } else {
            None
        };
        skel.node_bone[id] = Some(skel.bones.len());
        skel.bone_nodes.push(id as u32);
        skel.bind_world.push(world);
        skel.rest_keys.push(rest);
        skel.bones.push(Bone {
            name,
            path,
            parent: parent_bone.map_or(-1, |p| p as i32),
            bind_local: mat::to_f32(&local),
        });
    }
    skel.bind_world_f32 = gom::math::bind_world(&skel.bones);
    Ok(skel)
}

/// [`FbxError::TooManyBones`] when `bones` is more than GOM v1 allows.
pub(crate) fn check_bone_count(bones: usize, file: &str) -> Result<(), FbxError> {
    if bones > MAX_BONES as usize {
        return Err(FbxError::TooManyBones {
            file: file.to_string(),
            bones,
            max: MAX_BONES,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn more_bones_than_gom_allows_is_a_typed_error() {
        assert!(check_bone_count(4096, "f.fbx").is_ok());
        match check_bone_count(4097, "f.fbx") {
            Err(FbxError::TooManyBones { file, bones, max }) => {
                assert_eq!((file.as_str(), bones, max), ("f.fbx", 4097, 4096));
            }
            other => panic!("unexpected {other:?}"),
        }
        let e = check_bone_count(4097, "f.fbx").unwrap_err();
        assert_eq!(
            e.to_string(),
            "f.fbx: 4097 bones, more than GOM v1 allows (4096)"
        );
    }
}
