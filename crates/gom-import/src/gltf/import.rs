//! glTF document → [`gom::Model`].

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use gltf::accessor::Dimensions;
use gltf::mesh::{Mode, Semantic};
use gom::math::{bind_world, inverse_affine, mul, transform_point, transform_vector};
use gom::{Mat4, SkinWeights, IDENTITY};
use sha2::{Digest, Sha256};

use super::accessor::Buffers;
use super::anim::{self, Rest};
use super::convert::{
    decompose, det3, mirror_mat, mirror_tangent, mirror_vec3, normal_matrix, normalize3,
};
use super::source::{self, Resolved};
use super::{ExtractedImage, GltfError, GltfOptions, GltfReport};
use crate::optimize::skin::limit_influences;

/// The most keys all clips together may hold (each clip is further limited to
/// GOM's 1,000,000).
const MAX_TOTAL_KEYS: usize = 16_000_000;

/// GOM's clip limit (draft §11.1).
const MAX_CLIPS: usize = 1024;

/// The most vertices all mesh parts together may hold (each part is further limited
/// to GOM's 10,000,000): a small file instancing a large mesh many times must not
/// exhaust memory.
const MAX_TOTAL_VERTICES: usize = 30_000_000;

struct Ctx<'a> {
    file: &'a str,
    stem: &'a str,
    buffers: Buffers<'a>,
    report: GltfReport,
}

impl Ctx<'_> {
    fn invalid(&self, object: impl Into<String>, message: impl Into<String>) -> GltfError {
        GltfError::Invalid {
            file: self.file.to_string(),
            object: object.into(),
            message: message.into(),
        }
    }
}

/// The parsed and validated document plus its buffers.
pub(crate) fn run(
    bytes: &[u8],
    file: &str,
    stem: &str,
    base: Option<&Path>,
    options: &GltfOptions,
) -> Result<(gom::Model, GltfReport), GltfError> {
    let container = source::split(bytes, file)?;
    let root: gltf::json::Root =
        gltf::json::deserialize::from_slice(container.json).map_err(|e| GltfError::Json {
            file: file.to_string(),
            message: e.to_string(),
        })?;
    let doc = validate(root, file)?;
    let data = source::load_buffers(&doc, container.bin, base, file)?;
    let mut ctx = Ctx {
        file,
        stem,
        buffers: Buffers { file, data },
        report: GltfReport::default(),
    };
    let mut model = build(&mut ctx, &doc, options)?;
    model.header.source_hash = Sha256::digest(bytes).into();
    model.header.converter_version = gom::CONVERTER_VERSION.to_string();
    let report = &mut ctx.report.report;
    report.source = file.to_string();
    report.bones = model.skeleton.bones.len();
    report.meshes = model
        .meshes
        .iter()
        .map(|m| crate::report::MeshReport {
            name: m.name.clone(),
            vertices: m.vertices.len(),
            triangles: m.indices.len() / 3,
            submeshes: m.submeshes.len(),
            skinned: m.is_skinned(),
        })
        .collect();
    report.clips = model
        .clips
        .iter()
        .map(|c| {
            let keys = c.tracks.iter().map(|t| t.keys.len() as u64).sum();
            crate::report::ClipReport {
                name: c.name.clone(),
                duration: c.duration,
                tracks: c.tracks.len(),
                keys_before: keys,
                keys_after: keys,
            }
        })
        .collect();
    Ok((model, ctx.report))
}

/// Checks the document against the glTF schema (`gltf-json`'s validation), except
/// that a POSITION accessor without `min`/`max` is accepted: the importer does not
/// use them. The POSITION indices are checked first, as `gltf-json` indexes with them.
fn validate(root: gltf::json::Root, file: &str) -> Result<gltf::Document, GltfError> {
    use gltf::json::validation::{Checked, Validate};
    let invalid = |object: String, message: String| GltfError::Invalid {
        file: file.to_string(),
        object,
        message,
    };
    for (mi, mesh) in root.meshes.iter().enumerate() {
        for (pi, prim) in mesh.primitives.iter().enumerate() {
            let pos = prim
                .attributes
                .get(&Checked::Valid(gltf::json::mesh::Semantic::Positions));
            if let Some(index) = pos {
                if index.value() >= root.accessors.len() {
                    return Err(invalid(
                        format!("meshes[{mi}].primitives[{pi}].attributes[\"POSITION\"]"),
                        format!("accessor {} does not exist", index.value()),
                    ));
                }
            }
        }
    }
    // gltf-json does not check animation channel targets.
    for (ai, anim) in root.animations.iter().enumerate() {
        for (ci, ch) in anim.channels.iter().enumerate() {
            let object = format!("animations[{ai}].channels[{ci}].target");
            if ch.target.node.value() >= root.nodes.len() {
                return Err(invalid(
                    object,
                    format!("node {} does not exist", ch.target.node.value()),
                ));
            }
            if !matches!(ch.target.path, Checked::Valid(_)) {
                return Err(invalid(object, "unknown path".to_string()));
            }
        }
    }
    let mut problems: Vec<(String, String)> = Vec::new();
    root.validate(&root, gltf::json::Path::new, &mut |path, error| {
        let path = path().to_string();
        let position_bounds = path.contains("attributes[\"POSITION\"]")
            && (path.ends_with(".min") || path.ends_with(".max"));
        // KHR_mesh_quantization only widens the accessor types allowed; the reader
        // decodes every component type, so the extension is supported.
        let quantization =
            path.starts_with("extensionsRequired") && path.contains("KHR_mesh_quantization");
        if !position_bounds && !quantization {
            problems.push((path, error.to_string()));
        }
    });
    if let Some((object, message)) = problems.first() {
        let more = if problems.len() > 1 {
            format!(" (and {} more problems)", problems.len() - 1)
        } else {
            String::new()
        };
        return Err(invalid(object.clone(), format!("{message}{more}")));
    }
    Ok(gltf::Document::from_json_without_validation(root))
}

