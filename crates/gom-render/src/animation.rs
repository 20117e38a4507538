//! Animated pictures of clips: an animated PNG (APNG) or a GIF that loops forever.
//!
//! Frame `i` of a clip shows time `t_i = i / rate`, for `i` in `0..n` with
//! `n = max(1, round(duration · rate))`: the end pose is left out, since a looping
//! clip's end is its start. Every frame is seen through one camera, framed (as a
//! filmstrip's) on the union of the bounds of every pose the animation shows and of
//! each clip's end pose, so that what stands still stays on the same pixels and what
//! moves (root motion too) moves on screen; frame `i` of an APNG holds exactly the
//! pixels of cell `i` of the filmstrip `gom render --clip NAME --frames n+1`. A GIF
//! holds at most 256 colours per frame: each frame gets its own palette, exact when
//! the frame has at most 256 colours, else from the NeuQuant quantiser (both through
//! the `gif` crate), so its pixels are those of the APNG's within that quantisation;
//! its delays count hundredths of a second, each frame's rounded so that the clip's
//! frames so far end at their exact time (the rounding's remainder carried to the
//! next frame), so a clip lasts its `n / rate` seconds to the hundredth. With several
//! clips, each is played in turn under a caption strip holding its name.

use std::io::Write;

use gom::Model;
use rayon::prelude::*;

use crate::camera::{Aabb, Camera};
use crate::error::RenderError;
use crate::font::{draw_text, fit_text, text_width, ADVANCE};
use crate::image::Image;
use crate::layout::{label_height, label_scale, LABEL_COLOR, SHEET_BACKGROUND};
use crate::pose::{pose_bounds, ClipSampler, Pose, PosedMesh, Skinner};
use crate::render::{draw_posed, RenderOptions};

/// The most frames one animation may have, over all its clips.
pub const MAX_ANIMATION_FRAMES: usize = 10_000;
/// The highest frame rate: a GIF's delays count hundredths of a second.
pub const MAX_FPS: f32 = 100.0;
/// Frames rendered at once (in parallel) before they are encoded, which bounds the
/// memory an animation takes whatever its length.
const BATCH: usize = 16;
/// NeuQuant's sampling factor for GIF palettes (1 best and slowest, 30 fastest); 10 is
/// the `gif` crate's own choice for a good palette at a fair speed.
const GIF_QUANTISER_SPEED: i32 = 10;

/// The file format of an animation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnimationFormat {
    /// Animated PNG: lossless frames, exact delays.
    Apng,
    /// GIF: at most 256 colours per frame, delays in hundredths of a second.
    Gif,
}

/// What an animation shows and how.
#[derive(Debug, Clone)]
pub struct AnimationOptions<'a> {
    /// The clips, played in this order.
    pub clips: Vec<&'a str>,
    /// Frames per second; `None` uses each clip's own sample rate.
    pub fps: Option<f32>,
    /// Write each clip's name in a strip under the picture.
    pub captions: bool,
    /// Everything else, as for a still picture (`clip` is ignored).
    pub render: RenderOptions<'a>,
}

/// How long each frame is shown: `num / den` seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameDelay {
    /// Numerator.
    pub num: u16,
    /// Denominator.
    pub den: u16,
}

impl FrameDelay {
    /// The delay of frame `i` (from 0) of a clip played at `fps` in `format`. An APNG
    /// shows every frame `1/fps`: exactly at a whole rate, else within 0.005 frames per
    /// second (exact for rates given to two decimals). A GIF counts hundredths: frame
    /// `i` ends at `round(100 (i + 1) / fps)` hundredths, so each delay is the rounding
    /// of `100 / fps` plus the remainder the earlier frames left (at least one for
    /// `fps` ≤ [`MAX_FPS`]) and the first `k` frames last `k / fps` seconds to the
    /// nearest hundredth.
    pub fn of_frame(fps: f32, format: AnimationFormat, i: u32) -> FrameDelay {
        match format {
            AnimationFormat::Apng if fps.fract() == 0.0 => FrameDelay {
                num: 1,
                den: fps as u16,
            },
            AnimationFormat::Apng => FrameDelay {
                num: 100,
                den: (fps * 100.0).round() as u16,
            },
            AnimationFormat::Gif => {
                let end = |k: u32| (100.0 * f64::from(k) / f64::from(fps)).round();
                FrameDelay {
                    num: (end(i + 1) - end(i)).max(1.0) as u16,
                    den: 100,
                }
            }
        }
    }
}

