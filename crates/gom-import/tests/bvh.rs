//! BVH import against forward kinematics evaluated here, from the BVH definition (a
//! joint's local transform is `T(OFFSET + position channels) · R`, `R` the product of
//! its rotation channels in file order, degrees, column vectors; world = parent ·
//! local), independently of the importer's code; and its errors.

use std::path::PathBuf;

use gom_import::bvh::{convert, BvhErrorKind, BvhOptions};
use gom_import::optimize::keys::KeyTolerance;
use gom_runtime::{Asset, Playback};

// ---- an evaluator of BVH text written from the definition -------------------------

type V3 = [f64; 3];
type Q = [f64; 4]; // x, y, z, w

fn qmul(a: Q, b: Q) -> Q {
    let [ax, ay, az, aw] = a;
    let [bx, by, bz, bw] = b;
    [
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by + ay * bw + az * bx - ax * bz,
        aw * bz + az * bw + ax * by - ay * bx,
        aw * bw - ax * bx - ay * by - az * bz,
    ]
}

/// `v` rotated by the unit quaternion `q` (as the 3×3 matrix of `q`).
fn rotate(q: Q, v: V3) -> V3 {
    let [x, y, z, w] = q;
    let m = [
        [
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y - z * w),
            2.0 * (x * z + y * w),
        ],
        [
            2.0 * (x * y + z * w),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (y * z - x * w),
        ],
        [
            2.0 * (x * z - y * w),
            2.0 * (y * z + x * w),
            1.0 - 2.0 * (x * x + y * y),
        ],
    ];
    std::array::from_fn(|r| m[r][0] * v[0] + m[r][1] * v[1] + m[r][2] * v[2])
}

fn slerp(a: Q, b: Q, t: f64) -> Q {
    let mut d: f64 = (0..4).map(|i| a[i] * b[i]).sum();
    let b = if d < 0.0 {
        d = -d;
        b.map(|v| -v)
    } else {
        b
    };
    let theta = d.min(1.0).acos();
    if theta < 1e-12 {
        return a;
    }
    let (wa, wb) = (
        ((1.0 - t) * theta).sin() / theta.sin(),
        (t * theta).sin() / theta.sin(),
    );
    std::array::from_fn(|i| wa * a[i] + wb * b[i])
}

struct TJoint {
    name: String,
    parent: Option<usize>,
    offset: V3,
    /// (axis letter, is rotation, column in a frame)
    channels: Vec<(char, bool, usize)>,
}

struct TClip {
    joints: Vec<TJoint>,
    frames: usize,
    frame_time: f64,
    rows: Vec<Vec<f64>>,
}

fn read_clip(text: &str) -> TClip {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut joints: Vec<TJoint> = Vec::new();
    let mut stack: Vec<usize> = Vec::new();
    let mut columns = 0;
    let mut i = 1; // after HIERARCHY
    while words[i] != "MOTION" {
        match words[i] {
            "ROOT" | "JOINT" | "End" => {
                let end_site = words[i] == "End";
                let name = if end_site {
                    format!("{}_End", joints[*stack.last().unwrap()].name)
                } else {
                    words[i + 1].to_string()
                };
                joints.push(TJoint {
                    name,
                    parent: stack.last().copied(),
                    offset: [0.0; 3],
                    channels: Vec::new(),
                });
                stack.push(joints.len() - 1);
                i += 3; // keyword, name or "Site", "{"
            }
            "OFFSET" => {
                let j = *stack.last().unwrap();
                joints[j].offset = std::array::from_fn(|k| words[i + 1 + k].parse().unwrap());
                i += 4;
            }
            "CHANNELS" => {
                let j = *stack.last().unwrap();
                let n: usize = words[i + 1].parse().unwrap();
                for k in 0..n {
                    let c = words[i + 2 + k];
                    let axis = c.chars().next().unwrap().to_ascii_uppercase();
                    let rotation = c[1..].eq_ignore_ascii_case("rotation");
                    joints[j].channels.push((axis, rotation, columns));
                    columns += 1;
                }
                i += 2 + n;
            }
            "}" => {
                stack.pop();
                i += 1;
            }
            w => panic!("test reader: unexpected {w}"),
        }
    }
    let frames: usize = words[i + 2].parse().unwrap();
    let frame_time: f64 = words[i + 5].parse().unwrap();
    let values: Vec<f64> = words[i + 6..].iter().map(|w| w.parse().unwrap()).collect();
    assert_eq!(values.len(), frames * columns);
    let rows = values.chunks(columns.max(1)).map(<[f64]>::to_vec).collect();
    TClip {
        joints,
        frames,
        frame_time,
        rows,
    }
}

