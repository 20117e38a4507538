//! One LOD's meshes into GOM mesh parts: strips to triangle lists, palettes resolved to
//! skeleton bones, weights renormalised and sorted (D7), axes changed.

use gom::{MeshPart, SkinWeights, Submesh, Vertices};
use jpog::scene::MeshGeometry;

use super::axes::Basis;
use super::error::JpogImportError;
use super::skeleton::Skeleton;
use crate::optimize::skin::{limit_influences, DroppedInfluences};
use crate::report::{MeshReport, Report};

/// What converting the meshes counted, for the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct MeshStats {
    /// Stitch (degenerate) triangles skipped.
    pub stitches: usize,
    /// Vertices no strip draws or whose weights are all zero, bound rigidly.
    pub unweighted: usize,
}

fn finite(v: &[f32]) -> bool {
    v.iter().all(|x| x.is_finite())
}

/// What every mesh of a conversion shares.
pub(crate) struct MeshContext<'a> {
    /// The model's name, for errors.
    pub file: &'a str,
    /// The LOD converted.
    pub lod: usize,
    /// The skeleton.
    pub skeleton: &'a Skeleton,
    /// The axis change.
    pub basis: Basis,
    /// Counts for the report.
    pub stats: MeshStats,
    /// Influences dropped (never more than four in the game, so none in practice).
    pub dropped: DroppedInfluences,
}

/// Converts mesh `index` of the LOD. `material_index` is its entry in MATL.
pub(crate) fn convert(
    ctx: &mut MeshContext<'_>,
    index: usize,
    name: String,
    g: &MeshGeometry,
    material_index: i32,
    report: &mut Report,
) -> Result<MeshPart, JpogImportError> {
    let (file, lod, skeleton, basis) = (ctx.file, ctx.lod, ctx.skeleton, ctx.basis);
    let record = format!("lod {lod} mesh {index} (\"{}\")", g.material);
    let n = g.vertices.len();
    let mut positions = Vec::with_capacity(n);
    let mut normals = Vec::with_capacity(n);
    let mut uvs = Vec::with_capacity(n);
    let mut skin = Vec::with_capacity(n);
    let mut unweighted = 0usize;
    for (vi, v) in g.vertices.iter().enumerate() {
        if !(finite(&v.position) && finite(&v.normal) && finite(&v.uv)) {
            return Err(JpogImportError::Invalid {
                file: file.to_string(),
                record: format!("{record} vertex {vi}"),
                problem: "a position, normal or texture coordinate is not finite".into(),
            });
        }
        positions.push(basis.vector(v.position));
        normals.push(basis.vector(v.normal));
        uvs.push([v.uv[0] + 0.0, -v.uv[1] + 0.0]);
        let mut influences = [(0u16, 0.0f64); 4];
        let mut count = 0;
        for k in 0..4 {
            let bone = v.nodes[k].and_then(|node| skeleton.node_bone.get(node as usize));
            if let Some(&bone) = bone {
                influences[count] = (bone, f64::from(v.weights_u8[k]));
                count += 1;
            }
        }
        // a vertex no strip draws, or whose weights are all zero, is bound rigidly to
        // the skeleton's first bone
        let sw = match limit_influences(&influences[..count], &mut ctx.dropped) {
            Some(sw) => sw,
            None => {
                unweighted += 1;
                SkinWeights {
                    bones: [0; 4],
                    weights: [1.0, 0.0, 0.0, 0.0],
                }
            }
        };
        skin.push(sw);
    }
    if unweighted > 0 {
        if skeleton.bones.is_empty() {
            return Err(JpogImportError::Invalid {
                file: file.to_string(),
                record,
                problem: "the mesh has vertices but the model has no nodes to bind them to".into(),
            });
        }
        report.warn(format!(
            "{record}: {unweighted} vertex(es) are drawn by no strip or carry no weight; bound rigidly to bone \"{}\"",
            skeleton.bones[0].name
        ));
        ctx.stats.unweighted += unweighted;
    }
    let mut indices = Vec::with_capacity(g.triangles.len() * 3);
    for &t in &g.triangles {
        indices.extend_from_slice(&basis.triangle(t));
    }
    ctx.stats.stitches += g.stitches;
    let index_count = u32::try_from(indices.len()).map_err(|_| JpogImportError::Invalid {
        file: file.to_string(),
        record: record.clone(),
        problem: "more indices than 32 bits can count".into(),
    })?;
    let submeshes = if index_count == 0 {
        Vec::new()
    } else {
        vec![Submesh {
            material_index,
            index_start: 0,
            index_count,
        }]
    };
    report.meshes.push(MeshReport {
        name: name.clone(),
        vertices: n,
        triangles: g.triangles.len(),
        submeshes: submeshes.len(),
        skinned: true,
    });
    let mesh = MeshPart {
        morph_targets: Vec::new(),
        name,
        vertices: Vertices {
            positions,
            normals: Some(normals),
            uv0: Some(uvs),
            skin: Some(skin),
            ..Vertices::default()
        },
        indices,
        submeshes,
        inverse_bind: skeleton.inverse_bind.clone(),
        mesh_bind_geo_to_model: None,
        bounds: None,
        skinning: Default::default(),
    };
    // Finite positions far apart (±3e38) have a box or sphere beyond f32, which no
    // GOM file can hold: refused here, naming the mesh, rather than by the writer.
    if !gom::bounds::compute_bounds(&mesh).is_finite() {
        return Err(JpogImportError::Invalid {
            file: file.to_string(),
            record,
            problem:
                "the positions span more than f32 can bound (the mesh's box or sphere overflows)"
                    .into(),
        });
    }
    Ok(mesh)
}
