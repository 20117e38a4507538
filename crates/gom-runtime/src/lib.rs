//! The GOM runtime: what a game links to load GOMB files in place and animate them.
//!
//! No FBX, glTF or converter code: only the file view of `gom`, `glam` and `bytemuck`.
//!
//! ```text
//! bytes ──► Asset (skeleton, meshes, clips; zero-copy views)
//! Clip + time ──sample──► LocalPose ──blend──► LocalPose ──local_to_model──► ModelPose
//!                         LocalPose ──blend_additive (additive clip's deltas)──► LocalPose
//! PreparedClip + time ──sample_prepared──► LocalPose   (the same pose, bit for bit)
//! ModelPose ──two_bone_ik / aim_ik──► LocalPose corrections ──local_to_model_from──► ModelPose
//! ModelPose + Mesh ──Palette::compute──► Palette ──skin──► positions, normals, tangents
//!                                        Palette ──BoneBounds::bound──► Aabb for culling
//! ```
//!
//! Conventions (D1): GOM matrices are row-major and multiply row vectors
//! (`p' = p * M`). A glam matrix built from the same sixteen numbers
//! ([`transform::to_glam`]) is the same transform in column-vector form, so every
//! matrix here is a glam [`glam::Affine3A`] whose memory layout equals the GOM layout;
//! `world[i] = local[i] * world[parent]` in GOM reads `world[parent] * local[i]` in
//! glam.
//!
//! A typical frame:
//! ```
//! # fn frame(asset: &gom_runtime::Asset) -> Result<(), gom_runtime::Error> {
//! use gom_runtime::*;
//! let (mut ctx, mut local, mut model, mut palette) =
//!     (SamplingContext::new(), LocalPose::default(), ModelPose::new(), Palette::new());
//! let clip = &asset.clips()[0];
//! sample(clip, asset.skeleton(), 0.5, Playback::Loop, &mut ctx, &mut local)?;
//! local_to_model(asset.skeleton(), &local, &mut model)?;
//! let mesh = &asset.meshes()[0];
//! palette.compute(mesh, &model)?;
//! let mut positions = vec![[0.0; 3]; mesh.vertex_count()];
//! skin(mesh, &palette, SkinTargets { positions: Some(&mut positions), ..Default::default() })?;
//! # Ok(()) }
//! ```
// Four modules (`skinning::avx2`, `skinning::avx512`, `pose::avx`, `sampling::wide`)
// allow `unsafe` to call into their vector code after checking the CPU; everything
// else is safe.
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod additive;
pub mod asset;
pub mod blend;
pub mod bounds;
pub mod clip;
pub mod compressed;
pub mod cpu;
pub mod error;
pub mod events;
pub mod ik;
#[cfg(target_arch = "x86_64")]
mod lanes;
pub mod mesh;
pub mod morph;
pub mod palette;
pub mod pose;
pub mod posed;
pub mod prepared;
pub mod root_motion;
pub mod sampling;
pub mod skeleton;
mod skin_blocks;
pub mod skinning;
pub mod transform;

pub use additive::blend_additive;
pub use asset::Asset;
pub use blend::blend;
pub use bounds::{skinned_bounds, Aabb, BoneBounds};
pub use clip::{Clip, Playback, Track};
pub use error::Error;
pub use events::events_between;
pub use ik::{
    aim_ik, apply_aim_ik, apply_two_bone_ik, two_bone_ik, AimIk, TwoBoneCorrection, TwoBoneIk,
};
pub use mesh::{Indices, Mesh};
pub use morph::{sample_weights, MorphPath, MorphTargets, Morpher};
pub use palette::Palette;
pub use pose::{local_to_model, local_to_model_from, LocalPose, ModelPose};
pub use posed::{pose_at, pose_shown, skin_all, SkinnedMesh};
pub use prepared::{sample_prepared, PreparedClip, PreparedContext};
pub use root_motion::{hold_root_in_place, root_motion, RootMotion};
pub use sampling::{sample, sample_at_frames, SamplingContext};
pub use skeleton::Skeleton;
pub use skinning::{skin, skin_with, SkinPath, SkinTargets};
pub use transform::{SoaTransform, Transform};