/// The node forest: parents, a parents-first order, and the rest transforms.
struct Nodes {
    parent: Vec<Option<usize>>,
    /// Depth-first pre-order from the roots in index order.
    order: Vec<usize>,
    /// Local rest transform, GOM convention (mirrored).
    local: Vec<Mat4>,
    /// Rest TRS in glTF space (for animation defaults).
    rest: Vec<Rest>,
}

fn nodes(ctx: &Ctx<'_>, doc: &gltf::Document) -> Result<Nodes, GltfError> {
    let n = doc.nodes().len();
    let mut parent = vec![None; n];
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    for node in doc.nodes() {
        for child in node.children() {
            let c = child.index();
            if c == node.index() {
                return Err(ctx.invalid(format!("nodes[{c}]"), "is its own child"));
            }
            if let Some(p) = parent[c] {
                return Err(ctx.invalid(
                    format!("nodes[{c}]"),
                    format!(
                        "has two parents, nodes[{p}] and nodes[{}] (the hierarchy must be a forest)",
                        node.index()
                    ),
                ));
            }
            parent[c] = Some(node.index());
            children[node.index()].push(c);
        }
    }
    let mut order = Vec::with_capacity(n);
    for r in (0..n).filter(|&i| parent[i].is_none()) {
        let mut stack = vec![r];
        while let Some(i) = stack.pop() {
            order.push(i);
            stack.extend(children[i].iter().rev());
        }
    }
    if order.len() != n {
        let mut seen = vec![false; n];
        for &i in &order {
            seen[i] = true;
        }
        let cyclic = (0..n).find(|&i| !seen[i]).unwrap_or_default();
        return Err(ctx.invalid(
            format!("nodes[{cyclic}]"),
            "is part of a cycle in the node hierarchy",
        ));
    }
    let mut local = Vec::with_capacity(n);
    let mut rest = Vec::with_capacity(n);
    for node in doc.nodes() {
        let m = node.transform().matrix();
        let flat: Mat4 = std::array::from_fn(|i| m[i / 4][i % 4]);
        if flat.iter().any(|v| !v.is_finite()) {
            return Err(ctx.invalid(format!("nodes[{}]", node.index()), "non-finite transform"));
        }
        let g = mirror_mat(&flat);
        local.push(g);
        rest.push(match node.transform() {
            gltf::scene::Transform::Decomposed {
                translation,
                rotation,
                scale,
            } => (translation, rotation, scale),
            gltf::scene::Transform::Matrix { .. } => {
                // Decompose the row form of the glTF matrix, in glTF space.
                decompose(&flat)
            }
        });
    }
    Ok(Nodes {
        parent,
        order,
        local,
        rest,
    })
}

