//! Pieces of small models built in code that several test files share (feature
//! `model`).

/// A chain of `bones` bones, each the child of the one before, named `b0`, `b1`, …
/// with paths `b0/b1/…`: the root at `root`, every other bone `step` from its parent,
/// no rotation or scale. With each bone's inverse model-space bind matrix, what a
/// skinned mesh over the chain carries.
///
/// # Panics
/// Never for finite `root` and `step` (a translation always inverts).
pub fn bone_chain(bones: usize, root: [f32; 3], step: [f32; 3]) -> (gom::Skeleton, Vec<gom::Mat4>) {
    let bones: Vec<gom::Bone> = (0..bones)
        .map(|b| {
            let mut bind_local = gom::IDENTITY;
            bind_local[12..15].copy_from_slice(if b == 0 { &root } else { &step });
            gom::Bone {
                name: format!("b{b}"),
                path: (0..=b)
                    .map(|i| format!("b{i}"))
                    .collect::<Vec<_>>()
                    .join("/"),
                parent: b as i32 - 1,
                bind_local,
            }
        })
        .collect();
    let inverse = gom::math::bind_world(&bones)
        .iter()
        .map(|w| gom::math::inverse_affine(w).expect("a translation inverts"))
        .collect();
    (gom::Skeleton { bones }, inverse)
}

/// Adds material `material` (base colour 0.5, 0.6, 0.7) and a mesh named after it in
/// lower case that draws all of `indices` with it.
pub fn one_material_mesh(
    m: &mut gom::Model,
    material: &str,
    vertices: gom::Vertices,
    indices: Vec<u32>,
    inverse_bind: Vec<gom::Mat4>,
) {
    m.materials.push(gom::Material {
        name: material.into(),
        base_color_texture: None,
        base_color_factor: [0.5, 0.6, 0.7, 1.0],
    });
    m.meshes.push(gom::MeshPart {
        morph_targets: Vec::new(),
        name: material.to_lowercase(),
        vertices,
        submeshes: vec![gom::Submesh {
            material_index: (m.materials.len() - 1) as i32,
            index_start: 0,
            index_count: indices.len() as u32,
        }],
        indices,
        inverse_bind,
        mesh_bind_geo_to_model: None,
        bounds: None,
        skinning: Default::default(),
    });
}

/// Gives every skinned mesh of `model` the skinning `method` (blended: shares 0, ¼,
/// ½, ¾, 1 in turn) and, when `eight`, eight influence slots per vertex: the four
/// scaled by 0.8, a fifth of 0.2 on the bone after the first (the weight rules may
/// flag the order; a pose does not depend on it).
pub fn skinned_with(model: &mut gom::Model, method: gom::SkinningMethod, eight: bool) {
    let bones = model.skeleton.bones.len() as u16;
    for m in model.meshes.iter_mut().filter(|m| m.is_skinned()) {
        let n = m.vertices.len();
        m.skinning = method;
        if method == gom::SkinningMethod::Blended {
            m.vertices.dq_weights = Some((0..n).map(|i| (i % 5) as f32 / 4.0).collect());
        }
        if eight {
            let extra = m.vertices.skin.iter_mut().flatten().map(|s| {
                s.weights = s.weights.map(|w| 0.8 * w);
                gom::SkinWeights {
                    bones: [(s.bones[0] + 1) % bones.max(1), 0, 0, 0],
                    weights: [0.2, 0.0, 0.0, 0.0],
                }
            });
            m.vertices.skin_extra = Some(extra.collect());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chain_stands_where_its_steps_put_it_and_its_inverses_undo_that() {
        let (s, inverse) = bone_chain(4, [0.0, -1.0, 0.0], [0.0, 0.5, 0.0]);
        let names: Vec<&str> = s.bones.iter().map(|b| b.path.as_str()).collect();
        assert_eq!(names, ["b0", "b0/b1", "b0/b1/b2", "b0/b1/b2/b3"]);
        assert_eq!(
            s.bones.iter().map(|b| b.parent).collect::<Vec<_>>(),
            [-1, 0, 1, 2]
        );
        // bone 3 stands at -1 + 3 × 0.5 = 0.5 on y; its inverse bind moves it back
        assert_eq!(inverse[3][13], -0.5);
        assert_eq!(inverse[0][13], 1.0);
    }
}
