//! The node tree: one node per bone (same order), the mesh parts' nodes after them,
//! and, when a skin's joints span several root bones, one common root at rest.

use gltf::json::scene::UnitQuaternion;
use gltf::json::{Index, Node, Scene};

use gom::math::from_trs;
use gom::Mat4;

use super::COMMON_ROOT_NAME;
use crate::gltf::convert::{decompose, mirror_mat};

/// The bone nodes, in bone order, and the indices of the root bones. Parents come
/// first (checked by the caller).
pub(super) fn bone_nodes(model: &gom::Model) -> (Vec<Node>, Vec<usize>) {
    let bones = &model.skeleton.bones;
    let mut animated = vec![false; bones.len()];
    for t in model.clips.iter().flat_map(|c| &c.tracks) {
        if let Some(a) = animated.get_mut(t.bone as usize) {
            *a = true;
        }
    }
    // Each bone's children in index order, in one pass.
    let mut children_of: Vec<Vec<Index<Node>>> = vec![Vec::new(); bones.len()];
    for (k, c) in bones.iter().enumerate() {
        if let Some(list) = usize::try_from(c.parent)
            .ok()
            .and_then(|p| children_of.get_mut(p))
        {
            list.push(Index::new(k as u32));
        }
    }
    let mut roots = Vec::new();
    let mut nodes = Vec::with_capacity(bones.len());
    for (i, (bone, children)) in bones.iter().zip(children_of).enumerate() {
        let mut node = Node {
            name: Some(bone.name.clone()),
            children: (!children.is_empty()).then_some(children),
            ..Default::default()
        };
        // An animated bone keeps TRS: glTF animates only nodes without `matrix`.
        set_transform(&mut node, &mirror_mat(&bone.bind_local), animated[i]);
        if bone.parent < 0 {
            roots.push(i);
        }
        nodes.push(node);
    }
    (nodes, roots)
}

/// A node's transform: TRS when the matrix decomposes exactly (or `force_trs`), each
/// part left out when it is the identity's, else `matrix`.
pub(super) fn set_transform(node: &mut Node, gltf_row: &Mat4, force_trs: bool) {
    let (t, r, s) = decompose(gltf_row);
    let rebuilt = from_trs(t, r, s);
    let exact = rebuilt
        .iter()
        .zip(gltf_row)
        .all(|(a, b)| (a - b).abs() <= 1e-5 * (1.0 + b.abs()));
    if exact || force_trs {
        node.translation = (t != [0.0; 3]).then_some(t);
        node.rotation = (r != [0.0, 0.0, 0.0, 1.0]).then_some(UnitQuaternion(r));
        node.scale = (s != [1.0; 3]).then_some(s);
    } else {
        node.matrix = Some(*gltf_row);
    }
}

/// The scene: the root bones and the mesh parts' nodes (appended to `nodes` here, in
/// order). With `common_root`, a node at rest that is no joint parents the root bones
/// and stands for them in the scene; its index is returned.
pub(super) fn scene(
    nodes: &mut Vec<Node>,
    roots: &[usize],
    parts: Vec<Node>,
    common_root: bool,
) -> (Scene, Option<Index<Node>>) {
    let index = |i: usize| Index::new(i as u32);
    let mut scene_nodes: Vec<Index<Node>> = roots.iter().map(|&r| index(r)).collect();
    for part in parts {
        scene_nodes.push(index(nodes.len()));
        nodes.push(part);
    }
    let mut root_node = None;
    if common_root {
        let root = Index::push(
            nodes,
            Node {
                name: Some(COMMON_ROOT_NAME.to_string()),
                children: Some(roots.iter().map(|&r| index(r)).collect()),
                ..Default::default()
            },
        );
        scene_nodes.retain(|n| !roots.contains(&n.value()));
        scene_nodes.insert(0, root);
        root_node = Some(root);
    }
    // An empty model gives a scene without nodes (glTF has no empty `nodes` array;
    // the typed writer leaves an empty one out).
    let scene = Scene {
        nodes: scene_nodes,
        name: None,
        extensions: None,
        extras: Default::default(),
    };
    (scene, root_node)
}
