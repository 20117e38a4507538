//! `gom.Asset`: a model opened for the runtime, sampled, posed and skinned as a game
//! (and `gom pose`) does it.

use std::path::PathBuf;

use gom_runtime::{LocalPose, Playback, SamplingContext};
use numpy::{PyArray2, PyArray3};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::error::{GomError, Kind, Result};
use crate::load::{load_model, matrices, read_gomb, rows};

/// A model opened for the runtime: GOM binary bytes, or a file of any format gom
/// reads (converted on the way, as `gom pose` does).
#[pyclass(frozen, module = "gom._gom")]
pub struct Asset {
    asset: gom_runtime::Asset<'static>,
}

/// Where a clip argument points: by name, or by index.
#[derive(FromPyObject)]
pub enum ClipRef {
    /// The first clip of this name.
    Name(String),
    /// The clip at this index.
    Index(usize),
}

/// A local pose: per bone translations, rotations (x, y, z, w) and scales.
type LocalArrays<'py> = (
    Bound<'py, PyArray2<f32>>,
    Bound<'py, PyArray2<f32>>,
    Bound<'py, PyArray2<f32>>,
);

/// One skinned mesh: positions and, when the mesh has them, normals.
type Skinned<'py> = (Bound<'py, PyArray2<f32>>, Option<Bound<'py, PyArray2<f32>>>);

fn playback(looped: bool) -> Playback {
    if looped {
        Playback::Loop
    } else {
        Playback::Once
    }
}

impl Asset {
    fn clip_index(&self, clip: &ClipRef) -> Result<usize> {
        let clips = self.asset.clips();
        match clip {
            ClipRef::Index(i) if *i < clips.len() => Ok(*i),
            ClipRef::Index(i) => Err(GomError::new(
                Kind::Asset,
                format!("clip {i}: the asset has {} clips", clips.len()),
            )),
            ClipRef::Name(n) => clips.iter().position(|c| c.name() == n).ok_or_else(|| {
                let names: Vec<&str> = clips.iter().map(|c| c.name()).collect();
                GomError::new(
                    Kind::Asset,
                    format!("no clip named {n:?} (the clips are: {})", names.join(", ")),
                )
            }),
        }
    }

    fn optional_clip(&self, clip: Option<&ClipRef>) -> Result<Option<usize>> {
        clip.map(|c| self.clip_index(c)).transpose()
    }
}

fn runtime(e: gom_runtime::Error) -> GomError {
    GomError::runtime(&e)
}

#[pymethods]
impl Asset {
    /// Opens `source`: `bytes` of a GOM binary file, or the path of a model of any
    /// format gom reads.
    #[new]
    fn new(py: Python<'_>, source: &Bound<'_, PyAny>) -> PyResult<Asset> {
        let loaded = if let Ok(bytes) = source.cast::<PyBytes>() {
            let bytes = bytes.as_bytes().to_vec();
            py.detach(|| read_gomb(&bytes, None))?
        } else {
            let path: PathBuf = source.extract()?;
            py.detach(|| load_model(&path, &Default::default()))?
        };
        let asset = gom_runtime::Asset::from_model(&loaded.model).map_err(runtime)?;
        Ok(Asset { asset })
    }

    /// The bones' names, in skeleton order.
    #[getter]
    fn bone_names(&self) -> Vec<String> {
        self.asset.skeleton().names().to_vec()
    }

    /// Each bone's parent index (−1 for a root).
    #[getter]
    fn parents(&self) -> Vec<i32> {
        self.asset.skeleton().parents().to_vec()
    }

    /// The clips' names, in file order.
    #[getter]
    fn clip_names(&self) -> Vec<String> {
        self.asset
            .clips()
            .iter()
            .map(|c| c.name().to_string())
            .collect()
    }

    /// The meshes' names, in file order.
    #[getter]
    fn mesh_names(&self) -> Vec<String> {
        self.asset
            .meshes()
            .iter()
            .map(|m| m.name().to_string())
            .collect()
    }

    /// The clip's duration in seconds.
    fn duration(&self, clip: ClipRef) -> PyResult<f32> {
        let i = self.clip_index(&clip)?;
        Ok(self.asset.clips()[i].duration())
    }

    /// The local pose of `clip` at `time` seconds: translations (n × 3), rotations
    /// (n × 4, x y z w) and scales (n × 3), one row per bone.
    #[pyo3(signature = (clip, time, looped = false))]
    fn sample<'py>(
        &self,
        py: Python<'py>,
        clip: ClipRef,
        time: f32,
        looped: bool,
    ) -> PyResult<LocalArrays<'py>> {
        let i = self.clip_index(&clip)?;
        let clip = &self.asset.clips()[i];
        let skeleton = self.asset.skeleton();
        let mut local = LocalPose::default();
        let mut ctx = SamplingContext::new();
        gom_runtime::sample(clip, skeleton, time, playback(looped), &mut ctx, &mut local)
            .map_err(runtime)?;
        let n = skeleton.bone_count();
        let (mut t, mut r, mut s) = (Vec::with_capacity(n), Vec::with_capacity(n), Vec::new());
        for b in 0..n {
            let x = local.get(b).unwrap_or_default();
            t.push(x.translation.to_array());
            r.push(x.rotation.to_array());
            s.push(x.scale.to_array());
        }
        Ok((rows(py, t)?, rows(py, r)?, rows(py, s)?))
    }

    /// Every bone's model-space matrix (n × 4 × 4, row-major for row vectors,
    /// translation in the last row) at `time` of `clip`, or the bind pose without a
    /// clip.
    #[pyo3(signature = (clip = None, time = 0.0, looped = false))]
    fn model_pose<'py>(
        &self,
        py: Python<'py>,
        clip: Option<ClipRef>,
        time: f32,
        looped: bool,
    ) -> PyResult<Bound<'py, PyArray3<f32>>> {
        let clip = self.optional_clip(clip.as_ref())?;
        let pose = self
            .asset
            .model_pose(clip, time, playback(looped))
            .map_err(runtime)?;
        let mats: Vec<[f32; 16]> = (0..pose.bone_count())
            .map(|i| pose.row_major(i).unwrap_or_default())
            .collect();
        matrices(py, mats)
    }

    /// Every mesh skinned at `time` of `clip` (the bind pose without a clip), in
    /// model space, as `gom pose` writes it: a list of (positions n × 3, normals n × 3
    /// or None), one per mesh. Runs with the interpreter released.
    #[pyo3(signature = (clip = None, time = 0.0, looped = false))]
    fn skin<'py>(
        &self,
        py: Python<'py>,
        clip: Option<ClipRef>,
        time: f32,
        looped: bool,
    ) -> PyResult<Vec<Skinned<'py>>> {
        let clip = self.optional_clip(clip.as_ref())?;
        let meshes = py
            .detach(|| self.asset.posed_meshes(clip, time, playback(looped)))
            .map_err(runtime)?;
        meshes
            .into_iter()
            .map(|m| {
                let normals = m.normals.map(|n| rows(py, n)).transpose()?;
                Ok((rows(py, m.positions)?, normals))
            })
            .collect()
    }
}