fn axis_quat(axis: char, degrees: f64) -> Q {
    let h = degrees.to_radians() / 2.0;
    match axis {
        'X' => [h.sin(), 0.0, 0.0, h.cos()],
        'Y' => [0.0, h.sin(), 0.0, h.cos()],
        _ => [0.0, 0.0, h.sin(), h.cos()],
    }
}

impl TClip {
    /// Joint `j`'s local translation and rotation at frame `k` (file units).
    fn local(&self, j: usize, k: usize) -> (V3, Q) {
        let joint = &self.joints[j];
        let mut t = joint.offset;
        let mut q = [0.0, 0.0, 0.0, 1.0];
        for &(axis, rotation, col) in &joint.channels {
            let v = self.rows[k][col];
            if rotation {
                q = qmul(q, axis_quat(axis, v));
            } else {
                t[(axis as u8 - b'X') as usize] += v;
            }
        }
        (t, q)
    }

    /// World positions (file units) from each joint's local transform.
    fn world(&self, local: &dyn Fn(usize) -> (V3, Q)) -> Vec<V3> {
        let mut pos: Vec<V3> = Vec::new();
        let mut rot: Vec<Q> = Vec::new();
        for (j, joint) in self.joints.iter().enumerate() {
            let (t, q) = local(j);
            let (p, r) = match joint.parent {
                None => (t, q),
                Some(p) => {
                    let v = rotate(rot[p], t);
                    (
                        [pos[p][0] + v[0], pos[p][1] + v[1], pos[p][2] + v[2]],
                        qmul(rot[p], q),
                    )
                }
            };
            pos.push(p);
            rot.push(r);
        }
        pos
    }

    fn height(&self) -> f64 {
        let bind = self.world(&|j| (self.joints[j].offset, [0.0, 0.0, 0.0, 1.0]));
        (0..3)
            .map(|a| {
                let hi = bind.iter().map(|p| p[a]).fold(f64::MIN, f64::max);
                let lo = bind.iter().map(|p| p[a]).fold(f64::MAX, f64::min);
                hi - lo
            })
            .fold(0.0, f64::max)
    }
}

/// A file-space position in GOM space: centimetres to metres, Z mirrored.
fn gom_space(p: V3) -> V3 {
    [p[0] * 0.01, p[1] * 0.01, -p[2] * 0.01]
}

// ---- helpers --------------------------------------------------------------------

fn every_key() -> BvhOptions {
    BvhOptions {
        key_tolerance: KeyTolerance {
            tolerance: 0.0,
            ..Default::default()
        },
        reduce_keys: false,
        ..Default::default()
    }
}

fn shared_clips() -> Vec<PathBuf> {
    let Some(dir) = gom_test_support::shared_data("bvh") else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "bvh"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 13, "the shared folder holds the 13 CMU clips");
    files
}

/// Checks every bone of `model` (blocks in file order) against the evaluator at each
/// of `times`, where `expect(time index)` gives the expected world positions.
fn check_poses(
    name: &str,
    clip: &TClip,
    model: &gom::Model,
    times: &[f32],
    expect: &dyn Fn(usize) -> Vec<V3>,
) -> f64 {
    let asset = Asset::from_model(model).unwrap();
    let tolerance = 1e-5 * clip.height() * 0.01;
    assert_eq!(model.skeleton.bones.len(), clip.joints.len(), "{name}");
    for (b, j) in model.skeleton.bones.iter().zip(&clip.joints) {
        assert_eq!(b.name, j.name, "{name}");
    }
    let mut worst = 0.0f64;
    for (i, &t) in times.iter().enumerate() {
        let pose = asset
            .model_pose(Some(0), t, Playback::Once)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        for (j, want) in expect(i).into_iter().enumerate() {
            let m = pose.row_major(j).unwrap();
            let want = gom_space(want);
            let err = (0..3)
                .map(|a| (f64::from(m[12 + a]) - want[a]).abs())
                .fold(0.0, f64::max);
            worst = worst.max(err);
            assert!(
                err <= tolerance,
                "{name}: bone {} at {t} s is {err} m from forward kinematics (tolerance {tolerance})",
                clip.joints[j].name
            );
        }
    }
    worst
}

