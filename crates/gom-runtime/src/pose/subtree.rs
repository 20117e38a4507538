//! Model-space matrices of one bone and the bones below it, after their local
//! transforms changed (IK corrections, a procedural bone).

use super::{compose, soa_to_affines, LocalPose, ModelPose};
use crate::skeleton::Skeleton;
use crate::Error;

/// Updates `model` for bone `from_bone` and every bone below it from `local`, leaving
/// the other bones' matrices as they are: the matrices [`super::local_to_model`]
/// would give, bit for bit, when the rest of `model` is its result for `local`.
/// Parents precede their children (D5), so one pass from `from_bone` on finds the
/// subtree. `model` must hold every bone already.
pub fn local_to_model_from(
    skeleton: &Skeleton,
    from_bone: usize,
    local: &LocalPose,
    model: &mut ModelPose,
) -> Result<(), Error> {
    let n = skeleton.bone_count();
    for (what, found) in [
        ("local_to_model_from (local pose)", local.bone_count()),
        ("local_to_model_from (model pose)", model.bone_count()),
    ] {
        if found != n {
            return Err(Error::BoneCount {
                what,
                expected: n,
                found,
            });
        }
    }
    if from_bone >= n {
        return Err(Error::BoneIndex {
            what: "local_to_model_from",
            bone: from_bone,
            bone_count: n,
        });
    }
    let parents = skeleton.parents();
    let mut below = vec![false; n - from_bone];
    for gi in from_bone / 4..local.groups.len() {
        let mats = soa_to_affines(&local.groups[gi]);
        for (l, m) in mats.into_iter().enumerate() {
            let i = gi * 4 + l;
            if i < from_bone || i >= n {
                continue;
            }
            let parent = usize::try_from(parents[i]).ok();
            let inside =
                i == from_bone || parent.is_some_and(|p| p >= from_bone && below[p - from_bone]);
            below[i - from_bone] = inside;
            if !inside {
                continue;
            }
            model.world[i] = match parent {
                Some(p) => compose(&model.world[p], &m),
                None => m,
            };
        }
    }
    Ok(())
}
