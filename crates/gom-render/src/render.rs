//! Rendering one pose of one model: options, shading, the ground grid and the skeleton
//! overlay.

use std::collections::BTreeMap;

use gom::Model;

use crate::camera::{Aabb, Camera, Projected, Projection, View};
use crate::error::RenderError;
use crate::image::Image;
use crate::pose::{normalize, pose_bounds, ClipSampler, Pose, PosedMesh, Skinner};
use crate::raster::{draw_dot, draw_line, fill_triangle, Frame};
use crate::texture::{sample, Filter};

/// Background colour of every render.
pub const BACKGROUND: [u8; 4] = [48, 52, 60, 255];
/// Colour of the ground grid.
pub const GRID_COLOR: [u8; 4] = [96, 102, 116, 255];
/// Colour of the skeleton overlay's bones.
pub const BONE_COLOR: [u8; 4] = [255, 210, 0, 255];
/// Colour of the skeleton overlay's joints.
pub const JOINT_COLOR: [u8; 4] = [255, 64, 64, 255];
/// Base colour of triangles without a material.
pub const DEFAULT_BASE_COLOR: [f32; 4] = [0.8, 0.8, 0.8, 1.0];
/// Direction towards the light in view space (x right, y up, z away from the viewer):
/// from the upper left, in front of the model. `(-1, 2, -2) / 3`, of unit length.
pub const LIGHT_DIRECTION: [f32; 3] = [-1.0 / 3.0, 2.0 / 3.0, -2.0 / 3.0];
/// Light that reaches every surface.
pub const AMBIENT: f32 = 0.25;
/// Strength of the directional light: a surface facing it gets `AMBIENT + DIFFUSE`.
pub const DIFFUSE: f32 = 0.75;

/// Base-colour textures supplied by the caller.
#[derive(Debug, Clone, Copy, Default)]
pub enum TextureSource<'a> {
    /// Base-colour factors only.
    #[default]
    None,
    /// RGBA8 images keyed by material index; materials without an entry use their
    /// factor only.
    ByMaterial {
        /// Images by material index.
        images: &'a BTreeMap<usize, Image>,
        /// Sampling filter.
        filter: Filter,
    },
}

impl<'a> TextureSource<'a> {
    fn get(&self, material: usize) -> Option<(&'a Image, Filter)> {
        match self {
            TextureSource::None => None,
            TextureSource::ByMaterial { images, filter } => {
                images.get(&material).map(|i| (i, *filter))
            }
        }
    }
}

/// What to render and how.
#[derive(Debug, Clone, Copy)]
pub struct RenderOptions<'a> {
    /// Image width and height in pixels.
    pub size: (u32, u32),
    /// Camera direction.
    pub view: View,
    /// Perspective or orthographic.
    pub projection: Projection,
    /// A clip name and a time in seconds; `None` renders the bind pose.
    pub clip: Option<(&'a str, f32)>,
    /// Draw bones and joints on top.
    pub skeleton_overlay: bool,
    /// Base-colour textures.
    pub textures: TextureSource<'a>,
    /// Draw the ground grid at the pose's lowest point.
    pub grid: bool,
}

impl Default for RenderOptions<'_> {
    fn default() -> Self {
        RenderOptions {
            size: (512, 512),
            view: View::Front,
            projection: Projection::Perspective,
            clip: None,
            skeleton_overlay: false,
            textures: TextureSource::None,
            grid: true,
        }
    }
}

/// Renders `model` as `options` say: the bind pose, or the clip at its time.
pub fn render(model: &Model, options: &RenderOptions) -> Result<Image, RenderError> {
    let pose = match options.clip {
        Some((name, time)) => ClipSampler::new(model, name)?.sample(time)?,
        None => Pose::bind(model)?,
    };
    render_pose(model, &pose, options)
}

/// Renders `model` in the given `pose` (`options.clip` is ignored), framed on the
/// pose's own bounds. The pose must be one of `model`'s skeleton (the runtime checks
/// the bone count when it skins).
pub fn render_pose(
    model: &Model,
    pose: &Pose,
    options: &RenderOptions,
) -> Result<Image, RenderError> {
    let (w, h) = options.size;
    let skinner = Skinner::new(model)?;
    let posed = skinner.pose(pose)?;
    let bounds = pose_bounds(&posed, pose, options.skeleton_overlay);
    let camera = Camera::frame(options.view, options.projection, &bounds, w, h);
    draw_posed(model, &posed, pose, &camera, &bounds, options)
}

