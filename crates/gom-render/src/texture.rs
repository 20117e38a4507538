//! Texture sampling: nearest or bilinear, repeating outside [0, 1).

use crate::image::Image;

/// How texels are picked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Filter {
    /// The texel under the sample point.
    Nearest,
    /// The four nearest texels, weighted by distance.
    #[default]
    Bilinear,
}

impl Filter {
    /// Parses `nearest` or `bilinear`.
    pub fn parse(s: &str) -> Option<Filter> {
        match s.to_ascii_lowercase().as_str() {
            "nearest" => Some(Filter::Nearest),
            "bilinear" | "linear" => Some(Filter::Bilinear),
            _ => None,
        }
    }
}

fn texel(image: &Image, x: i64, y: i64) -> [f32; 4] {
    let w = i64::from(image.width());
    let h = i64::from(image.height());
    let p = image
        .pixel(x.rem_euclid(w), y.rem_euclid(h))
        .unwrap_or([255; 4]);
    p.map(|c| f32::from(c) / 255.0)
}

/// The colour of `image` at texture coordinate (`u`, `v`) (origin at the top-left
/// corner of the image, v down, D2), with components in [0, 1]. The texture repeats.
pub fn sample(image: &Image, u: f32, v: f32, filter: Filter) -> [f32; 4] {
    if !(u.is_finite() && v.is_finite()) {
        return texel(image, 0, 0);
    }
    // Keep the coordinates small so that the integer conversions below are exact.
    let u = u - u.floor();
    let v = v - v.floor();
    let x = u * image.width() as f32;
    let y = v * image.height() as f32;
    match filter {
        Filter::Nearest => texel(image, x.floor() as i64, y.floor() as i64),
        Filter::Bilinear => {
            let (x, y) = (x - 0.5, y - 0.5);
            let (x0, y0) = (x.floor(), y.floor());
            let (fx, fy) = (x - x0, y - y0);
            let (x0, y0) = (x0 as i64, y0 as i64);
            let t00 = texel(image, x0, y0);
            let t10 = texel(image, x0 + 1, y0);
            let t01 = texel(image, x0, y0 + 1);
            let t11 = texel(image, x0 + 1, y0 + 1);
            let mut out = [0.0f32; 4];
            for k in 0..4 {
                let top = t00[k] + (t10[k] - t00[k]) * fx;
                let bottom = t01[k] + (t11[k] - t01[k]) * fx;
                out[k] = top + (bottom - top) * fy;
            }
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_by_one() -> Image {
        Image::from_rgba8(2, 1, vec![0, 0, 0, 255, 255, 255, 255, 255]).unwrap()
    }

    #[test]
    fn nearest_picks_the_texel_under_the_point_and_repeats() {
        let img = two_by_one();
        assert_eq!(sample(&img, 0.25, 0.5, Filter::Nearest)[0], 0.0);
        assert_eq!(sample(&img, 0.75, 0.5, Filter::Nearest)[0], 1.0);
        assert_eq!(sample(&img, 1.75, -0.5, Filter::Nearest)[0], 1.0);
    }

    #[test]
    fn bilinear_blends_halfway_between_texel_centres() {
        let img = two_by_one();
        // Texel centres at u = 0.25 and 0.75; u = 0.5 is halfway.
        assert!((sample(&img, 0.5, 0.5, Filter::Bilinear)[0] - 0.5).abs() < 1e-6);
        assert!((sample(&img, 0.25, 0.5, Filter::Bilinear)[0]).abs() < 1e-6);
    }
}
