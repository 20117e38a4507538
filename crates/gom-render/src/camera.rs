//! Views, projections and the camera that frames a box of model space.
//!
//! View space is left-handed like model space (D2): x to the right of the image, y up,
//! z away from the viewer. Every camera is built from exact constants and square
//! roots only (no trigonometry), so framing is bit-identical everywhere.

use core::f32::consts::FRAC_1_SQRT_2;

/// Where the camera looks from. Model space is left-handed, +Y up, +Z forward (D2).
///
/// A model converted from a right-handed source whose characters face +Z there (glTF,
/// most FBX files) faces −Z after the Z mirror of D2, so [`View::Front`] shows its face.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum View {
    /// From −Z looking along +Z: +X is right, +Y up (the model's own axes).
    #[default]
    Front,
    /// From −X looking along +X: −Z is right, +Y up.
    Side,
    /// From +Y looking down along −Y: +X is right, +Z up.
    Top,
    /// From the −X, +Y, −Z side, direction (2, −1, 2)/3 (about 19.5° above the ground,
    /// 45° around from the front).
    ThreeQuarter,
}

impl View {
    /// The camera's (right, up, forward) axes in model space: an orthonormal,
    /// left-handed basis (right × up = forward).
    pub fn axes(self) -> [[f32; 3]; 3] {
        match self {
            View::Front => [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
            View::Side => [[0.0, 0.0, -1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]],
            View::Top => [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]],
            View::ThreeQuarter => {
                // up = (1, 4, 1) / (3·√2); 1/(3·√2) = √2/6.
                let k = FRAC_1_SQRT_2 / 3.0;
                [
                    [FRAC_1_SQRT_2, 0.0, -FRAC_1_SQRT_2],
                    [k, 4.0 * k, k],
                    [2.0 / 3.0, -1.0 / 3.0, 2.0 / 3.0],
                ]
            }
        }
    }

    /// Parses `front`, `side`, `top` or `three-quarter` (also `3/4`, `threequarter`).
    pub fn parse(s: &str) -> Option<View> {
        match s.to_ascii_lowercase().as_str() {
            "front" => Some(View::Front),
            "side" => Some(View::Side),
            "top" => Some(View::Top),
            "three-quarter" | "threequarter" | "three_quarter" | "3/4" => Some(View::ThreeQuarter),
            _ => None,
        }
    }
}

/// How view space maps to the image.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Projection {
    /// Perspective with a field of view whose half-angle tangent is 1/2 (about 53° across
    /// the shorter side of the image).
    #[default]
    Perspective,
    /// Parallel projection.
    Orthographic,
}

impl Projection {
    /// Parses `perspective` or `orthographic` (also `persp`, `ortho`).
    pub fn parse(s: &str) -> Option<Projection> {
        match s.to_ascii_lowercase().as_str() {
            "perspective" | "persp" => Some(Projection::Perspective),
            "orthographic" | "ortho" => Some(Projection::Orthographic),
            _ => None,
        }
    }
}

/// Tangent of half the field of view across the shorter image side.
pub const HALF_FOV_TAN: f32 = 0.5;
/// The framed box fills 1/`MARGIN` of the image across its tighter axis.
pub const MARGIN: f32 = 1.1;

/// An axis-aligned box in model space: the runtime's, filled here only with finite
/// points (`add_finite`).
pub use gom_runtime::Aabb;

/// Grows `b` to hold `p`; a point with a non-finite coordinate is left out.
pub(crate) fn add_finite(b: &mut Aabb, p: [f32; 3]) {
    if p.iter().all(|v| v.is_finite()) {
        *b = b.union(&Aabb::from_points(&[p]));
    }
}

/// `b`, or the unit box around the origin when it is empty.
pub(crate) fn or_unit(b: &Aabb) -> Aabb {
    if b.is_empty() {
        Aabb::from_points(&[[-0.5; 3], [0.5; 3]])
    } else {
        *b
    }
}

/// The centre of `b`.
pub(crate) fn center(b: &Aabb) -> [f32; 3] {
    ((b.min + b.max) * 0.5).to_array()
}

/// The eight corners of `b`.
fn corners(b: &Aabb) -> [[f32; 3]; 8] {
    let mut c = [[0.0; 3]; 8];
    for (i, corner) in c.iter_mut().enumerate() {
        for (axis, v) in corner.iter_mut().enumerate() {
            *v = if i & (1 << axis) != 0 {
                b.max[axis]
            } else {
                b.min[axis]
            };
        }
    }
    c
}

