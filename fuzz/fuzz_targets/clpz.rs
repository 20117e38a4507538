//! The compressed-clip chunk (`CLPZ`, docs/extensions.md): a payload read for a
//! skeleton of 1 to 256 bones (the first byte plus one) is refused or decodes every frame to
//! finite values, and the runtime samples it at any time without panicking.
#![no_main]

use std::borrow::Cow;

use gom::compressed::{decode, ChannelClass, Layout, Trs};
use libfuzzer_sys::fuzz_target;

fuzz_target!(init: gom_fuzz::init(), |data: &[u8]| {
    let Some((&bones, payload)) = data.split_first() else { return };
    let bones = u32::from(bones) + 1;
    let Ok(layout) = Layout::parse(payload, 0, bones) else { return };
    assert!(layout.channels(payload).iter().all(|c| c.bone < bones));
    let bind = vec![Trs { r: [0.0, 0.0, 0.0, 1.0], s: [1.0; 3], ..Trs::default() }; bones as usize];
    if u64::from(layout.frame_count) * u64::from(bones) <= 1 << 16 {
        for t in decode::decode_all(&layout, payload, &bind) {
            assert!(t.t.iter().chain(&t.r).chain(&t.s).all(|v| v.is_finite()));
        }
    }
    let _ = layout.channels(payload).iter().filter(|c| c.class == ChannelClass::Animated).count();
    let skeleton = gom_runtime::Skeleton::new(
        (0..bones).map(|i| format!("b{i}")).collect(),
        (0..bones).map(|i| format!("b{i}")).collect(),
        (0..bones as i32).map(|i| i - 1).collect(),
        vec![gom::IDENTITY; bones as usize],
    );
    let Ok(skeleton) = skeleton else { return };
    let Ok(clip) = gom_runtime::Clip::new_compressed(
        Cow::Borrowed("fuzz"),
        1.0,
        30.0,
        -1,
        gom::ClipFlags::empty(),
        Cow::Borrowed(payload),
        &skeleton,
    ) else {
        return;
    };
    let (mut ctx, mut pose) = (gom_runtime::SamplingContext::new(), gom_runtime::LocalPose::default());
    for t in [0.0, 0.5, 1.0, -3.0, 1e9] {
        let _ = gom_runtime::sample(&clip, &skeleton, t, gom_runtime::Playback::Loop, &mut ctx, &mut pose);
    }
});
