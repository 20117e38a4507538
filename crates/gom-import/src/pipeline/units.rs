//! Units and axes: `--scale`, `--unit`, `--up` and `--forward`, applied to a whole
//! model in one place whatever format it came from.
//!
//! Each importer converts its file from the space the file *declares* (its header,
//! or the format's fixed convention) into GOM space (left-handed, X right, Y up,
//! Z forward, metres) and says what it took the file to be as a [`SourceSpace`]: the
//! file's axes that became GOM's X, Y and Z, and the length of one file unit.
//!
//! When the header lies, the overrides name the truth: `--up A` and `--forward B`
//! are the file's axes that should have become GOM's Y and Z, and `--unit U` the
//! length of its unit. With `D` the importer's map (file axes → GOM axes; a signed
//! permutation, perhaps a mirror), the true right axis is
//! `r = det(r_d, u_d, f_d) · (u × f)` (the file's handedness is kept), and the model
//! must be turned by the rotation `C` with `C·D(r) = X`, `C·D(u) = Y`, `C·D(f) = Z`
//! (`det C = 1`, again a signed permutation), and scaled by
//! `s = scale · unit / declared unit`.
//!
//! Turning and scaling the model by `K = s·C` is a change of frame: every
//! model-space point `p` becomes `K·p`, so every matrix `M` between model-space
//! frames (bind-local transforms, inverse binds, the geometry-to-model matrix) becomes
//! `K·M·K⁻¹` (rotation part `C·R·Cᵀ`, translation `s·C·t`), every key's translation
//! `s·C·t`, rotation `q_C·q·q_C⁻¹` and scale its components permuted by `C`. Normals
//! and tangents turn with `C`; bounds are recomputed from the turned box. A
//! scale-only change (`C = I`) multiplies translations and positions by `s` and
//! leaves everything else bit for bit.

use super::error::StepError;
use super::options::{Axis, LengthUnit};
use glam::{Mat3, Quat, Vec3};

/// The space an importer took its file to be in: the file axes that became GOM's
/// X (right), Y (up) and Z (forward), and the length of one file unit in metres.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceSpace {
    /// The file axis that became GOM's +X.
    pub right: Axis,
    /// The file axis that became GOM's +Y.
    pub up: Axis,
    /// The file axis that became GOM's +Z.
    pub forward: Axis,
    /// One file unit, in metres.
    pub unit_metres: f64,
}

impl SourceSpace {
    /// GOM space itself (GOM files, and models whose importer reports no other).
    pub const GOM: SourceSpace = SourceSpace {
        right: Axis::PosX,
        up: Axis::PosY,
        forward: Axis::PosZ,
        unit_metres: 1.0,
    };

    /// glTF 2.0's fixed space as the importer reads it: right-handed, Y up, metres,
    /// Z mirrored (so the file's −Z becomes GOM's forward).
    pub const GLTF: SourceSpace = SourceSpace {
        right: Axis::PosX,
        up: Axis::PosY,
        forward: Axis::NegZ,
        unit_metres: 1.0,
    };

    /// `det(right, up, forward)`: +1 for a frame of GOM's handedness, −1 for a mirror.
    fn handedness(&self) -> f32 {
        Mat3::from_cols(self.right.vector(), self.up.vector(), self.forward.vector()).determinant()
    }

    /// Where the file direction `v` lands in GOM space under this reading.
    fn to_gom(self, v: Vec3) -> Vec3 {
        Vec3::new(
            v.dot(self.right.vector()),
            v.dot(self.up.vector()),
            v.dot(self.forward.vector()),
        )
    }
}

/// The overrides of [`crate::options::ImportOptions`] this module applies.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpaceOverrides {
    /// Uniform scale (positive, finite).
    pub scale: f32,
    /// The file's true up axis.
    pub up: Option<Axis>,
    /// The file's true forward axis.
    pub forward: Option<Axis>,
    /// The file's true unit.
    pub unit: Option<LengthUnit>,
}

/// What [`correct_space`] did, for the report.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SpaceReport {
    /// What the importer took the file to be.
    pub declared: SourceSpace,
    /// What the overrides say it is.
    pub applied: SourceSpace,
    /// The uniform scale applied (`scale · unit / declared unit`).
    pub scale: f32,
    /// The rotation applied, as the GOM axes X, Y and Z became.
    pub rotation: [Axis; 3],
}

