//! The rasteriser: triangles with a depth buffer, lines and dots.
//!
//! Triangle coverage is decided in integer arithmetic: vertices are snapped to 1/256
//! of a pixel, edge functions are evaluated in `i64` at pixel centres, and pixels on an
//! edge belong to the triangle only when the edge is a top or left edge (the top-left
//! fill rule), so two triangles sharing an edge never both cover, nor both miss, a
//! pixel on it. Only triangles that are clockwise on screen, as the viewer sees them,
//! are drawn: GOM's front faces (D2).

use crate::camera::Projected;
use crate::image::Image;

/// Sub-pixel precision: 8 bits.
const SUBPIXEL_BITS: u32 = 8;
const SUBPIXEL: f32 = (1 << SUBPIXEL_BITS) as f32;
const HALF: i64 = 1 << (SUBPIXEL_BITS - 1);
/// Vertices further than this many pixels outside the image are not drawn (the
/// framing keeps every drawn point inside; this only bounds the integer range).
const GUARD: f32 = 16384.0;

/// A colour image with a depth buffer (larger depth = nearer).
pub(crate) struct Frame {
    pub image: Image,
    depth: Vec<f32>,
}

impl Frame {
    /// A frame wrapping `image`, with every depth at minus infinity.
    pub fn new(image: Image) -> Frame {
        let n = image.width() as usize * image.height() as usize;
        Frame {
            image,
            depth: vec![f32::NEG_INFINITY; n],
        }
    }

    fn width(&self) -> i64 {
        i64::from(self.image.width())
    }

    fn height(&self) -> i64 {
        i64::from(self.image.height())
    }

    /// Writes `color` at (`x`, `y`) when `depth` is nearer than what is there.
    fn depth_write(&mut self, x: i64, y: i64, depth: f32, color: [u8; 4]) {
        if x < 0 || y < 0 || x >= self.width() || y >= self.height() {
            return;
        }
        let i = (y * self.width() + x) as usize;
        if let Some(d) = self.depth.get_mut(i) {
            if depth > *d {
                *d = depth;
                self.image.set_pixel(x, y, color);
            }
        }
    }
}

fn snap(v: f32) -> Option<i64> {
    if v.is_finite() && v.abs() <= GUARD {
        Some((v * SUBPIXEL).round() as i64)
    } else {
        None
    }
}

/// Whether the edge a→b is a top or left edge of a triangle that is clockwise on a
/// y-down screen.
fn is_top_left(a: (i64, i64), b: (i64, i64)) -> bool {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    dy < 0 || (dy == 0 && dx > 0)
}

/// Fills the triangle `v` if it is clockwise on screen (a front face). For every
/// covered pixel whose depth passes, `fragment` gets the pixel and the
/// perspective-correct barycentric weights of the three vertices, and returns the
/// colour to write or `None` to discard the pixel.
pub(crate) fn fill_triangle(
    frame: &mut Frame,
    v: [Projected; 3],
    mut fragment: impl FnMut(i64, i64, [f32; 3]) -> Option<[u8; 4]>,
) {
    let (Some(x0), Some(y0), Some(x1), Some(y1), Some(x2), Some(y2)) = (
        snap(v[0].x),
        snap(v[0].y),
        snap(v[1].x),
        snap(v[1].y),
        snap(v[2].x),
        snap(v[2].y),
    ) else {
        return;
    };
    let p = [(x0, y0), (x1, y1), (x2, y2)];
    // Twice the signed area; positive = clockwise as seen on a y-down screen.
    let area = (x1 - x0) * (y2 - y0) - (y1 - y0) * (x2 - x0);
    if area <= 0 {
        return;
    }
    let edge = |a: (i64, i64), b: (i64, i64), px: i64, py: i64| {
        (b.0 - a.0) * (py - a.1) - (b.1 - a.1) * (px - a.0)
    };
    // Edge k is opposite vertex k: (1→2), (2→0), (0→1).
    let edges = [(p[1], p[2]), (p[2], p[0]), (p[0], p[1])];
    let bias: [i64; 3] = edges.map(|(a, b)| if is_top_left(a, b) { 0 } else { -1 });
    let sub = 1i64 << SUBPIXEL_BITS;
    let min_x = (x0.min(x1).min(x2) >> SUBPIXEL_BITS).max(0);
    let max_x = (x0.max(x1).max(x2) >> SUBPIXEL_BITS).min(frame.width() - 1);
    let min_y = (y0.min(y1).min(y2) >> SUBPIXEL_BITS).max(0);
    let max_y = (y0.max(y1).max(y2) >> SUBPIXEL_BITS).min(frame.height() - 1);
    if min_x > max_x || min_y > max_y {
        return;
    }
    let inv_area = 1.0 / area as f32;
    let depth = [v[0].depth, v[1].depth, v[2].depth];
    let q = [v[0].q, v[1].q, v[2].q];
    let step_x = edges.map(|(a, b)| -(b.1 - a.1) * sub);
    let step_y = edges.map(|(a, b)| (b.0 - a.0) * sub);
    let cx = min_x * sub + HALF;
    let cy = min_y * sub + HALF;
    let mut row = [0i64; 3];
    for k in 0..3 {
        row[k] = edge(edges[k].0, edges[k].1, cx, cy);
    }
    for py in min_y..=max_y {
        let mut e = row;
        for px in min_x..=max_x {
            if e[0] + bias[0] >= 0 && e[1] + bias[1] >= 0 && e[2] + bias[2] >= 0 {
                let b = [
                    e[0] as f32 * inv_area,
                    e[1] as f32 * inv_area,
                    e[2] as f32 * inv_area,
                ];
                let d = b[0] * depth[0] + b[1] * depth[1] + b[2] * depth[2];
                let i = (py * frame.width() + px) as usize;
                let nearer = frame.depth.get(i).is_some_and(|old| d > *old);
                if nearer {
                    let w = [b[0] * q[0], b[1] * q[1], b[2] * q[2]];
                    let s = w[0] + w[1] + w[2];
                    let w = if s != 0.0 && s.is_finite() {
                        [w[0] / s, w[1] / s, w[2] / s]
                    } else {
                        b
                    };
                    if let Some(c) = fragment(px, py, w) {
                        if let Some(slot) = frame.depth.get_mut(i) {
                            *slot = d;
                        }
                        frame.image.set_pixel(px, py, c);
                    }
                }
            }
            for k in 0..3 {
                e[k] += step_x[k];
            }
        }
        for k in 0..3 {
            row[k] += step_y[k];
        }
    }
}