fn frame_time_f32(clip: &TClip, k: usize) -> f32 {
    (k as f64 * clip.frame_time) as f32
}

// ---- the shared clips ----------------------------------------------------------

#[test]
fn every_frame_of_every_shared_clip_matches_forward_kinematics() {
    for path in shared_clips() {
        let text = std::fs::read_to_string(&path).unwrap();
        let clip = read_clip(&text);
        let name = path.display().to_string();
        let (model, report) = convert(text.as_bytes(), &name, &every_key()).unwrap();
        assert_eq!(model.clips.len(), 1);
        let times: Vec<f32> = (0..clip.frames).map(|k| frame_time_f32(&clip, k)).collect();
        let worst = check_poses(&name, &clip, &model, &times, &|k| {
            clip.world(&|j| clip.local(j, k))
        });
        eprintln!("{name}: worst {worst:e} m over {} frames", clip.frames);
        assert_eq!(report.frames as usize, clip.frames);
        let duration = (clip.frames - 1) as f64 * clip.frame_time;
        assert!((f64::from(model.clips[0].duration) - duration).abs() < 1e-5);
    }
}

#[test]
fn between_frames_positions_follow_lerp_and_slerp_of_the_neighbouring_frames() {
    for path in shared_clips().iter().step_by(4) {
        let text = std::fs::read_to_string(path).unwrap();
        let clip = read_clip(&text);
        let name = path.display().to_string();
        let (model, _) = convert(text.as_bytes(), &name, &every_key()).unwrap();
        let pairs: Vec<(usize, f64)> = (0..clip.frames - 1)
            .step_by(7)
            .map(|k| (k, 0.3 + 0.4 * ((k % 3) as f64 / 2.0)))
            .collect();
        let times: Vec<f32> = pairs
            .iter()
            .map(|&(k, u)| {
                let (a, b) = (frame_time_f32(&clip, k), frame_time_f32(&clip, k + 1));
                a + (b - a) * u as f32
            })
            .collect();
        check_poses(&name, &clip, &model, &times, &|i| {
            let (k, _) = pairs[i];
            let (a, b) = (frame_time_f32(&clip, k), frame_time_f32(&clip, k + 1));
            let u = f64::from(times[i] - a) / f64::from(b - a);
            clip.world(&|j| {
                let (t0, q0) = clip.local(j, k);
                let (t1, q1) = clip.local(j, k + 1);
                let t = std::array::from_fn(|a| t0[a] + (t1[a] - t0[a]) * u);
                (t, slerp(q0, q1, u))
            })
        });
    }
}

#[test]
fn the_skeleton_is_the_offset_pose_with_end_sites_as_leaf_bones_or_dropped() {
    let Some(path) = shared_clips().into_iter().next() else {
        return;
    };
    let text = std::fs::read_to_string(&path).unwrap();
    let clip = read_clip(&text);
    let (kept, report) = convert(text.as_bytes(), "002_01.bvh", &BvhOptions::default()).unwrap();
    // 101 joints and 41 End Sites (the folder's README).
    assert_eq!((report.joints, report.end_sites), (101, 41));
    assert_eq!(kept.skeleton.bones.len(), 142);
    let bind = gom::math::bind_world(&kept.skeleton.bones);
    let want = clip.world(&|j| (clip.joints[j].offset, [0.0, 0.0, 0.0, 1.0]));
    for (m, w) in bind.iter().zip(&want) {
        let w = gom_space(*w);
        for a in 0..3 {
            assert!((f64::from(m[12 + a]) - w[a]).abs() < 1e-6);
        }
    }
    let options = BvhOptions {
        end_sites: false,
        ..Default::default()
    };
    let (dropped, _) = convert(text.as_bytes(), "002_01.bvh", &options).unwrap();
    assert_eq!(dropped.skeleton.bones.len(), 101);
    assert!(dropped
        .skeleton
        .bones
        .iter()
        .all(|b| !b.name.ends_with("_End")));
    // The same joints, the same clip.
    let joints: Vec<&gom::Bone> = kept
        .skeleton
        .bones
        .iter()
        .filter(|b| !b.name.ends_with("_End"))
        .collect();
    for (a, b) in joints.iter().zip(&dropped.skeleton.bones) {
        assert_eq!((&a.name, a.bind_local), (&b.name, b.bind_local));
    }
    assert_eq!(
        kept.clips[0]
            .tracks
            .iter()
            .map(|t| t.keys.len())
            .sum::<usize>(),
        dropped.clips[0]
            .tracks
            .iter()
            .map(|t| t.keys.len())
            .sum::<usize>()
    );
}