fn build(
    ctx: &mut Ctx<'_>,
    doc: &gltf::Document,
    options: &GltfOptions,
) -> Result<gom::Model, GltfError> {
    let nodes = nodes(ctx, doc)?;
    let n = nodes.parent.len();
    let all: Vec<gltf::Node<'_>> = doc.nodes().collect();

    // Nodes drawn: those of the default scene (or the first), else every node.
    let scene = doc.default_scene().or_else(|| doc.scenes().next());
    let mut rendered = vec![scene.is_none(); n];
    if let Some(scene) = &scene {
        let mut stack: Vec<usize> = scene.nodes().map(|s| s.index()).collect();
        while let Some(i) = stack.pop() {
            if !rendered[i] {
                rendered[i] = true;
                stack.extend(all[i].children().map(|c| c.index()));
            }
        }
    }

    // Animated nodes (T/R/S channels).
    let mut animated = vec![false; n];
    for a in doc.animations() {
        for c in a.channels() {
            if !matches!(
                c.target().property(),
                gltf::animation::Property::MorphTargetWeights
            ) {
                animated[c.target().node().index()] = true;
            }
        }
    }
    let any_animation = animated.iter().any(|&a| a);
    let mut moving = vec![false; n];
    for &i in &nodes.order {
        moving[i] = animated[i] || nodes.parent[i].is_some_and(|p| moving[p]);
    }

    // Which nodes become bones.
    let mut needed = animated.clone();
    for &i in &nodes.order {
        let node = &all[i];
        if !rendered[i] {
            continue;
        }
        if let (Some(_), Some(skin)) = (node.mesh(), node.skin()) {
            for j in skin.joints() {
                needed[j.index()] = true;
            }
        }
        // A mesh on a moving node is bound rigidly to the node's bone (D7).
        if node.mesh().is_some() && any_animation && moving[i] {
            needed[i] = true;
        }
    }
    for &i in nodes.order.iter().rev() {
        if needed[i] {
            if let Some(p) = nodes.parent[i] {
                needed[p] = true;
            }
        }
    }
    // Bone order: node index order when it already puts parents first (so that a
    // file this module exported reads back in the same order), else depth-first.
    let index_order_ok = (0..n).all(|i| !needed[i] || nodes.parent[i].is_none_or(|p| p < i));
    let bone_order: Vec<usize> = if index_order_ok {
        (0..n).collect()
    } else {
        nodes.order.clone()
    };
    let mut bone_of: Vec<Option<usize>> = vec![None; n];
    let mut bones: Vec<gom::Bone> = Vec::new();
    let mut paths = BTreeSet::new();
    for &i in &bone_order {
        if !needed[i] {
            continue;
        }
        let name = all[i]
            .name()
            .map(str::to_string)
            .unwrap_or_else(|| format!("node{i}"));
        let parent = nodes.parent[i].and_then(|p| bone_of[p]);
        let mut path = match parent {
            Some(p) => format!("{}/{}", bones[p].path, name),
            None => name.clone(),
        };
        if paths.contains(&path) {
            path = format!("{path}#{i}");
        }
        paths.insert(path.clone());
        bone_of[i] = Some(bones.len());
        bones.push(gom::Bone {
            name,
            path,
            parent: parent.map_or(-1, |p| p as i32),
            bind_local: nodes.local[i],
        });
    }
    if bones.len() > 4096 {
        return Err(ctx.invalid(
            "nodes",
            format!("{} bones exceed GOM's limit of 4096", bones.len()),
        ));
    }
    let bone_world = bind_world(&bones);
    let default_ibnd: Vec<Mat4> = bone_world
        .iter()
        .map(|w| inverse_affine(w).unwrap_or(IDENTITY))
        .collect();

    // Rest world of every node (GOM convention).
    let mut world = vec![IDENTITY; n];
    for &i in &nodes.order {
        world[i] = match nodes.parent[i] {
            Some(p) => mul(&nodes.local[i], &world[p]),
            None => nodes.local[i],
        };
    }

    let materials = materials(ctx, doc)?;

    let mut meshes = Vec::new();
    let (mut total_vertices, mut parts_before) = (0usize, 0usize);
    for &i in &nodes.order {
        let node = &all[i];
        let Some(mesh) = node.mesh() else { continue };
        if !rendered[i] {
            continue;
        }
        let binding = NodeBinding {
            node: i,
            world: world[i],
            bone: bone_of[i].filter(|_| moving[i]),
            skin: node.skin(),
            bone_world: &bone_world,
        };
        mesh_parts(
            ctx,
            &mesh,
            node,
            &binding,
            &bone_of,
            &default_ibnd,
            &mut meshes,
        )?;
        total_vertices += meshes[parts_before..]
            .iter()
            .map(|m| m.vertices.len())
            .sum::<usize>();
        parts_before = meshes.len();
        if total_vertices > MAX_TOTAL_VERTICES {
            return Err(ctx.invalid(
                format!("nodes[{i}]"),
                format!("the scene expands to more than {MAX_TOTAL_VERTICES} vertices"),
            ));
        }
    }

    if doc.animations().len() > MAX_CLIPS {
        return Err(ctx.invalid(
            "animations",
            format!("more than {MAX_CLIPS} animations (GOM's clip limit)"),
        ));
    }
    let mut clips = Vec::new();
    let mut total_keys = 0usize;
    for a in doc.animations() {
        clips.push(anim::clip(
            &ctx.buffers,
            &a,
            &bone_of,
            &nodes.rest,
            options.sample_rate,
            &mut ctx.report,
        )?);
        total_keys += clips.last().map_or(0, |c: &gom::Clip| {
            c.tracks.iter().map(|t| t.keys.len()).sum()
        });
        if total_keys > MAX_TOTAL_KEYS {
            return Err(ctx.invalid(
                format!("animations[{}]", a.index()),
                format!("the clips hold more than {MAX_TOTAL_KEYS} keys in total"),
            ));
        }
    }

    // Transforms of extreme magnitude can overflow f32 on the way: refuse the result
    // rather than hand NaN or infinities on.
    for (i, b) in bones.iter().enumerate() {
        if b.bind_local.iter().any(|v| !v.is_finite()) {
            return Err(ctx.invalid(
                format!("skeleton bone {i} ({})", b.path),
                "its transform overflows f32",
            ));
        }
    }
    for m in &meshes {
        let v = &m.vertices;
        let finite = v
            .positions
            .iter()
            .flatten()
            .chain(v.normals.iter().flatten().flatten())
            .chain(v.tangents.iter().flatten().flatten())
            .chain(m.inverse_bind.iter().flatten())
            .all(|x| x.is_finite());
        if !finite {
            return Err(ctx.invalid(
                format!("mesh {}", m.name),
                "a vertex or inverse bind overflows f32 once transformed",
            ));
        }
    }

    Ok(gom::Model {
        header: gom::Header::default(),
        skeleton: gom::Skeleton { bones },
        materials,
        meshes,
        clips,
    })
}