/// One frame: which clip, at which time, shown for how long.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrameSpec<'a> {
    /// The clip.
    pub clip: &'a str,
    /// The clip time in seconds.
    pub time: f32,
    /// How long the frame is shown.
    pub delay: FrameDelay,
}

/// The frames [`write_animation`] draws: for each clip in turn, `i / rate` for `i` in
/// `0..max(1, round(duration · rate))`, where the rate is `options.fps` or the clip's
/// sample rate. Errors on an unknown clip, a rate that is not in `(0, MAX_FPS]`, or
/// more than [`MAX_ANIMATION_FRAMES`] frames.
pub fn frame_specs<'a>(
    model: &Model,
    options: &AnimationOptions<'a>,
    format: AnimationFormat,
) -> Result<Vec<FrameSpec<'a>>, RenderError> {
    if options.clips.is_empty() {
        return Err(RenderError::Count {
            what: "the number of clips to animate",
            max: u32::MAX,
            actual: 0,
        });
    }
    let mut specs = Vec::new();
    for &name in &options.clips {
        let clip = model
            .clips
            .iter()
            .find(|c| c.name == name)
            .ok_or_else(|| unknown_clip(model, name))?;
        let (rate, from) = match options.fps {
            Some(fps) => (fps, "--fps"),
            None => (clip.sample_rate, "the clip's sample rate"),
        };
        if !(rate > 0.0 && rate <= MAX_FPS) {
            return Err(RenderError::FrameRate {
                clip: name.to_string(),
                rate,
                from,
            });
        }
        let n = (f64::from(clip.duration.max(0.0)) * f64::from(rate))
            .round()
            .max(1.0);
        if n > (MAX_ANIMATION_FRAMES - specs.len()) as f64 {
            return Err(RenderError::Count {
                what: "the number of animation frames",
                max: MAX_ANIMATION_FRAMES as u32,
                actual: (specs.len() as f64 + n) as u64,
            });
        }
        for i in 0..n as u32 {
            specs.push(FrameSpec {
                clip: name,
                time: i as f32 / rate,
                delay: FrameDelay::of_frame(rate, format, i),
            });
        }
    }
    Ok(specs)
}

fn unknown_clip(model: &Model, name: &str) -> RenderError {
    RenderError::UnknownClip {
        name: name.to_string(),
        available: model.clip_names_listed(),
    }
}

/// What was written.
#[derive(Debug, Clone, PartialEq)]
pub struct AnimationInfo {
    /// Width and height of every frame.
    pub size: (u32, u32),
    /// The frames, in order.
    pub frames: Vec<(String, f32, FrameDelay)>,
}

/// Renders the clips of `options` and writes them to `out` as one looping animation.
/// The bytes depend only on the model and the options, not on the thread count.
pub fn write_animation<W: Write>(
    model: &Model,
    options: &AnimationOptions,
    format: AnimationFormat,
    out: W,
) -> Result<AnimationInfo, RenderError> {
    let specs = frame_specs(model, options, format)?;
    let (w, h) = options.render.size;
    let caption = if options.captions {
        label_height(label_scale(w))
    } else {
        0
    };
    let size = (w, h + caption);
    Image::check_size(u64::from(size.0), u64::from(size.1))?;
    let skinner = Skinner::new(model)?;
    let bounds = animation_bounds(model, &options.clips, &specs, &skinner, &options.render)?;
    let camera = Camera::frame(
        options.render.view,
        options.render.projection,
        &bounds,
        w,
        h,
    );
    let framing = Framing {
        skinner: &skinner,
        camera: &camera,
        bounds: &bounds,
    };
    let mut encoder = Encoder::new(out, format, size, specs.len())?;
    for batch in specs.chunks(BATCH) {
        let frames = batch
            .par_iter()
            .map(|spec| frame(model, options, &framing, spec, caption))
            .collect::<Result<Vec<Image>, RenderError>>()?;
        for (image, spec) in frames.into_iter().zip(batch) {
            encoder.frame(image, spec.delay)?;
        }
    }
    encoder.finish()?;
    Ok(AnimationInfo {
        size,
        frames: specs
            .iter()
            .map(|s| (s.clip.to_string(), s.time, s.delay))
            .collect(),
    })
}

