//! The skeleton's bind pose when skins' inverse binds disagree with the nodes' rest
//! pose, or with each other.
//!
//! A GOM bone has one bind local, which is both the pose its inverse binds undo (the
//! bind-pose check, D13) and the pose a clip that does not animate it shows (D9). glTF
//! keeps them apart: the inverse binds may be taken at any pose, and the nodes' own
//! transforms are the rest pose. When a skin's inverse binds differ from the rest pose
//! by one shared offset, `skin.rs` bakes the offset into the vertices. Otherwise:
//!
//! * the bind local of each joint follows the inverse binds of the first skin that
//!   binds it (a skin off the rest pose by one shared offset binds at the rest pose),
//!   so the inverse binds hold and the skinning is the source's at every pose;
//! * a joint that a later skin binds at another pose gets, for that skin, an extra
//!   bone: a child of the joint's bone whose bind world is that skin's bind and whose
//!   local is the identity in every clip, so it moves exactly with its joint;
//! * every clip keys the rest pose of each bone whose bind local is not its node's
//!   transform and that the clip does not animate (and the identity of every extra
//!   bone), so untracked bones keep the source's rest pose; a model without clips gets
//!   the zero-length clip [`REST_POSE_CLIP`] holding them, the pose the source shows.

use gom::math::{bind_world, inverse_affine, mul};
use gom::{Bone, Mat4};

use super::super::anim::Rest;
use super::super::convert::{mirror_quat, mirror_vec3};
use super::{skin, Ctx, Nodes, Roles};
use crate::gltf::GltfError;

/// Name of the clip that holds the rest pose of a model without clips whose bind pose
/// is not its rest pose.
pub const REST_POSE_CLIP: &str = "rest pose";

/// How the skins bind the skeleton.
pub(super) struct SkinBones {
    /// Per skin (by index): the bone of each joint slot.
    pub(super) joint_bones: Vec<Vec<u16>>,
    /// (bone, node) of every node bone whose bind local is not the node's transform.
    rest: Vec<(usize, usize)>,
    /// Extra bones (identity locals in every clip), ascending.
    held: Vec<usize>,
}

/// Per-element tolerance under which two matrices are the same pose.
const SAME: f32 = 1e-5;

fn same(a: &Mat4, b: &Mat4) -> bool {
    a.iter()
        .zip(b)
        .all(|(x, y)| (x - y).abs() <= SAME * (1.0 + y.abs()))
}

/// The skins drawn with a mesh, in node order, each once.
fn drawn_skins<'a>(nodes: &Nodes, all: &[gltf::Node<'a>], roles: &Roles) -> Vec<gltf::Skin<'a>> {
    let mut out: Vec<gltf::Skin<'a>> = Vec::new();
    for &i in &nodes.order {
        let node = &all[i];
        if let (true, Some(_), Some(s)) = (roles.rendered[i], node.mesh(), node.skin()) {
            if !out.iter().any(|o| o.index() == s.index()) {
                out.push(s);
            }
        }
    }
    out
}

