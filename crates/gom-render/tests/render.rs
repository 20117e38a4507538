//! Rendering a hand-built cube and a two-bone model, with expectations worked out by
//! hand from the documented camera, light and winding rules.

mod common;

use std::collections::BTreeMap;

use common::*;
use gom_render::render::{BACKGROUND, BONE_COLOR, GRID_COLOR, JOINT_COLOR};
use gom_render::{
    encode_png, filmstrip, render, write_animation, AnimationFormat, AnimationOptions,
    FilmstripOptions, Filter, Image, Projection, RenderOptions, TextureSource, View,
};
use gom_test_support::rng::Rng;

const FACTOR: [f32; 4] = [0.8, 0.6, 0.2, 1.0];

/// Front face of the cube: normal −Z in view space (0, 0, −1); light direction
/// (−1, 2, −2)/3, so n·L = 2/3 and the light factor is 0.25 + 0.75 · 2/3 = 0.75.
const LIT_FRONT: f32 = 0.75;
/// A face whose normal is +Z (away from the viewer): n·L = −2/3, ambient only.
const AMBIENT_ONLY: f32 = 0.25;

fn expected(factor: [f32; 4], light: f32) -> [u8; 3] {
    [0, 1, 2].map(|k| (255.0 * factor[k] * light).round() as u8)
}

fn close(actual: Option<[u8; 4]>, want: [u8; 3]) -> bool {
    match actual {
        Some(p) => (0..3).all(|k| (i32::from(p[k]) - i32::from(want[k])).abs() <= 1) && p[3] == 255,
        None => false,
    }
}

fn options(size: u32, projection: Projection) -> RenderOptions<'static> {
    RenderOptions {
        size: (size, size),
        view: View::Front,
        projection,
        grid: false,
        ..Default::default()
    }
}

#[test]
fn cube_front_view_fills_the_centre_with_the_lit_material_colour_and_leaves_corners_empty() {
    let model = unit_cube(FACTOR);
    for projection in [Projection::Orthographic, Projection::Perspective] {
        let img = render(&model, &options(64, projection)).unwrap();
        let want = expected(FACTOR, LIT_FRONT);
        for y in 26..38 {
            for x in 26..38 {
                assert!(
                    close(img.pixel(x, y), want),
                    "{projection:?} ({x},{y}) {:?} != {want:?}",
                    img.pixel(x, y)
                );
            }
        }
        for (x, y) in [(0, 0), (63, 0), (0, 63), (63, 63), (1, 1), (62, 62)] {
            assert_eq!(
                img.pixel(x, y),
                Some(BACKGROUND),
                "{projection:?} corner ({x},{y})"
            );
        }
    }
}

#[test]
fn orthographic_front_view_covers_exactly_the_hand_computed_columns() {
    // Half extent 0.5 · 1.1 = 0.55 → x = ±0.5 maps to 32 ± 0.5/0.55 · 32 = 2.91 and
    // 61.09: pixel centres 3.5 … 60.5 are inside, 2.5 and 61.5 outside.
    let img = render(&unit_cube(FACTOR), &options(64, Projection::Orthographic)).unwrap();
    let want = expected(FACTOR, LIT_FRONT);
    for x in 0..64 {
        let inside = (3..=60).contains(&x);
        assert_eq!(close(img.pixel(x, 32), want), inside, "column {x}");
        assert_eq!(close(img.pixel(32, x), want), inside, "row {x}");
    }
}

#[test]
fn reversed_winding_culls_the_face_towards_the_camera() {
    // Only the front face (the first two triangles), wound counter-clockwise: culled.
    let cube = unit_cube(FACTOR);
    let mut quad = cube.clone();
    quad.meshes[0].indices.truncate(6);
    quad.meshes[0].submeshes[0].index_count = 6;
    let lit = render(&quad, &options(64, Projection::Perspective)).unwrap();
    assert!(close(lit.pixel(32, 32), expected(FACTOR, LIT_FRONT)));
    reverse_winding(&mut quad.meshes[0].indices);
    let img = render(&quad, &options(64, Projection::Perspective)).unwrap();
    assert_eq!(img.pixel(32, 32), Some(BACKGROUND));
    assert!(img.data().chunks_exact(4).all(|p| p == BACKGROUND));

    // The whole cube reversed: the near face is culled and the inside of the far face
    // (stored normal +Z, lit by the ambient term only) shows instead.
    let mut inside_out = cube;
    reverse_winding(&mut inside_out.meshes[0].indices);
    let img = render(&inside_out, &options(64, Projection::Perspective)).unwrap();
    assert!(
        close(img.pixel(32, 32), expected(FACTOR, AMBIENT_ONLY)),
        "{:?}",
        img.pixel(32, 32)
    );
}

