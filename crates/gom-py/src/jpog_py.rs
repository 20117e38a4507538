//! `gom.jpog`: the game's libraries: a `.tml`'s textures as RGBA pixels or PNG bytes
//! and its listing, a `.tmd`'s and a `.tkl`'s summaries as `gom info --json` and
//! `gom tmd info` give them.

use std::path::{Path, PathBuf};

use numpy::ndarray::Array3;
use numpy::PyArray3;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use serde_json::json;

use crate::error::{GomError, Kind, Result};

fn read(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| GomError::io(path, &e))
}

fn game_error(name: &str, e: &jpog::Error) -> GomError {
    GomError::jpog(name, e)
}

/// The bytes of `source` (bytes, or a path) and the name errors give it.
fn bytes_of(source: &Bound<'_, PyAny>) -> PyResult<(Vec<u8>, String)> {
    if let Ok(b) = source.cast::<PyBytes>() {
        return Ok((b.as_bytes().to_vec(), "<bytes>".to_string()));
    }
    let path: PathBuf = source.extract()?;
    Ok((read(&path)?, path.display().to_string()))
}

/// A material library (`.tml`) read into memory.
#[pyclass(frozen, module = "gom._gom")]
pub struct Tml {
    tml: jpog::Tml,
    name: String,
}

#[pymethods]
impl Tml {
    /// Reads `source`: the bytes of a `.tml`, or its path.
    #[new]
    fn new(py: Python<'_>, source: &Bound<'_, PyAny>) -> PyResult<Tml> {
        let (bytes, name) = bytes_of(source)?;
        let tml = py
            .detach(|| jpog::Tml::read(&bytes))
            .map_err(|e| game_error(&name, &e))?;
        Ok(Tml { tml, name })
    }

    /// The number of textures.
    #[getter]
    fn texture_count(&self) -> usize {
        self.tml.textures.len()
    }

    /// The listing `gom info --json` gives for the library, as JSON text.
    fn info_json(&self) -> PyResult<String> {
        let doc = json!({
            "kind": "tml",
            "listing": jpog::ops::list_tml(&self.tml),
            "open_fields": self.tml.open_fields(),
        });
        Ok(doc.to_string())
    }

    /// Texture `index` (file order) decoded to RGBA8: a height × width × 4 array.
    fn rgba<'py>(&self, py: Python<'py>, index: usize) -> PyResult<Bound<'py, PyArray3<u8>>> {
        let image = py.detach(|| self.decode(index))?;
        let (w, h) = (image.width() as usize, image.height() as usize);
        let array = Array3::from_shape_vec((h, w, 4), image.into_data()).map_err(|e| {
            GomError::new(Kind::Jpog, format!("texture {index}: {e}")).file_name_of(&self.name)
        })?;
        Ok(PyArray3::from_owned_array(py, array))
    }

    /// Texture `index` decoded and encoded as PNG.
    fn png<'py>(&self, py: Python<'py>, index: usize) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = py.detach(|| -> Result<Vec<u8>> {
            let image = self.decode(index)?;
            gom_image::encode_png(&image).map_err(|e| {
                GomError::new(Kind::Jpog, format!("{}: texture {index}: {e}", self.name))
                    .file_name_of(&self.name)
            })
        })?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// The indices of the textures material `name` uses, or None.
    fn material_textures(&self, name: &str) -> Option<Vec<usize>> {
        self.tml.material_textures(name)
    }
}

impl Tml {
    fn decode(&self, index: usize) -> Result<gom_image::Image> {
        self.tml
            .decode_texture(index, jpog::CodecOptions::default())
            .map_err(|e| game_error(&self.name, &e))
    }
}

/// What a `.tmd` holds (`gom tmd info --json`), as JSON text.
#[pyfunction]
pub fn tmd_info(py: Python<'_>, path: PathBuf) -> PyResult<String> {
    let name = path.display().to_string();
    let text = py.detach(|| -> Result<String> {
        let tmd = jpog::Tmd::read(&read(&path)?).map_err(|e| game_error(&name, &e))?;
        Ok(jpog::ops::tmd_info(&tmd).to_json())
    })?;
    Ok(text)
}

/// What a `.tkl` holds (`gom info --json`), as JSON text.
#[pyfunction]
pub fn tkl_info(py: Python<'_>, path: PathBuf) -> PyResult<String> {
    let name = path.display().to_string();
    let text = py.detach(|| -> Result<String> {
        let tkl = jpog::Tkl::read(&read(&path)?).map_err(|e| game_error(&name, &e))?;
        Ok(json!({
            "kind": "tkl",
            "name": tkl.name(),
            "locations": tkl.locations.len(),
            "rotations": tkl.rotations.len(),
            "open_fields": tkl.open_fields(),
        })
        .to_string())
    })?;
    Ok(text)
}
