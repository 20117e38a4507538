//! One 512×512 render of a textured 51,200-triangle torus from the three-quarter view.

use std::collections::BTreeMap;

use criterion::{criterion_group, criterion_main, Criterion};
use gom::Model;
use gom_render::{render, Filter, Image, RenderOptions, TextureSource, View};

#[path = "../tests/common/mod.rs"]
mod common;

/// A torus of `rings` × `sides` quads (2 triangles each) with normals and UVs, wound
/// clockwise seen from outside (D2): with ∂a along the ring and ∂b around the tube,
/// ∂b × ∂a points out, so each triangle goes a, c, b (then a, d, c). Angles come from
/// `libm` so the model is the same everywhere.
fn torus(rings: u32, sides: u32) -> Model {
    let (big, small) = (1.0f32, 0.35f32);
    let mut positions = Vec::new();
    let mut normals = Vec::new();
    let mut uvs = Vec::new();
    for i in 0..=rings {
        let a = i as f32 / rings as f32 * core::f32::consts::TAU;
        let (sa, ca) = (libm::sinf(a), libm::cosf(a));
        for j in 0..=sides {
            let b = j as f32 / sides as f32 * core::f32::consts::TAU;
            let (sb, cb) = (libm::sinf(b), libm::cosf(b));
            let n = [ca * cb, sb, sa * cb];
            positions.push([ca * (big + small * cb), small * sb, sa * (big + small * cb)]);
            normals.push(n);
            uvs.push([i as f32 / rings as f32 * 8.0, j as f32 / sides as f32 * 2.0]);
        }
    }
    let mut indices = Vec::new();
    let row = sides + 1;
    for i in 0..rings {
        for j in 0..sides {
            let (a, b, c, d) = (
                i * row + j,
                (i + 1) * row + j,
                (i + 1) * row + j + 1,
                i * row + j + 1,
            );
            indices.extend([a, c, b, a, d, c]);
        }
    }
    let mut model = common::model_of(positions, Some(normals), indices, [0.9, 0.8, 0.7, 1.0]);
    model.materials[0].name = "skin".into();
    model.materials[0].base_color_texture = Some("checker.png".into());
    model.meshes[0].name = "torus".into();
    model.meshes[0].vertices.uv0 = Some(uvs);
    model
}

fn checker(size: u32) -> Image {
    let mut data = Vec::with_capacity((size * size * 4) as usize);
    for y in 0..size {
        for x in 0..size {
            let v = if ((x / 16) + (y / 16)) % 2 == 0 {
                230
            } else {
                60
            };
            data.extend([v, v, v, 255]);
        }
    }
    Image::from_rgba8(size, size, data).expect("valid checker")
}

fn bench(c: &mut Criterion) {
    let model = torus(160, 160);
    assert_eq!(model.meshes[0].indices.len() / 3, 51_200);
    let mut textures = BTreeMap::new();
    textures.insert(0, checker(256));
    let options = RenderOptions {
        size: (512, 512),
        view: View::ThreeQuarter,
        textures: TextureSource::ByMaterial {
            images: &textures,
            filter: Filter::Bilinear,
        },
        ..Default::default()
    };
    let mut group = c.benchmark_group("render");
    group.sample_size(10);
    group.bench_function("torus_51200_tris_512px_textured", |b| {
        b.iter(|| render(&model, &options).expect("render"))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