/// A unit cube as a right-handed source would have it: front faces counter-clockwise
/// seen from outside. Outside a face, looking along f = −n with up u, a right-handed
/// viewer's right is r = f × u (−Z × +Y = +X).
fn right_handed_cube() -> (Vec<[f32; 3]>, Vec<[f32; 3]>, Vec<u32>) {
    let faces: [([f32; 3], [f32; 3]); 6] = [
        ([0.0, 0.0, 1.0], [0.0, 1.0, 0.0]),
        ([0.0, 0.0, -1.0], [0.0, 1.0, 0.0]),
        ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        ([-1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        ([0.0, 1.0, 0.0], [0.0, 0.0, -1.0]),
        ([0.0, -1.0, 0.0], [0.0, 0.0, -1.0]),
    ];
    let (mut p, mut n, mut idx) = (Vec::new(), Vec::new(), Vec::new());
    for (nn, u) in faces {
        let f = [-nn[0], -nn[1], -nn[2]];
        let r = cross(f, u);
        let corner = |sr: f32, su: f32| [0, 1, 2].map(|k| 0.5 * (nn[k] + sr * r[k] + su * u[k]));
        let b = p.len() as u32;
        // 0 top-left, 1 bottom-left, 2 bottom-right, 3 top-right: counter-clockwise.
        p.extend([
            corner(-1.0, 1.0),
            corner(-1.0, -1.0),
            corner(1.0, -1.0),
            corner(1.0, 1.0),
        ]);
        n.extend([nn; 4]);
        idx.extend([b, b + 1, b + 2, b, b + 2, b + 3]);
    }
    (p, n, idx)
}

#[test]
fn a_right_handed_model_mirrored_with_the_index_swap_shows_its_outside() {
    let (p, n, idx) = right_handed_cube();
    let mirror = |v: Vec<[f32; 3]>| {
        v.into_iter()
            .map(|[x, y, z]| [x, y, -z])
            .collect::<Vec<_>>()
    };
    // The proper conversion (D2): mirror Z and swap the 2nd and 3rd index.
    let mut swapped = idx.clone();
    reverse_winding(&mut swapped);
    let proper = model_of(mirror(p.clone()), Some(mirror(n.clone())), swapped, FACTOR);
    let img = render(&proper, &options(64, Projection::Perspective)).unwrap();
    assert!(
        close(img.pixel(32, 32), expected(FACTOR, LIT_FRONT)),
        "{:?}",
        img.pixel(32, 32)
    );
    // Mirroring alone turns the model inside out: the far face's inside shows.
    let naive = model_of(mirror(p), Some(mirror(n)), idx, FACTOR);
    let img = render(&naive, &options(64, Projection::Perspective)).unwrap();
    assert!(
        close(img.pixel(32, 32), expected(FACTOR, AMBIENT_ONLY)),
        "{:?}",
        img.pixel(32, 32)
    );
}

#[test]
fn faces_without_normals_are_lit_by_their_clockwise_face_normal() {
    let mut model = unit_cube(FACTOR);
    model.meshes[0].vertices.normals = None;
    let img = render(&model, &options(64, Projection::Orthographic)).unwrap();
    assert!(close(img.pixel(32, 32), expected(FACTOR, LIT_FRONT)));
}

/// The front face alone, with UVs (0,0) at its top-left corner and (1,1) at its
/// bottom-right, and a 2x2 texture red | green over blue | white.
fn textured_quad() -> (gom::Model, BTreeMap<usize, Image>) {
    let mut model = unit_cube([1.0; 4]);
    let m = &mut model.meshes[0];
    m.indices.truncate(6);
    m.submeshes[0].index_count = 6;
    m.vertices.positions.truncate(4);
    m.vertices.normals.as_mut().unwrap().truncate(4);
    m.vertices.uv0 = Some(vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]);
    #[rustfmt::skip]
    let texels = vec![
        255, 0, 0, 255,   0, 255, 0, 255,
        0, 0, 255, 255,   255, 255, 255, 255,
    ];
    let mut textures = BTreeMap::new();
    textures.insert(0, Image::from_rgba8(2, 2, texels).unwrap());
    (model, textures)
}

#[test]
fn texture_origin_is_the_top_left_of_the_image() {
    let (model, textures) = textured_quad();
    let mut o = options(64, Projection::Orthographic);
    o.textures = TextureSource::ByMaterial {
        images: &textures,
        filter: Filter::Nearest,
    };
    let img = render(&model, &o).unwrap();
    let lit = |c: [f32; 3]| expected([c[0], c[1], c[2], 1.0], LIT_FRONT);
    assert!(
        close(img.pixel(16, 16), lit([1.0, 0.0, 0.0])),
        "top-left {:?}",
        img.pixel(16, 16)
    );
    assert!(close(img.pixel(48, 16), lit([0.0, 1.0, 0.0])), "top-right");
    assert!(
        close(img.pixel(16, 48), lit([0.0, 0.0, 1.0])),
        "bottom-left"
    );
    assert!(
        close(img.pixel(48, 48), lit([1.0, 1.0, 1.0])),
        "bottom-right"
    );
}

#[test]
fn texture_coordinates_are_interpolated_perspective_correctly() {
    // A quad receding to the right: left edge at z = −1 (near), right edge at z = +1.
    // u runs 0 → 1 from left to right; the texture is black for u < 0.5, white after.
    // World x = 0 (u = 0.5) projects to the image's centre column (the camera looks at
    // the bounds' centre). Interpolating u linearly on screen would instead put u = 0.5
    // halfway between the projected edges, about 7 pixels left of centre here.
    let positions = vec![
        [-1.0, 1.0, -1.0],
        [1.0, 1.0, 1.0],
        [1.0, -1.0, 1.0],
        [-1.0, -1.0, -1.0],
    ];
    let mut model = model_of(positions, None, vec![0, 1, 2, 0, 2, 3], [1.0; 4]);
    model.meshes[0].vertices.uv0 = Some(vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]);
    let mut textures = BTreeMap::new();
    textures.insert(
        0,
        Image::from_rgba8(2, 1, vec![0, 0, 0, 255, 255, 255, 255, 255]).unwrap(),
    );
    let mut o = options(64, Projection::Perspective);
    o.textures = TextureSource::ByMaterial {
        images: &textures,
        filter: Filter::Nearest,
    };
    let img = render(&model, &o).unwrap();
    for y in [28, 32, 36] {
        assert!(
            img.pixel(29, y).unwrap()[0] < 10,
            "row {y}: left of centre must be black"
        );
        assert!(
            img.pixel(34, y).unwrap()[0] > 50,
            "row {y}: right of centre must be lit white"
        );
    }
}

