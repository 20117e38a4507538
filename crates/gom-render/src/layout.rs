//! Placement of cells in filmstrips and sheets, and their labels.

use crate::error::RenderError;
use crate::font::{draw_text, fit_text, ADVANCE, GLYPH_HEIGHT};
use crate::image::Image;

/// Background between cells of filmstrips and sheets.
pub const SHEET_BACKGROUND: [u8; 4] = [24, 26, 30, 255];
/// Colour of labels.
pub const LABEL_COLOR: [u8; 4] = [230, 232, 236, 255];
/// Pixels between cells and around the sheet.
pub const GAP: u32 = 4;

/// Font scale for labels under cells `cell_width` pixels wide: 1 up to 255 pixels, then
/// one more per 256.
pub fn label_scale(cell_width: u32) -> u32 {
    (cell_width / 256).max(1)
}

/// Height of the label strip under a cell (the text plus 3 pixels above and below).
pub fn label_height(scale: u32) -> u32 {
    GLYPH_HEIGHT * scale + 6
}

/// A grid of equal cells with a label strip under each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grid {
    /// Columns.
    pub columns: u32,
    /// Rows.
    pub rows: u32,
    /// Size of the picture part of a cell.
    pub cell: (u32, u32),
    /// Height of the label strip under each picture (0 for none).
    pub label: u32,
}

impl Grid {
    /// A grid for `count` cells; `columns` defaults to the smallest n with n² ≥ count.
    pub fn new(
        count: usize,
        cell: (u32, u32),
        columns: Option<u32>,
        label: u32,
    ) -> Result<Grid, RenderError> {
        let count_u32 = u32::try_from(count)
            .ok()
            .filter(|c| (1..=65536).contains(c))
            .ok_or(RenderError::Count {
                what: "the number of cells",
                max: 65536,
                actual: count as u64,
            })?;
        let columns = match columns {
            Some(c) => c.clamp(1, count_u32),
            None => {
                let mut c = 1u32;
                while c * c < count_u32 {
                    c += 1;
                }
                c
            }
        };
        let rows = count_u32.div_ceil(columns);
        Ok(Grid {
            columns,
            rows,
            cell,
            label,
        })
    }

    /// Total image size, checked.
    pub fn size(&self) -> Result<(u32, u32), RenderError> {
        let w =
            u64::from(self.columns) * (u64::from(self.cell.0) + u64::from(GAP)) + u64::from(GAP);
        let h = u64::from(self.rows)
            * (u64::from(self.cell.1) + u64::from(self.label) + u64::from(GAP))
            + u64::from(GAP);
        Image::check_size(w, h)?;
        Ok((w as u32, h as u32))
    }

    /// Top-left corner of cell `i`'s picture.
    pub fn origin(&self, i: usize) -> (u32, u32) {
        let i = i as u32;
        let (c, r) = (i % self.columns, i / self.columns);
        (
            GAP + c * (self.cell.0 + GAP),
            GAP + r * (self.cell.1 + self.label + GAP),
        )
    }

    /// An image of the grid's size filled with [`SHEET_BACKGROUND`].
    pub fn canvas(&self) -> Result<Image, RenderError> {
        let (w, h) = self.size()?;
        Ok(Image::new(w, h, SHEET_BACKGROUND)?)
    }

    /// Draws `text`, cut to fit and centred, in the label strip of cell `i`.
    pub fn label(&self, image: &mut Image, i: usize, text: &str, scale: u32) {
        self.label_line(image, i, 0, text, scale);
    }

    /// Draws `text`, cut to fit and centred, as line `line` (0 first) of the label
    /// strip of cell `i`.
    pub fn label_line(&self, image: &mut Image, i: usize, line: u32, text: &str, scale: u32) {
        let (x, y) = self.origin(i);
        let max_chars = ((self.cell.0 + 1) / (ADVANCE * scale)) as usize;
        let t = fit_text(text, max_chars);
        let tw = crate::font::text_width(&t, scale);
        let tx = i64::from(x) + (i64::from(self.cell.0) - i64::from(tw)) / 2;
        let ty = y + self.cell.1 + 3 + line * (label_height(scale) - 3);
        draw_text(image, tx, i64::from(ty), &t, scale, LABEL_COLOR);
    }
}