/// A picture of `options.size` of meshes already posed, through a camera framed
/// elsewhere (on `bounds`, which also places the ground grid): what a still, each cell
/// of a filmstrip and each frame of an animation draw. Meshes first, then the grid
/// (depth-tested), then the skeleton overlay (on top).
pub(crate) fn draw_posed(
    model: &Model,
    posed: &[PosedMesh],
    pose: &Pose,
    camera: &Camera,
    bounds: &Aabb,
    options: &RenderOptions,
) -> Result<Image, RenderError> {
    let (w, h) = options.size;
    let mut picture = Frame::new(Image::new(w, h, BACKGROUND)?);
    let frame = &mut picture;
    // Triangles with a vertex behind the near plane are skipped; the framing keeps
    // every vertex of the framed pose in front of the camera.
    for (mesh, posed) in model.meshes.iter().zip(posed) {
        draw_mesh(frame, model, mesh, posed, camera, &options.textures);
    }
    if options.grid {
        draw_grid(frame, camera, bounds);
    }
    if options.skeleton_overlay {
        draw_skeleton(frame, model, pose, camera);
    }
    Ok(picture.image)
}

fn dot3(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// `AMBIENT + DIFFUSE · max(0, n · LIGHT_DIRECTION)` for a unit view-space normal.
pub fn lambert(normal_view: [f32; 3]) -> f32 {
    AMBIENT + DIFFUSE * dot3(normal_view, LIGHT_DIRECTION).max(0.0)
}

fn to_u8(c: f32) -> u8 {
    // NaN becomes 0 through the saturating cast.
    (c.clamp(0.0, 1.0) * 255.0 + 0.5) as u8
}

fn draw_mesh(
    frame: &mut Frame,
    model: &Model,
    mesh: &gom::MeshPart,
    posed: &PosedMesh,
    camera: &Camera,
    textures: &TextureSource,
) {
    let projected: Vec<Option<Projected>> =
        posed.positions.iter().map(|p| camera.project(*p)).collect();
    let normals_view: Option<Vec<[f32; 3]>> = posed.normals.as_ref().map(|ns| {
        ns.iter()
            .map(|n| normalize(camera.dir_to_view(*n)))
            .collect()
    });
    let n = posed.positions.len();
    let uvs = mesh.vertices.uv0.as_ref().filter(|u| u.len() == n);
    let colors = mesh.vertices.colors.as_ref().filter(|c| c.len() == n);
    // Submesh ranges, or the whole index list without material when there are none.
    let whole = [gom::Submesh {
        material_index: -1,
        index_start: 0,
        index_count: u32::try_from(mesh.indices.len()).unwrap_or(u32::MAX),
    }];
    let subs: &[gom::Submesh] = if mesh.submeshes.is_empty() {
        &whole
    } else {
        &mesh.submeshes
    };
    for s in subs {
        let start = s.index_start as usize;
        let end = start
            .saturating_add(s.index_count as usize)
            .min(mesh.indices.len());
        let Some(range) = mesh.indices.get(start.min(end)..end) else {
            continue;
        };
        let material = usize::try_from(s.material_index).ok();
        let factor = material
            .and_then(|m| model.materials.get(m))
            .map(|m| m.base_color_factor)
            .unwrap_or(DEFAULT_BASE_COLOR);
        let texture = material
            .and_then(|m| textures.get(m))
            .filter(|_| uvs.is_some());
        for tri in range.chunks_exact(3) {
            let idx = [tri[0] as usize, tri[1] as usize, tri[2] as usize];
            let (Some(Some(a)), Some(Some(b)), Some(Some(c))) = (
                projected.get(idx[0]),
                projected.get(idx[1]),
                projected.get(idx[2]),
            ) else {
                continue;
            };
            let vn: Option<[[f32; 3]; 3]> = normals_view
                .as_ref()
                .and_then(|ns| Some([*ns.get(idx[0])?, *ns.get(idx[1])?, *ns.get(idx[2])?]));
            // Without vertex normals: the face normal, (p1 - p0) × (p2 - p0), which
            // points out of a clockwise front face in a left-handed space.
            let flat = if vn.is_none() {
                let p = &posed.positions;
                let fnrm = cross(sub(p[idx[1]], p[idx[0]]), sub(p[idx[2]], p[idx[0]]));
                lambert(normalize(camera.dir_to_view(fnrm)))
            } else {
                0.0
            };
            let tuv = uvs.map(|u| [u[idx[0]], u[idx[1]], u[idx[2]]]);
            let tcol = colors.map(|c| [c[idx[0]], c[idx[1]], c[idx[2]]]);
            fill_triangle(frame, [*a, *b, *c], |_, _, w| {
                let shade = match vn {
                    Some(vn) => {
                        let mut nn = [0.0f32; 3];
                        for k in 0..3 {
                            nn[k] = w[0] * vn[0][k] + w[1] * vn[1][k] + w[2] * vn[2][k];
                        }
                        lambert(normalize(nn))
                    }
                    None => flat,
                };
                let mut base = factor;
                if let (Some((img, filter)), Some(uv)) = (texture, tuv) {
                    let u = w[0] * uv[0][0] + w[1] * uv[1][0] + w[2] * uv[2][0];
                    let v = w[0] * uv[0][1] + w[1] * uv[1][1] + w[2] * uv[2][1];
                    let t = sample(img, u, v, filter);
                    if t[3] < 0.5 {
                        return None;
                    }
                    for k in 0..3 {
                        base[k] *= t[k];
                    }
                }
                if let Some(c) = tcol {
                    for k in 0..3 {
                        let v = w[0] * f32::from(c[0][k])
                            + w[1] * f32::from(c[1][k])
                            + w[2] * f32::from(c[2][k]);
                        base[k] *= v / 255.0;
                    }
                }
                Some([
                    to_u8(base[0] * shade),
                    to_u8(base[1] * shade),
                    to_u8(base[2] * shade),
                    255,
                ])
            });
        }
    }
}

/// The largest of 1, 2 or 5 times a power of ten that is at most `target`.
fn nice_step(target: f32) -> f32 {
    if !(target.is_finite() && target > 1e-20 && target < 1e20) {
        return 1.0;
    }
    let mut s = 1.0f32;
    while s > target {
        s /= 10.0;
    }
    while s * 10.0 <= target {
        s *= 10.0;
    }
    if s * 5.0 <= target {
        s * 5.0
    } else if s * 2.0 <= target {
        s * 2.0
    } else {
        s
    }
}

/// Draws the segment a→b of model space, clipped to the near plane.
fn draw_segment(
    frame: &mut Frame,
    camera: &Camera,
    a: [f32; 3],
    b: [f32; 3],
    color: [u8; 4],
    depth_test: bool,
) {
    let (mut va, mut vb) = (camera.to_view(a), camera.to_view(b));
    let near = camera.near();
    if va[2] < near && vb[2] < near {
        return;
    }
    let cut = |from: [f32; 3], to: [f32; 3]| {
        let t = (near - from[2]) / (to[2] - from[2]);
        [
            from[0] + (to[0] - from[0]) * t,
            from[1] + (to[1] - from[1]) * t,
            near,
        ]
    };
    if va[2] < near {
        va = cut(va, vb);
    } else if vb[2] < near {
        vb = cut(vb, va);
    }
    if let (Some(pa), Some(pb)) = (camera.project_view(va), camera.project_view(vb)) {
        draw_line(frame, pa, pb, color, depth_test);
    }
}

/// A square grid in the plane y = `bounds.min.y`, centred under the bounds, 1.5 times
/// their larger horizontal extent across, with lines at multiples of a 1-2-5 step.
fn draw_grid(frame: &mut Frame, camera: &Camera, bounds: &Aabb) {
    let b = crate::camera::or_unit(bounds);
    let y = b.min[1];
    let c = crate::camera::center(&b);
    let ext = (b.max[0] - b.min[0]).max(b.max[2] - b.min[2]);
    let ext = if ext > 0.0 {
        ext
    } else {
        (b.max[1] - b.min[1]).max(1.0)
    };
    let half = ext * 0.75;
    let step = nice_step(2.0 * half / 8.0);
    let lines = |center: f32| {
        let lo = ((center - half) / step).ceil();
        let hi = ((center - half) / step)
            .ceil()
            .max(((center + half) / step).floor());
        let (lo, hi) = (lo as i64, hi as i64);
        (lo..=hi.min(lo + 64)).map(move |k| k as f32 * step)
    };
    for x in lines(c[0]) {
        draw_segment(
            frame,
            camera,
            [x, y, c[2] - half],
            [x, y, c[2] + half],
            GRID_COLOR,
            true,
        );
    }
    for z in lines(c[2]) {
        draw_segment(
            frame,
            camera,
            [c[0] - half, y, z],
            [c[0] + half, y, z],
            GRID_COLOR,
            true,
        );
    }
}

/// Radius of the overlay's joint dots for an image of this size.
pub fn joint_radius(width: u32, height: u32) -> f32 {
    (width.min(height) as f32 / 128.0).max(2.0)
}

fn draw_skeleton(frame: &mut Frame, model: &Model, pose: &Pose, camera: &Camera) {
    for (i, bone) in model.skeleton.bones.iter().enumerate() {
        let Some(p) = bone.parent_index().filter(|p| *p < i) else {
            continue;
        };
        if let (Some(a), Some(b)) = (pose.joint(p), pose.joint(i)) {
            draw_segment(frame, camera, a, b, BONE_COLOR, false);
        }
    }
    let r = joint_radius(camera.width, camera.height);
    for i in 0..pose.bone_count() {
        if let Some(p) = pose.joint(i).and_then(|j| camera.project(j)) {
            draw_dot(frame, p.x, p.y, r, JOINT_COLOR);
        }
    }
}