#[test]
fn the_report_height_follows_unit_and_scale_as_the_pipeline_applies_them() {
    let Some(path) = shared_clips().into_iter().nth(2) else {
        return;
    };
    for (unit, scale) in [
        (None, 1.0f32),
        (Some(gom_import::pipeline::LengthUnit::M), 0.056444),
    ] {
        let options = gom_import::source::ImportOptions {
            unit,
            scale,
            ..Default::default()
        };
        let imported = gom_import::source::import_path(&path, &options).unwrap();
        let bind = gom::math::bind_world(&imported.model.skeleton.bones);
        let extent = (0..3)
            .map(|a| {
                let v = bind.iter().map(|m| f64::from(m[12 + a]));
                v.clone().fold(f64::MIN, f64::max) - v.fold(f64::MAX, f64::min)
            })
            .fold(0.0, f64::max);
        let reported = imported.report["bvh"]["heightMetres"].as_f64().unwrap();
        assert!(
            (reported - extent).abs() < 1e-4 * extent,
            "{reported} {extent}"
        );
        let line = imported
            .summary
            .iter()
            .find(|l| l.contains("skeleton height"));
        assert!(line.unwrap().contains(&format!("{reported:.3} m")));
    }
}

// ---- hand-made files ----------------------------------------------------------------

/// Channels in every order and count, translation on a child joint, a non-zero root
/// offset, three roots of sorts (one ROOT, one second ROOT without channels).
const VARIED: &str = "HIERARCHY
ROOT Hips
{
  OFFSET 1 90 -2
  CHANNELS 6 Yrotation Xposition Zrotation Zposition Xrotation Yposition
  JOINT Spine
  {
    OFFSET 0 10 0
    CHANNELS 2 Xrotation Zrotation
    JOINT Head
    {
      OFFSET 0 20 3
      CHANNELS 6 Xposition Yposition Zposition Xrotation Yrotation Zrotation
      End Site
      {
        OFFSET 0 8 0
      }
    }
  }
  JOINT Leg
  {
    OFFSET 10 -5 0
    CHANNELS 3 Yrotation Xrotation Zrotation
    JOINT Foot
    {
      OFFSET 0 -40 0
      CHANNELS 1 Yposition
    }
  }
}
ROOT Prop
{
  OFFSET 50 0 0
}
MOTION
Frames: 4
Frame Time: 0.1
10 1 20 2 30 3 40 50 0 0 0 10 20 30 5 6 7 1
-40 0.5 170 -1 -30 4 -20 60 1 2 3 -10 -20 -30 -5 -6 -7 -1
90 0 -90 0 45 0 90 -90 0 0 0 90 0 0 0 0 0 0
179 2 181 2 -179 2 0 0 0 0 0 0 0 0 0 0 0 0.5
";

#[test]
fn channels_in_any_order_and_count_match_forward_kinematics() {
    let clip = read_clip(VARIED);
    let (model, report) = convert(VARIED.as_bytes(), "varied.bvh", &every_key()).unwrap();
    assert_eq!(
        (report.joints, report.end_sites, report.channels),
        (6, 1, 18)
    );
    let times: Vec<f32> = (0..4).map(|k| frame_time_f32(&clip, k)).collect();
    check_poses("varied", &clip, &model, &times, &|k| {
        clip.world(&|j| clip.local(j, k))
    });
    // Position channels add to the root's OFFSET: (1 + 1, 90 + 3, -2 + 2) at frame 0.
    let asset = Asset::from_model(&model).unwrap();
    let pose = asset.model_pose(Some(0), 0.0, Playback::Once).unwrap();
    let hips = pose.row_major(0).unwrap();
    let want = gom_space([2.0, 93.0, 0.0]);
    for a in 0..3 {
        assert!((f64::from(hips[12 + a]) - want[a]).abs() < 1e-6);
    }
}

