//! The runtime's decoding paths against the codec's reference decoder
//! (`gom::compressed::decode::Decoder`), and the blended pose against the uncached
//! single-bone path.

use std::borrow::Cow;

use gom::compressed::decode::Decoder;
use gom::compressed::{encode, EncodeInput, Kind, Settings, Trs};

use super::segment::{slot, Segment, GROUP_FLOATS};
use super::*;
use crate::{Clip, Playback, SamplingContext};

const BONES: usize = 9;
const FRAMES: usize = 70;

/// A quaternion about a unit axis, by angle.
fn quat(axis: [f64; 3], angle: f64) -> [f32; 4] {
    let (s, c) = (angle / 2.0).sin_cos();
    [
        (axis[0] * s) as f32,
        (axis[1] * s) as f32,
        (axis[2] * s) as f32,
        c as f32,
    ]
}

/// A chain whose bones turn about changing axes through large angles (so that
/// segments drop different rotation components), the root travelling, one bone
/// scaling, one held still away from its bind pose (a constant).
fn clip_frames() -> (Vec<i32>, Vec<Trs>, Vec<Trs>) {
    let parents: Vec<i32> = (0..BONES as i32).map(|i| i - 1).collect();
    let bind: Vec<Trs> = (0..BONES)
        .map(|i| Trs {
            t: [0.0, if i == 0 { 0.0 } else { 0.1 }, 0.0],
            r: [0.0, 0.0, 0.0, 1.0],
            s: [1.0; 3],
        })
        .collect();
    let mut frames = Vec::new();
    for f in 0..FRAMES {
        let t = f as f64 / 30.0;
        for (i, b) in bind.iter().enumerate() {
            let mut x = *b;
            let w = 1.0 + i as f64 * 0.37;
            let (sa, ca) = (t * 0.7 + i as f64).sin_cos();
            x.r = quat(
                [sa * 0.6, 0.8, ca * 0.6],
                (t * w).sin() * 3.0 + 0.5 * i as f64,
            );
            match i {
                0 => x.t = [(t * 0.8) as f32, 0.9 + 0.05 * (t * 3.0).sin() as f32, 0.0],
                3 => x.s = [1.0 + 0.2 * (t * 2.0).sin() as f32, 1.0, 0.9],
                5 => x.r = quat([0.0, 1.0, 0.0], 0.4),
                _ => {}
            }
            frames.push(x);
        }
    }
    (parents, bind, frames)
}

/// The clip compressed at 0.1 mm at 3 cm, and its skeleton.
fn compressed() -> (Vec<u8>, Skeleton) {
    let (parents, bind, frames) = clip_frames();
    let payload = encode(
        &EncodeInput {
            parents: &parents,
            bind: &bind,
            frames: &frames,
        },
        Settings {
            tolerance: 0.0001,
            distance: 0.03,
        },
    );
    let matrices = bind
        .iter()
        .map(|b| {
            let mut m = [0.0f32; 16];
            (m[0], m[5], m[10], m[15]) = (1.0, 1.0, 1.0, 1.0);
            m[12..15].copy_from_slice(&b.t);
            m
        })
        .collect();
    let names: Vec<String> = (0..BONES).map(|i| format!("b{i}")).collect();
    let skeleton = Skeleton::new(names.clone(), names, parents, matrices).expect("chain");
    (payload, skeleton)
}

/// Frame `f` decoded by the reference decoder, placed as the runtime places it.
fn reference(clip: &CompressedClip<'_>, f: u32) -> Vec<(usize, f32)> {
    let dec = Decoder::new(clip.layout(), clip.payload());
    let mut values = vec![[0.0f32; 4]; clip.animated.len()];
    dec.decode_frame(clip.payload(), f, &mut values);
    let mut out = Vec::new();
    for (&(bone, kind), v) in clip.animated.iter().zip(&values) {
        let (field, n) = match kind {
            Kind::Translation => (0, 3),
            Kind::Rotation => (3, 4),
            Kind::Scale => (7, 3),
        };
        for (k, x) in v.iter().take(n).enumerate() {
            out.push((slot(bone, field + k as u32) as usize, *x));
        }
    }
    out
}

