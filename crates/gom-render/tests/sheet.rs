//! Contact sheets and texture sheets: layout, labels, progress and determinism.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use common::*;
use gom_render::layout::{label_height, LABEL_COLOR, SHEET_BACKGROUND};
use gom_render::{
    contact_sheet, encode_png, render, texture_sheet, Image, RenderOptions, SheetItem,
    SheetOptions, TextureSheetOptions, TextureSource,
};

fn models() -> Vec<gom::Model> {
    vec![
        unit_cube([0.8, 0.2, 0.2, 1.0]),
        swinging_arm(),
        unit_cube([0.2, 0.2, 0.8, 1.0]),
    ]
}

fn sheet_options() -> SheetOptions {
    SheetOptions {
        cell_size: (48, 40),
        columns: Some(2),
        ..Default::default()
    }
}

#[test]
fn each_cell_is_the_models_own_render_placed_in_item_order_with_its_name_below() {
    let models = models();
    let names = ["red", "arm", "blue"];
    let items: Vec<SheetItem> = names
        .iter()
        .zip(&models)
        .map(|(name, model)| SheetItem {
            name,
            model,
            textures: TextureSource::None,
        })
        .collect();
    let o = sheet_options();
    let sheet = contact_sheet(&items, &o, &|_, _| {}).unwrap();
    // Two columns, two rows; gap 4, label strip 9 + 6 = 15 under each 48x40 picture
    // (glyphs of 7 rows to the baseline and 2 below it):
    // width 4 + 2·(48 + 4) = 108, height 4 + 2·(40 + 15 + 4) = 122.
    assert_eq!((sheet.width(), sheet.height()), (108, 122));
    let origins = [(4, 4), (56, 4), (4, 63)];
    for (i, model) in models.iter().enumerate() {
        let alone = render(
            model,
            &RenderOptions {
                size: (48, 40),
                view: o.view,
                projection: o.projection,
                grid: o.grid,
                ..Default::default()
            },
        )
        .unwrap();
        let (ox, oy) = origins[i];
        for y in 0..40 {
            for x in 0..48 {
                assert_eq!(
                    sheet.pixel(ox + x, oy + y),
                    alone.pixel(x, y),
                    "cell {i} ({x},{y})"
                );
            }
        }
        let label_lit = (oy + 40..oy + 40 + i64::from(label_height(1)))
            .flat_map(|y| (ox..ox + 48).map(move |x| (x, y)))
            .filter(|&(x, y)| sheet.pixel(x, y) == Some(LABEL_COLOR))
            .count();
        assert!(label_lit > 10, "cell {i} has no name under it");
    }
    // The fourth cell is empty.
    assert_eq!(sheet.pixel(56 + 24, 63 + 20), Some(SHEET_BACKGROUND));
}

#[test]
fn progress_reports_every_cell_and_output_does_not_depend_on_threads() {
    let models = models();
    let items: Vec<SheetItem> = models
        .iter()
        .map(|model| SheetItem {
            name: "m",
            model,
            textures: TextureSource::None,
        })
        .collect();
    let run = |threads| {
        let calls = AtomicUsize::new(0);
        let seen = Mutex::new(Vec::new());
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let img = pool.install(|| {
            contact_sheet(&items, &sheet_options(), &|done, total| {
                calls.fetch_add(1, Ordering::Relaxed);
                seen.lock().unwrap().push((done, total));
            })
            .unwrap()
        });
        let mut seen = seen.into_inner().unwrap();
        seen.sort();
        assert_eq!(seen, vec![(1, 3), (2, 3), (3, 3)]);
        encode_png(&img).unwrap()
    };
    assert_eq!(run(1), run(3));
}

#[test]
fn an_empty_sheet_is_an_error() {
    assert!(contact_sheet(&[], &SheetOptions::default(), &|_, _| {}).is_err());
    assert!(texture_sheet(&[], &TextureSheetOptions::default()).is_err());
}

#[test]
fn texture_sheet_fits_images_in_square_cells_keeping_their_aspect() {
    // A 4x2 image: red everywhere except a fully transparent texel at (3, 1).
    let mut data = Vec::new();
    for i in 0..8 {
        data.extend(if i == 7 {
            [0, 0, 0, 0]
        } else {
            [255, 0, 0, 255]
        });
    }
    let img = Image::from_rgba8(4, 2, data).unwrap();
    let sheet = texture_sheet(
        &[("bricks", &img)],
        &TextureSheetOptions {
            cell: 8,
            columns: None,
        },
    )
    .unwrap();
    // Cell at (4, 4), 8x8; the image becomes 8x4, centred vertically: rows 2..6.
    for y in 0..8 {
        for x in 0..8 {
            let p = sheet.pixel(4 + x, 4 + y).unwrap();
            let want = if !(2..6).contains(&y) {
                SHEET_BACKGROUND
            } else if x >= 6 && y >= 4 {
                // The transparent texel shows the light checker square (200, 200, 200).
                [200, 200, 200, 255]
            } else {
                [255, 0, 0, 255]
            };
            assert_eq!(p, want, "({x},{y})");
        }
    }
    // With room for text: the name on the first line under the cell, the size on the
    // second (label strip of two 15-pixel lines; text 3 pixels below each line's top).
    let sheet = texture_sheet(
        &[("bricks", &img)],
        &TextureSheetOptions {
            cell: 64,
            columns: None,
        },
    )
    .unwrap();
    assert_eq!((sheet.width(), sheet.height()), (72, 4 + 64 + 30 + 4));
    let lit_rows = |y0: i64| {
        (y0..y0 + 7)
            .flat_map(|y| (0..72).map(move |x| (x, y)))
            .filter(|&(x, y)| sheet.pixel(x, y) == Some(LABEL_COLOR))
            .count()
    };
    assert!(lit_rows(4 + 64 + 3) > 20, "name line");
    assert!(lit_rows(4 + 64 + 15) > 10, "size line");
    assert_eq!(lit_rows(4 + 64 + 15 + 9), 0);
}

#[test]
fn a_zero_cell_is_an_error_not_a_panic() {
    let img = Image::new(2, 2, [1, 2, 3, 255]).unwrap();
    let o = TextureSheetOptions {
        cell: 0,
        columns: None,
    };
    assert!(texture_sheet(&[("x", &img)], &o).is_err());
}
