//! Contact sheets (many models, one cell each, names underneath) and texture-library
//! sheets (many images, names and sizes underneath).

use std::sync::atomic::{AtomicUsize, Ordering};

use gom::Model;
use rayon::prelude::*;

use crate::camera::{Projection, View};
use crate::error::RenderError;
use crate::image::Image;
use crate::layout::{label_height, label_scale, Grid};
use crate::render::{render, RenderOptions, TextureSource};

/// One model on a contact sheet.
#[derive(Debug, Clone, Copy)]
pub struct SheetItem<'a> {
    /// The name written under the cell.
    pub name: &'a str,
    /// The model, drawn in its bind pose.
    pub model: &'a Model,
    /// Its base-colour textures.
    pub textures: TextureSource<'a>,
}

/// Layout and camera of a contact sheet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SheetOptions {
    /// Size of each cell's picture in pixels.
    pub cell_size: (u32, u32),
    /// Cells per row; `None` makes the sheet about square.
    pub columns: Option<u32>,
    /// Camera direction.
    pub view: View,
    /// Perspective or orthographic.
    pub projection: Projection,
    /// Draw bones and joints on top.
    pub skeleton_overlay: bool,
    /// Draw the ground grid.
    pub grid: bool,
}

impl Default for SheetOptions {
    fn default() -> Self {
        SheetOptions {
            cell_size: (192, 192),
            columns: None,
            view: View::ThreeQuarter,
            projection: Projection::Perspective,
            skeleton_overlay: false,
            grid: true,
        }
    }
}

/// Renders every item in its own cell, in parallel, and lays the cells out in item
/// order with each name underneath. `progress(done, total)` is called once after each
/// cell is rendered (from worker threads, in completion order); the image does not
/// depend on that order or on the thread count. The first failing item (in item
/// order) is the error.
pub fn contact_sheet(
    items: &[SheetItem],
    options: &SheetOptions,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Image, RenderError> {
    let scale = label_scale(options.cell_size.0);
    let grid = Grid::new(
        items.len(),
        options.cell_size,
        options.columns,
        label_height(scale),
    )?;
    let mut sheet = grid.canvas()?;
    let done = AtomicUsize::new(0);
    let total = items.len();
    let cells = items
        .par_iter()
        .map(|item| {
            let ro = RenderOptions {
                size: options.cell_size,
                view: options.view,
                projection: options.projection,
                clip: None,
                skeleton_overlay: options.skeleton_overlay,
                textures: item.textures,
                grid: options.grid,
            };
            let r = render(item.model, &ro);
            progress(done.fetch_add(1, Ordering::Relaxed) + 1, total);
            r
        })
        .collect::<Vec<_>>();
    for (i, (cell, item)) in cells.into_iter().zip(items).enumerate() {
        let cell = cell?;
        let (x, y) = grid.origin(i);
        sheet.blit(&cell, i64::from(x), i64::from(y));
        grid.label(&mut sheet, i, item.name, scale);
    }
    Ok(sheet)
}

/// Layout of a texture-library sheet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextureSheetOptions {
    /// Side of each square cell in pixels; images are scaled to fit, keeping their
    /// aspect ratio.
    pub cell: u32,
    /// Cells per row; `None` makes the sheet about square.
    pub columns: Option<u32>,
}

impl Default for TextureSheetOptions {
    fn default() -> Self {
        TextureSheetOptions {
            cell: 128,
            columns: None,
        }
    }
}

/// Light and dark squares shown through transparent texels.
const CHECKER: [[u8; 3]; 2] = [[200, 200, 200], [150, 150, 150]];
/// Side of a checker square in pixels.
const CHECKER_SIZE: u32 = 8;

/// `image` scaled to fit a `cell`×`cell` square (each output pixel the average of the
/// source pixels under it), composited over a checkerboard, centred in the square.
fn fit_cell(image: &Image, cell: u32) -> Result<Image, RenderError> {
    let mut out = Image::new(cell, cell, crate::layout::SHEET_BACKGROUND)?;
    let (iw, ih) = (u64::from(image.width()), u64::from(image.height()));
    let c = u64::from(cell);
    // Output size: the longer side becomes `cell` (never upscaled past it).
    let (ow, oh) = if iw >= ih {
        (c, (ih * c).div_ceil(iw).clamp(1, c))
    } else {
        ((iw * c).div_ceil(ih).clamp(1, c), c)
    };
    let (ox, oy) = ((c - ow) / 2, (c - oh) / 2);
    for y in 0..oh {
        let sy0 = y * ih / oh;
        let sy1 = ((y + 1) * ih / oh).max(sy0 + 1);
        for x in 0..ow {
            let sx0 = x * iw / ow;
            let sx1 = ((x + 1) * iw / ow).max(sx0 + 1);
            let mut sum = [0u64; 4];
            let mut n = 0u64;
            for sy in sy0..sy1 {
                for sx in sx0..sx1 {
                    if let Some(p) = image.pixel(sx as i64, sy as i64) {
                        // Colours weighted by alpha, so transparent texels do not darken.
                        let a = u64::from(p[3]);
                        for k in 0..3 {
                            sum[k] += u64::from(p[k]) * a;
                        }
                        sum[3] += a;
                        n += 1;
                    }
                }
            }
            let a = sum[3].checked_div(n).unwrap_or(0);
            let checker = CHECKER
                [(((x / u64::from(CHECKER_SIZE)) + (y / u64::from(CHECKER_SIZE))) % 2) as usize];
            let mut px = [0u8; 4];
            for k in 0..3 {
                let colour = sum[k].checked_div(sum[3]).unwrap_or(0);
                let v = (colour * a + u64::from(checker[k]) * (255 - a) + 127) / 255;
                px[k] = v.min(255) as u8;
            }
            px[3] = 255;
            out.set_pixel((ox + x) as i64, (oy + y) as i64, px);
        }
    }
    Ok(out)
}

/// A sheet of textures: each image scaled into a square cell, its name and size
/// (`name 256x128`) underneath.
pub fn texture_sheet(
    items: &[(&str, &Image)],
    options: &TextureSheetOptions,
) -> Result<Image, RenderError> {
    let scale = label_scale(options.cell);
    let grid = Grid::new(
        items.len(),
        (options.cell, options.cell),
        options.columns,
        2 * label_height(scale),
    )?;
    let mut sheet = grid.canvas()?;
    let cells = items
        .par_iter()
        .map(|(_, image)| fit_cell(image, options.cell))
        .collect::<Result<Vec<_>, _>>()?;
    for (i, (cell, (name, image))) in cells.iter().zip(items).enumerate() {
        let (x, y) = grid.origin(i);
        sheet.blit(cell, i64::from(x), i64::from(y));
        grid.label(&mut sheet, i, name, scale);
        let size = format!("{}x{}", image.width(), image.height());
        grid.label_line(&mut sheet, i, 1, &size, scale);
    }
    Ok(sheet)
}