/// The space the overrides say the file is in, given what the importer declared.
pub fn true_space(declared: &SourceSpace, o: &SpaceOverrides) -> Result<SourceSpace, StepError> {
    let (up, forward) = match (o.up, o.forward) {
        (None, None) => (declared.up, declared.forward),
        (Some(u), Some(f)) => (u, f),
        (Some(u), None) => (u, turned_with(declared.up, u, declared.forward)),
        (None, Some(f)) => (turned_with(declared.forward, f, declared.up), f),
    };
    if up.vector().dot(forward.vector()) != 0.0 {
        return Err(StepError::Axes { up, forward });
    }
    let right_vector = up.vector().cross(forward.vector()) * declared.handedness();
    let right = Axis::of_vector(right_vector).unwrap_or(Axis::PosX);
    let unit_metres = o.unit.map_or(declared.unit_metres, LengthUnit::metres);
    Ok(SourceSpace {
        right,
        up,
        forward,
        unit_metres,
    })
}

/// `other` kept when it stays perpendicular to `to`, else turned by the shortest
/// rotation that takes `from` to `to`: the file read as turned as a whole.
fn turned_with(from: Axis, to: Axis, other: Axis) -> Axis {
    if other.vector().dot(to.vector()) == 0.0 {
        return other;
    }
    let turn = Quat::from_rotation_arc(from.vector(), to.vector());
    Axis::of_vector(turn * other.vector()).unwrap_or(other)
}

/// Turns and scales `model` from the `declared` space to the one the overrides
/// name (see the module documentation). Returns what was done, or `None` when the
/// overrides change nothing.
pub fn correct_space(
    model: &mut gom::Model,
    declared: &SourceSpace,
    o: &SpaceOverrides,
) -> Result<Option<SpaceReport>, StepError> {
    if !(o.scale.is_finite() && o.scale > 0.0) {
        return Err(StepError::Scale(o.scale));
    }
    let applied = true_space(declared, o)?;
    let rotation = Mat3::from_cols(
        declared.to_gom(applied.right.vector()),
        declared.to_gom(applied.up.vector()),
        declared.to_gom(applied.forward.vector()),
    )
    .transpose();
    let scale = (f64::from(o.scale) * applied.unit_metres / declared.unit_metres) as f32;
    if !(scale.is_finite() && scale > 0.0) {
        return Err(StepError::UnitScale(scale));
    }
    let frame = Frame::new(rotation, scale);
    if frame.is_identity() {
        return Ok(None);
    }
    frame.apply(model);
    let axis = |v: Vec3| Axis::of_vector(v).unwrap_or(Axis::PosX);
    Ok(Some(SpaceReport {
        declared: *declared,
        applied,
        scale,
        rotation: [
            axis(rotation * Vec3::X),
            axis(rotation * Vec3::Y),
            axis(rotation * Vec3::Z),
        ],
    }))
}

/// A change of frame `K = s·C` ([`correct_space`]): a signed-permutation rotation
/// and a uniform scale.
#[derive(Debug, Clone, Copy)]
pub struct Frame {
    rotation: Mat3,
    quat: Quat,
    scale: f32,
    turns: bool,
}

impl Frame {
    /// The frame change turning by `rotation` (a proper signed permutation) and
    /// scaling by `scale`.
    pub fn new(rotation: Mat3, scale: f32) -> Frame {
        Frame {
            rotation,
            quat: Quat::from_mat3(&rotation).normalize(),
            scale,
            turns: rotation != Mat3::IDENTITY,
        }
    }

    fn is_identity(&self) -> bool {
        !self.turns && self.scale == 1.0
    }

    /// A model-space point.
    fn point(&self, p: [f32; 3]) -> [f32; 3] {
        let v = Vec3::from(p);
        let v = if self.turns { self.rotation * v } else { v };
        (v * self.scale).into()
    }

    /// A direction (turned, not scaled).
    fn direction(&self, d: [f32; 3]) -> [f32; 3] {
        if self.turns {
            (self.rotation * Vec3::from(d)).into()
        } else {
            d
        }
    }

