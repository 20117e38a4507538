//! Skinned meshes whose own node moves after binding.
//!
//! Maya (and ufbx's `transform_skin` reference check) moves such a mesh with its node:
//! the skinned result is further transformed by `inverse(meshBind) * meshWorld(t)`, where
//! `meshBind` is the mesh node's world matrix when the skin was bound (the clusters'
//! `Transform`). GOM skins every vertex with bone palettes only (docs/format.md §1), so the
//! converter expresses that extra motion with one extra bone per (mesh, cluster bone):
//! a child of the mesh node's bone whose local matrix is
//! `boneWorld(t) * inverse(meshBind)`, so that its model-space matrix is exactly
//! `boneWorld(t) * inverse(meshBind) * meshWorld(t)`. The mesh's vertices are stored at
//! the mesh's stored place (`meshBind`-space geometry moved to the stored mesh node), which
//! keeps the part's inverse binds consistent with the skeleton's bind pose.

use std::collections::HashMap;

use super::mat::{self, M64};
use super::skeleton::{mesh_nodes, Skel};
use crate::report::Report;

/// Which skinned meshes follow their own node's motion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SkinnedMeshNodeMotion {
    /// Files saved by Maya follow Maya's behaviour (the mesh moves with its node);
    /// others keep ufbx's default (the skin alone places the mesh).
    #[default]
    Auto,
    /// Every skinned mesh moves with its node.
    Follow,
    /// No skinned mesh moves with its node.
    Ignore,
}

/// Extra bones of meshes that follow their node.
#[derive(Default)]
pub(crate) struct Follow {
    /// Per mesh node typed id: `inverse(meshBind)`.
    pub inv_mesh_bind: HashMap<u32, M64>,
    /// (mesh node typed id, cluster bone) -> the extra bone.
    pub bone: HashMap<(u32, usize), usize>,
    /// Per extra bone (in bone order): (bone index, source bone, inverse mesh bind).
    pub extra: Vec<(usize, usize, M64)>,
    /// Extra bones of meshes bound at another pose than the skeleton's
    /// (`rebind::add_bones`), in bone order: identity locals in every clip.
    pub held: Vec<usize>,
}

/// Adds the extra bones to `skel` (after the source nodes' bones, parents first).
pub(crate) fn add_bones(
    scene: &ufbx::Scene,
    stored: &super::eval::Stored,
    skel: &mut Skel,
    animated: &[bool],
    mode: SkinnedMeshNodeMotion,
    report: &mut Report,
) -> Follow {
    let mut follow = Follow::default();
    let maya = scene.metadata.original_application.name.contains("Maya")
        || scene.metadata.latest_application.name.contains("Maya");
    let enabled = match mode {
        SkinnedMeshNodeMotion::Auto => maya,
        SkinnedMeshNodeMotion::Follow => true,
        SkinnedMeshNodeMotion::Ignore => false,
    };
    if !enabled {
        return follow;
    }
    for node in mesh_nodes(scene) {
        let Some(mesh) = node.mesh.as_ref() else {
            continue;
        };
        let Some(skin) = mesh.skin_deformers.first() else {
            continue;
        };
        let Some(c) = skin.clusters.iter().find(|c| c.bone_node.is_some()) else {
            continue;
        };
        let node_id = node.element.typed_id;
        let mesh_bind = mat::mul(
            &mat::from_ufbx(&c.mesh_node_to_bone),
            &mat::from_ufbx(&c.bind_to_world),
        );
        let stored_world = stored.world[node_id as usize];
        let mut moves = !mat::approx_eq(&stored_world, &mesh_bind, 1e-6);
        let mut p = Some(node);
        while let Some(n) = p {
            moves |= animated
                .get(n.element.typed_id as usize)
                .copied()
                .unwrap_or(false);
            p = n.parent.as_deref();
        }
        if !moves {
            continue;
        }
        let Some(m) = skel.node_bone.get(node_id as usize).copied().flatten() else {
            report.warn(format!(
                "mesh \"{}\": its node was moved after skin binding but does not move in any clip; the offset is not applied",
                &*node.element.name
            ));
            continue;
        };
        let Some(inv_t) = mat::inverse(&mesh_bind) else {
            continue;
        };
        follow.inv_mesh_bind.insert(node_id, inv_t);
        let node_world = skel.bind_world[m];
        for cl in skin.clusters.iter() {
            let Some(b) = skel.cluster_bone(cl) else {
                continue;
            };
            if follow.bone.contains_key(&(node_id, b)) {
                continue;
            }
            let bind = mat::from_ufbx(&cl.bind_to_world);
            let local = mat::mul(&bind, &inv_t);
            let world = mat::mul(&local, &node_world);
            let index = skel.push_extra(b, &node.element.name, m, &local, world);
            follow.bone.insert((node_id, b), index);
            follow.extra.push((index, b, inv_t));
        }
        report.warn(format!(
            "mesh \"{}\": its node moves after skin binding; it follows the node as in Maya, through {} extra bone(s) under the mesh node's bone",
            &*node.element.name,
            follow.extra.iter().filter(|e| skel.bones[e.0].parent == m as i32).count()
        ));
    }
    skel.bind_world_f32 = gom::math::bind_world(&skel.bones);
    follow
}
