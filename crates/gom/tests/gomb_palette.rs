//! D1: the skinning palette is `inverseBind * boneWorld` in GOM's row-vector
//! convention; the draft's §11.4 order `boneWorld * inverseBind` gives a wrong point.
//!
//! One bone, bound at model-space translation (1, 0, 0); its current pose turns it
//! 90° about +Y and moves it to (3, 0, 0). The vertex (2, 0, 0) lies 1 unit along the
//! bone's +X axis. By hand:
//! - right: p·IB = (1, 0, 0); turned 90° about +Y, +X goes to −Z: (0, 0, −1); moved
//!   to (3, 0, 0): **(3, 0, −1)**.
//! - §11.4 order: p·W = (0, 0, −2) + (3, 0, 0) = (3, 0, −2); then ·IB subtracts
//!   (1, 0, 0): **(2, 0, −2)**.

use gom::math::{from_trs, inverse_affine, mul, transform_point};

use gom::{gomb, Bone, MeshPart, Model, Skeleton, SkinWeights, Submesh, Vertices, IDENTITY};
use gom_demo::quat_from_axis_angle;

fn close(a: [f32; 3], b: [f32; 3]) -> bool {
    a.iter().zip(b.iter()).all(|(x, y)| (x - y).abs() < 1e-6)
}

fn model() -> Model {
    let mut bind = IDENTITY;
    bind[12] = 1.0;
    let inv = inverse_affine(&bind).unwrap();
    Model {
        skeleton: Skeleton {
            bones: vec![Bone {
                name: "arm".into(),
                path: "arm".into(),
                parent: -1,
                bind_local: bind,
            }],
        },
        meshes: vec![MeshPart {
            name: "m".into(),
            vertices: Vertices {
                positions: vec![[2.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0]],
                skin: Some(vec![
                    SkinWeights {
                        bones: [0; 4],
                        weights: [1.0, 0.0, 0.0, 0.0]
                    };
                    3
                ]),
                ..Default::default()
            },
            indices: vec![0, 1, 2],
            submeshes: vec![Submesh {
                material_index: -1,
                index_start: 0,
                index_count: 3,
            }],
            inverse_bind: vec![inv],
            ..Default::default()
        }],
        ..Default::default()
    }
}

#[test]
fn palette_is_inverse_bind_times_bone_world() {
    let bytes = gomb::write(&model()).unwrap();
    let view = gomb::FileView::parse(&bytes).unwrap();
    assert_eq!(
        view.validation_flags().bits() & 1,
        1,
        "the inverse bind matches the bind pose"
    );
    let mesh = &view.meshes()[0];
    let ib = mesh.inverse_bind(0);
    // The inverse bind stored in the file moves (1, 0, 0) back to the origin: row 3.
    assert_eq!(&ib[12..16], &[-1.0, 0.0, 0.0, 1.0]);

    let q = quat_from_axis_angle([0.0, 1.0, 0.0], core::f32::consts::FRAC_PI_2);
    let world = from_trs([3.0, 0.0, 0.0], q, [1.0; 3]);
    let p = view.to_model().meshes[0].vertices.positions[0];
    assert_eq!(p, [2.0, 0.0, 0.0]);

    let right = transform_point(&mul(&ib, &world), p);
    assert!(close(right, [3.0, 0.0, -1.0]), "{right:?}");

    let wrong = transform_point(&mul(&world, &ib), p);
    assert!(close(wrong, [2.0, 0.0, -2.0]), "{wrong:?}");
    assert!(!close(wrong, right));
}

#[test]
fn bind_world_composes_local_then_parent() {
    // D1: world[i] = local[i] * world[parent]. A child 2 units along its parent's +X,
    // the parent turned 90° about +Y at (1, 0, 0): the child sits at (1, 0, -2).
    let q = quat_from_axis_angle([0.0, 1.0, 0.0], core::f32::consts::FRAC_PI_2);
    let parent = from_trs([1.0, 0.0, 0.0], q, [1.0; 3]);
    let mut child = IDENTITY;
    child[12] = 2.0;
    let bones = vec![
        Bone {
            name: "a".into(),
            path: "a".into(),
            parent: -1,
            bind_local: parent,
        },
        Bone {
            name: "b".into(),
            path: "a/b".into(),
            parent: 0,
            bind_local: child,
        },
    ];
    let w = gom::validate::bind_world_of(2, |i| (bones[i].parent, bones[i].bind_local));
    let origin = transform_point(&w[1], [0.0; 3]);
    assert!(close(origin, [1.0, 0.0, -2.0]), "{origin:?}");
    assert_eq!(w, gom::math::bind_world(&bones));
}
