//! Animated pictures of clips: an animated PNG (APNG) or a GIF that loops forever.
//!
//! Every frame is the still picture [`crate::render`] draws of the clip at that
//! frame's time, with the same options, so frame `i` of an APNG holds exactly the
//! pixels of `gom render --clip NAME --time t_i`. Frame `i` of a clip shows time
//! `t_i = i / rate`, for `i` in `0..n` with `n = max(1, round(duration · rate))`: the
//! end pose is left out, since a looping clip's end is its start. A GIF holds at most
//! 256 colours per frame: each frame gets its own palette, exact when the frame has at
//! most 256 colours, else from the NeuQuant quantiser (both through the `gif` crate),
//! so its pixels are those of the still within that quantisation. With several clips, each is played in turn under a caption strip
//! holding its name; the picture above the strip is again the still.

use std::io::Write;

use gom::Model;
use rayon::prelude::*;

use crate::error::RenderError;
use crate::font::{draw_text, fit_text, text_width, ADVANCE};
use crate::image::Image;
use crate::layout::{label_height, label_scale, LABEL_COLOR, SHEET_BACKGROUND};
use crate::render::{render, RenderOptions};

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
    /// The delay of one frame at `fps` in `format`: `1/fps` exactly for an APNG at a
    /// whole rate, else in hundredths of a second (to the nearest, at least one).
    pub fn at(fps: f32, format: AnimationFormat) -> FrameDelay {
        if format == AnimationFormat::Apng && fps.fract() == 0.0 {
            return FrameDelay {
                num: 1,
                den: fps as u16,
            };
        }
        if format == AnimationFormat::Apng {
            // Within 0.005 frames per second, exact for rates given to two decimals.
            return FrameDelay {
                num: 100,
                den: (fps * 100.0).round() as u16,
            };
        }
        FrameDelay {
            num: ((100.0 / fps).round() as u16).max(1),
            den: 100,
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
        let delay = FrameDelay::at(rate, format);
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
                delay,
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
    let mut encoder = Encoder::new(out, format, size, specs.len())?;
    for batch in specs.chunks(BATCH) {
        let frames = batch
            .par_iter()
            .map(|spec| frame(model, options, spec, caption))
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

/// The still picture of `spec`, with the clip's name in a strip of `caption` pixels
/// under it when `caption` is not 0.
fn frame(
    model: &Model,
    options: &AnimationOptions,
    spec: &FrameSpec,
    caption: u32,
) -> Result<Image, RenderError> {
    let still = render(
        model,
        &RenderOptions {
            clip: Some((spec.clip, spec.time)),
            ..options.render
        },
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
    fn delays_are_exact_for_whole_apng_rates_and_hundredths_otherwise() {
        let d = |fps, f| FrameDelay::at(fps, f);
        assert_eq!(
            d(30.0, AnimationFormat::Apng),
            FrameDelay { num: 1, den: 30 }
        );
        assert_eq!(
            d(12.5, AnimationFormat::Apng),
            FrameDelay {
                num: 100,
                den: 1250
            }
        );
        assert_eq!(
            d(30.0, AnimationFormat::Gif),
            FrameDelay { num: 3, den: 100 }
        );
        assert_eq!(
            d(25.0, AnimationFormat::Gif),
            FrameDelay { num: 4, den: 100 }
        );
        assert_eq!(
            d(100.0, AnimationFormat::Gif),
            FrameDelay { num: 1, den: 100 }
        );
    }
}
