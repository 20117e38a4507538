//! Quaternions and Euler angles: ufbx's formulas, with `libm`'s functions.

use std::f64::consts::PI;

use super::{Q, V3};

/// The identity rotation.
pub(crate) const IDENTITY_Q: Q = [0.0, 0.0, 0.0, 1.0];
pub(crate) fn mul_quat(a: Q, b: Q) -> Q {
    [
        a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
        a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
        a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
        a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
    ]
}

pub(crate) fn rotate_vec3(q: Q, v: V3) -> V3 {
    let xy = q[0] * v[1] - q[1] * v[0];
    let xz = q[0] * v[2] - q[2] * v[0];
    let yz = q[1] * v[2] - q[2] * v[1];
    [
        2.0 * (q[3] * yz + q[1] * xy + q[2] * xz) + v[0],
        2.0 * (-q[0] * xy - q[3] * xz + q[2] * yz) + v[1],
        2.0 * (-q[0] * xz - q[1] * yz + q[3] * xy) + v[2],
    ]
}

/// Euler angles in degrees to a quaternion (`ufbx_euler_to_quat`).
pub(crate) fn euler_to_quat(v: V3, order: ufbx::RotationOrder) -> Q {
    const HALF_DEG: f64 = PI / 180.0 * 0.5;
    let (sx, cx) = libm::sincos(v[0] * HALF_DEG);
    let (sy, cy) = libm::sincos(v[1] * HALF_DEG);
    let (sz, cz) = libm::sincos(v[2] * HALF_DEG);
    use ufbx::RotationOrder as R;
    match order {
        R::Xyz => [
            -cx * sy * sz + cy * cz * sx,
            cx * cz * sy + cy * sx * sz,
            cx * cy * sz - cz * sx * sy,
            cx * cy * cz + sx * sy * sz,
        ],
        R::Xzy => [
            cx * sy * sz + cy * cz * sx,
            cx * cz * sy + cy * sx * sz,
            cx * cy * sz - cz * sx * sy,
            cx * cy * cz - sx * sy * sz,
        ],
        R::Yzx => [
            -cx * sy * sz + cy * cz * sx,
            cx * cz * sy - cy * sx * sz,
            cx * cy * sz + cz * sx * sy,
            cx * cy * cz + sx * sy * sz,
        ],
        R::Yxz => [
            -cx * sy * sz + cy * cz * sx,
            cx * cz * sy + cy * sx * sz,
            cx * cy * sz + cz * sx * sy,
            cx * cy * cz - sx * sy * sz,
        ],
        R::Zxy => [
            cx * sy * sz + cy * cz * sx,
            cx * cz * sy - cy * sx * sz,
            cx * cy * sz - cz * sx * sy,
            cx * cy * cz + sx * sy * sz,
        ],
        R::Zyx => [
            cx * sy * sz + cy * cz * sx,
            cx * cz * sy - cy * sx * sz,
            cx * cy * sz + cz * sx * sy,
            cx * cy * cz - sx * sy * sz,
        ],
        // ufbx gives spheric rotation no Euler meaning.
        R::Spheric => IDENTITY_Q,
    }
}