#[test]
fn the_same_input_gives_the_same_png_bytes_twice() {
    let (mut model, textures) = textured_quad();
    model.skeleton = swinging_arm().skeleton;
    let o = RenderOptions {
        size: (96, 80),
        view: View::ThreeQuarter,
        skeleton_overlay: true,
        textures: TextureSource::ByMaterial {
            images: &textures,
            filter: Filter::Bilinear,
        },
        ..Default::default()
    };
    let a = encode_png(&render(&model, &o).unwrap()).unwrap();
    let b = encode_png(&render(&model, &o).unwrap()).unwrap();
    assert_eq!(a, b);
}

#[test]
fn the_ground_grid_lies_under_the_model() {
    let model = unit_cube(FACTOR);
    let mut o = options(96, Projection::Perspective);
    o.view = View::ThreeQuarter;
    let without = render(&model, &o).unwrap();
    assert!(!without.data().chunks_exact(4).any(|p| p == GRID_COLOR));
    o.grid = true;
    let with = render(&model, &o).unwrap();
    let rows: Vec<i64> = (0..96)
        .filter(|y| (0..96).any(|x| with.pixel(x, *y) == Some(GRID_COLOR)))
        .collect();
    assert!(!rows.is_empty());
    // Seen from above, the plane y = −0.5 shows in the lower part of the image.
    assert!(rows.iter().filter(|y| **y >= 48).count() > rows.iter().filter(|y| **y < 48).count());
}