fn materials(ctx: &mut Ctx<'_>, doc: &gltf::Document) -> Result<Vec<gom::Material>, GltfError> {
    let mut out = Vec::new();
    let mut extracted: BTreeMap<usize, String> = BTreeMap::new();
    for (mi, m) in doc.materials().enumerate() {
        let texture = match m.pbr_metallic_roughness().base_color_texture() {
            None => None,
            Some(info) => {
                if info.tex_coord() != 0 {
                    ctx.report.report.warnings.push(format!(
                        "materials[{mi}]: base colour texture uses TEXCOORD_{}; GOM materials assume uv0",
                        info.tex_coord()
                    ));
                }
                Some(texture_name(ctx, &info.texture().source(), &mut extracted)?)
            }
        };
        out.push(material(mi, &m, texture));
    }
    Ok(out)
}

/// The name a material uses for `image`: a relative URI as a decoded path; an
/// embedded image (buffer view or data URI) as `<stem>_image<index>.<ext>`, added
/// once to the report's images for the caller to write beside the output.
fn texture_name(
    ctx: &mut Ctx<'_>,
    image: &gltf::Image<'_>,
    extracted: &mut BTreeMap<usize, String>,
) -> Result<String, GltfError> {
    let ii = image.index();
    if let Some(name) = extracted.get(&ii) {
        return Ok(name.clone());
    }
    let (bytes, mime) = match image.source() {
        gltf::image::Source::Uri { uri, mime_type } => {
            if !uri.starts_with("data:") {
                return Ok(source::percent_decode(uri));
            }
            match source::resolve(uri, None) {
                Ok(Resolved::Data(b, m)) => (b, mime_type.map(str::to_string).unwrap_or(m)),
                Ok(Resolved::File(_)) => {
                    return Err(ctx.invalid(format!("images[{ii}]"), "not a data URI"))
                }
                Err(e) => return Err(ctx.invalid(format!("images[{ii}]"), e)),
            }
        }
        gltf::image::Source::View { view, mime_type } => {
            let buffer = ctx.buffers.data.get(view.buffer().index());
            let end = view.offset().checked_add(view.length());
            let bytes = match (buffer, end) {
                (Some(b), Some(end)) if end <= b.len() => b[view.offset()..end].to_vec(),
                _ => {
                    return Err(ctx.invalid(
                        format!("bufferViews[{}]", view.index()),
                        "lies outside its buffer",
                    ))
                }
            };
            (bytes, mime_type.to_string())
        }
    };
    let ext = match mime.as_str() {
        "image/png" => "png",
        "image/jpeg" => "jpg",
        _ if bytes.starts_with(b"\x89PNG") => "png",
        _ if bytes.starts_with(&[0xFF, 0xD8]) => "jpg",
        _ => "bin",
    };
    let name = format!("{}_image{ii}.{ext}", ctx.stem);
    ctx.report.images.push(ExtractedImage {
        file_name: name.clone(),
        mime_type: mime,
        bytes,
    });
    extracted.insert(ii, name.clone());
    Ok(name)
}

fn material(index: usize, m: &gltf::Material<'_>, texture: Option<String>) -> gom::Material {
    gom::Material {
        name: m
            .name()
            .map(str::to_string)
            .unwrap_or_else(|| format!("material{index}")),
        base_color_texture: texture,
        base_color_factor: m.pbr_metallic_roughness().base_color_factor(),
    }
}

/// How the meshes of one node are placed.
struct NodeBinding<'a> {
    node: usize,
    /// The node's rest world matrix (GOM convention).
    world: Mat4,
    /// The node's bone when the node moves (rigid binding).
    bone: Option<usize>,
    /// The node's skin.
    skin: Option<gltf::Skin<'a>>,
    /// Bind-pose world matrix of every bone.
    bone_world: &'a [Mat4],
}