#[test]
fn both_decoding_paths_give_the_reference_decoders_bits_at_every_frame() {
    let (payload, skeleton) = compressed();
    let clip = CompressedClip::new(Cow::Borrowed(&payload), BONES as u32).expect("own payload");
    let layout = clip.layout().clone();
    assert!(layout.segment_count > 3, "several segments");
    assert!(clip.animated.iter().any(|c| c.1 == Kind::Scale));
    assert!(!clip.constants.is_empty(), "a constant channel");
    let mut drops = std::collections::BTreeSet::new();
    let floats = clip.frame_floats();
    let _ = skeleton;
    let mut seg = Segment::default();
    for f in 0..layout.frame_count {
        let s = f / layout.segment_frames;
        seg.load(&clip, s);
        let rec = layout.segment(&payload, s);
        drops.extend(
            clip.animated
                .iter()
                .enumerate()
                .filter(|c| c.1 .1 == Kind::Rotation)
                .map(|c| rec[c.0] >> 5),
        );
        let within = f % layout.segment_frames;
        let l = &clip.lanes;
        let mut scalar = vec![f32::NAN; floats];
        seg.decode_scalar(l, &payload, within * seg.frame_bits, &mut scalar);
        seg.restore(l, &mut scalar);
        for (at, v) in reference(&clip, f) {
            assert_eq!(scalar[at].to_bits(), v.to_bits(), "frame {f} float {at}");
        }
        let mut wide = vec![f32::NAN; floats];
        seg.decode(l, &payload, within, &mut wide);
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&wide), bits(&scalar), "frame {f}: the dispatched path");
        // Two frames in one pass: this one and the segment's first.
        let (mut p0, mut p1) = (vec![f32::NAN; floats], vec![f32::NAN; floats]);
        seg.decode_pair(l, &payload, (within, 0), &mut p0, &mut p1);
        let mut first = vec![f32::NAN; floats];
        seg.decode(l, &payload, 0, &mut first);
        assert_eq!(bits(&p0), bits(&scalar), "frame {f}: first of a pair");
        assert_eq!(bits(&p1), bits(&first), "frame {f}: second of a pair");
        #[cfg(target_arch = "x86_64")]
        if avx2::available() {
            assert!(seg.loads_inside);
            let mut eight = vec![f32::NAN; floats];
            assert!(avx2::decode(
                &seg,
                l,
                &payload,
                [within * seg.frame_bits],
                [&mut eight]
            ));
            assert_eq!(bits(&eight), bits(&scalar), "frame {f}: eight lanes");
        }
    }
    assert!(
        drops.len() >= 2,
        "rotations drop different components: {drops:?}"
    );
    assert_eq!(floats % GROUP_FLOATS, 0);
}

#[test]
fn a_segment_whose_loads_would_leave_the_payload_takes_the_checked_path() {
    let (payload, _) = compressed();
    let clip = CompressedClip::new(Cow::Borrowed(&payload), BONES as u32).expect("own payload");
    let mut seg = Segment::default();
    seg.load(&clip, 0);
    let mut want = vec![0.0f32; clip.frame_floats()];
    seg.decode(&clip.lanes, &payload, 1, &mut want);
    // The same segment over a payload cut short: the eight-lane path must not gather
    // from it; the checked path reads the missing bytes as zero instead.
    seg.loads_inside = false;
    let short = &payload[..seg.packed_at + 2];
    let mut got = vec![0.0f32; clip.frame_floats()];
    seg.decode(&clip.lanes, short, 1, &mut got);
    assert_ne!(got, want, "the cut payload decodes differently");
    assert!(got.iter().all(|v| v.is_finite()));
}

#[test]
fn the_blended_pose_has_the_bits_of_the_single_bone_path_forward_and_seeking() {
    let (payload, skeleton) = compressed();
    let clip = Clip::new_compressed(
        Cow::Borrowed("c"),
        (FRAMES - 1) as f32 / 30.0,
        30.0,
        0,
        gom::ClipFlags::empty(),
        Cow::Borrowed(&payload),
        &skeleton,
    )
    .expect("own payload");
    let mut times: Vec<f32> = (0..4 * FRAMES).map(|i| i as f32 / 120.0).collect();
    let forward = times.len();
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    times.extend((0..200).map(|_| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 40) as f32 / (1u64 << 24) as f32 * 2.4
    }));
    let mut ctx = SamplingContext::new();
    let mut pose = LocalPose::default();
    for (i, &t) in times.iter().enumerate() {
        crate::sample(&clip, &skeleton, t, Playback::Once, &mut ctx, &mut pose).expect("sample");
        for b in 0..BONES {
            let want = clip.sample_bone(b as u32, clip.local_time(t, Playback::Once));
            let got = pose.get(b).expect("bone");
            let want = want.unwrap_or(skeleton.bind_local()[b]);
            let what = if i < forward { "forward" } else { "seek" };
            assert_eq!(got, want, "{what} t={t} bone {b}");
        }
    }
}

