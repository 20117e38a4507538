//! Filmstrips: several poses of one clip side by side, framed alike so that motion
//! shows.

use gom::Model;
use rayon::prelude::*;

use crate::camera::{Aabb, Camera, Projection, View};
use crate::error::RenderError;
use crate::image::Image;
use crate::layout::{label_height, label_scale, Grid};
use crate::pose::{pose_bounds, ClipSampler, Skinner};
use crate::render::{draw_posed, RenderOptions, TextureSource};

/// The most frames a filmstrip may have.
pub const MAX_FRAMES: u32 = 1024;

/// What a filmstrip shows.
#[derive(Debug, Clone, Copy)]
pub struct FilmstripOptions<'a> {
    /// The clip's name.
    pub clip: &'a str,
    /// Number of frames, evenly spaced from time 0 to the clip's duration (both
    /// included; one frame shows time 0).
    pub frames: u32,
    /// Size of each frame in pixels.
    pub frame_size: (u32, u32),
    /// Frames per row; `None` puts them all in one row.
    pub columns: Option<u32>,
    /// Camera direction.
    pub view: View,
    /// Perspective or orthographic.
    pub projection: Projection,
    /// Draw bones and joints on top.
    pub skeleton_overlay: bool,
    /// Base-colour textures.
    pub textures: TextureSource<'a>,
    /// Draw the ground grid.
    pub grid: bool,
    /// Write each frame's time under it.
    pub labels: bool,
}

impl<'a> FilmstripOptions<'a> {
    /// Eight 256×256 frames of `clip` from the three-quarter view, with labels.
    pub fn new(clip: &'a str) -> Self {
        FilmstripOptions {
            clip,
            frames: 8,
            frame_size: (256, 256),
            columns: None,
            view: View::ThreeQuarter,
            projection: Projection::Perspective,
            skeleton_overlay: false,
            textures: TextureSource::None,
            grid: true,
            labels: true,
        }
    }
}

/// One frame of a [`Filmstrip`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FilmFrame {
    /// Clip time in seconds.
    pub time: f32,
    /// Left edge of the frame's picture in the filmstrip image.
    pub x: u32,
    /// Top edge of the frame's picture in the filmstrip image.
    pub y: u32,
}

/// A rendered filmstrip.
#[derive(Debug, Clone)]
pub struct Filmstrip {
    /// The whole strip.
    pub image: Image,
    /// Where each frame is, in time order.
    pub frames: Vec<FilmFrame>,
    /// The camera every frame shares (framed on the union of the poses' bounds).
    pub camera: Camera,
}

/// Renders `options.frames` poses of a clip into one image. The camera is framed once,
/// on the union of the bounds of every pose, so that whatever moves moves on screen
/// and whatever stands still stays on the same pixels. Frames render in parallel; the
/// output does not depend on the thread count.
pub fn filmstrip(model: &Model, options: &FilmstripOptions) -> Result<Filmstrip, RenderError> {
    if !(1..=MAX_FRAMES).contains(&options.frames) {
        return Err(RenderError::Count {
            what: "the number of filmstrip frames",
            max: MAX_FRAMES,
            actual: u64::from(options.frames),
        });
    }
    Image::check_size(
        u64::from(options.frame_size.0),
        u64::from(options.frame_size.1),
    )?;
    let mut sampler = ClipSampler::new(model, options.clip)?;
    let duration = sampler.duration();
    let n = options.frames;
    let times: Vec<f32> = (0..n)
        .map(|i| {
            if n == 1 {
                0.0
            } else {
                duration * i as f32 / (n - 1) as f32
            }
        })
        .collect();
    let poses = times
        .iter()
        .map(|t| sampler.sample(*t))
        .collect::<Result<Vec<_>, _>>()?;
    let skinner = Skinner::new(model)?;
    let mut bounds = Aabb::EMPTY;
    for pose in &poses {
        let posed = skinner.pose(pose)?;
        bounds = bounds.union(&pose_bounds(&posed, pose, options.skeleton_overlay));
    }
    let (fw, fh) = options.frame_size;
    let camera = Camera::frame(options.view, options.projection, &bounds, fw, fh);
    let scale = label_scale(fw);
    let label = if options.labels {
        label_height(scale)
    } else {
        0
    };
    let columns = Some(options.columns.unwrap_or(n));
    let grid = Grid::new(n as usize, options.frame_size, columns, label)?;
    let mut image = grid.canvas()?;
    let render_options = RenderOptions {
        size: options.frame_size,
        view: options.view,
        projection: options.projection,
        clip: None,
        skeleton_overlay: options.skeleton_overlay,
        textures: options.textures,
        grid: options.grid,
    };
    let pictures = poses
        .par_iter()
        .map(|pose| {
            let posed = skinner.pose(pose)?;
            draw_posed(model, &posed, pose, &camera, &bounds, &render_options)
        })
        .collect::<Result<Vec<Image>, RenderError>>()?;
    let mut frames = Vec::with_capacity(pictures.len());
    for (i, (picture, time)) in pictures.iter().zip(&times).enumerate() {
        let (x, y) = grid.origin(i);
        image.blit(picture, i64::from(x), i64::from(y));
        if options.labels {
            grid.label(&mut image, i, &format!("{time:.3}s"), scale);
        }
        frames.push(FilmFrame { time: *time, x, y });
    }
    Ok(Filmstrip {
        image,
        frames,
        camera,
    })
}