/// A point projected to the image.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Projected {
    /// Image x in pixels (0 is the left edge of the image, pixel centres at +0.5).
    pub x: f32,
    /// Image y in pixels (0 is the top edge, growing downwards).
    pub y: f32,
    /// Depth key: larger is nearer. Affine in image space, so it may be interpolated
    /// linearly across a triangle.
    pub depth: f32,
    /// Perspective weight (1 / view-space distance; 1 for orthographic), for
    /// perspective-correct interpolation.
    pub q: f32,
}

/// A camera framing a box for an image of a given size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Camera {
    /// The view.
    pub view: View,
    /// The projection.
    pub projection: Projection,
    /// (right, up, forward) axes in model space.
    pub axes: [[f32; 3]; 3],
    /// The point the camera looks at (the framed box's centre).
    pub target: [f32; 3],
    /// Perspective: distance from the eye to `target` along forward. Orthographic: 0.
    pub distance: f32,
    /// Half extent of the image in view units (orthographic) or in tangent units
    /// (perspective), along x and y.
    pub half_extent: [f32; 2],
    /// Image width in pixels.
    pub width: u32,
    /// Image height in pixels.
    pub height: u32,
}

fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

impl Camera {
    /// The camera that shows all of `bounds` from `view`, centred on its centre, so that
    /// it fills 1/[`MARGIN`] of the image along its tighter axis.
    ///
    /// Orthographic: the box's corners are projected on the view axes; the image's half
    /// size is their largest |x| (or |y|, scaled by the aspect) times [`MARGIN`].
    /// Perspective: the eye backs off along −forward until every corner lies inside a
    /// field of view of half-tangent [`HALF_FOV_TAN`]/[`MARGIN`].
    pub fn frame(
        view: View,
        projection: Projection,
        bounds: &Aabb,
        width: u32,
        height: u32,
    ) -> Camera {
        let b = or_unit(bounds);
        let axes = view.axes();
        let target = center(&b);
        let (w, h) = (width.max(1) as f32, height.max(1) as f32);
        let short = w.min(h);
        let aspect = [w / short, h / short];
        let rel: Vec<[f32; 3]> = corners(&b)
            .iter()
            .map(|c| {
                let d = [c[0] - target[0], c[1] - target[1], c[2] - target[2]];
                [dot(d, axes[0]), dot(d, axes[1]), dot(d, axes[2])]
            })
            .collect();
        let radius = {
            let d = [
                b.max[0] - b.min[0],
                b.max[1] - b.min[1],
                b.max[2] - b.min[2],
            ];
            (dot(d, d)).sqrt() * 0.5
        };
        let scale = radius.max(1e-6);
        match projection {
            Projection::Orthographic => {
                let mut s = 0.0f32;
                for r in &rel {
                    s = s.max(r[0].abs() / aspect[0]).max(r[1].abs() / aspect[1]);
                }
                let s = if s > 0.0 { s * MARGIN } else { scale * MARGIN };
                Camera {
                    view,
                    projection,
                    axes,
                    target,
                    distance: 0.0,
                    half_extent: [s * aspect[0], s * aspect[1]],
                    width,
                    height,
                }
            }
            Projection::Perspective => {
                let t = [
                    HALF_FOV_TAN * aspect[0] / MARGIN,
                    HALF_FOV_TAN * aspect[1] / MARGIN,
                ];
                let mut d = 0.0f32;
                for r in &rel {
                    let need = (r[0].abs() / t[0]).max(r[1].abs() / t[1]) - r[2];
                    d = d.max(need).max(-r[2]);
                }
                // Keep every corner strictly in front of the eye.
                let d = d + scale * 0.01;
                Camera {
                    view,
                    projection,
                    axes,
                    target,
                    distance: d,
                    half_extent: [HALF_FOV_TAN * aspect[0], HALF_FOV_TAN * aspect[1]],
                    width,
                    height,
                }
            }
        }
    }