#[test]
fn eight_lane_segment_setup_gives_the_scalar_setups_arrays() {
    let (payload, _) = compressed();
    let clip = CompressedClip::new(Cow::Borrowed(&payload), BONES as u32).expect("own payload");
    let a = clip.channels.len();
    let fbits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    for s in 0..clip.layout().segment_count {
        let mut loaded = Segment::default();
        loaded.load(&clip, s);
        let mut scalar = loaded.clone();
        scalar.pos.fill(0);
        scalar.mask.fill(0);
        scalar.off.fill(0.0);
        scalar.step.fill(0.0);
        scalar.drop.fill(7);
        let rec = clip.layout().segment(&payload, s);
        let bits = scalar.setup(&clip.lanes, &rec[..a], &rec[a..2 * a], &rec[2 * a..8 * a]);
        assert_eq!(bits, loaded.frame_bits, "segment {s}: bits of a frame");
        assert_eq!(loaded.pos, scalar.pos, "segment {s}: bit positions");
        assert_eq!(loaded.mask, scalar.mask, "segment {s}: masks");
        assert_eq!(
            fbits(&loaded.off),
            fbits(&scalar.off),
            "segment {s}: offsets"
        );
        assert_eq!(
            fbits(&loaded.step),
            fbits(&scalar.step),
            "segment {s}: steps"
        );
        assert_eq!(loaded.drop, scalar.drop, "segment {s}: dropped components");
        #[cfg(target_arch = "x86_64")]
        if avx2::available() {
            let mut eight = scalar.clone();
            eight.off.fill(f32::NAN);
            eight.drop.fill(7);
            eight.pos.fill(u32::MAX);
            let taken = avx2::setup(&mut eight, &clip, rec, None);
            assert_eq!(taken, (Some(bits), false), "eight lanes taken");
            assert_eq!(
                eight.pos, scalar.pos,
                "segment {s}: eight-lane bit positions"
            );
            assert_eq!(
                fbits(&eight.off),
                fbits(&scalar.off),
                "segment {s}: eight lanes"
            );
            assert_eq!(eight.drop, scalar.drop, "segment {s}: eight-lane drops");
        }
    }
}

#[test]
fn the_plan_puts_every_component_in_its_frame_float_once_and_leaves_holes_unwritten() {
    let (payload, _) = compressed();
    let clip = CompressedClip::new(Cow::Borrowed(&payload), BONES as u32).expect("own payload");
    let l = &clip.lanes;
    let mut seen = std::collections::BTreeSet::new();
    for j in 0..l.channel.len() {
        let at = l.quad_at[j / 4] + (j % 4) as u32;
        if l.valid[j] == 0 {
            continue;
        }
        let (bone, kind) = clip.animated[l.channel[j] as usize];
        let field = match kind {
            Kind::Translation => 0,
            Kind::Rotation => 3,
            Kind::Scale => 7,
        };
        assert_eq!(at, slot(bone, field + l.k[j]), "lane {j}");
        assert!(seen.insert(at), "float {at} written twice");
    }
    assert_eq!(seen.len(), 3 * clip.animated.len(), "every component once");
    assert_eq!(l.quad_at.len() % 2, 0);
    // Decoding into a frame of markers changes only the planned floats, and the
    // rotations' w fields.
    let mut seg = Segment::default();
    seg.load(&clip, 1);
    let marker = f32::from_bits(0x7FC0_1234);
    let mut out = vec![marker; clip.frame_floats()];
    seg.decode(l, &payload, 2, &mut out);
    for (i, v) in out.iter().enumerate() {
        let planned = seen.contains(&(i as u32))
            || clip
                .animated
                .iter()
                .any(|&(b, k)| k == Kind::Rotation && slot(b, 6) == i as u32);
        assert_eq!(v.to_bits() != marker.to_bits(), planned, "float {i}");
    }
}

#[test]
fn lane_first_bits_are_the_codecs_component_bits_in_frame_order() {
    let (payload, _) = compressed();
    let clip = CompressedClip::new(Cow::Borrowed(&payload), BONES as u32).expect("own payload");
    let a = clip.channels.len();
    let order = gom::compressed::decode::frame_order(&clip.animated);
    let l = &clip.lanes;
    for s in 0..clip.layout().segment_count {
        let rec = clip.layout().segment(&payload, s);
        let (first, bits) =
            gom::compressed::decode::component_bits(&rec[..a], &rec[a..2 * a], &order);
        let mut seg = Segment::default();
        seg.load(&clip, s);
        assert_eq!(
            u64::from(seg.frame_bits),
            bits,
            "segment {s}: bits of a frame"
        );
        let mut seen = 0;
        for j in 0..l.channel.len() {
            if l.valid[j] != 0 {
                let want = first[l.channel[j] as usize][l.k[j] as usize];
                assert_eq!(u64::from(seg.pos[j]), want, "segment {s} lane {j}");
                seen += 1;
            }
        }
        assert_eq!(seen, 3 * a, "every component has a lane");
    }
}