/// A quaternion to Euler angles in radians for a rotation order, as
/// `ufbx_quat_to_euler` (used only to combine rotation layers).
pub(crate) fn quat_to_euler(q: Q, order: ufbx::RotationOrder) -> V3 {
    const EPS: f64 = 0.999999999;
    let [qx, qy, qz, qw] = q;
    let half_pi = PI * 0.5;
    use ufbx::RotationOrder as R;
    let (vx, vy, vz);
    match order {
        R::Xyz => {
            let t = 2.0 * (qw * qy - qx * qz);
            if t.abs() < EPS {
                vy = libm::asin(t);
                vz = libm::atan2(2.0 * (qw * qz + qx * qy), 2.0 * (qw * qw + qx * qx) - 1.0);
                vx = -libm::atan2(-2.0 * (qw * qx + qy * qz), 2.0 * (qw * qw + qz * qz) - 1.0);
            } else {
                vy = libm::copysign(half_pi, t);
                vz = libm::atan2(
                    -2.0 * t * (qw * qx - qy * qz),
                    t * (2.0 * qw * qy + 2.0 * qx * qz),
                );
                vx = 0.0;
            }
        }
        R::Xzy => {
            let t = 2.0 * (qw * qz + qx * qy);
            if t.abs() < EPS {
                vz = libm::asin(t);
                vy = libm::atan2(2.0 * (qw * qy - qx * qz), 2.0 * (qw * qw + qx * qx) - 1.0);
                vx = -libm::atan2(-2.0 * (qw * qx - qy * qz), 2.0 * (qw * qw + qy * qy) - 1.0);
            } else {
                vz = libm::copysign(half_pi, t);
                vy = libm::atan2(
                    2.0 * t * (qw * qx + qy * qz),
                    -t * (2.0 * qx * qy - 2.0 * qw * qz),
                );
                vx = 0.0;
            }
        }
        R::Yzx => {
            let t = 2.0 * (qw * qz - qx * qy);
            if t.abs() < EPS {
                vz = libm::asin(t);
                vx = libm::atan2(2.0 * (qw * qx + qy * qz), 2.0 * (qw * qw + qy * qy) - 1.0);
                vy = -libm::atan2(-2.0 * (qw * qy + qx * qz), 2.0 * (qw * qw + qx * qx) - 1.0);
            } else {
                vz = libm::copysign(half_pi, t);
                vx = libm::atan2(
                    -2.0 * t * (qw * qy - qx * qz),
                    t * (2.0 * qw * qz + 2.0 * qx * qy),
                );
                vy = 0.0;
            }
        }
        R::Yxz => {
            let t = 2.0 * (qw * qx + qy * qz);
            if t.abs() < EPS {
                vx = libm::asin(t);
                vz = libm::atan2(2.0 * (qw * qz - qx * qy), 2.0 * (qw * qw + qy * qy) - 1.0);
                vy = -libm::atan2(-2.0 * (qw * qy - qx * qz), 2.0 * (qw * qw + qz * qz) - 1.0);
            } else {
                vx = libm::copysign(half_pi, t);
                vz = libm::atan2(
                    2.0 * t * (qw * qy + qx * qz),
                    -t * (2.0 * qy * qz - 2.0 * qw * qx),
                );
                vy = 0.0;
            }
        }
        R::Zxy => {
            let t = 2.0 * (qw * qx - qy * qz);
            if t.abs() < EPS {
                vx = libm::asin(t);
                vy = libm::atan2(2.0 * (qw * qy + qx * qz), 2.0 * (qw * qw + qz * qz) - 1.0);
                vz = -libm::atan2(-2.0 * (qw * qz + qx * qy), 2.0 * (qw * qw + qy * qy) - 1.0);
            } else {
                vx = libm::copysign(half_pi, t);
                vy = libm::atan2(
                    -2.0 * t * (qw * qz - qx * qy),
                    t * (2.0 * qw * qx + 2.0 * qy * qz),
                );
                vz = 0.0;
            }
        }
        R::Zyx => {
            let t = 2.0 * (qw * qy + qx * qz);
            if t.abs() < EPS {
                vy = libm::asin(t);
                vx = libm::atan2(2.0 * (qw * qx - qy * qz), 2.0 * (qw * qw + qz * qz) - 1.0);
                vz = -libm::atan2(-2.0 * (qw * qz - qx * qy), 2.0 * (qw * qw + qx * qx) - 1.0);
            } else {
                vy = libm::copysign(half_pi, t);
                vx = libm::atan2(
                    2.0 * t * (qw * qz + qx * qy),
                    -t * (2.0 * qx * qz - 2.0 * qw * qy),
                );
                vz = 0.0;
            }
        }
        R::Spheric => return [0.0; 3],
    }
    const RAD_TO_DEG: f64 = 180.0 / PI;
    [vx * RAD_TO_DEG, vy * RAD_TO_DEG, vz * RAD_TO_DEG]
}

/// Spherical interpolation (`ufbx_quat_slerp`).
pub(crate) fn slerp(a: Q, mut b: Q, t: f64) -> Q {
    let mut dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    if dot < 0.0 {
        dot = -dot;
        b = b.map(|v| -v);
    }
    let omega = libm::acos(dot.clamp(0.0, 1.0));
    if omega <= f64::from(f32::MIN_POSITIVE) {
        return a;
    }
    let rcp_so = 1.0 / libm::sin(omega);
    let af = libm::sin((1.0 - t) * omega) * rcp_so;
    let bf = libm::sin(t * omega) * rcp_so;
    let r = [0, 1, 2, 3].map(|k| af * a[k] + bf * b[k]);
    let rcp_len = 1.0 / (r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]).sqrt();
    r.map(|v| v * rcp_len)
}