/// One primitive, converted.
struct Prim {
    vertices: gom::Vertices,
    indices: Vec<u32>,
    material: i32,
    inverse_bind: Vec<Mat4>,
}

#[allow(clippy::too_many_arguments)]
fn mesh_parts(
    ctx: &mut Ctx<'_>,
    mesh: &gltf::Mesh<'_>,
    node: &gltf::Node<'_>,
    binding: &NodeBinding<'_>,
    bone_of: &[Option<usize>],
    default_ibnd: &[Mat4],
    out: &mut Vec<gom::MeshPart>,
) -> Result<(), GltfError> {
    let base_name = mesh
        .name()
        .or(node.name())
        .map(str::to_string)
        .unwrap_or_else(|| format!("mesh{}", mesh.index()));
    // Groups of primitives sharing a vertex layout and inverse binds (rule M2).
    // Each group remembers the attribute accessors of its last primitive: a following
    // primitive with the same accessors shares its vertices instead of copying them.
    type Shared = Option<(Vec<(String, usize)>, u32)>;
    let mut groups: Vec<(gom::MeshPart, Shared)> = Vec::new();
    for prim in mesh.primitives() {
        let object = format!("meshes[{}].primitives[{}]", mesh.index(), prim.index());
        let Some(p) = primitive(ctx, &prim, &object, binding, bone_of, default_ibnd)? else {
            continue;
        };
        let mut key: Vec<(String, usize)> = prim
            .attributes()
            .map(|(sem, a)| (format!("{sem:?}"), a.index()))
            .collect();
        key.sort();
        let format = p.vertices.format();
        let slot = groups
            .iter()
            .position(|(g, _)| g.vertices.format() == format && g.inverse_bind == p.inverse_bind);
        let slot = match slot {
            Some(s) => s,
            None => {
                let name = if groups.is_empty() {
                    base_name.clone()
                } else {
                    format!("{base_name}#{}", groups.len())
                };
                groups.push((
                    gom::MeshPart {
                        name,
                        inverse_bind: p.inverse_bind.clone(),
                        vertices: empty_like(&p.vertices),
                        ..Default::default()
                    },
                    None,
                ));
                groups.len() - 1
            }
        };
        let (part, shared) = &mut groups[slot];
        let offset32 = match shared {
            Some((k, off)) if *k == key => *off,
            _ => {
                let offset = part.vertices.len();
                let offset32 = u32::try_from(offset)
                    .ok()
                    .filter(|o| o.checked_add(p.vertices.len() as u32).is_some())
                    .ok_or_else(|| ctx.invalid(&object, "too many vertices in one mesh"))?;
                append(&mut part.vertices, p.vertices);
                *shared = Some((key, offset32));
                offset32
            }
        };
        let start = part.indices.len() as u32;
        part.indices.extend(p.indices.iter().map(|i| i + offset32));
        part.submeshes.push(gom::Submesh {
            material_index: p.material,
            index_start: start,
            index_count: p.indices.len() as u32,
        });
    }
    out.extend(groups.into_iter().map(|(g, _)| g));
    Ok(())
}

fn empty_like(v: &gom::Vertices) -> gom::Vertices {
    gom::Vertices {
        positions: Vec::new(),
        normals: v.normals.as_ref().map(|_| Vec::new()),
        tangents: v.tangents.as_ref().map(|_| Vec::new()),
        uv0: v.uv0.as_ref().map(|_| Vec::new()),
        uv1: v.uv1.as_ref().map(|_| Vec::new()),
        colors: v.colors.as_ref().map(|_| Vec::new()),
        skin: v.skin.as_ref().map(|_| Vec::new()),
    }
}

fn append(dst: &mut gom::Vertices, src: gom::Vertices) {
    dst.positions.extend(src.positions);
    if let (Some(d), Some(s)) = (dst.normals.as_mut(), src.normals) {
        d.extend(s);
    }
    if let (Some(d), Some(s)) = (dst.tangents.as_mut(), src.tangents) {
        d.extend(s);
    }
    if let (Some(d), Some(s)) = (dst.uv0.as_mut(), src.uv0) {
        d.extend(s);
    }
    if let (Some(d), Some(s)) = (dst.uv1.as_mut(), src.uv1) {
        d.extend(s);
    }
    if let (Some(d), Some(s)) = (dst.colors.as_mut(), src.colors) {
        d.extend(s);
    }
    if let (Some(d), Some(s)) = (dst.skin.as_mut(), src.skin) {
        d.extend(s);
    }
}

/// Reads an attribute of `count` elements.
fn attribute(
    ctx: &Ctx<'_>,
    acc: &gltf::Accessor<'_>,
    dims: &[Dimensions],
    what: &str,
    count: usize,
) -> Result<super::accessor::AccessorData, GltfError> {
    let data = ctx.buffers.read_typed(acc, dims, what)?;
    if data.count() != count {
        return Err(ctx.invalid(
            format!("accessors[{}]", acc.index()),
            format!(
                "{what} has {} elements but POSITION has {count}",
                data.count()
            ),
        ));
    }
    Ok(data)
}