/// Clips the segment a→b to the rectangle [lo, hi] (Liang–Barsky); returns the
/// parameters of the visible part.
fn clip_segment(a: [f32; 2], b: [f32; 2], lo: [f32; 2], hi: [f32; 2]) -> Option<(f32, f32)> {
    let (mut t0, mut t1) = (0.0f32, 1.0f32);
    let d = [b[0] - a[0], b[1] - a[1]];
    for axis in 0..2 {
        for (p, q) in [
            (-d[axis], a[axis] - lo[axis]),
            (d[axis], hi[axis] - a[axis]),
        ] {
            if p == 0.0 {
                if q < 0.0 {
                    return None;
                }
            } else {
                let r = q / p;
                if p < 0.0 {
                    t0 = t0.max(r);
                } else {
                    t1 = t1.min(r);
                }
            }
        }
    }
    (t0 <= t1).then_some((t0, t1))
}

/// Draws a one-pixel line from `a` to `b`. With `depth_test` each pixel is written
/// only where it is nearer than what is there (depth interpolated along the line);
/// without, it is drawn on top and leaves the depth buffer alone.
pub(crate) fn draw_line(
    frame: &mut Frame,
    a: Projected,
    b: Projected,
    color: [u8; 4],
    depth_test: bool,
) {
    let w = frame.width() as f32;
    let h = frame.height() as f32;
    let Some((t0, t1)) = clip_segment([a.x, a.y], [b.x, b.y], [0.0, 0.0], [w, h]) else {
        return;
    };
    let lerp = |u: f32, v: f32, t: f32| u + (v - u) * t;
    let (sx, sy, sd) = (
        lerp(a.x, b.x, t0),
        lerp(a.y, b.y, t0),
        lerp(a.depth, b.depth, t0),
    );
    let (ex, ey, ed) = (
        lerp(a.x, b.x, t1),
        lerp(a.y, b.y, t1),
        lerp(a.depth, b.depth, t1),
    );
    let len = (ex - sx).abs().max((ey - sy).abs());
    if !len.is_finite() {
        return;
    }
    let steps = (len.ceil() as i64).clamp(1, 4 * (frame.width() + frame.height()));
    for i in 0..=steps {
        let t = i as f32 / steps as f32;
        let x = lerp(sx, ex, t).floor() as i64;
        let y = lerp(sy, ey, t).floor() as i64;
        let x = x.min(frame.width() - 1);
        let y = y.min(frame.height() - 1);
        if depth_test {
            frame.depth_write(x, y, lerp(sd, ed, t), color);
        } else {
            frame.image.set_pixel(x, y, color);
        }
    }
}