/// The camera every frame shares, and what it was framed on.
struct Framing<'a> {
    skinner: &'a Skinner,
    camera: &'a Camera,
    bounds: &'a Aabb,
}

/// The pose of `clip` at `time` and the meshes skinned into it.
fn posed(
    model: &Model,
    skinner: &Skinner,
    clip: &str,
    time: f32,
) -> Result<(Pose, Vec<PosedMesh>), RenderError> {
    let pose = ClipSampler::new(model, clip)?.sample(time)?;
    let meshes = skinner.pose(&pose)?;
    Ok((pose, meshes))
}

/// The union of the bounds of every pose of `specs` and of each clip's end pose (the
/// pose a filmstrip of the clip ends on), computed in parallel and joined in order.
fn animation_bounds(
    model: &Model,
    clips: &[&str],
    specs: &[FrameSpec],
    skinner: &Skinner,
    render: &RenderOptions,
) -> Result<Aabb, RenderError> {
    let mut moments: Vec<(&str, f32)> = specs.iter().map(|s| (s.clip, s.time)).collect();
    for &name in clips {
        moments.push((name, ClipSampler::new(model, name)?.duration()));
    }
    let parts = moments
        .par_iter()
        .map(|&(clip, time)| {
            let (pose, meshes) = posed(model, skinner, clip, time)?;
            Ok(pose_bounds(&meshes, &pose, render.skeleton_overlay))
        })
        .collect::<Result<Vec<Aabb>, RenderError>>()?;
    Ok(parts.iter().fold(Aabb::EMPTY, |b, part| b.union(part)))
}

/// The picture of `spec` through the shared camera, with the clip's name in a strip of
/// `caption` pixels under it when `caption` is not 0.
fn frame(
    model: &Model,
    options: &AnimationOptions,
    framing: &Framing,
    spec: &FrameSpec,
    caption: u32,
) -> Result<Image, RenderError> {
    let (pose, meshes) = posed(model, framing.skinner, spec.clip, spec.time)?;
    let still = draw_posed(
        model,
        &meshes,
        &pose,
        framing.camera,
        framing.bounds,
        &options.render,
    )?;
    if caption == 0 {
        return Ok(still);
    }
    let (w, h) = (still.width(), still.height());
    let mut image = Image::new(w, h + caption, SHEET_BACKGROUND)?;
    image.blit(&still, 0, 0);
    let scale = label_scale(w);
    let text = fit_text(spec.clip, ((w + 1) / (ADVANCE * scale)) as usize);
    let x = (i64::from(w) - i64::from(text_width(&text, scale))) / 2;
    draw_text(&mut image, x, i64::from(h) + 3, &text, scale, LABEL_COLOR);
    Ok(image)
}

/// The two encoders behind one interface.
enum Encoder<W: Write> {
    Apng(png::Writer<W>),
    Gif(gif::Encoder<W>, (u16, u16)),
}

