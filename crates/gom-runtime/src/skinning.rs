//! CPU skinning into caller-provided buffers (D1).

use glam::{Affine3A, Mat3A, Vec3A};

use crate::mesh::{skin_of, vec3a_at, Mesh};
use crate::palette::Palette;
use crate::Error;

/// Where skinned attributes go. Every buffer holds one entry per vertex. Leave a
/// buffer out to skip that attribute.
#[derive(Debug, Default)]
pub struct SkinTargets<'o> {
    /// Model-space positions.
    pub positions: Option<&'o mut [[f32; 3]]>,
    /// Unit normals.
    pub normals: Option<&'o mut [[f32; 3]]>,
    /// Unit tangents, w (handedness) copied.
    pub tangents: Option<&'o mut [[f32; 4]]>,
}

/// Skins `mesh` with `palette` (computed for this mesh) into `out`.
///
/// Skinned meshes: `p' = Σ w_k · (p * G * palette[b_k])` for up to four influences;
/// normals use each influence's inverse-transposed 3x3 and are renormalised; tangents
/// use the 3x3 itself, are renormalised and keep w. Static meshes are transformed by
/// `G` (copied when there is none). Nothing is allocated.
pub fn skin(mesh: &Mesh, palette: &Palette, out: SkinTargets<'_>) -> Result<(), Error> {
    let n = mesh.vertex_count();
    let check = |buffer: &'static str, len: Option<usize>| match len {
        Some(l) if l != n => Err(Error::BufferLength {
            buffer,
            expected: n,
            found: l,
        }),
        _ => Ok(()),
    };
    check("positions", out.positions.as_ref().map(|b| b.len()))?;
    check("normals", out.normals.as_ref().map(|b| b.len()))?;
    check("tangents", out.tangents.as_ref().map(|b| b.len()))?;
    let offsets = mesh.offsets();
    let missing = |attribute| Error::MissingAttribute {
        mesh: mesh.name.to_string(),
        attribute,
    };
    let no = match (&out.normals, offsets.normal) {
        (Some(_), None) => return Err(missing("normal")),
        (_, o) => o.unwrap_or(0),
    };
    let to = match (&out.tangents, offsets.tangent) {
        (Some(_), None) => return Err(missing("tangent")),
        (_, o) => o.unwrap_or(0),
    };
    let expected = if mesh.is_skinned() {
        mesh.bone_count()
    } else {
        1
    };
    if palette.skin.len() != expected || palette.normal.len() != expected {
        return Err(Error::BoneCount {
            what: "skinning palette",
            expected,
            found: palette.skin.len(),
        });
    }
    let stride = mesh.stride_words();
    let words = mesh.vertex_words();
    let so = offsets.skin;
    let skinned = so.is_some() && !palette.skin.is_empty();
    let so = so.unwrap_or(0);
    let pal = &palette.skin[..];
    let nrm = &palette.normal[..];
    if !mesh.is_skinned() || !skinned {
        // Static mesh (or a skinned mesh of a skeleton without bones: all weights are
        // zero, every vertex collapses to the origin).
        let (m, nm) = if mesh.is_skinned() {
            (Affine3A::ZERO, Mat3A::ZERO)
        } else {
            (pal[0], nrm[0])
        };
        return per_vertex(words, stride, out, |_, _| (m, nm), no, to);
    }
    let last = pal.len() - 1;
    match out {
        SkinTargets {
            positions: Some(p),
            normals: Some(nb),
            tangents: None,
        } => {
            if palette.rigid {
                skin_pn::<true>(words, stride, so, no, pal, nrm, last, p, nb);
            } else {
                skin_pn::<false>(words, stride, so, no, pal, nrm, last, p, nb);
            }
            Ok(())
        }
        SkinTargets {
            positions: Some(p),
            normals: None,
            tangents: None,
        } => {
            for (v, o) in words.chunks_exact(stride).zip(p.iter_mut()) {
                let m = blend_affine(v, so, pal, last);
                *o = m.transform_point3a(vec3a_at(v, 0)).to_array();
            }
            Ok(())
        }
        out => per_vertex(
            words,
            stride,
            out,
            |v, rigid_ok| {
                let m = blend_affine(v, so, pal, last);
                let nm = if rigid_ok && palette.rigid {
                    m.matrix3
                } else {
                    blend_normal(v, so, nrm, last)
                };
                (m, nm)
            },
            no,
            to,
        ),
    }
}

