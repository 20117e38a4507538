//! Structurally valid models built from fuzzer bytes, for the `model_roundtrip` target:
//! the choices come from `arbitrary`, the structure (parents earlier, indices below the
//! vertex count, triangle-aligned submeshes, ascending keys inside the duration, unit
//! quaternions, tangent w = ±1, finite floats) is imposed here, so that every model is
//! one the writers must accept. The shape follows the proptest strategy of the `gom`
//! crate's tests, driven by coverage instead of a seed.

use arbitrary::{Result, Unstructured};
use gom::model::*;

/// Floats a writer must carry exactly: ordinary values, extremes, subnormals, -0.0 and
/// any finite bit pattern.
fn odd_f32(u: &mut Unstructured<'_>) -> Result<f32> {
    Ok(match u.int_in_range(0u8..=7)? {
        0 => 0.0,
        1 => -0.0,
        2 => 1e-30,
        3 => f32::MAX,
        4 => -3.4e38,
        5 => f32::from_bits(u.int_in_range(1u32..=0x007F_FFFF)?),
        6 => {
            let x = f32::from_bits(u.arbitrary()?);
            if x.is_finite() {
                x
            } else {
                1.5
            }
        }
        _ => f32::from(u.int_in_range(-2000i16..=2000)?) / 20.0,
    })
}

/// Coordinates small enough that bounds computed from them cannot overflow.
fn coord(u: &mut Unstructured<'_>) -> Result<f32> {
    Ok(match u.int_in_range(0u8..=4)? {
        0 => -0.0,
        1 => 1e-30,
        2 => 1e30,
        3 => f32::from_bits(u.int_in_range(1u32..=0x007F_FFFF)?),
        _ => f32::from(u.int_in_range(-1000i16..=1000)?) / 100.0,
    })
}

/// A morph delta component: within the ±1e6 the `MRPH` rules allow.
fn delta(u: &mut Unstructured<'_>) -> Result<f32> {
    Ok(match u.int_in_range(0u8..=3)? {
        0 => -0.0,
        1 => 1e6,
        _ => f32::from(u.int_in_range(-1000i16..=1000)?) / 100.0,
    })
}

