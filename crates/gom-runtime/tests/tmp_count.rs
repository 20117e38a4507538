mod common;
use common::*;
use gom_runtime::*;
#[test]
fn count() {
    let n = 64;
    let m = model(chain_of(n), vec![], vec![random_clip(n, 61, 2.0, 7)]);
    let asset = Asset::from_model(&m).unwrap();
    let mut ctx = SamplingContext::new();
    let mut pose = LocalPose::default();
    let mut t = 0.0f32;
    for _ in 0..1200 {
        t += 1.0 / 60.0;
        if t >= 2.0 { t -= 2.0; }
        sample(&asset.clips[0], &asset.skeleton, t, Playback::Loop, &mut ctx, &mut pose).unwrap();
    }
    eprintln!("finds {} bsearch {}", gom_runtime::sampling::FINDS.load(std::sync::atomic::Ordering::Relaxed), gom_runtime::sampling::BSEARCH.load(std::sync::atomic::Ordering::Relaxed));
}