/// The weighted sum of the four influences' matrices of vertex `v`.
#[inline(always)]
pub(crate) fn blend_affine(v: &[f32], so: usize, pal: &[Affine3A], last: usize) -> Affine3A {
    let (b, w) = skin_of(v, so);
    let m0 = &pal[(b[0] as usize).min(last)];
    let m1 = &pal[(b[1] as usize).min(last)];
    let m2 = &pal[(b[2] as usize).min(last)];
    let m3 = &pal[(b[3] as usize).min(last)];
    let (w0, w1, w2, w3) = (
        Vec3A::splat(w[0]),
        Vec3A::splat(w[1]),
        Vec3A::splat(w[2]),
        Vec3A::splat(w[3]),
    );
    let c = |f: fn(&Affine3A) -> Vec3A| f(m0) * w0 + f(m1) * w1 + f(m2) * w2 + f(m3) * w3;
    Affine3A::from_cols(
        c(|m| m.matrix3.x_axis),
        c(|m| m.matrix3.y_axis),
        c(|m| m.matrix3.z_axis),
        c(|m| m.translation),
    )
}

/// The weighted sum of the four influences' normal matrices of vertex `v`.
#[inline(always)]
fn blend_normal(v: &[f32], so: usize, nrm: &[Mat3A], last: usize) -> Mat3A {
    let (b, w) = skin_of(v, so);
    let m0 = &nrm[(b[0] as usize).min(last)];
    let m1 = &nrm[(b[1] as usize).min(last)];
    let m2 = &nrm[(b[2] as usize).min(last)];
    let m3 = &nrm[(b[3] as usize).min(last)];
    let (w0, w1, w2, w3) = (
        Vec3A::splat(w[0]),
        Vec3A::splat(w[1]),
        Vec3A::splat(w[2]),
        Vec3A::splat(w[3]),
    );
    let c = |f: fn(&Mat3A) -> Vec3A| f(m0) * w0 + f(m1) * w1 + f(m2) * w2 + f(m3) * w3;
    Mat3A::from_cols(c(|m| m.x_axis), c(|m| m.y_axis), c(|m| m.z_axis))
}

/// The hot path: positions and normals of a skinned mesh.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn skin_pn<const RIGID: bool>(
    words: &[f32],
    stride: usize,
    so: usize,
    no: usize,
    pal: &[Affine3A],
    nrm: &[Mat3A],
    last: usize,
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
) {
    for ((v, p), n) in words
        .chunks_exact(stride)
        .zip(positions.iter_mut())
        .zip(normals.iter_mut())
    {
        let m = blend_affine(v, so, pal, last);
        *p = m.transform_point3a(vec3a_at(v, 0)).to_array();
        let nm = if RIGID {
            m.matrix3
        } else {
            blend_normal(v, so, nrm, last)
        };
        *n = (nm * vec3a_at(v, no)).normalize_or_zero().to_array();
    }
}

/// The general path: any combination of outputs, the matrices given per vertex by
/// `matrices(vertex words, normal may use the 3x3)`.
fn per_vertex(
    words: &[f32],
    stride: usize,
    out: SkinTargets<'_>,
    matrices: impl Fn(&[f32], bool) -> (Affine3A, Mat3A),
    no: usize,
    to: usize,
) -> Result<(), Error> {
    let SkinTargets {
        mut positions,
        mut normals,
        mut tangents,
    } = out;
    for (i, v) in words.chunks_exact(stride).enumerate() {
        let (m, nm) = matrices(v, true);
        if let Some(p) = positions.as_deref_mut().and_then(|b| b.get_mut(i)) {
            *p = m.transform_point3a(vec3a_at(v, 0)).to_array();
        }
        if let Some(n) = normals.as_deref_mut().and_then(|b| b.get_mut(i)) {
            *n = (nm * vec3a_at(v, no)).normalize_or_zero().to_array();
        }
        if let Some(t) = tangents.as_deref_mut().and_then(|b| b.get_mut(i)) {
            let d = (m.matrix3 * vec3a_at(v, to)).normalize_or_zero();
            let w = v.get(to + 3).copied().unwrap_or(1.0);
            *t = [d.x, d.y, d.z, w];
        }
    }
    Ok(())
}
