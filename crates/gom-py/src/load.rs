//! `gom.load`: any model gom reads, as the `gom` command reads it for `info` and
//! `pose` (GOM binary through the strict reader with its validation findings,
//! everything else through the importers), handed to Python as a dictionary whose
//! arrays are NumPy arrays that take over the model's vectors without copying where
//! the layout allows (positions, normals, UVs, indices, matrices, keys).

use std::path::{Path, PathBuf};

use gom::Model;
use gom_import::source::{ImportOptions, SideFile, SourceFormat};
use numpy::ndarray::{Array2, Array3, ShapeError};
use numpy::{Element, PyArray1, PyArray2, PyArray3};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

use crate::error::{GomError, Kind, Result};

/// A model loaded for inspection, with what its reader had to say.
pub struct Loaded {
    /// The model.
    pub model: Model,
    /// Reader and importer warnings.
    pub warnings: Vec<String>,
    /// Validation findings.
    pub findings: Vec<gom::validate::Finding>,
    /// Images the import extracted (a `.tmd`'s textures, a `.glb`'s embedded images).
    pub side_files: Vec<SideFile>,
}

/// Reads GOM binary bytes with the strict reader; `path` names them in errors.
pub fn read_gomb(bytes: &[u8], path: Option<&Path>) -> Result<Loaded> {
    if bytes.is_empty() {
        let message = match path {
            Some(p) => format!("{}: the file is empty", p.display()),
            None => "the bytes are empty".to_string(),
        };
        let err = GomError::new(Kind::Read, message).field("magic").offset(0);
        return Err(match path {
            Some(p) => err.file(p),
            None => err,
        });
    }
    let read = gom::gomb::read(bytes).map_err(|e| GomError::gomb(path, &e))?;
    let warnings = read.unknown_chunks.iter().map(|u| u.to_string()).collect();
    Ok(Loaded {
        model: read.model,
        warnings,
        findings: read.findings,
        side_files: Vec::new(),
    })
}

/// Loads any model gom reads.
pub fn load_model(path: &Path, options: &ImportOptions) -> Result<Loaded> {
    if SourceFormat::of_path(path) == Some(SourceFormat::Gomb) {
        let bytes = std::fs::read(path).map_err(|e| GomError::io(path, &e))?;
        return read_gomb(&bytes, Some(path));
    }
    let imported =
        gom_import::source::import_path(path, options).map_err(|e| GomError::import(&e))?;
    let mut model = imported.model;
    // What a GOM file written from this model would claim.
    model.header.validation_flags = gom::validate::flags_for(&model);
    let findings = gom::validate::validate(&model);
    Ok(Loaded {
        model,
        warnings: imported.warnings,
        findings,
        side_files: imported.side_files,
    })
}

/// Loads `path` with the import options of `options_json` into the dictionary the
/// Python layer's `gom.Model` is made from.
#[pyfunction]
pub fn load<'py>(
    py: Python<'py>,
    path: PathBuf,
    options_json: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let options = crate::options::parse(options_json, &[], false)?;
    let loaded = py.detach(|| load_model(&path, &options.import))?;
    to_dict(py, loaded)
}

/// `v` as an `n × N` NumPy array, without copying.
pub fn rows<'py, T: Element, const N: usize>(
    py: Python<'py>,
    v: Vec<[T; N]>,
) -> PyResult<Bound<'py, PyArray2<T>>> {
    let n = v.len();
    let array = Array2::from_shape_vec((n, N), v.into_flattened()).map_err(shape)?;
    Ok(PyArray2::from_owned_array(py, array))
}

/// Row-major 4×4 matrices as an `n × 4 × 4` NumPy array, without copying.
pub fn matrices<'py>(py: Python<'py>, v: Vec<[f32; 16]>) -> PyResult<Bound<'py, PyArray3<f32>>> {
    let n = v.len();
    let array = Array3::from_shape_vec((n, 4, 4), v.into_flattened()).map_err(shape)?;
    Ok(PyArray3::from_owned_array(py, array))
}

fn shape(e: ShapeError) -> PyErr {
    GomError::new(Kind::Asset, format!("array shape: {e}")).into()
}

fn optional_rows<'py, T: Element, const N: usize>(
    py: Python<'py>,
    v: Option<Vec<[T; N]>>,
) -> PyResult<Option<Bound<'py, PyArray2<T>>>> {
    v.map(|v| rows(py, v)).transpose()
}

