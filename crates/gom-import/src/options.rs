//! The options of an import: how a source file becomes a model, and which pipeline
//! steps ([`crate::pipeline`]) follow. Every field is serialised into the build
//! fingerprint and readable from a build config by its name.

use std::path::{Path, PathBuf};

/// Options that affect how a source file becomes a model.
///
/// Every field takes part in [`ImportOptions::fingerprint`] through its `Serialize`
/// implementation, so a field added here is covered by incremental builds without
/// further work. Every field also implements `Deserialize`, so that a build config
/// (`gom.toml`, [`crate::build::config`]) can set any of them by its name.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ImportOptions {
    /// Rate animation is sampled at when a source must be resampled, in Hz.
    pub sample_rate: f32,
    /// Reorder vertices and indices for the vertex cache and fetch (meshopt).
    pub optimize_meshes: bool,
    /// Key reduction tolerance in metres, measured [`ImportOptions::key_tolerance_distance`]
    /// from the joint; 0 keeps every key. With [`ImportOptions::compress`], the bound of
    /// the compression instead.
    pub key_tolerance: f32,
    /// How far from each joint the tolerance is measured, in metres.
    #[serde(default = "ten_cm")]
    pub key_tolerance_distance: f32,
    /// Store clips compressed (`docs/extensions.md`): every frame at the clip's rate,
    /// quantised within [`ImportOptions::key_tolerance`] on the whole skeleton, instead
    /// of reduced keys.
    #[serde(default)]
    pub compress: bool,
    /// JPOG: the level of detail to convert.
    pub lod: usize,
    /// JPOG: the keyframe library; found beside the model by its name when `None`.
    #[serde(
        serialize_with = "serialize_path",
        deserialize_with = "deserialize_path"
    )]
    pub tkl: Option<PathBuf>,
    /// JPOG: the material library; found beside the model when `None`.
    #[serde(
        serialize_with = "serialize_path",
        deserialize_with = "deserialize_path"
    )]
    pub tml: Option<PathBuf>,
    /// JPOG: how the game's Z-up axes are read.
    pub jpog_handedness: crate::jpog::axes::Handedness,
    /// JPOG: how animation channels with flags 3 are read.
    pub jpog_channel_flag3: crate::jpog::anim::ChannelFlag3Reading,
    /// Animation files whose clips are mapped onto this model's skeleton
    /// ([`crate::pipeline::anim`]).
    #[serde(
        default,
        serialize_with = "serialize_paths",
        deserialize_with = "deserialize_paths"
    )]
    pub anim: Vec<PathBuf>,
    /// Explicit bone pairs for [`ImportOptions::anim`] files (`anim bone = model bone`
    /// lines, see [`crate::pipeline::retarget::BoneMap`]).
    #[serde(
        default,
        serialize_with = "serialize_path",
        deserialize_with = "deserialize_path"
    )]
    pub bone_map: Option<PathBuf>,
    /// Keep the animation files' translations of non-root bones when retargeting
    /// instead of the model's bind translations.
    #[serde(default)]
    pub keep_translations: bool,
    /// Keep only the clips whose names match one of these glob patterns (all when
    /// empty); applied last, to the final names.
    #[serde(default)]
    pub clip: Vec<String>,
    /// Clip renames, `OLD=NEW`, applied before the ranges and the filter.
    #[serde(default)]
    pub rename_clip: Vec<crate::pipeline::options::ClipRename>,
    /// Ranges cut out of clips, `NAME:START-END[:NEWNAME]`.
    #[serde(default)]
    pub clip_range: Vec<crate::pipeline::options::ClipRange>,
    /// The bone every clip's root motion is extracted on.
    #[serde(default)]
    pub root_motion: Option<String>,
    /// Uniform scale applied to the skeleton, the meshes and the keys' translations.
    #[serde(default = "one")]
    pub scale: f32,
    /// The source files' up axis, overriding what their headers say.
    #[serde(default)]
    pub up: Option<crate::pipeline::options::Axis>,
    /// The source files' forward axis, overriding what their headers say.
    #[serde(default)]
    pub forward: Option<crate::pipeline::options::Axis>,
    /// The length a source file's unit stands for, overriding what its header says.
    #[serde(default)]
    pub unit: Option<crate::pipeline::options::LengthUnit>,
    /// BVH: leave `End Site`s out of the skeleton instead of keeping them as leaf bones.
    #[serde(default)]
    pub bvh_drop_end_sites: bool,
    /// Clips stored as deltas from a reference pose (`CLIP=REF@T`,
    /// [`crate::pipeline::additive`]), after the other clip steps; never compressed.
    #[serde(default)]
    pub additive: Vec<crate::pipeline::options::AdditiveSpec>,
    /// Events added to clips (`CLIP@SECONDS=NAME[:PAYLOAD]`), for sources that
    /// cannot carry them.
    #[serde(default)]
    pub event: Vec<crate::pipeline::options::EventSpec>,
}

