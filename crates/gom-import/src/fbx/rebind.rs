//! Skins that bind a joint at another pose than the skeleton's.
//!
//! The skeleton's bind pose comes from the first skin that binds each joint
//! (`skeleton::build`). A later skin may bind the same joint elsewhere (Maya keeps a
//! bind pose per skin): its inverse binds cannot undo the skeleton's bind matrix, and
//! no single bind pose serves both meshes. Such a mesh is split off the joint: it is
//! skinned to one extra bone per disagreeing joint, a child of the joint's bone whose
//! bind local is `clusterBind * inverse(skeletonBind)` (so its bind world is the
//! cluster's bind) and whose local is the identity in every clip (so it moves exactly
//! with its joint). Each mesh then skins as the source does at every pose, and passes
//! the bind-pose check.

use super::follow::Follow;
use super::mat;
use super::skeleton::{mesh_nodes, Skel};
use crate::report::Report;

/// Adds the extra bones of the meshes whose skin binds a joint at another pose than
/// the skeleton's (after every other bone, parents first), records them in
/// `follow.bone` (where the mesh's weights go) and `follow.held` (their identity
/// tracks). Meshes that follow their node have their own extra bones already.
pub(crate) fn add_bones(
    scene: &ufbx::Scene,
    skel: &mut Skel,
    follow: &mut Follow,
    report: &mut Report,
) {
    for node in mesh_nodes(scene) {
        let node_id = node.element.typed_id;
        if follow.inv_mesh_bind.contains_key(&node_id) {
            continue;
        }
        let Some(skin) = node.mesh.as_ref().and_then(|m| m.skin_deformers.first()) else {
            continue;
        };
        let mut added = 0usize;
        for cluster in skin.clusters.iter() {
            let Some(b) = skel.cluster_bone(cluster) else {
                continue;
            };
            let bind = mat::from_ufbx(&cluster.bind_to_world);
            if follow.bone.contains_key(&(node_id, b))
                || mat::approx_eq(&bind, &skel.bind_world[b], 1e-6)
            {
                continue;
            }
            let Some(inv_joint) = mat::inverse(&skel.bind_world[b]) else {
                continue;
            };
            let local = mat::mul(&bind, &inv_joint);
            let index = skel.push_extra(b, &node.element.name, b, &local, bind);
            follow.bone.insert((node_id, b), index);
            follow.held.push(index);
            added += 1;
        }
        if added > 0 {
            report.warn(format!(
                "mesh \"{}\": its skin binds {added} joint(s) at another pose than the skeleton's bind pose (an earlier skin's); skinned through {added} extra bone(s) that follow their joints",
                &*node.element.name
            ));
        }
    }
    skel.bind_world_f32 = gom::math::bind_world(&skel.bones);
}

/// The key of an extra bone of [`add_bones`]: it sits on its joint.
pub(crate) fn held_key() -> gom::Key {
    gom::Key {
        time: 0.0,
        translation: [0.0; 3],
        rotation: [0.0, 0.0, 0.0, 1.0],
        scale: [1.0; 3],
    }
}
