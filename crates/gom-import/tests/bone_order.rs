//! The vertex order conversion gives skinned FBX meshes (`optimize::bone_order`
//! between meshoptimizer's cache and fetch orders) on the shared data's skinned
//! models: the same bytes every time, the same triangles, meshoptimizer's cache
//! efficiency kept, and blocks of 16 vertices that name no more bones than with
//! meshoptimizer's orders alone.

mod shared_data;

use gom::MeshPart;
use gom_import::optimize::mesh::{order_for_gpu, GpuOrder};
use gom_import::source::{import_path, ImportOptions};

const SKINNED: [&str; 3] = [
    "maya_game_sausage_7500_binary_wiggle.fbx",
    "blender_279_sausage_7400_binary.fbx",
    "max_transformed_skin_7500_binary.fbx",
];

/// The shared data's skinned FBX models, imported with `optimize_meshes`.
fn models(optimize_meshes: bool) -> Vec<(String, gom::Model)> {
    let Some(dir) = shared_data::fbx_dir() else {
        return Vec::new();
    };
    let options = ImportOptions {
        optimize_meshes,
        ..Default::default()
    };
    SKINNED
        .iter()
        .map(|f| {
            let m = import_path(&dir.join(f), &options).expect("imports");
            (f.to_string(), m.model)
        })
        .collect()
}

#[test]
fn converting_a_skinned_model_twice_gives_the_same_bytes() {
    let (first, second) = (models(true), models(true));
    for ((name, a), (_, b)) in first.iter().zip(&second) {
        assert!(a.meshes.iter().any(|m| m.vertices.skin.is_some()), "{name}");
        let (a, b) = (gom::gomb::write(a).unwrap(), gom::gomb::write(b).unwrap());
        assert!(a == b, "{name}: two conversions differ");
    }
}

/// Each triangle as its corners' positions (bits), rotated to start at the least.
fn triangles(p: &MeshPart) -> Vec<[[u32; 3]; 3]> {
    let mut t: Vec<_> = p
        .indices
        .chunks_exact(3)
        .map(|c| {
            let mut tri = [0, 1, 2].map(|k| p.vertices.positions[c[k] as usize].map(f32::to_bits));
            let m = (0..3).min_by_key(|&k| tri[k]).unwrap_or(0);
            tri.rotate_left(m);
            tri
        })
        .collect();
    t.sort_unstable();
    t
}

/// Mean distinct weighted bones of the whole blocks of 16 vertices.
fn bones_per_block(p: &MeshPart) -> f64 {
    let skin = p.vertices.skin.as_deref().unwrap_or(&[]);
    let blocks = skin.chunks_exact(16);
    let n = blocks.len().max(1) as f64;
    let total: usize = blocks
        .map(|b| {
            let mut bones: Vec<u16> = b
                .iter()
                .flat_map(|s| s.bones.iter().zip(&s.weights))
                .filter(|(_, &w)| w > 0.0)
                .map(|(&b, _)| b)
                .collect();
            bones.sort_unstable();
            bones.dedup();
            bones.len()
        })
        .sum();
    total as f64 / n
}

#[test]
fn the_bone_order_keeps_triangles_and_cache_efficiency_and_blocks_name_no_more_bones() {
    for (name, model) in models(false) {
        for part in model.meshes.iter().filter(|m| m.vertices.skin.is_some()) {
            let ordered = |order| {
                let mut p = part.clone();
                order_for_gpu(&mut p, order);
                p
            };
            let (plain, bones) = (
                ordered(GpuOrder::CacheThenFetch),
                ordered(GpuOrder::CacheBonesThenFetch),
            );
            assert_eq!(triangles(&bones), triangles(part), "{name}");
            let n = part.vertices.len();
            let acmr = |p: &MeshPart| meshopt::analyze_vertex_cache(&p.indices, n, 16, 0, 0).acmr;
            let (a, b) = (acmr(&plain), acmr(&bones));
            eprintln!(
                "{name} / {}: ACMR {a:.3} -> {b:.3}; bones per block {:.2} -> {:.2}",
                part.name,
                bones_per_block(&plain),
                bones_per_block(&bones)
            );
            assert!(b <= a * 1.05, "{name}: ACMR {a} -> {b}");
            assert!(bones_per_block(&bones) <= bones_per_block(&plain), "{name}");
        }
    }
}