/// The default of [`ImportOptions::scale`].
fn one() -> f32 {
    1.0
}

/// The default of [`ImportOptions::key_tolerance_distance`].
fn ten_cm() -> f32 {
    0.1
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            sample_rate: 30.0,
            optimize_meshes: true,
            key_tolerance: 0.001,
            key_tolerance_distance: ten_cm(),
            compress: false,
            lod: 0,
            tkl: None,
            tml: None,
            jpog_handedness: Default::default(),
            jpog_channel_flag3: Default::default(),
            anim: Vec::new(),
            bone_map: None,
            keep_translations: false,
            clip: Vec::new(),
            rename_clip: Vec::new(),
            clip_range: Vec::new(),
            root_motion: None,
            scale: one(),
            up: None,
            forward: None,
            unit: None,
            bvh_drop_end_sites: false,
            additive: Vec::new(),
            event: Vec::new(),
        }
    }
}

impl ImportOptions {
    /// Whether importers reduce keys: not when clips are compressed (the compressor
    /// takes every frame and spends the tolerance itself) nor at tolerance 0.
    pub fn reduces_keys(&self) -> bool {
        self.key_tolerance > 0.0 && !self.compress
    }

    /// The key reduction tolerance importers use.
    pub fn reduction_tolerance(&self) -> crate::optimize::keys::KeyTolerance {
        crate::optimize::keys::KeyTolerance {
            tolerance: self.key_tolerance,
            distance: self.key_tolerance_distance,
        }
    }

    /// The tolerance keys are inserted to when a model is written for the game
    /// (`.tmd`): the key tolerance, or its default when that is 0 (which keeps every
    /// key when reducing, but cannot be met by inserting).
    pub fn insertion_tolerance(&self) -> crate::optimize::keys::KeyTolerance {
        let default = crate::optimize::keys::KeyTolerance::default();
        crate::optimize::keys::KeyTolerance {
            tolerance: if self.key_tolerance > 0.0 {
                self.key_tolerance
            } else {
                default.tolerance
            },
            ..default
        }
    }

    /// The compression bound these options select.
    pub fn compress_settings(&self) -> gom::compressed::Settings {
        gom::compressed::Settings {
            tolerance: self.key_tolerance,
            distance: self.key_tolerance_distance,
        }
    }

    /// A stable text standing for every option, for build manifests: the SHA-256 (in
    /// hexadecimal) of the options serialised as JSON, fields in declaration order.
    pub fn fingerprint(&self) -> String {
        use sha2::{Digest, Sha256};
        // Serialising plain numbers, booleans, enums and strings cannot fail; should it
        // ever, the error text still differs from any serialisation.
        let text = serde_json::to_string(self).unwrap_or_else(|e| format!("unserialisable: {e}"));
        hex::encode(Sha256::digest(text.as_bytes()))
    }

    /// The options that name files, by field name, with the files they name: a build
    /// reads paths given in a config relative to the config's folder, and rebuilds an
    /// output when one of these files changes. Every field holding a path is listed
    /// here.
    pub fn named_files(&self) -> Vec<(&'static str, Vec<&Path>)> {
        vec![
            ("tkl", self.tkl.iter().map(PathBuf::as_path).collect()),
            ("tml", self.tml.iter().map(PathBuf::as_path).collect()),
            ("anim", self.anim.iter().map(PathBuf::as_path).collect()),
            (
                "bone_map",
                self.bone_map.iter().map(PathBuf::as_path).collect(),
            ),
        ]
    }
}

/// A path as text, in its platform's encoding made lossless: UTF-8 paths as themselves,
/// any other as the hexadecimal of its encoded bytes (serde refuses non-UTF-8 paths).
fn serialize_path<S: serde::Serializer>(path: &Option<PathBuf>, s: S) -> Result<S::Ok, S::Error> {
    let text = path.as_ref().map(|p| match p.to_str() {
        Some(t) => format!("utf8:{t}"),
        None => format!("bytes:{}", hex::encode(p.as_os_str().as_encoded_bytes())),
    });
    serde::Serialize::serialize(&text, s)
}

/// [`serialize_path`] for a list of paths.
fn serialize_paths<S: serde::Serializer>(paths: &[PathBuf], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let mut seq = s.serialize_seq(Some(paths.len()))?;
    for p in paths {
        seq.serialize_element(&PathText(p))?;
    }
    seq.end()
}

/// A path serialised as [`serialize_path`] writes it.
struct PathText<'a>(&'a Path);

impl serde::Serialize for PathText<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_path(&Some(self.0.to_path_buf()), s)
    }
}