/// Sets the bind locals of `bones` (the node bones) so that each skin's inverse binds
/// hold, adding extra bones where skins disagree; warns once per skin that changes the
/// bind pose. Skins are taken in the order their meshes are drawn; each fixes the bind
/// world of the joints it is the first to bind.
pub(super) fn plan(
    ctx: &mut Ctx<'_>,
    doc: &gltf::Document,
    nodes: &Nodes,
    all: &[gltf::Node<'_>],
    roles: &Roles,
    bones: &mut Vec<Bone>,
    bone_of: &[Option<usize>],
) -> Result<SkinBones, GltfError> {
    let node_bones = bones.len();
    let mut node_of = vec![0usize; node_bones];
    for (n, b) in bone_of.iter().enumerate() {
        if let Some(b) = *b {
            node_of[b] = n;
        }
    }
    let mut joint_bones: Vec<Vec<u16>> = doc
        .skins()
        .map(|s| {
            s.joints()
                .map(|j| bone_of[j.index()].unwrap_or(0) as u16)
                .collect()
        })
        .collect();
    let skins = drawn_skins(nodes, all, roles);
    let binds: Vec<Vec<Mat4>> = skins
        .iter()
        .map(|s| skin::read_inverse_binds(ctx, s, s.joints().len()))
        .collect::<Result<_, _>>()?;
    let mut claimed: Vec<Option<Mat4>> = vec![None; node_bones];
    let mut held = Vec::new();
    for (s, ibms) in skins.iter().zip(&binds) {
        let world = bind_world(bones);
        let slots = &mut joint_bones[s.index()];
        let offsets: Vec<Mat4> = ibms
            .iter()
            .zip(slots.iter())
            .map(|(ibm, &b)| mul(ibm, &world[usize::from(b)]))
            .collect();
        // A skin off the skeleton by one shared offset binds its joints where they
        // are (`skin.rs` bakes the offset); another binds them at its inverse binds.
        let shared = skin::shared_offset(&offsets).is_some();
        let (mut moved, mut extra) = (0usize, 0usize);
        for (slot, ibm) in slots.iter_mut().zip(ibms) {
            let b = usize::from(*slot);
            let bind = match (shared, inverse_affine(ibm)) {
                (true, _) => world[b],
                (false, Some(bind)) => bind,
                (false, None) => continue,
            };
            match claimed[b] {
                None => {
                    claimed[b] = Some(bind);
                    moved += usize::from(!same(&bind, &world[b]));
                }
                Some(c) if same(&c, &bind) => {}
                Some(c) => {
                    let Some(inv) = inverse_affine(&c) else {
                        continue;
                    };
                    let e = held_bone(bones, b, s.index(), mul(&bind, &inv));
                    held.push(e);
                    *slot = e as u16;
                    extra += 1;
                }
            }
        }
        if moved + extra > 0 {
            set_bind_locals(bones, &node_of, nodes, &claimed);
            warn_rebound(ctx, s.index(), moved, extra);
        }
    }
    let rest = (0..node_bones)
        .filter(|&b| bones[b].bind_local != nodes.local[node_of[b]])
        .map(|b| (b, node_of[b]))
        .collect();
    Ok(SkinBones {
        joint_bones,
        rest,
        held,
    })
}

/// Each node bone's bind local: the claimed bind world relative to its parent's,
/// else its node's transform (within [`SAME`] of it: exactly it).
fn set_bind_locals(bones: &mut [Bone], node_of: &[usize], nodes: &Nodes, claimed: &[Option<Mat4>]) {
    let mut world: Vec<Mat4> = Vec::with_capacity(claimed.len());
    for b in 0..claimed.len() {
        let parent = bones[b].parent_index().map(|p| world[p]);
        let rest = nodes.local[node_of[b]];
        let local = match (claimed[b], parent) {
            (Some(c), Some(p)) => inverse_affine(&p).map_or(c, |inv| mul(&c, &inv)),
            (Some(c), None) => c,
            (None, _) => rest,
        };
        let local = if same(&local, &rest) { rest } else { local };
        bones[b].bind_local = local;
        world.push(parent.map_or(local, |p| mul(&local, &p)));
    }
}

/// Adds the extra bone of skin `skin`'s joint bone `joint`, bound at `local` under it.
fn held_bone(bones: &mut Vec<Bone>, joint: usize, skin: usize, local: Mat4) -> usize {
    let name = format!("{}@skins[{skin}]", bones[joint].name);
    let path = format!("{}/{}", bones[joint].path, name);
    bones.push(Bone {
        name,
        path,
        parent: joint as i32,
        bind_local: local,
    });
    bones.len() - 1
}

fn warn_rebound(ctx: &mut Ctx<'_>, skin: usize, moved: usize, extra: usize) {
    let mut done = Vec::new();
    if moved > 0 {
        done.push(format!(
            "the skeleton's bind pose follows them for {moved} joint(s), and clips key the rest pose of the bones they do not move"
        ));
    }
    if extra > 0 {
        done.push(format!(
            "{extra} joint(s) bound at another pose than an earlier skin are skinned through {extra} extra bone(s) that follow their joints"
        ));
    }
    ctx.report.report.warnings.push(format!(
        "skins[{skin}]: the inverse binds differ from the nodes' rest pose (not by one shared offset): {}",
        done.join("; ")
    ));
}

impl SkinBones {
    /// Whether every bone's bind local is its rest pose.
    fn rest_is_bind(&self) -> bool {
        self.rest.is_empty() && self.held.is_empty()
    }

    /// One-key tracks that hold the rest pose of every bone whose bind local is not its
    /// node's transform (and the identity of every extra bone), for the bones `clip`
    /// does not animate; the clip's tracks stay sorted by bone.
    pub(super) fn complete(&self, clip: &mut gom::Clip, rest: &[Rest]) {
        if self.rest_is_bind() {
            return;
        }
        let tracked: Vec<u32> = clip.tracks.iter().map(|t| t.bone).collect();
        for &(b, node) in &self.rest {
            if !tracked.contains(&(b as u32)) {
                let (t, r, s) = rest[node];
                clip.tracks
                    .push(one_key(b, mirror_vec3(t), mirror_quat(r), s));
            }
        }
        for &b in &self.held {
            clip.tracks
                .push(one_key(b, [0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3]));
        }
        clip.tracks.sort_by_key(|t| t.bone);
    }

    /// The zero-length [`REST_POSE_CLIP`] of a model without clips whose bind pose is
    /// not its rest pose (with a warning), or `None`.
    pub(super) fn rest_pose_clip(
        &self,
        ctx: &mut Ctx<'_>,
        rest: &[Rest],
        sample_rate: f32,
    ) -> Option<gom::Clip> {
        if self.rest_is_bind() {
            return None;
        }
        let mut clip = gom::Clip {
            weight_tracks: Vec::new(),
            name: REST_POSE_CLIP.to_string(),
            duration: 0.0,
            sample_rate,
            root_bone_index: -1,
            flags: gom::ClipFlags::empty(),
            tracks: Vec::new(),
            compressed: None,
            extras: Default::default(),
        };
        self.complete(&mut clip, rest);
        ctx.report.report.warnings.push(format!(
            "the rest pose differs from the skins' bind pose for {} bone(s): written as the zero-length clip \"{REST_POSE_CLIP}\"",
            clip.tracks.len()
        ));
        Some(clip)
    }
}

fn one_key(bone: usize, translation: [f32; 3], rotation: [f32; 4], scale: [f32; 3]) -> gom::Track {
    gom::Track {
        bone: bone as u32,
        keys: vec![gom::Key {
            time: 0.0,
            translation,
            rotation,
            scale,
        }],
    }
}