#[test]
fn skeleton_overlay_draws_joint_dots_at_the_projected_joints() {
    // Joints at (0, 0, 0) and (0.25, 0.25, 0), inside the unit cube, so the framing is
    // the cube's: orthographic, half extent 0.55 over 55 pixels, x → 55 + 100·x,
    // y → 55 − 100·y: (55, 55) and (80, 30).
    let mut model = unit_cube(FACTOR);
    let b = |name: &str, parent: i32, t: [f32; 3]| gom::Bone {
        name: name.into(),
        path: name.into(),
        parent,
        bind_local: translation(t),
    };
    model.skeleton.bones = vec![b("a", -1, [0.0; 3]), b("b", 0, [0.25, 0.25, 0.0])];
    let mut o = options(110, Projection::Orthographic);
    let plain = render(&model, &o).unwrap();
    o.skeleton_overlay = true;
    let img = render(&model, &o).unwrap();
    for (x, y) in [(55, 55), (80, 30), (54, 54), (79, 29)] {
        assert_eq!(img.pixel(x, y), Some(JOINT_COLOR), "dot at ({x},{y})");
        assert_ne!(plain.pixel(x, y), Some(JOINT_COLOR));
    }
    // The bone between them passes (67.5, 42.5).
    let near_mid = (66..=69).any(|x| (41..=44).any(|y| img.pixel(x, y) == Some(BONE_COLOR)));
    assert!(near_mid);
    // Far from the joints, nothing changed.
    assert_eq!(img.pixel(20, 90), plain.pixel(20, 90));
}

/// The pixels inside the swinging arm model's static box's front face (x ∈ [−1.5,
/// −0.5], y ∈ [0, 1]) through `camera`: `(x0, y0, x1, y1)`, ends excluded.
fn static_box_front(camera: &gom_render::Camera) -> (i64, i64, i64, i64) {
    let a = camera.project([-1.5, 1.0, -0.5]).unwrap();
    let b = camera.project([-0.5, 0.0, -0.5]).unwrap();
    let (x0, y0, x1, y1) = (
        a.x.ceil() as i64,
        a.y.ceil() as i64,
        b.x.floor() as i64,
        b.y.floor() as i64,
    );
    assert!(x1 - x0 > 5 && y1 - y0 > 5, "static box too small on screen");
    (x0, y0, x1, y1)
}

#[test]
fn a_filmstrip_shows_the_swing_and_keeps_still_parts_still() {
    let model = swinging_arm();
    let o = FilmstripOptions {
        frames: 3,
        frame_size: (96, 96),
        view: View::Front,
        projection: Projection::Orthographic,
        grid: false,
        ..FilmstripOptions::new("swing")
    };
    let strip = filmstrip(&model, &o).unwrap();
    assert_eq!(strip.frames.len(), 3);
    assert_eq!(
        strip.frames.iter().map(|f| f.time).collect::<Vec<_>>(),
        vec![0.0, 0.5, 1.0]
    );
    let (first, last) = (strip.frames[0], strip.frames[2]);
    let at = |f: gom_render::FilmFrame, p: [f32; 3]| {
        let q = strip.camera.project(p).unwrap();
        let (x, y) = (q.x.floor() as i64, q.y.floor() as i64);
        strip
            .image
            .pixel(i64::from(f.x) + x, i64::from(f.y) + y)
            .unwrap()
    };
    // The upright arm at t = 0 (x ∈ [0.5, 1.5], y ∈ [0, 2]) is gone at t = 1, and the
    // arm lying along +X at t = 1 (x ∈ [1, 3], y ∈ [−0.5, 0.5]) was not there at t = 0.
    assert_ne!(at(first, [1.0, 1.6, -0.25]), BACKGROUND);
    assert_eq!(at(last, [1.0, 1.6, -0.25]), BACKGROUND);
    assert_eq!(at(first, [2.5, 0.0, -0.25]), BACKGROUND);
    assert_ne!(at(last, [2.5, 0.0, -0.25]), BACKGROUND);
    // Every pixel of the static box's front face is the same in both frames.
    let (x0, y0, x1, y1) = static_box_front(&strip.camera);
    for y in y0..y1 {
        for x in x0..x1 {
            let p0 = strip
                .image
                .pixel(i64::from(first.x) + x, i64::from(first.y) + y);
            let p2 = strip
                .image
                .pixel(i64::from(last.x) + x, i64::from(last.y) + y);
            assert_eq!(p0, p2, "static pixel ({x},{y}) changed");
            assert_ne!(p0, Some(BACKGROUND));
        }
    }
}