#[test]
fn crlf_mixed_endings_and_any_whitespace_read_as_lf() {
    let (lf, _) = convert(VARIED.as_bytes(), "varied.bvh", &BvhOptions::default()).unwrap();
    let crlf = VARIED.replace('\n', "\r\n");
    let mut mixed = String::new();
    for (i, line) in VARIED.lines().enumerate() {
        mixed.push_str(&line.replace(' ', if i % 2 == 0 { "\t " } else { "   " }));
        mixed.push_str(["\n", "\r\n", "\r"][i % 3]);
    }
    for text in [crlf, mixed] {
        let (mut model, _) =
            convert(text.as_bytes(), "varied.bvh", &BvhOptions::default()).unwrap();
        // Other bytes, so another source hash; everything else the same.
        assert_ne!(model.header.source_hash, lf.header.source_hash);
        model.header.source_hash = lf.header.source_hash;
        assert_eq!(model, lf);
    }
}

#[test]
fn the_same_file_gives_the_same_gomb_bytes() {
    let a = convert(VARIED.as_bytes(), "v.bvh", &BvhOptions::default())
        .unwrap()
        .0;
    let b = convert(VARIED.as_bytes(), "v.bvh", &BvhOptions::default())
        .unwrap()
        .0;
    assert_eq!(gom::gomb::write(&a).unwrap(), gom::gomb::write(&b).unwrap());
    assert!(gom::validate::validate(&a).is_empty());
}

// ---- errors ---------------------------------------------------------------------------

fn error_of(text: &[u8]) -> (BvhErrorKind, u32, u32, String) {
    let e = convert(text, "bad.bvh", &BvhOptions::default()).unwrap_err();
    let message = e.to_string();
    assert!(message.starts_with("bad.bvh: line "), "{message}");
    let (line, column) = e.line_column().unwrap();
    (e.kind().unwrap().clone(), line, column, message)
}

/// (line, column) of the first occurrence of `needle` in `text`, 1-based.
fn position_of(text: &str, needle: &str) -> (u32, u32) {
    let at = text.find(needle).unwrap();
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let column = at - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    (line as u32, column as u32)
}

fn real_clip() -> Option<String> {
    let path = shared_clips().into_iter().last()?;
    Some(std::fs::read_to_string(path).unwrap())
}

#[test]
fn a_truncated_motion_block_is_an_error_at_the_end_of_the_file() {
    let Some(text) = real_clip() else { return };
    // Cut in the middle of the last frames' values, and after a whole frame line.
    let cut_mid = &text[..text[..text.len() - 1000].rfind(' ').unwrap()];
    let (kind, line, column, _) = error_of(cut_mid.as_bytes());
    let last_line = cut_mid.lines().count() as u32;
    assert!(matches!(kind, BvhErrorKind::Truncated { values, expected: 303, .. } if values < 303));
    assert_eq!(line, last_line);
    assert_eq!(column as usize, cut_mid.lines().last().unwrap().len() + 1);
    let cut_line = &text[..text[..text.len() - 1].rfind('\n').unwrap() + 1];
    let (kind, _, _, _) = error_of(cut_line.as_bytes());
    let BvhErrorKind::Truncated {
        frame,
        frames,
        values,
        ..
    } = kind
    else {
        panic!("{kind:?}")
    };
    assert_eq!((frame + 1, frames, values), (frames, 132, 0));
}

#[test]
fn a_frame_with_the_wrong_number_of_values_names_its_line() {
    let Some(text) = real_clip() else { return };
    let motion_line = text.lines().position(|l| l == "MOTION").unwrap();
    let target = motion_line + 3 + 10; // frame 10
    for (change, found) in [(-1i32, 302usize), (1, 304)] {
        let lines: Vec<String> = text
            .lines()
            .enumerate()
            .map(|(i, l)| {
                if i != target {
                    return l.to_string();
                }
                let mut v: Vec<&str> = l.split_whitespace().collect();
                if change < 0 {
                    v.pop();
                } else {
                    v.push("0.5");
                }
                v.join(" ")
            })
            .collect();
        let (kind, line, column, _) = error_of(lines.join("\n").as_bytes());
        assert_eq!(
            kind,
            BvhErrorKind::FrameLength {
                frame: 10,
                found,
                expected: 303
            }
        );
        assert_eq!((line, column), (target as u32 + 1, 1));
    }
}

