//! An asset: skeleton, meshes and clips of one GOM file, read in place.

use crate::clip::Clip;
use crate::mesh::Mesh;
use crate::skeleton::Skeleton;
use crate::Error;

/// Everything a game needs from one GOM file. Meshes and clips borrow the file's
/// bytes (`'a`) where they are aligned; built from a [`gom::Model`] they own copies.
#[derive(Debug, Clone)]
pub struct Asset<'a> {
    skeleton: Skeleton,
    materials: Vec<gom::Material>,
    meshes: Vec<Mesh<'a>>,
    clips: Vec<Clip<'a>>,
    /// Per mesh, its morph targets (`crate::morph`).
    pub(crate) morphs: Vec<crate::morph::MorphTargets>,
    /// Per clip, its morph weight tracks.
    pub(crate) weights: Vec<Vec<gom::morph::WeightTrack>>,
}

impl<'a> Asset<'a> {
    /// The skeleton (may have no bones).
    pub fn skeleton(&self) -> &Skeleton {
        &self.skeleton
    }

    /// Materials, in file order.
    pub fn materials(&self) -> &[gom::Material] {
        &self.materials
    }

    /// Mesh parts, in file order.
    pub fn meshes(&self) -> &[Mesh<'a>] {
        &self.meshes
    }

    /// Animation clips, in file order.
    pub fn clips(&self) -> &[Clip<'a>] {
        &self.clips
    }
}

impl Asset<'static> {
    /// Builds an asset from a model in memory (for converters and tests), checking
    /// everything the runtime relies on.
    pub fn from_model(model: &gom::Model) -> Result<Self, Error> {
        let skeleton = Skeleton::from_model(&model.skeleton)?;
        let n = skeleton.bone_count();
        let meshes = model
            .meshes
            .iter()
            .map(|m| Mesh::from_model(m, n))
            .collect::<Result<Vec<_>, _>>()?;
        let clips = model
            .clips
            .iter()
            .map(|c| Clip::from_model_on(c, &skeleton))
            .collect::<Result<Vec<_>, _>>()?;
        for c in &clips {
            if let Some(t) = c.tracks.iter().find(|t| t.bone as usize >= n) {
                return Err(Error::TrackBone {
                    clip: c.name.to_string(),
                    bone: t.bone,
                    bone_count: n,
                });
            }
            if c.root_bone.is_some_and(|r| r as usize >= n) {
                return Err(Error::InvalidModel {
                    location: format!("clip \"{}\"", c.name),
                    problem: "the root bone index names no bone".into(),
                });
            }
        }
        Ok(Asset {
            skeleton,
            materials: model.materials.clone(),
            meshes,
            clips,
            morphs: model
                .meshes
                .iter()
                .map(|m| crate::morph::MorphTargets::new(&m.morph_targets))
                .collect(),
            weights: model
                .clips
                .iter()
                .map(|c| c.weight_tracks.clone())
                .collect(),
        })
    }
}

impl Asset<'_> {
    /// The first clip with this name.
    pub fn clip(&self, name: &str) -> Option<&Clip<'_>> {
        self.clips.iter().find(|c| c.name == name)
    }

    /// Convenience for tools: the model-space pose of clip `clip` at `time` (the bind
    /// pose when `clip` is `None`), by [`crate::pose_shown`]: an additive clip is shown
    /// added to its reference pose. Allocates; a game keeps a
    /// [`crate::SamplingContext`] and poses instead.
    pub fn model_pose(
        &self,
        clip: Option<usize>,
        time: f32,
        playback: crate::Playback,
    ) -> Result<crate::ModelPose, Error> {
        let clip = match clip {
            Some(c) => Some(self.clips.get(c).ok_or_else(|| Error::InvalidModel {
                location: format!("clip {c}"),
                problem: format!("the asset has {} clips", self.clips.len()),
            })?),
            None => None,
        };
        crate::pose_shown(&self.skeleton, clip, &self.clips, time, playback)
    }

    /// Convenience for tools: every mesh, morphed by the clip's weights
    /// ([`Asset::morphed_meshes`]), skinned into [`Asset::model_pose`]'s pose, by
    /// [`crate::skin_all`].
    pub fn posed_meshes(
        &self,
        clip: Option<usize>,
        time: f32,
        playback: crate::Playback,
    ) -> Result<Vec<crate::SkinnedMesh>, Error> {
        let meshes = self.morphed_meshes(clip, time, playback)?;
        crate::skin_all(&meshes, &self.model_pose(clip, time, playback)?)
    }

    /// The first mesh with this name.
    pub fn mesh(&self, name: &str) -> Option<&Mesh<'_>> {
        self.meshes.iter().find(|m| m.name == name)
    }
}

impl<'a> Asset<'a> {
    /// Opens GOMB bytes in place: [`gom::gomb::FileView::parse`] checks the whole file
    /// once, then meshes and clips borrow `bytes` (copied only where an array is not
    /// aligned for its type, i.e. when `bytes` does not start at a 4-byte boundary).
    /// After the check, opening costs O(chunks + bones + tracks), independent of the
    /// number of vertices and keys.
    pub fn parse(bytes: &'a [u8]) -> Result<Asset<'a>, Error> {
        let view = gom::gomb::FileView::parse(bytes)?;
        Asset::from_view(&view)
    }

    /// Builds the asset from an already parsed view (see [`Asset::parse`]).
    pub fn from_view(view: &gom::gomb::FileView<'a>) -> Result<Asset<'a>, Error> {
        use std::borrow::Cow;

        use crate::mesh::{cast_or_copy, Indices};

        if cfg!(target_endian = "big") {
            return Err(Error::Unsupported(
                "GOMB files are little-endian and are read in place only on little-endian machines",
            ));
        }
        let sk = view.skeleton();
        let n = sk.bone_count as usize;
        let name = |id: u32| view.string(id).unwrap_or_default().to_string();
        let skeleton = Skeleton::new(
            (0..n).map(|i| name(sk.name_id(i))).collect(),
            (0..n).map(|i| name(sk.path_id(i))).collect(),
            (0..n).map(|i| sk.parent(i)).collect(),
            cast_or_copy::<[f32; 16]>(sk.bind_local).into_owned(),
        )?;
        let mut meshes = Vec::with_capacity(view.meshes().len());
        for m in view.meshes() {
            let indices = if m.index_size == 2 {
                Indices::U16(cast_or_copy(m.index_data))
            } else {
                Indices::U32(cast_or_copy(m.index_data))
            };
            meshes.push(
                Mesh::new(
                    Cow::Borrowed(m.name),
                    m.vertex_format,
                    m.vertex_count as usize,
                    cast_or_copy(m.vertex_data),
                    indices,
                    m.submeshes.clone(),
                    cast_or_copy(m.inverse_bind),
                    m.gbtm,
                    Some(m.bounds),
                    n,
                    false,
                )?
                .with_skinning(
                    crate::mesh::SkinExtension {
                        method: m.skinning,
                        extra: m.skin_extra.map(cast_or_copy).unwrap_or_default(),
                        dq: m.dq_weights.map(cast_or_copy).unwrap_or_default(),
                    },
                    false,
                )?,
            );
        }
        let clips = view
            .clips()
            .iter()
            .map(|c| Clip::from_view(c, &skeleton))
            .collect();
        Ok(Asset {
            skeleton,
            materials: view.materials().to_vec(),
            meshes,
            clips,
            morphs: crate::morph::of_view(view),
            weights: view
                .clips()
                .iter()
                .map(|c| c.weight_tracks.iter().map(|t| t.to_track()).collect())
                .collect(),
        })
    }
}