#[test]
fn filmstrip_bytes_do_not_depend_on_the_thread_count() {
    let model = swinging_arm();
    let o = FilmstripOptions {
        frames: 5,
        frame_size: (64, 64),
        skeleton_overlay: true,
        ..FilmstripOptions::new("swing")
    };
    let run = |threads| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| encode_png(&filmstrip(&model, &o).unwrap().image).unwrap())
    };
    assert_eq!(run(1), run(3));
}

#[test]
fn an_unknown_clip_is_an_error_naming_the_clips_there_are() {
    let model = swinging_arm();
    let o = RenderOptions {
        clip: Some(("walk", 0.0)),
        ..Default::default()
    };
    let e = render(&model, &o).unwrap_err().to_string();
    assert!(e.contains("walk") && e.contains("swing"), "{e}");
}

#[test]
fn degenerate_models_render_without_panicking() {
    let mut model = unit_cube(FACTOR);
    // Out-of-range indices, a NaN vertex, a submesh past the end, a bad material.
    model.meshes[0].indices.extend([0, 1, 999]);
    model.meshes[0].vertices.positions[5] = [f32::NAN, 0.0, 0.0];
    model.meshes[0].submeshes.push(gom::Submesh {
        material_index: 42,
        index_start: 30,
        index_count: 300,
    });
    for view in [View::Front, View::Side, View::Top, View::ThreeQuarter] {
        let o = RenderOptions {
            size: (32, 32),
            view,
            skeleton_overlay: true,
            ..Default::default()
        };
        render(&model, &o).unwrap();
    }
    render(&gom::Model::default(), &RenderOptions::default()).unwrap();
    assert!(render(
        &model,
        &RenderOptions {
            size: (0, 5),
            ..Default::default()
        }
    )
    .is_err());
}

/// Numbers for the stress test below: one in 16 each NaN, infinity, ±1e30 or 0, the
/// rest hundredths between -10 and 10.
fn garbage_float(rng: &mut Rng) -> f32 {
    match rng.below(16) {
        0 => f32::NAN,
        1 => f32::INFINITY,
        2 => -1e30,
        3 => 1e30,
        4 => 0.0,
        _ => rng.below(2001) as f32 / 100.0 - 10.0,
    }
}

#[test]
fn garbage_geometry_never_panics() {
    let mut rng = Rng::new(7);
    for round in 0..40 {
        let n = 3 + rng.below(30) as usize;
        let positions: Vec<[f32; 3]> = (0..n)
            .map(|_| {
                [
                    garbage_float(&mut rng),
                    garbage_float(&mut rng),
                    garbage_float(&mut rng),
                ]
            })
            .collect();
        let normals: Vec<[f32; 3]> = (0..n)
            .map(|_| {
                [
                    garbage_float(&mut rng),
                    garbage_float(&mut rng),
                    garbage_float(&mut rng),
                ]
            })
            .collect();
        let indices: Vec<u32> = (0..3 * n).map(|_| rng.below(n as u64 + 3) as u32).collect();
        let mut model = model_of(
            positions,
            Some(normals),
            indices,
            [garbage_float(&mut rng), 0.5, 0.5, 1.0],
        );
        model.meshes[0].vertices.uv0 = Some(
            (0..n)
                .map(|_| [garbage_float(&mut rng), garbage_float(&mut rng)])
                .collect(),
        );
        model.meshes[0].mesh_bind_geo_to_model = (round % 3 == 0).then(|| {
            let mut g = gom::IDENTITY;
            for v in g.iter_mut().take(12) {
                *v = garbage_float(&mut rng);
            }
            g
        });
        model.skeleton = swinging_arm().skeleton;
        model.skeleton.bones[1].bind_local[12] = garbage_float(&mut rng);
        let mut textures = BTreeMap::new();
        textures.insert(0, Image::new(3, 2, [200, 100, 50, 255]).unwrap());
        for view in [View::Front, View::ThreeQuarter] {
            for projection in [Projection::Perspective, Projection::Orthographic] {
                let o = RenderOptions {
                    size: (24, 20),
                    view,
                    projection,
                    skeleton_overlay: true,
                    textures: TextureSource::ByMaterial {
                        images: &textures,
                        filter: Filter::Bilinear,
                    },
                    ..Default::default()
                };
                render(&model, &o).unwrap();
            }
        }
    }
}