#[test]
fn a_non_numeric_value_names_its_line_and_column() {
    let Some(text) = real_clip() else { return };
    let motion_line = text.lines().position(|l| l == "MOTION").unwrap();
    let target = motion_line + 3 + 5; // frame 5
    let line_start: usize = text.lines().take(target).map(|l| l.len() + 1).sum();
    let line = text.lines().nth(target).unwrap();
    // The third value of the line.
    let mut starts = (0..line.len())
        .filter(|&i| line.as_bytes()[i] != b' ' && (i == 0 || line.as_bytes()[i - 1] == b' '));
    let third = starts.nth(2).unwrap();
    let mut bad = text.clone();
    bad.insert(line_start + third, 'x');
    let (kind, l, c, message) = error_of(bad.as_bytes());
    assert!(matches!(kind, BvhErrorKind::NotANumber { .. }), "{kind:?}");
    assert_eq!((l, c), (target as u32 + 1, third as u32 + 1), "{message}");
    for word in ["nan", "inf", "1e999", "1,5", "--1"] {
        let bad = text.replacen("0.000000", word, 1);
        let (kind, ..) = error_of(bad.as_bytes());
        assert!(
            matches!(kind, BvhErrorKind::NotANumber { .. }),
            "{word}: {kind:?}"
        );
    }
}

#[test]
fn an_unknown_channel_name_names_its_line_and_column() {
    let Some(text) = real_clip() else { return };
    let (at, _) = text.match_indices("Xrotation").nth(1).unwrap();
    let mut bad = text.clone();
    bad.replace_range(at..at + 1, "W");
    let (line, column) = position_of(&bad, "Wrotation");
    let (kind, l, c, _) = error_of(bad.as_bytes());
    assert_eq!(
        kind,
        BvhErrorKind::UnknownChannel {
            found: "Wrotation".into()
        }
    );
    assert_eq!((l, c), (line, column));
}

#[test]
fn a_hierarchy_deeper_or_larger_than_gom_allows_is_an_error() {
    let limit = gom::limits::MAX_BONES as usize;
    let mut deep = String::from("HIERARCHY\nROOT j0\n{\nOFFSET 0 0 0\n");
    for i in 1..=limit {
        deep.push_str(&format!("JOINT j{i}\n{{\nOFFSET 0 1 0\n"));
    }
    let (kind, line, column, _) = error_of(deep.as_bytes());
    assert_eq!(
        kind,
        BvhErrorKind::TooDeep {
            limit: limit as u32
        }
    );
    assert_eq!((line, column), (2 + 3 * limit as u32, 1));
    let mut wide = String::from("HIERARCHY\nROOT j0\n{\nOFFSET 0 0 0\n");
    for i in 1..=limit {
        wide.push_str(&format!("JOINT j{i}\n{{\nOFFSET 0 1 0\n}}\n"));
    }
    let (kind, line, ..) = error_of(wide.as_bytes());
    assert_eq!(
        kind,
        BvhErrorKind::TooManyBones {
            limit: limit as u32
        }
    );
    assert_eq!(line, 5 + 4 * (limit as u32 - 1));
    // End Sites count only when they become bones.
    let mut ends = String::from("HIERARCHY\nROOT j0\n{\nOFFSET 0 0 0\n");
    for i in 1..limit {
        ends.push_str(&format!(
            "JOINT j{i}\n{{\nOFFSET 0 1 0\nEnd Site\n{{\nOFFSET 0 1 0\n}}\n}}\n"
        ));
    }
    ends.push_str("}\nMOTION\nFrames: 0\nFrame Time: 0.1\n");
    let (kind, ..) = error_of(ends.as_bytes());
    assert_eq!(
        kind,
        BvhErrorKind::TooManyBones {
            limit: limit as u32
        }
    );
    let options = BvhOptions {
        end_sites: false,
        ..Default::default()
    };
    let (model, _) = convert(ends.as_bytes(), "ends.bvh", &options).unwrap();
    assert_eq!(model.skeleton.bones.len(), limit);
}