fn to_dict(py: Python<'_>, loaded: Loaded) -> PyResult<Bound<'_, PyDict>> {
    let Loaded {
        model,
        warnings,
        findings,
        side_files,
    } = loaded;
    let d = PyDict::new(py);
    d.set_item("warnings", warnings)?;
    let findings: Vec<String> = findings.iter().map(|f| f.to_string()).collect();
    d.set_item("findings", findings)?;
    d.set_item("converter_version", &model.header.converter_version)?;
    let hash: String = model
        .header
        .source_hash
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    d.set_item("source_hash", hash)?;
    let materials = PyList::empty(py);
    for m in &model.materials {
        let md = PyDict::new(py);
        md.set_item("name", &m.name)?;
        md.set_item("base_color_texture", &m.base_color_texture)?;
        md.set_item("base_color_factor", m.base_color_factor.to_vec())?;
        materials.append(md)?;
    }
    d.set_item("materials", materials)?;
    let images = PyDict::new(py);
    for s in &side_files {
        images.set_item(
            s.relative_path.to_string_lossy(),
            PyBytes::new(py, &s.bytes),
        )?;
    }
    d.set_item("images", images)?;
    let Model {
        skeleton,
        meshes,
        clips,
        ..
    } = model;
    d.set_item("skeleton", skeleton_dict(py, skeleton)?)?;
    let list = PyList::empty(py);
    for m in meshes {
        list.append(mesh_dict(py, m)?)?;
    }
    d.set_item("meshes", list)?;
    let list = PyList::empty(py);
    for c in clips {
        list.append(clip_dict(py, c)?)?;
    }
    d.set_item("clips", list)?;
    Ok(d)
}

fn skeleton_dict(py: Python<'_>, skeleton: gom::Skeleton) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    let bones = skeleton.bones;
    d.set_item(
        "names",
        bones.iter().map(|b| b.name.clone()).collect::<Vec<_>>(),
    )?;
    d.set_item(
        "paths",
        bones.iter().map(|b| b.path.clone()).collect::<Vec<_>>(),
    )?;
    let parents: Vec<i32> = bones.iter().map(|b| b.parent).collect();
    d.set_item("parents", PyArray1::from_vec(py, parents))?;
    let binds: Vec<[f32; 16]> = bones.iter().map(|b| b.bind_local).collect();
    d.set_item("bind_local", matrices(py, binds)?)?;
    Ok(d)
}

fn mesh_dict(py: Python<'_>, m: gom::MeshPart) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", &m.name)?;
    d.set_item("skinning", format!("{:?}", m.skinning).to_lowercase())?;
    let v = m.vertices;
    let (joints, weights) = split_skin(v.skin);
    let (joints_extra, weights_extra) = split_skin(v.skin_extra);
    d.set_item("positions", rows(py, v.positions)?)?;
    d.set_item("normals", optional_rows(py, v.normals)?)?;
    d.set_item("tangents", optional_rows(py, v.tangents)?)?;
    d.set_item("uv0", optional_rows(py, v.uv0)?)?;
    d.set_item("uv1", optional_rows(py, v.uv1)?)?;
    d.set_item("colors", optional_rows(py, v.colors)?)?;
    d.set_item("joints", optional_rows(py, joints)?)?;
    d.set_item("weights", optional_rows(py, weights)?)?;
    d.set_item("joints_extra", optional_rows(py, joints_extra)?)?;
    d.set_item("weights_extra", optional_rows(py, weights_extra)?)?;
    d.set_item("indices", PyArray1::from_vec(py, m.indices))?;
    let submeshes: Vec<(i32, u32, u32)> = m
        .submeshes
        .iter()
        .map(|s| (s.material_index, s.index_start, s.index_count))
        .collect();
    d.set_item("submeshes", submeshes)?;
    d.set_item("inverse_bind", matrices(py, m.inverse_bind)?)?;
    let geo = m
        .mesh_bind_geo_to_model
        .map(|g| matrices(py, vec![g]))
        .transpose()?;
    d.set_item("mesh_bind_geo_to_model", geo)?;
    Ok(d)
}

type Influences = (Option<Vec<[u16; 4]>>, Option<Vec<[f32; 4]>>);

/// Bone indices and weights as two arrays.
fn split_skin(skin: Option<Vec<gom::SkinWeights>>) -> Influences {
    match skin {
        None => (None, None),
        Some(s) => (
            Some(s.iter().map(|w| w.bones).collect()),
            Some(s.iter().map(|w| w.weights).collect()),
        ),
    }
}

fn clip_dict(py: Python<'_>, c: gom::Clip) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", &c.name)?;
    d.set_item("duration", c.duration)?;
    d.set_item("sample_rate", c.sample_rate)?;
    d.set_item("root_bone_index", c.root_bone_index)?;
    d.set_item("flags", c.flags.bits())?;
    d.set_item("compressed", c.compressed.is_some())?;
    let tracks = PyList::empty(py);
    for t in c.tracks {
        let td = PyDict::new(py);
        td.set_item("bone", t.bone)?;
        let times: Vec<f32> = t.keys.iter().map(|k| k.time).collect();
        let translations: Vec<[f32; 3]> = t.keys.iter().map(|k| k.translation).collect();
        let rotations: Vec<[f32; 4]> = t.keys.iter().map(|k| k.rotation).collect();
        let scales: Vec<[f32; 3]> = t.keys.iter().map(|k| k.scale).collect();
        td.set_item("times", PyArray1::from_vec(py, times))?;
        td.set_item("translations", rows(py, translations)?)?;
        td.set_item("rotations", rows(py, rotations)?)?;
        td.set_item("scales", rows(py, scales)?)?;
        tracks.append(td)?;
    }
    d.set_item("tracks", tracks)?;
    Ok(d)
}