/// Every frame of an APNG, as RGBA8.
fn apng_frames(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut reader = png::Decoder::new(std::io::Cursor::new(bytes))
        .read_info()
        .unwrap();
    let n = reader.info().animation_control.unwrap().num_frames;
    (0..n)
        .map(|_| {
            let mut buf = vec![0; reader.output_buffer_size()];
            let info = reader.next_frame(&mut buf).unwrap();
            buf.truncate(info.buffer_size());
            buf
        })
        .collect()
}

#[test]
fn an_animation_keeps_one_camera_so_the_static_box_stays_put_across_frames() {
    let model = swinging_arm();
    let (w, h) = (96u32, 96u32);
    let options = AnimationOptions {
        clips: vec!["swing"],
        fps: Some(4.0),
        captions: false,
        render: RenderOptions {
            size: (w, h),
            view: View::Front,
            projection: Projection::Orthographic,
            grid: false,
            ..RenderOptions::default()
        },
    };
    let mut bytes = Vec::new();
    write_animation(&model, &options, AnimationFormat::Apng, &mut bytes).unwrap();
    // The 1 s clip at 4 frames per second: 0, 0.25, 0.5 and 0.75 s.
    let frames = apng_frames(&bytes);
    assert_eq!(frames.len(), 4);
    // A filmstrip of the same clip at 0, 0.25, …, 1 s frames its camera on the same
    // poses (the animation's and the clip's end): its cells are the animation's frames.
    let strip = filmstrip(
        &model,
        &FilmstripOptions {
            frames: 5,
            frame_size: (w, h),
            view: View::Front,
            projection: Projection::Orthographic,
            grid: false,
            labels: false,
            ..FilmstripOptions::new("swing")
        },
    )
    .unwrap();
    let pixel = |f: &[u8], x: i64, y: i64| {
        let i = ((y * i64::from(w) + x) * 4) as usize;
        [f[i], f[i + 1], f[i + 2], f[i + 3]]
    };
    for (i, frame) in frames.iter().enumerate() {
        let cell = strip.frames[i];
        for y in 0..i64::from(h) {
            for x in 0..i64::from(w) {
                let want = strip
                    .image
                    .pixel(i64::from(cell.x) + x, i64::from(cell.y) + y)
                    .unwrap();
                assert_eq!(pixel(frame, x, y), want, "frame {i} at ({x},{y})");
            }
        }
    }
    // Every pixel of the static box's front face is the same in every frame, while the
    // arm moves.
    let (x0, y0, x1, y1) = static_box_front(&strip.camera);
    for frame in &frames[1..] {
        for y in y0..y1 {
            for x in x0..x1 {
                assert_eq!(pixel(frame, x, y), pixel(&frames[0], x, y), "({x},{y})");
                assert_ne!(pixel(frame, x, y), BACKGROUND);
            }
        }
    }
    assert_ne!(frames[0], frames[2], "the arm swings");
}

#[test]
fn blend_shapes_are_drawn_at_the_clips_weights_and_at_their_defaults() {
    let model = gom_demo::with_morphs(gom_demo::build());
    // Half way through curl: bulge at its default 0.25, flatten keyed to 1. The same
    // picture as a model with those weights baked into its vertices.
    let half = model.clips[1].duration / 2.0;
    let mut baked = model.clone();
    baked.meshes[0].morph_targets[1].default_weight = 1.0;
    gom::morph::bake_defaults(&mut baked);
    let at = |m: &gom::Model| {
        let o = RenderOptions {
            clip: Some(("curl", half)),
            ..options(96, Projection::Perspective)
        };
        render(m, &o).unwrap()
    };
    assert_eq!(at(&model), at(&baked));
    assert_ne!(at(&model), at(&gom_demo::build()));
    // Without a clip: the default weights.
    let mut still = model.clone();
    gom::morph::bake_defaults(&mut still);
    let bind = |m: &gom::Model| render(m, &options(96, Projection::Perspective)).unwrap();
    assert_eq!(bind(&model), bind(&still));
}