#[test]
fn every_cut_and_many_corruptions_of_a_file_are_errors_or_models_never_panics() {
    let text = VARIED.as_bytes();
    for n in 0..text.len() {
        if let Ok((model, _)) = convert(&text[..n], "cut.bvh", &BvhOptions::default()) {
            assert!(gom::validate::validate(&model).is_empty());
        }
    }
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..3000 {
        let mut bytes = text.to_vec();
        for _ in 0..3 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let at = (state % bytes.len() as u64) as usize;
            bytes[at] = b"0123456789.-eE \n{}XZ\0\x01"[(state >> 32) as usize % 22];
        }
        if let Ok((model, _)) = convert(&bytes, "corrupt.bvh", &BvhOptions::default()) {
            assert!(gom::validate::validate(&model).is_empty());
            gom::gomb::write(&model).unwrap();
        }
    }
}

#[test]
fn a_joint_name_with_a_control_character_names_its_line_and_column() {
    for byte in [0u8, 0x01, 0x1f, 0x7f] {
        let mut text =
            b"HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 0\n  CHANNELS 0\n  JOINT Left".to_vec();
        text.push(byte);
        text.extend_from_slice(b"Leg\n  {\n    OFFSET 0 1 0\n  }\n}\n");
        let (kind, line, column, message) = error_of(&text);
        assert_eq!(
            kind,
            BvhErrorKind::ControlInName {
                found: format!("Left{}Leg", char::from(byte)),
                byte
            },
            "{message}"
        );
        assert_eq!((line, column), (6, 9), "{message}");
    }
}

#[test]
fn other_grammar_errors_are_typed_with_positions() {
    let cases: [(&str, &str); 7] = [
        ("HIERARCHI\n", "expected HIERARCHY"),
        ("HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 7 Xrotation\n", "channel count"),
        ("HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 2 Xrotation xROTATION\n", "twice"),
        ("HIERARCHY\nROOT A\n{\nCHANNELS 0\n}\n", "without an OFFSET"),
        ("HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\n}\nMOTION\nFrames: 1\nFrame Time: 0\n", "frame time"),
        ("HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 1 Xrotation\n}\nMOTION\nFrames: 1\nFrame Time: 0.1\n1\n2\n", "after the 1 frames"),
        ("HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 1 Xrotation\n}\nMOTION\nFrames: 2\nFrame Time: 1e-300\n1\n2\n", "frame time"),
    ];
    for (text, want) in cases {
        let (_, _, _, message) = error_of(text.as_bytes());
        assert!(message.contains(want), "{message}");
    }
}

// ---- onto a character ---------------------------------------------------------------

/// The bones of `model` that receive a track and have no ancestor that does.
fn top_bones(model: &gom::Model, clip: &gom::Clip) -> Vec<bool> {
    let bones = &model.skeleton.bones;
    let tracked: Vec<bool> = (0..bones.len())
        .map(|b| clip.tracks.iter().any(|t| t.bone as usize == b))
        .collect();
    (0..bones.len())
        .map(|b| {
            let mut p = bones[b].parent_index();
            while let Some(a) = p {
                if tracked[a] {
                    return false;
                }
                p = bones[a].parent_index();
            }
            tracked[b]
        })
        .collect()
}