/// Draws a filled disk of `radius` pixels centred at (`cx`, `cy`) on top (no depth
/// test): every pixel whose centre is within the radius.
pub(crate) fn draw_dot(frame: &mut Frame, cx: f32, cy: f32, radius: f32, color: [u8; 4]) {
    if !(cx.is_finite() && cy.is_finite() && radius.is_finite()) {
        return;
    }
    let r = radius.max(0.5);
    let x0 = ((cx - r).floor() as i64).max(0);
    let x1 = ((cx + r).ceil() as i64).min(frame.width() - 1);
    let y0 = ((cy - r).floor() as i64).max(0);
    let y1 = ((cy + r).ceil() as i64).min(frame.height() - 1);
    for y in y0..=y1 {
        for x in x0..=x1 {
            let dx = x as f32 + 0.5 - cx;
            let dy = y as f32 + 0.5 - cy;
            if dx * dx + dy * dy <= r * r {
                frame.image.set_pixel(x, y, color);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pt(x: f32, y: f32) -> Projected {
        Projected {
            x,
            y,
            depth: 1.0,
            q: 1.0,
        }
    }

    fn count(frame: &Frame, c: [u8; 4]) -> usize {
        frame
            .image
            .data()
            .chunks_exact(4)
            .filter(|p| *p == c)
            .count()
    }

    #[test]
    fn two_triangles_sharing_an_edge_cover_a_square_exactly_once() {
        // A 4x4-pixel square at (2,2)..(6,6) split along its diagonal; each pixel must
        // be covered by exactly one of the two triangles (top-left rule).
        let mut frame = Frame::new(Image::new(8, 8, [0, 0, 0, 255]).unwrap());
        let mut hits = [0u32; 64];
        let a = [pt(2.0, 2.0), pt(6.0, 2.0), pt(6.0, 6.0)];
        let b = [pt(2.0, 2.0), pt(6.0, 6.0), pt(2.0, 6.0)];
        for tri in [a, b] {
            fill_triangle(&mut frame, tri, |x, y, _| {
                hits[(y * 8 + x) as usize] += 1;
                None
            });
        }
        for y in 0..8 {
            for x in 0..8 {
                let inside = (2..6).contains(&x) && (2..6).contains(&y);
                assert_eq!(hits[y * 8 + x], u32::from(inside), "pixel {x},{y}");
            }
        }
    }

    #[test]
    fn counter_clockwise_triangles_are_culled() {
        let mut frame = Frame::new(Image::new(8, 8, [0, 0, 0, 255]).unwrap());
        let red = [255, 0, 0, 255];
        fill_triangle(
            &mut frame,
            [pt(1.0, 1.0), pt(1.0, 7.0), pt(7.0, 1.0)],
            |_, _, _| Some(red),
        );
        assert_eq!(count(&frame, red), 0);
        fill_triangle(
            &mut frame,
            [pt(1.0, 1.0), pt(7.0, 1.0), pt(1.0, 7.0)],
            |_, _, _| Some(red),
        );
        // Pixel (x, y) has its centre at (x + 0.5, y + 0.5); it is inside when x >= 1,
        // y >= 1 and x + y < 7 (centres with x + y == 7 lie on the hypotenuse, a
        // bottom-right edge, and are left out): 5 + 4 + 3 + 2 + 1 = 15 pixels.
        assert_eq!(count(&frame, red), 15);
    }

    #[test]
    fn the_nearer_triangle_wins_whatever_the_order() {
        for order in [0, 1] {
            let mut frame = Frame::new(Image::new(4, 4, [0, 0, 0, 255]).unwrap());
            let mut near = [pt(0.0, 0.0), pt(4.0, 0.0), pt(0.0, 4.0)];
            for v in &mut near {
                v.depth = 2.0;
            }
            let far = [pt(0.0, 0.0), pt(4.0, 0.0), pt(0.0, 4.0)];
            let tris = if order == 0 { [near, far] } else { [far, near] };
            for (i, t) in tris.iter().enumerate() {
                let c = if (i == 0) == (order == 0) {
                    [9, 9, 9, 255]
                } else {
                    [1, 1, 1, 255]
                };
                fill_triangle(&mut frame, *t, |_, _, _| Some(c));
            }
            assert_eq!(
                frame.image.pixel(0, 0),
                Some([9, 9, 9, 255]),
                "order {order}"
            );
        }
    }

    #[test]
    fn lines_and_dots_stay_inside_the_image() {
        let mut frame = Frame::new(Image::new(5, 5, [0, 0, 0, 255]).unwrap());
        draw_line(
            &mut frame,
            pt(-10.0, 2.5),
            pt(20.0, 2.5),
            [7, 7, 7, 255],
            false,
        );
        for x in 0..5 {
            assert_eq!(frame.image.pixel(x, 2), Some([7, 7, 7, 255]));
        }
        draw_dot(&mut frame, 2.5, 2.5, 1.0, [5, 5, 5, 255]);
        assert_eq!(count(&frame, [5, 5, 5, 255]), 5);
    }
}