fn primitive(
    ctx: &mut Ctx<'_>,
    prim: &gltf::Primitive<'_>,
    object: &str,
    binding: &NodeBinding<'_>,
    bone_of: &[Option<usize>],
    default_ibnd: &[Mat4],
) -> Result<Option<Prim>, GltfError> {
    let mode = prim.mode();
    if matches!(
        mode,
        Mode::Points | Mode::Lines | Mode::LineLoop | Mode::LineStrip
    ) {
        ctx.report.report.warnings.push(format!(
            "{object}: {mode:?} primitive skipped (GOM holds triangles only)"
        ));
        return Ok(None);
    }
    let targets = prim.morph_targets().count();
    if targets > 0 {
        ctx.report
            .morph_targets
            .push(format!("{object}: {targets} targets"));
        ctx.report.report.warnings.push(format!(
            "{object}: {targets} morph targets ignored (GOM has no morph targets); the base shape is used"
        ));
    }
    let Some(pos_acc) = prim.get(&Semantic::Positions) else {
        ctx.report.report.warnings.push(format!(
            "{object}: no POSITION attribute; primitive skipped"
        ));
        return Ok(None);
    };
    let pos = ctx
        .buffers
        .read_typed(&pos_acc, &[Dimensions::Vec3], "POSITION")?;
    let count = pos.count();
    if count > 10_000_000 {
        return Err(ctx.invalid(object, format!("{count} vertices exceed GOM's limit")));
    }
    let mut positions: Vec<[f32; 3]> = (0..count)
        .map(|i| {
            let e = pos.element(i);
            mirror_vec3([e[0] as f32, e[1] as f32, e[2] as f32])
        })
        .collect();
    let mut normals = match prim.get(&Semantic::Normals) {
        Some(a) => {
            let d = attribute(ctx, &a, &[Dimensions::Vec3], "NORMAL", count)?;
            Some(
                (0..count)
                    .map(|i| {
                        let e = d.element(i);
                        mirror_vec3([e[0] as f32, e[1] as f32, e[2] as f32])
                    })
                    .collect::<Vec<_>>(),
            )
        }
        None => None,
    };
    let mut tangents = match prim.get(&Semantic::Tangents) {
        Some(a) => {
            let d = attribute(ctx, &a, &[Dimensions::Vec4], "TANGENT", count)?;
            Some(
                (0..count)
                    .map(|i| {
                        let e = d.element(i);
                        let w = if e[3] < 0.0 { -1.0 } else { 1.0 };
                        mirror_tangent([e[0] as f32, e[1] as f32, e[2] as f32, w])
                    })
                    .collect::<Vec<_>>(),
            )
        }
        None => None,
    };
    let uv = |ctx: &Ctx<'_>, set: u32| -> Result<Option<Vec<[f32; 2]>>, GltfError> {
        match prim.get(&Semantic::TexCoords(set)) {
            Some(a) => {
                let d = attribute(ctx, &a, &[Dimensions::Vec2], "TEXCOORD", count)?;
                Ok(Some(
                    (0..count)
                        .map(|i| {
                            let e = d.element(i);
                            [e[0] as f32, e[1] as f32]
                        })
                        .collect(),
                ))
            }
            None => Ok(None),
        }
    };
    let uv0 = uv(ctx, 0)?;
    let uv1 = uv(ctx, 1)?;
    let colors = match prim.get(&Semantic::Colors(0)) {
        Some(a) => {
            let d = attribute(
                ctx,
                &a,
                &[Dimensions::Vec3, Dimensions::Vec4],
                "COLOR_0",
                count,
            )?;
            let q = |v: f64| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
            Some(
                (0..count)
                    .map(|i| {
                        let e = d.element(i);
                        let a = if e.len() == 4 { q(e[3]) } else { 255 };
                        [q(e[0]), q(e[1]), q(e[2]), a]
                    })
                    .collect::<Vec<_>>(),
            )
        }
        None => None,
    };
    for (sem, _) in prim.attributes() {
        let ignored = match &sem {
            Semantic::TexCoords(s) | Semantic::Colors(s) => {
                *s >= if matches!(sem, Semantic::TexCoords(_)) {
                    2
                } else {
                    1
                }
            }
            Semantic::Extras(_) => true,
            _ => false,
        };
        if ignored {
            ctx.report
                .report
                .warnings
                .push(format!("{object}: attribute {sem:?} ignored"));
        }
    }

    // Indices, as a triangle list in glTF winding.
    let raw: Vec<u32> = match prim.indices() {
        Some(a) => {
            let d = ctx.buffers.read_uints(&a, Dimensions::Scalar, "indices")?;
            let mut v = Vec::with_capacity(d.values.len());
            for (k, &x) in d.values.iter().enumerate() {
                if x as usize >= count {
                    return Err(ctx.invalid(
                        format!("accessors[{}]", a.index()),
                        format!("index {x} at position {k} is not below the vertex count {count}"),
                    ));
                }
                v.push(x as u32);
            }
            v
        }
        None => (0..count as u32).collect(),
    };
    let mut tris: Vec<[u32; 3]> = match mode {
        Mode::TriangleStrip => (0..raw.len().saturating_sub(2))
            .map(|i| {
                if i % 2 == 0 {
                    [raw[i], raw[i + 1], raw[i + 2]]
                } else {
                    [raw[i + 1], raw[i], raw[i + 2]]
                }
            })
            .collect(),
        Mode::TriangleFan => (0..raw.len().saturating_sub(2))
            .map(|i| [raw[i + 1], raw[i + 2], raw[0]])
            .collect(),
        _ => {
            if raw.len() % 3 != 0 {
                ctx.report.report.warnings.push(format!(
                    "{object}: {} indices is not a multiple of 3; the last {} dropped",
                    raw.len(),
                    raw.len() % 3
                ));
            }
            raw.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect()
        }
    };
    if tris.is_empty() {
        ctx.report
            .report
            .warnings
            .push(format!("{object}: no triangles; primitive skipped"));
        return Ok(None);
    }

    // Skin influences.
    let skinned = binding.skin.as_ref().is_some_and(|s| s.joints().len() > 0)
        && prim.get(&Semantic::Joints(0)).is_some()
        && prim.get(&Semantic::Weights(0)).is_some();
    let mut skin = None;
    let mut inverse_bind = Vec::new();
    let mut flip = false;
    if skinned {
        let Some(s) = &binding.skin else {
            return Ok(None);
        };
        let joints: Vec<usize> = s.joints().map(|j| j.index()).collect();
        let joint_bones: Vec<u16> = joints
            .iter()
            .map(|&j| bone_of[j].unwrap_or(0) as u16)
            .collect();
        inverse_bind = default_ibnd.to_vec();
        let ibms = match s.inverse_bind_matrices() {
            Some(a) => {
                let d = ctx
                    .buffers
                    .read_typed(&a, &[Dimensions::Mat4], "inverseBindMatrices")?;
                if d.count() < joints.len() {
                    return Err(ctx.invalid(
                        format!("accessors[{}]", a.index()),
                        format!(
                            "inverseBindMatrices has {} matrices for {} joints of skins[{}]",
                            d.count(),
                            joints.len(),
                            s.index()
                        ),
                    ));
                }
                (0..joints.len())
                    .map(|j| {
                        let e = d.element(j);
                        mirror_mat(&std::array::from_fn(|i| e[i] as f32))
                    })
                    .collect::<Vec<Mat4>>()
            }
            None => vec![IDENTITY; joints.len()],
        };
        let mut set = vec![false; inverse_bind.len()];
        for (j, m) in ibms.iter().enumerate() {
            let b = joint_bones[j] as usize;
            if set[b] && inverse_bind[b] != *m {
                ctx.report.report.warnings.push(format!(
                    "skins[{}]: nodes[{}] is listed twice with different inverse binds; the first is kept",
                    s.index(),
                    joints[j]
                ));
                continue;
            }
            set[b] = true;
            inverse_bind[b] = *m;
        }
        // Collect every JOINTS_n / WEIGHTS_n pair.
        let mut influences: Vec<Vec<(u16, f64)>> = vec![Vec::new(); count];
        let mut set_index = 0u32;
        while let (Some(ja), Some(wa)) = (
            prim.get(&Semantic::Joints(set_index)),
            prim.get(&Semantic::Weights(set_index)),
        ) {
            let jd = ctx.buffers.read_uints(&ja, Dimensions::Vec4, "JOINTS")?;
            let wd = attribute(ctx, &wa, &[Dimensions::Vec4], "WEIGHTS", count)?;
            if jd.count() != count {
                return Err(ctx.invalid(
                    format!("accessors[{}]", ja.index()),
                    format!(
                        "JOINTS has {} elements but POSITION has {count}",
                        jd.count()
                    ),
                ));
            }
            for (v, inf) in influences.iter_mut().enumerate() {
                let (je, we) = (jd.element(v), wd.element(v));
                for k in 0..4 {
                    let w = we[k];
                    if w <= 0.0 {
                        continue;
                    }
                    let j = je[k] as usize;
                    let Some(&b) = joint_bones.get(j) else {
                        return Err(ctx.invalid(
                            format!("accessors[{}]", ja.index()),
                            format!(
                                "vertex {v}: joint {j} is not below the joint count {} of skins[{}]",
                                joints.len(),
                                s.index()
                            ),
                        ));
                    };
                    match inf.iter_mut().find(|(bb, _)| *bb == b) {
                        Some(e) => e.1 += w,
                        None => inf.push((b, w)),
                    }
                }
            }
            set_index += 1;
        }
        let fallback = joint_bones.first().copied().unwrap_or(0);
        let mut unweighted = 0usize;
        let mut out = Vec::with_capacity(count);
        for inf in influences {
            let sw = limit_influences(&inf, &mut ctx.report.report.dropped_influences);
            out.push(sw.unwrap_or_else(|| {
                unweighted += 1;
                SkinWeights {
                    bones: [fallback, 0, 0, 0],
                    weights: [1.0, 0.0, 0.0, 0.0],
                }
            }));
        }
        if unweighted > 0 {
            ctx.report.report.warnings.push(format!(
                "{object}: {unweighted} vertices have no weight; bound to the skin's first joint"
            ));
        }
        // A skin whose inverse binds all differ from the rest pose by the same matrix C
        // (IBM[b] * restWorld[b] = C, e.g. a mesh bound under a different root
        // transform) is the GBTM case of D7: bake C into the vertices and use the rest
        // pose's inverses, so the bind pose check holds.
        let mut used = vec![false; inverse_bind.len()];
        for sw in &out {
            for k in 0..4 {
                if sw.weights[k] > 0.0 {
                    used[usize::from(sw.bones[k])] = true;
                }
            }
        }
        let offsets: Vec<Mat4> = (0..inverse_bind.len())
            .filter(|&b| used[b])
            .map(|b| mul(&inverse_bind[b], &binding.bone_world[b]))
            .collect();
        if let Some(c) = offsets.first().copied() {
            let uniform = offsets.iter().all(|o| {
                o.iter()
                    .zip(&c)
                    .all(|(x, y)| (x - y).abs() <= 1e-5 * (1.0 + y.abs()))
            });
            let identity = c.iter().zip(&IDENTITY).all(|(x, y)| (x - y).abs() <= 1e-6);
            if uniform && !identity {
                bake(&c, &mut positions, &mut normals, &mut tangents);
                flip = det3(&c) < 0.0;
                inverse_bind = default_ibnd.to_vec();
            } else if !uniform {
                ctx.report.report.warnings.push(format!(
                    "{object}: the inverse binds of skins[{}] do not match the nodes' rest pose; the bind pose check will fail",
                    s.index()
                ));
            }
        }
        skin = Some(out);
    } else {
        // Static geometry: bake the node's world matrix; rigidly bind when it moves.
        let w = binding.world;
        bake(&w, &mut positions, &mut normals, &mut tangents);
        flip = det3(&w) < 0.0;
        if let Some(b) = binding.bone {
            inverse_bind = default_ibnd.to_vec();
            skin = Some(vec![
                SkinWeights {
                    bones: [b as u16, 0, 0, 0],
                    weights: [1.0, 0.0, 0.0, 0.0],
                };
                count
            ]);
        } else if binding.skin.is_some() {
            ctx.report.report.warnings.push(format!(
                "{object}: the node has a skin but the primitive has no JOINTS_0/WEIGHTS_0; drawn with nodes[{}]'s transform",
                binding.node
            ));
        }
    }
    // D2: mirroring flips the winding; swap the 2nd and 3rd index (once more for a
    // mirroring node transform baked above).
    if !flip {
        for t in tris.iter_mut() {
            t.swap(1, 2);
        }
    }
    let indices: Vec<u32> = tris.into_iter().flatten().collect();
    if positions.iter().flatten().any(|v| !v.is_finite()) {
        return Err(ctx.invalid(object, "a position overflows f32 once transformed"));
    }
    Ok(Some(Prim {
        vertices: gom::Vertices {
            positions,
            normals,
            tangents,
            uv0,
            uv1,
            colors,
            skin,
        },
        indices,
        material: prim.material().index().map_or(-1, |m| m as i32),
        inverse_bind,
    }))
}

/// Transforms geometry by `m`: points by `m`, normals by its inverse-transpose,
/// tangents by its 3x3 (both renormalised, tangent w kept).
fn bake(
    m: &Mat4,
    positions: &mut [[f32; 3]],
    normals: &mut Option<Vec<[f32; 3]>>,
    tangents: &mut Option<Vec<[f32; 4]>>,
) {
    for p in positions.iter_mut() {
        *p = transform_point(m, *p);
    }
    if let Some(nm) = normals.as_mut() {
        let n = normal_matrix(m).unwrap_or(*m);
        for v in nm.iter_mut() {
            let t = transform_vector(&n, *v);
            *v = normalize3(t.map(f64::from)).unwrap_or(t);
        }
    }
    if let Some(tg) = tangents.as_mut() {
        for v in tg.iter_mut() {
            let t = transform_vector(m, [v[0], v[1], v[2]]);
            let t = normalize3(t.map(f64::from)).unwrap_or(t);
            *v = [t[0], t[1], t[2], v[3]];
        }
    }
}