fn arr<const N: usize>(
    u: &mut Unstructured<'_>,
    f: fn(&mut Unstructured<'_>) -> Result<f32>,
) -> Result<[f32; N]> {
    let mut a = [0.0f32; N];
    for x in &mut a {
        *x = f(u)?;
    }
    Ok(a)
}

/// Names with characters the text form must escape (any but NUL).
fn name(u: &mut Unstructured<'_>) -> Result<String> {
    let n = u.int_in_range(0usize..=10)?;
    let mut s = String::new();
    for _ in 0..n {
        let c = match u.int_in_range(0u8..=5)? {
            0 => *u.choose(&[
                '"', '\\', '\t', '\n', '\u{1}', '\u{7f}', 'é', '€', '😀', ' ',
            ])?,
            // Any scalar value but NUL, which GOM strings cannot hold.
            1 => char::from_u32(u.int_in_range(1u32..=0x10FFFF)?).unwrap_or('x'),
            _ => char::from(u.int_in_range(b'a'..=b'z')?),
        };
        s.push(c);
    }
    Ok(s)
}

fn affine(u: &mut Unstructured<'_>) -> Result<Mat4> {
    Ok(match u.int_in_range(0u8..=3)? {
        0 => IDENTITY,
        1 => arr::<16>(u, odd_f32)?,
        _ => {
            let mut r = IDENTITY;
            for row in 0..3 {
                for col in 0..3 {
                    r[row * 4 + col] = f32::from(u.int_in_range(-200i16..=200)?) / 100.0;
                }
            }
            let t = arr::<3>(u, coord)?;
            r[12..15].copy_from_slice(&t);
            r
        }
    })
}

fn unit_quat(u: &mut Unstructured<'_>) -> Result<[f32; 4]> {
    if u.ratio(1u8, 4)? {
        return Ok(*u.choose(&[[0.0, 0.0, 0.0, 1.0], [-0.0, 0.0, -0.0, -1.0]])?);
    }
    let q: [f32; 4] = arr::<4>(u, |u| Ok(f32::from(u.int_in_range(-100i8..=100)?) / 100.0))?;
    let l = q
        .iter()
        .map(|&x| f64::from(x) * f64::from(x))
        .sum::<f64>()
        .sqrt();
    if l < 0.1 {
        return Ok([0.0, 0.0, 0.0, 1.0]);
    }
    Ok(q.map(|x| (f64::from(x) / l) as f32))
}

fn bones(u: &mut Unstructured<'_>) -> Result<Vec<Bone>> {
    let n = u.int_in_range(0usize..=6)?;
    (0..n)
        .map(|i| {
            let parent = if i == 0 {
                -1
            } else {
                u.int_in_range(-1i32..=i as i32 - 1)?
            };
            Ok(Bone {
                name: name(u)?,
                path: name(u)?,
                parent,
                bind_local: affine(u)?,
            })
        })
        .collect()
}

/// Skin weights: mostly following D7 (sorted, summing to one from a power of two),
/// sometimes any non-negative weights (which only clear weightsPass).
fn skin(u: &mut Unstructured<'_>, bone_count: usize) -> Result<SkinWeights> {
    let mut s = SkinWeights::default();
    if u.ratio(1u8, 7)? {
        for k in 0..4 {
            s.bones[k] = u.int_in_range(0..=bone_count as u16 - 1)?;
            s.weights[k] = f32::from(u.int_in_range(0u8..=100)?) / 100.0;
        }
        return Ok(s);
    }
    let k = u.int_in_range(1..=bone_count.min(4))?;
    let mut picked: Vec<u16> = (0..bone_count as u16).collect();
    let mut pairs = Vec::new();
    for _ in 0..k {
        let i = u.choose_index(picked.len())?;
        pairs.push((picked.remove(i), u.int_in_range(1u32..=15)?));
    }
    let total: u32 = pairs.iter().map(|p| p.1).sum();
    let mut ws: Vec<f32> = pairs.iter().map(|p| p.1 as f32 / total as f32).collect();
    let rest: f32 = ws[1..].iter().sum();
    ws[0] = 1.0 - rest;
    let mut sorted: Vec<(u16, f32)> = pairs.iter().map(|p| p.0).zip(ws).collect();
    sorted.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    for (slot, (b, w)) in sorted.into_iter().enumerate() {
        s.bones[slot] = b;
        s.weights[slot] = w;
    }
    Ok(s)
}

fn column<T>(
    u: &mut Unstructured<'_>,
    n: usize,
    mut f: impl FnMut(&mut Unstructured<'_>) -> Result<T>,
) -> Result<Option<Vec<T>>> {
    if !u.arbitrary::<bool>()? {
        return Ok(None);
    }
    (0..n).map(|_| f(u)).collect::<Result<Vec<T>>>().map(Some)
}

fn mesh(u: &mut Unstructured<'_>, bones: &[Bone], materials: usize) -> Result<MeshPart> {
    let vc = u.int_in_range(0usize..=8)?;
    let positions = (0..vc).map(|_| arr::<3>(u, coord)).collect::<Result<_>>()?;
    let normals = column(u, vc, |u| arr::<3>(u, odd_f32))?;
    let tangents = column(u, vc, |u| {
        let v = arr::<3>(u, odd_f32)?;
        let w = if u.arbitrary()? { 1.0 } else { -1.0 };
        Ok([v[0], v[1], v[2], w])
    })?;
    let uv0 = column(u, vc, |u| arr::<2>(u, odd_f32))?;
    let uv1 = column(u, vc, |u| arr::<2>(u, odd_f32))?;
    let colors = column(u, vc, |u| u.arbitrary::<[u8; 4]>())?;
    let skinned = !bones.is_empty() && u.arbitrary::<bool>()?;
    let skin_column = if skinned {
        Some(
            (0..vc)
                .map(|_| skin(u, bones.len()))
                .collect::<Result<_>>()?,
        )
    } else {
        None
    };
    // The SKNX extension: influences five to eight, a method, dual-quaternion shares.
    let skin_extra = if skinned && u.arbitrary::<bool>()? {
        Some((0..vc).map(|_| skin(u, bones.len())).collect::<Result<_>>()?)
    } else {
        None
    };
    let skinning = if skinned {
        *u.choose(&gom::SkinningMethod::ALL)?
    } else {
        gom::SkinningMethod::Linear
    };
    let dq_weights = if skinning == gom::SkinningMethod::Blended {
        Some(
            (0..vc)
                .map(|_| Ok(f32::from(u.int_in_range(0u8..=8)?) / 8.0))
                .collect::<Result<_>>()?,
        )
    } else {
        None
    };
    let tri_count = if vc == 0 {
        0
    } else {
        u.int_in_range(0u32..=8)?
    };
    let indices: Vec<u32> = (0..tri_count * 3)
        .map(|_| u.int_in_range(0..=vc as u32 - 1))
        .collect::<Result<_>>()?;
    // Contiguous triangle-aligned submeshes covering the indices.
    let mut cuts = vec![0, tri_count];
    for _ in 0..u.int_in_range(0usize..=4)? {
        cuts.push(u.int_in_range(0..=tri_count)?);
    }
    cuts.sort_unstable();
    cuts.dedup();
    let submeshes = cuts
        .windows(2)
        .map(|w| {
            Ok(Submesh {
                material_index: u.int_in_range(-1..=materials as i32)?,
                index_start: w[0] * 3,
                index_count: (w[1] - w[0]) * 3,
            })
        })
        .collect::<Result<_>>()?;
    let inverse_bind = if !skinned {
        Vec::new()
    } else if u.arbitrary()? {
        gom::math::bind_world(bones)
            .iter()
            .map(|w| {
                gom::math::inverse_affine(w)
                    .filter(|m| m.iter().all(|x| x.is_finite()))
                    .unwrap_or(IDENTITY)
            })
            .collect()
    } else {
        (0..bones.len()).map(|_| affine(u)).collect::<Result<_>>()?
    };
    let mesh_bind_geo_to_model = if u.arbitrary()? {
        Some(affine(u)?).filter(|m| m.iter().all(|x| x.abs() < 100.0))
    } else {
        None
    };
    Ok(MeshPart {
        name: name(u)?,
        vertices: Vertices {
            positions,
            normals,
            tangents,
            uv0,
            uv1,
            colors,
            skin: skin_column,
            skin_extra,
            dq_weights,
        },
        indices,
        submeshes,
        inverse_bind,
        mesh_bind_geo_to_model,
        bounds: None,
        skinning,
        morph_targets: Vec::new(),
    })
    .and_then(|m| morph_targets(u, m))
}

/// Up to three morph targets (the `MRPH` extension) over a subset of the vertices.
fn morph_targets(u: &mut Unstructured<'_>, mut m: MeshPart) -> Result<MeshPart> {
    let vc = m.vertices.len() as u32;
    let normals = m.vertices.normals.is_some() && u.arbitrary()?;
    let tangents = m.vertices.tangents.is_some() && u.arbitrary()?;
    for k in 0..u.int_in_range(0usize..=3)? {
        let indices: Vec<u32> = (0..vc).filter(|_| u.arbitrary().unwrap_or(false)).collect();
        let deltas = |u: &mut Unstructured<'_>, on: bool| -> Result<Option<Vec<[f32; 3]>>> {
            if !on {
                return Ok(None);
            }
            indices.iter().map(|_| arr::<3>(u, delta)).collect::<Result<_>>().map(Some)
        };
        let positions = deltas(u, true)?.unwrap_or_default();
        let normals = deltas(u, normals)?;
        let tangents = deltas(u, tangents)?;
        let default_weight = *u.choose(&[0.0, 0.0, 1.0, -0.5, 1000.0])?;
        m.morph_targets.push(gom::morph::MorphTarget {
            name: format!("t{k}"),
            default_weight,
            indices,
            positions,
            normals,
            tangents,
        });
    }
    Ok(m)
}

/// Weight tracks (the `MWGT` extension) on some of the meshes' targets.
fn weight_tracks(
    u: &mut Unstructured<'_>,
    meshes: &[MeshPart],
    duration: f32,
) -> Result<Vec<gom::morph::WeightTrack>> {
    let mut out = Vec::new();
    for (mi, m) in meshes.iter().enumerate() {
        for ti in 0..m.morph_targets.len() {
            if !u.arbitrary::<bool>()? {
                continue;
            }
            let keys = key_times(u, duration)?
                .into_iter()
                .map(|time| {
                    Ok(gom::morph::WeightKey {
                        time,
                        weight: f32::from(u.int_in_range(0u8..=8)?) / 4.0 - 1.0,
                    })
                })
                .collect::<Result<_>>()?;
            let interpolation = if u.arbitrary()? {
                gom::morph::WeightInterpolation::Step
            } else {
                gom::morph::WeightInterpolation::Linear
            };
            out.push(gom::morph::WeightTrack {
                mesh: mi as u32,
                target: ti as u32,
                interpolation,
                keys,
            });
        }
    }
    Ok(out)
}

/// One to four distinct key times within `[0, duration]`, ascending.
fn key_times(u: &mut Unstructured<'_>, duration: f32) -> Result<Vec<f32>> {
    let mut times: Vec<f32> = (0..u.int_in_range(1usize..=4)?)
        .map(|_| Ok((f32::from(u.int_in_range(0u8..=100)?) / 100.0 * duration).min(duration)))
        .collect::<Result<_>>()?;
    times.sort_by(f32::total_cmp);
    times.dedup();
    Ok(times)
}

fn clip(u: &mut Unstructured<'_>, bone_count: usize) -> Result<Clip> {
    let duration = match u.int_in_range(0u8..=4)? {
        0 => 0.0,
        1 => 1e-30,
        2 => 3.4e38,
        _ => f32::from(u.int_in_range(0u16..=1000)?) / 100.0,
    };
    let sample_rate = match u.int_in_range(0u8..=3)? {
        0 => 30.0,
        1 => 1e-30,
        _ => f32::from(u.int_in_range(0u8..=120)?),
    };
    let mut tracks = Vec::new();
    for bone in 0..bone_count as u32 {
        if !u.arbitrary::<bool>()? {
            continue;
        }
        let keys = key_times(u, duration)?
            .into_iter()
            .map(|time| {
                Ok(Key {
                    time,
                    translation: arr::<3>(u, odd_f32)?,
                    rotation: unit_quat(u)?,
                    scale: arr::<3>(u, odd_f32)?,
                })
            })
            .collect::<Result<_>>()?;
        tracks.push(Track { bone, keys });
    }
    let root_bone_index = if bone_count > 0 && u.arbitrary()? {
        u.int_in_range(0..=bone_count as i32 - 1)?
    } else {
        -1
    };
    let flags = if root_bone_index >= 0 && u.arbitrary()? {
        ClipFlags::HAS_ROOT_MOTION
    } else {
        ClipFlags::empty()
    };
    Ok(Clip {
        name: name(u)?,
        duration,
        sample_rate,
        root_bone_index,
        flags,
        tracks,
        // compressed clips have their own target (`clpz`), built from encoded clips
        compressed: None,
        weight_tracks: Vec::new(),
        extras: Default::default(),
    })
}

/// A structurally valid model (see the module documentation).
pub fn model(u: &mut Unstructured<'_>) -> Result<Model> {
    let bones = bones(u)?;
    let materials = (0..u.int_in_range(0usize..=2)?)
        .map(|_| {
            Ok(Material {
                name: name(u)?,
                base_color_texture: if u.arbitrary()? { Some(name(u)?) } else { None },
                base_color_factor: arr::<4>(u, odd_f32)?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let meshes: Vec<MeshPart> = (0..u.int_in_range(0usize..=2)?)
        .map(|_| mesh(u, &bones, materials.len()))
        .collect::<Result<_>>()?;
    let mut clips: Vec<Clip> = (0..u.int_in_range(0usize..=2)?)
        .map(|_| clip(u, bones.len()))
        .collect::<Result<_>>()?;
    for c in &mut clips {
        c.weight_tracks = weight_tracks(u, &meshes, c.duration)?;
    }
    Ok(Model {
        header: Header {
            source_hash: u.arbitrary()?,
            converter_version: name(u)?,
            validation_flags: ValidationFlags::empty(),
        },
        skeleton: Skeleton { bones },
        materials,
        meshes,
        clips,
    })
}