    /// `p` in view space: x right, y up, z along forward, measured from the eye
    /// (perspective) or from the target (orthographic).
    pub fn to_view(&self, p: [f32; 3]) -> [f32; 3] {
        let d = [
            p[0] - self.target[0],
            p[1] - self.target[1],
            p[2] - self.target[2],
        ];
        [
            dot(d, self.axes[0]),
            dot(d, self.axes[1]),
            dot(d, self.axes[2]) + self.distance,
        ]
    }

    /// A direction in view space (no translation).
    pub fn dir_to_view(&self, v: [f32; 3]) -> [f32; 3] {
        [
            dot(v, self.axes[0]),
            dot(v, self.axes[1]),
            dot(v, self.axes[2]),
        ]
    }

    /// The nearest view-space z a perspective point may have to be drawn.
    pub fn near(&self) -> f32 {
        match self.projection {
            Projection::Perspective => self.distance * 1e-3,
            Projection::Orthographic => f32::NEG_INFINITY,
        }
    }

    /// Projects a view-space point; `None` behind the near plane or when not finite.
    pub fn project_view(&self, v: [f32; 3]) -> Option<Projected> {
        let (nx, ny, depth, q) = match self.projection {
            Projection::Perspective => {
                if v[2].partial_cmp(&self.near()) != Some(core::cmp::Ordering::Greater) {
                    return None;
                }
                let q = 1.0 / v[2];
                (
                    v[0] * q / self.half_extent[0],
                    v[1] * q / self.half_extent[1],
                    q,
                    q,
                )
            }
            Projection::Orthographic => (
                v[0] / self.half_extent[0],
                v[1] / self.half_extent[1],
                -v[2],
                1.0,
            ),
        };
        let x = (nx + 1.0) * 0.5 * self.width as f32;
        let y = (1.0 - ny) * 0.5 * self.height as f32;
        if x.is_finite() && y.is_finite() && depth.is_finite() {
            Some(Projected { x, y, depth, q })
        } else {
            None
        }
    }

    /// Projects a model-space point (see [`Camera::project_view`]).
    pub fn project(&self, p: [f32; 3]) -> Option<Projected> {
        self.project_view(self.to_view(p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    }

    #[test]
    fn every_view_is_an_orthonormal_left_handed_basis() {
        for v in [View::Front, View::Side, View::Top, View::ThreeQuarter] {
            let [r, u, f] = v.axes();
            for a in [r, u, f] {
                assert!((dot(a, a) - 1.0).abs() < 1e-6, "{v:?}");
            }
            assert!(dot(r, u).abs() < 1e-6 && dot(u, f).abs() < 1e-6 && dot(r, f).abs() < 1e-6);
            let c = cross(r, u);
            for i in 0..3 {
                assert!((c[i] - f[i]).abs() < 1e-6, "{v:?}: right x up != forward");
            }
        }
    }

    #[test]
    fn orthographic_front_frame_of_a_unit_cube_maps_corners_by_hand() {
        let b = Aabb::from_points(&[[-0.5; 3], [0.5; 3]]);
        let cam = Camera::frame(View::Front, Projection::Orthographic, &b, 110, 110);
        // Half extent 0.5 * 1.1 = 0.55; x = 0.5 maps to (0.5/0.55 + 1) * 55 = 105.
        let p = cam.project([0.5, 0.5, -0.5]).unwrap();
        assert!(
            (p.x - 105.0).abs() < 1e-3 && (p.y - 5.0).abs() < 1e-3,
            "{p:?}"
        );
        let c = cam.project([0.0, 0.0, 0.0]).unwrap();
        assert!((c.x - 55.0).abs() < 1e-4 && (c.y - 55.0).abs() < 1e-4);
        // Nearer points (smaller z, towards the camera at -Z) have larger depth.
        assert!(cam.project([0.0, 0.0, -0.5]).unwrap().depth > c.depth);
    }

    #[test]
    fn perspective_frame_keeps_every_corner_inside_the_image() {
        let b = Aabb::from_points(&[[-1.0, 0.0, -3.0], [1.0, 2.0, 3.0]]);
        for v in [View::Front, View::Side, View::Top, View::ThreeQuarter] {
            let cam = Camera::frame(v, Projection::Perspective, &b, 200, 100);
            for c in corners(&b) {
                let p = cam.project(c).unwrap();
                assert!(
                    p.x >= 0.0 && p.x <= 200.0 && p.y >= 0.0 && p.y <= 100.0,
                    "{v:?} {p:?}"
                );
            }
        }
    }
}
