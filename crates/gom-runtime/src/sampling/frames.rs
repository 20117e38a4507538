//! A clip played frame by frame: what tools compare with a source clip to measure what
//! a game plays back.

use gom::compressed::{frame_time, Trs};

use super::{sample, SamplingContext};
use crate::clip::{Clip, Playback};
use crate::pose::LocalPose;
use crate::skeleton::Skeleton;
use crate::Error;

/// Every bone of `skeleton` at each frame of `frames`, in the order given: `clip`
/// sampled by [`sample`] (one context, [`Playback::Once`]) at the frame's time at the
/// clip's sample rate ([`frame_time`], where a compressed clip's frames stand), each
/// bone's local transform as a [`Trs`], frame after frame (`skeleton.bone_count()`
/// entries a frame). Errors as [`sample`] does.
pub fn sample_at_frames(
    clip: &Clip,
    skeleton: &Skeleton,
    frames: impl IntoIterator<Item = u32>,
) -> Result<Vec<Trs>, Error> {
    let (mut ctx, mut pose) = (SamplingContext::new(), LocalPose::default());
    let mut out = Vec::new();
    for f in frames {
        let t = frame_time(f, clip.sample_rate());
        sample(clip, skeleton, t, Playback::Once, &mut ctx, &mut pose)?;
        out.extend(
            (0..pose.bone_count())
                .filter_map(|b| pose.get(b))
                .map(|tr| Trs {
                    t: tr.translation.to_array(),
                    r: tr.rotation.to_array(),
                    s: tr.scale.to_array(),
                }),
        );
    }
    Ok(out)
}