impl<W: Write> Encoder<W> {
    fn new(
        out: W,
        format: AnimationFormat,
        (w, h): (u32, u32),
        frames: usize,
    ) -> Result<Encoder<W>, RenderError> {
        match format {
            AnimationFormat::Apng => {
                let mut e = png::Encoder::new(out, w, h);
                e.set_color(png::ColorType::Rgba);
                e.set_depth(png::BitDepth::Eight);
                e.set_compression(png::Compression::Default);
                e.set_filter(png::FilterType::Paeth);
                e.set_adaptive_filter(png::AdaptiveFilterType::NonAdaptive);
                // 0 plays: loop forever.
                e.set_animated(frames as u32, 0)?;
                Ok(Encoder::Apng(e.write_header()?))
            }
            AnimationFormat::Gif => {
                let (w, h) = match (u16::try_from(w), u16::try_from(h)) {
                    (Ok(w), Ok(h)) => (w, h),
                    _ => {
                        return Err(RenderError::ImageSize {
                            width: u64::from(w),
                            height: u64::from(h),
                            reason: "a GIF's sides are at most 65535 pixels",
                        })
                    }
                };
                let mut e = gif::Encoder::new(out, w, h, &[])?;
                e.set_repeat(gif::Repeat::Infinite)?;
                Ok(Encoder::Gif(e, (w, h)))
            }
        }
    }

    fn frame(&mut self, image: Image, delay: FrameDelay) -> Result<(), RenderError> {
        match self {
            Encoder::Apng(writer) => {
                writer.set_frame_delay(delay.num, delay.den)?;
                writer.write_image_data(image.data())?;
            }
            Encoder::Gif(encoder, (w, h)) => {
                let mut rgba = image.into_data();
                let mut f = gif::Frame::from_rgba_speed(*w, *h, &mut rgba, GIF_QUANTISER_SPEED);
                f.delay = delay.num;
                encoder.write_frame(&f)?;
            }
        }
        Ok(())
    }

    fn finish(self) -> Result<(), RenderError> {
        match self {
            Encoder::Apng(writer) => writer.finish()?,
            // The trailer is written when the encoder is dropped; write it now to see
            // the error.
            Encoder::Gif(encoder, _) => {
                encoder
                    .into_inner()
                    .map_err(|e| RenderError::GifEncode(e.into()))?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apng_delays_are_exact_for_whole_rates_and_hundredths_otherwise() {
        let d = |fps, i| FrameDelay::of_frame(fps, AnimationFormat::Apng, i);
        assert_eq!(d(30.0, 7), FrameDelay { num: 1, den: 30 });
        assert_eq!(
            d(12.5, 3),
            FrameDelay {
                num: 100,
                den: 1250
            }
        );
    }

    /// The GIF delays of frames `0..n` at `fps`, in hundredths.
    fn gif_delays(fps: f32, n: u32) -> Vec<u16> {
        (0..n)
            .map(|i| {
                let d = FrameDelay::of_frame(fps, AnimationFormat::Gif, i);
                assert_eq!(d.den, 100);
                d.num
            })
            .collect()
    }

    #[test]
    fn gif_delays_carry_the_rounding_so_a_clip_lasts_its_duration() {
        // 30 Hz: 3⅓ hundredths a frame. Frame i ends at round(10 (i + 1) / 3).
        assert_eq!(gif_delays(30.0, 6), vec![3, 4, 3, 3, 4, 3]);
        // 45 frames at 30 Hz are 1.5 s: 150 hundredths (not 45 × 3 = 135).
        assert_eq!(
            gif_delays(30.0, 45)
                .iter()
                .map(|&d| u32::from(d))
                .sum::<u32>(),
            150
        );
        // 24 Hz: 4 1/6 hundredths; 48 frames are 2 s.
        let d24 = gif_delays(24.0, 48);
        assert_eq!(d24.iter().map(|&d| u32::from(d)).sum::<u32>(), 200);
        assert!(d24.iter().all(|&d| d == 4 || d == 5));
        // Whole hundredths stay whole; the highest rate is one hundredth a frame.
        assert_eq!(gif_delays(25.0, 4), vec![4, 4, 4, 4]);
        assert_eq!(gif_delays(100.0, 3), vec![1, 1, 1]);
        // 7 Hz: every prefix of frames ends within half a hundredth of its time.
        let mut total = 0u32;
        for (i, d) in gif_delays(7.0, 70).into_iter().enumerate() {
            total += u32::from(d);
            let exact = 100.0 * (i + 1) as f64 / 7.0;
            assert!((f64::from(total) - exact).abs() <= 0.5, "frame {i}");
        }
    }
}