    /// A GOM matrix between model-space frames: `K·M·K⁻¹`. GOM stores row-vector
    /// matrices row-major, which is glam's column-major layout of the column-vector
    /// matrix, so the rotation part conjugates as `C·R·Cᵀ` directly.
    fn matrix(&self, m: &gom::Mat4) -> gom::Mat4 {
        let g = glam::Mat4::from_cols_array(m);
        let mut r = g;
        if self.turns {
            let c = glam::Mat4::from_mat3(self.rotation);
            r = c * g * c.transpose();
        }
        let t = self.point([m[12], m[13], m[14]]);
        let mut out = r.to_cols_array();
        out[12..15].copy_from_slice(&t);
        out
    }

    /// A key: translation as a point, rotation conjugated, scale permuted.
    fn key(&self, k: &mut gom::Key) {
        k.translation = self.point(k.translation);
        if self.turns {
            let q = Quat::from_array(k.rotation);
            k.rotation = (self.quat * q * self.quat.conjugate()).to_array();
            let abs = Mat3::from_cols(
                self.rotation.x_axis.abs(),
                self.rotation.y_axis.abs(),
                self.rotation.z_axis.abs(),
            );
            k.scale = (abs * Vec3::from(k.scale)).into();
        }
    }

    /// Applies the change of frame to every part of `model` that lives in model space.
    pub fn apply(&self, model: &mut gom::Model) {
        for bone in &mut model.skeleton.bones {
            bone.bind_local = self.matrix(&bone.bind_local);
        }
        for mesh in &mut model.meshes {
            self.apply_mesh(mesh);
        }
        for clip in &mut model.clips {
            for track in &mut clip.tracks {
                track.keys.iter_mut().for_each(|k| self.key(k));
            }
        }
    }

    fn apply_mesh(&self, mesh: &mut gom::MeshPart) {
        let v = &mut mesh.vertices;
        v.positions.iter_mut().for_each(|p| *p = self.point(*p));
        if let Some(normals) = &mut v.normals {
            normals.iter_mut().for_each(|n| *n = self.direction(*n));
        }
        if let Some(tangents) = &mut v.tangents {
            for t in tangents {
                let [x, y, z] = self.direction([t[0], t[1], t[2]]);
                *t = [x, y, z, t[3]];
            }
        }
        for ib in &mut mesh.inverse_bind {
            *ib = self.matrix(ib);
        }
        if let Some(g) = &mut mesh.mesh_bind_geo_to_model {
            *g = self.matrix(g);
        }
        if let Some(b) = &mut mesh.bounds {
            let a = self.point(b.aabb_min);
            let z = self.point(b.aabb_max);
            b.aabb_min = std::array::from_fn(|i| a[i].min(z[i]));
            b.aabb_max = std::array::from_fn(|i| a[i].max(z[i]));
            b.sphere_center = self.point(b.sphere_center);
            b.sphere_radius *= self.scale;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn overrides(up: Option<Axis>, forward: Option<Axis>) -> SpaceOverrides {
        SpaceOverrides {
            scale: 1.0,
            up,
            forward,
            unit: None,
        }
    }

    #[test]
    fn up_alone_turns_the_forward_axis_with_it() {
        // A glTF file that is really Z-up (as Blender writes without conversion):
        // the file's +Z is up, and the file's forward turns from -Z to +Y.
        let t = true_space(&SourceSpace::GLTF, &overrides(Some(Axis::PosZ), None)).unwrap();
        assert_eq!(
            (t.up, t.forward, t.right),
            (Axis::PosZ, Axis::PosY, Axis::PosX)
        );
        assert!(true_space(
            &SourceSpace::GLTF,
            &overrides(Some(Axis::PosZ), Some(Axis::NegZ))
        )
        .is_err());
    }

    #[test]
    fn a_z_up_correction_lifts_a_point_that_lay_along_the_file_z() {
        // The importer put the file's (0, 0, 1) at GOM (0, 0, -1) (glTF mirror); the
        // file is Z-up, so that point must end straight up at GOM (0, 1, 0).
        let mut model = gom::Model::default();
        let mut v = gom::Vertices::default();
        v.positions.push([0.0, 0.0, -1.0]);
        model.meshes.push(gom::MeshPart {
            vertices: v,
            ..Default::default()
        });
        let o = overrides(Some(Axis::PosZ), None);
        let r = correct_space(&mut model, &SourceSpace::GLTF, &o).unwrap();
        assert!(r.is_some());
        let p = model.meshes[0].vertices.positions[0];
        assert_eq!(p, [0.0, 1.0, 0.0]);
    }
}