/// Frames of `groups` groups with random fields (rotations unit, on either side of
/// each other) and random motion lanes, from a xorshift seed.
fn random_frames(groups: usize, seed: u64) -> (Frame, Frame, Vec<GroupMotion>) {
    let mut x = seed;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
    };
    let mut frame = || -> Frame {
        (0..groups)
            .map(|_| {
                let mut g = [0.0f32; GROUP_FLOATS];
                g.iter_mut().for_each(|v| *v = next() * 3.0);
                for lane in 0..4 {
                    let q: [f32; 4] = std::array::from_fn(|m| g[12 + 4 * m + lane]);
                    let n = q.iter().map(|v| v * v).sum::<f32>().sqrt().max(1e-3);
                    (0..4).for_each(|m| g[12 + 4 * m + lane] = q[m] / n);
                }
                g
            })
            .collect()
    };
    let (fa, fb) = (frame(), frame());
    let motion = (0..groups)
        .map(|_| {
            let lanes: [[bool; 4]; 3] =
                std::array::from_fn(|_| std::array::from_fn(|_| next() > 0.0));
            GroupMotion {
                lanes: lanes.map(BVec4A::from_array),
                any: lanes.map(|l| l.contains(&true)),
            }
        })
        .collect();
    (fa, fb, motion)
}

#[test]
fn eight_bone_blend_gives_the_four_bone_blends_bits() {
    for seed in 1..40u64 {
        let groups = 1 + seed as usize % 7;
        let (fa, fb, motion) = random_frames(groups, seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        for a in [0.0, 0.25, 0.5, 0.999, seed as f32 / 41.0] {
            let mut want = vec![SoaTransform::IDENTITY; groups];
            for (((g, x), y), m) in want.iter_mut().zip(&fa).zip(&fb).zip(&motion) {
                blend_group(x, y, a, m, g);
            }
            let mut got = vec![SoaTransform::IDENTITY; groups];
            blend_pose(&fa, &fb, a, &motion, &mut got);
            let bits = |v: &[SoaTransform]| {
                v.iter()
                    .flat_map(|g| g.translation.iter().chain(&g.rotation).chain(&g.scale))
                    .flat_map(|f| f.to_array().map(f32::to_bits))
                    .collect::<Vec<_>>()
            };
            assert_eq!(bits(&got), bits(&want), "seed {seed}, a {a}");
            #[cfg(target_arch = "x86_64")]
            if avx2::available() {
                let done = avx2::blend_pairs(&fa, &fb, a, &motion, &mut got);
                assert_eq!(done, groups / 2 * 2, "pairs taken");
            }
        }
    }
}

#[test]
fn entering_a_segment_while_decoding_gives_the_bits_of_entering_then_decoding() {
    let (payload, _) = compressed();
    let clip = CompressedClip::new(Cow::Borrowed(&payload), BONES as u32).expect("own payload");
    let layout = clip.layout().clone();
    let floats = clip.frame_floats();
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    let mut fused_segments = 0;
    for s in 0..layout.segment_count {
        let count = layout.frames_in_segment(s);
        for (w0, w1) in [(0, 1), (count - 1, count / 2), (count / 3, count - 1)] {
            let mut plain = Segment::default();
            plain.load(&clip, s);
            let (mut a, mut b) = (vec![f32::NAN; floats], vec![f32::NAN; floats]);
            plain.decode_pair(&clip.lanes, &payload, (w0, w1), &mut a, &mut b);
            let mut seg = Segment::default();
            let (mut fa, mut fb) = (vec![f32::NAN; floats], vec![f32::NAN; floats]);
            let fused = seg.load_with(&clip, s, Some(((w0, w1), &mut fa, &mut fb)));
            if fused {
                fused_segments += 1;
                assert_eq!(bits(&fa), bits(&a), "segment {s} frame {w0}: one pass");
                assert_eq!(bits(&fb), bits(&b), "segment {s} frame {w1}: one pass");
            }
            let (mut fa, mut fb) = (vec![f32::NAN; floats], vec![f32::NAN; floats]);
            seg.index = None;
            seg.load_decoding(&clip, s, (w0, w1), &mut fa, &mut fb);
            assert_eq!(bits(&fa), bits(&a), "segment {s} frame {w0}");
            assert_eq!(bits(&fb), bits(&b), "segment {s} frame {w1}");
            assert_eq!(seg.pos, plain.pos, "segment {s}: the same setup");
            assert_eq!(bits(&seg.step), bits(&plain.step), "segment {s}: steps");
        }
    }
    #[cfg(target_arch = "x86_64")]
    if avx2::available() {
        // Every segment but the last, shorter one, holds 16 frames.
        assert_eq!(
            fused_segments,
            3 * (layout.segment_count - 1),
            "one pass taken"
        );
    }
    let _ = fused_segments;
}