/// Reads a path written by [`serialize_path`] (`utf8:` or `bytes:` and the hexadecimal
/// of its encoded bytes), or a plain path as a person writes it in a config.
fn deserialize_path<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<PathBuf>, D::Error> {
    let Some(text) = <Option<String> as serde::Deserialize>::deserialize(d)? else {
        return Ok(None);
    };
    if let Some(t) = text.strip_prefix("utf8:") {
        return Ok(Some(PathBuf::from(t)));
    }
    let Some(hex) = text.strip_prefix("bytes:") else {
        return Ok(Some(PathBuf::from(text)));
    };
    let bytes: Option<Vec<u8>> = (0..hex.len())
        .step_by(2)
        .map(|i| {
            hex.get(i..i + 2)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        })
        .collect();
    let bad = || serde::de::Error::custom(format!("'{text}' is not a path"));
    let bytes = bytes.ok_or_else(bad)?;
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        Ok(Some(PathBuf::from(std::ffi::OsString::from_vec(bytes))))
    }
    #[cfg(not(unix))]
    {
        String::from_utf8(bytes)
            .map(|t| Some(PathBuf::from(t)))
            .map_err(|_| bad())
    }
}

/// [`deserialize_path`] for a list of paths.
fn deserialize_paths<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<PathBuf>, D::Error> {
    #[derive(serde::Deserialize)]
    struct Item(#[serde(deserialize_with = "deserialize_path")] Option<PathBuf>);
    let items = <Vec<Item> as serde::Deserialize>::deserialize(d)?;
    Ok(items.into_iter().filter_map(|i| i.0).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One variant of the default options per field, each differing in that field only.
    fn one_field_changed() -> Vec<(&'static str, ImportOptions)> {
        let base = ImportOptions::default;
        vec![
            (
                "sample_rate",
                ImportOptions {
                    sample_rate: 24.0,
                    ..base()
                },
            ),
            (
                "optimize_meshes",
                ImportOptions {
                    optimize_meshes: false,
                    ..base()
                },
            ),
            (
                "key_tolerance",
                ImportOptions {
                    key_tolerance: 0.002,
                    ..base()
                },
            ),
            ("lod", ImportOptions { lod: 1, ..base() }),
            (
                "tkl",
                ImportOptions {
                    tkl: Some("a.tkl".into()),
                    ..base()
                },
            ),
            (
                "tml",
                ImportOptions {
                    tml: Some("a.tml".into()),
                    ..base()
                },
            ),
            (
                "jpog_handedness",
                ImportOptions {
                    jpog_handedness: crate::jpog::axes::Handedness::Left,
                    ..base()
                },
            ),
            (
                "jpog_channel_flag3",
                ImportOptions {
                    jpog_channel_flag3: crate::jpog::anim::ChannelFlag3Reading::TranslationOnly,
                    ..base()
                },
            ),
            (
                "anim",
                ImportOptions {
                    anim: vec!["walk.fbx".into()],
                    ..base()
                },
            ),
            (
                "bone_map",
                ImportOptions {
                    bone_map: Some("bones.txt".into()),
                    ..base()
                },
            ),
            (
                "keep_translations",
                ImportOptions {
                    keep_translations: true,
                    ..base()
                },
            ),
            (
                "clip",
                ImportOptions {
                    clip: vec!["walk*".into()],
                    ..base()
                },
            ),
            (
                "rename_clip",
                ImportOptions {
                    rename_clip: vec!["a=b".parse().unwrap()],
                    ..base()
                },
            ),
            (
                "clip_range",
                ImportOptions {
                    clip_range: vec!["a:0-10".parse().unwrap()],
                    ..base()
                },
            ),
            (
                "root_motion",
                ImportOptions {
                    root_motion: Some("hips".into()),
                    ..base()
                },
            ),
            (
                "scale",
                ImportOptions {
                    scale: 0.01,
                    ..base()
                },
            ),
            (
                "up",
                ImportOptions {
                    up: Some(crate::pipeline::options::Axis::PosZ),
                    ..base()
                },
            ),
            (
                "forward",
                ImportOptions {
                    forward: Some(crate::pipeline::options::Axis::NegY),
                    ..base()
                },
            ),
            (
                "unit",
                ImportOptions {
                    unit: Some(crate::pipeline::options::LengthUnit::Cm),
                    ..base()
                },
            ),
            (
                "bvh_drop_end_sites",
                ImportOptions {
                    bvh_drop_end_sites: true,
                    ..base()
                },
            ),
        ]
    }

    #[test]
    fn fingerprint_changes_with_every_field() {
        let default = ImportOptions::default().fingerprint();
        assert_eq!(default, ImportOptions::default().fingerprint());
        let mut seen = std::collections::BTreeSet::from([default.clone()]);
        for (field, options) in one_field_changed() {
            assert_ne!(options, ImportOptions::default(), "{field}");
            let f = options.fingerprint();
            assert!(
                seen.insert(f),
                "changing {field} leaves the fingerprint unchanged"
            );
        }
    }

    #[test]
    fn fingerprint_tells_a_tkl_path_from_a_tml_path() {
        let tkl = ImportOptions {
            tkl: Some("x".into()),
            ..Default::default()
        };
        let tml = ImportOptions {
            tml: Some("x".into()),
            ..Default::default()
        };
        assert_ne!(tkl.fingerprint(), tml.fingerprint());
    }
}