#[test]
fn a_cmu_clip_retargeted_onto_a_skinned_character_keeps_its_bone_lengths() {
    let (Some(gltf), Some(_)) = (
        gom_test_support::shared_data("gltf/RiggedFigure.gltf"),
        gom_test_support::shared_data("bvh"),
    ) else {
        return;
    };
    let clip_path = shared_clips().into_iter().last().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let map = dir.path().join("figure.txt");
    let mut pairs = vec![
        "CC_Base_Hip = torso_joint_1".to_string(),
        "CC_Base_Spine01 = torso_joint_2".into(),
        "CC_Base_Spine02 = torso_joint_3".into(),
        "CC_Base_NeckTwist01 = neck_joint_1".into(),
        "CC_Base_Head = neck_joint_2".into(),
    ];
    for s in ["L", "R"] {
        for (cc, fig) in [
            ("Upperarm", "arm_joint_{}_1"),
            ("Forearm", "arm_joint_{}_2"),
            ("Hand", "arm_joint_{}_3"),
            ("Thigh", "leg_joint_{}_1"),
            ("Calf", "leg_joint_{}_2"),
            ("Foot", "leg_joint_{}_3"),
            ("ToeBase", "leg_joint_{}_5"),
        ] {
            pairs.push(format!("CC_Base_{s}_{cc} = {}", fig.replace("{}", s)));
        }
    }
    std::fs::write(&map, pairs.join("\n")).unwrap();
    let options = gom_import::source::ImportOptions {
        anim: vec![clip_path.clone()],
        bone_map: Some(map),
        ..Default::default()
    };
    let imported = gom_import::source::import_path(&gltf, &options).unwrap();
    let model = &imported.model;
    assert!(!model.meshes.is_empty() && model.meshes[0].is_skinned());
    let (ci, clip) = model
        .clips
        .iter()
        .enumerate()
        .find(|(_, c)| c.name == "007_12")
        .expect("the BVH clip, named after its file");
    assert_eq!(clip.tracks.len(), 19, "every mapped bone moves");
    let top = top_bones(model, clip);
    let bind = gom::math::bind_world(&model.skeleton.bones);
    let length = |m: &[[f32; 16]], b: usize, p: usize| {
        (0..3)
            .map(|a| f64::from(m[b][12 + a] - m[p][12 + a]).powi(2))
            .sum::<f64>()
            .sqrt()
    };
    let asset = Asset::from_model(model).unwrap();
    let frames = 132;
    let mut checked = 0;
    for k in 0..frames {
        let t = k as f32 / 60.0;
        let pose = asset.model_pose(Some(ci), t, Playback::Once).unwrap();
        let world: Vec<[f32; 16]> = (0..model.skeleton.bones.len())
            .map(|b| pose.row_major(b).unwrap())
            .collect();
        assert!(world.iter().flatten().all(|v| v.is_finite()), "frame {k}");
        let skinned = asset.posed_meshes(Some(ci), t, Playback::Once).unwrap();
        assert!(skinned
            .iter()
            .all(|m| m.positions.iter().flatten().all(|v| v.is_finite())));
        for (b, bone) in model.skeleton.bones.iter().enumerate() {
            let Some(p) = bone.parent_index() else {
                continue;
            };
            if top[b] {
                continue;
            }
            let (want, got) = (length(&bind, b, p), length(&world, b, p));
            assert!(
                (want - got).abs() <= 1e-5 * want.max(0.01),
                "{} at frame {k}: {got} vs {want}",
                bone.name
            );
            checked += 1;
        }
    }
    assert!(checked > frames * 15);
}

#[test]
fn the_shipped_cmu_to_mixamo_map_moves_a_mixamo_named_skeleton() {
    let Some(path) = shared_clips().into_iter().nth(2) else {
        return;
    };
    let map_path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/bone-maps/cmu-to-mixamo.toml");
    let map = gom_import::pipeline::retarget::BoneMap::read(&map_path).unwrap();
    let anim = gom_import::source::import_path(&path, &Default::default())
        .unwrap()
        .model;
    // A Mixamo-named skeleton built from the map: each mapped joint's bone under its
    // nearest mapped ancestor, one metre-ish apart.
    let mut character = gom::Model::default();
    let mut bone_of = vec![None; anim.skeleton.bones.len()];
    for (b, bone) in anim.skeleton.bones.iter().enumerate() {
        let Some(target) = map.pairs.get(&bone.name) else {
            continue;
        };
        let mut p = bone.parent_index();
        while let Some(a) = p.filter(|&a| bone_of[a].is_none()) {
            p = anim.skeleton.bones[a].parent_index();
        }
        let parent = p.and_then(|a| bone_of[a]);
        let mut bind_local = gom::IDENTITY;
        bind_local[13] = 0.1;
        bone_of[b] = Some(character.skeleton.bones.len());
        character.skeleton.bones.push(gom::Bone {
            name: target.clone(),
            path: target.clone(),
            parent: parent.map_or(-1, |p: usize| p as i32),
            bind_local,
        });
    }
    assert_eq!(
        character.skeleton.bones.len(),
        map.pairs.len(),
        "every name is a joint of the clip"
    );
    let report = gom_import::pipeline::anim::add_clips(
        &mut character,
        &anim,
        "002_04.bvh",
        "002_04",
        &map,
        false,
    )
    .unwrap();
    assert_eq!(report.matched.len(), map.pairs.len());
    assert!(gom::validate::validate(&character).is_empty());
    let asset = Asset::from_model(&character).unwrap();
    let pose = asset.model_pose(Some(0), 1.0, Playback::Once).unwrap();
    assert!((0..character.skeleton.bones.len()).all(|b| pose
        .row_major(b)
        .unwrap()
        .iter()
        .all(|v| v.is_finite())));
}
