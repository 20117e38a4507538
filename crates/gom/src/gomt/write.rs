//! The GOMT0001 writer: one canonical layout (docs/gomt.md), so that equal models give
//! equal text.

use super::float::push_f32;
use super::names;
use crate::bounds::compute_bounds;
use crate::error::WriteError;
use crate::model::{Clip, Mat4, Material, MeshPart, Model, Submesh};
use crate::validate::{check_structure, flags_for};

mod morph;

/// Writes `model` as canonical GOMT0001 text.
///
/// Fails, like [`crate::gomb::write`], when the model breaks a structural rule
/// ([`crate::validate::check_structure`]).
///
/// The layout is fixed: two-space indentation, keys in the order of docs/gomt.md, one
/// vertex, key, bone or material per line, floats in the shortest form that reads back
/// to the same `f32`, zero as `0`. Validation flags and bounds are written as the GOMB
/// writer would store them, so that text and binary hold the same model.
pub fn write(model: &Model) -> Result<String, WriteError> {
    // The text form refuses exactly the models the binary form refuses.
    check_structure(model)?;
    let mut w = Writer {
        out: String::with_capacity(estimate(model)),
    };
    w.header(model);
    w.skeleton(model);
    w.materials(&model.materials);
    w.meshes(model);
    w.clips(&model.clips);
    Ok(w.out)
}

/// A rough size of the text, to allocate once.
fn estimate(model: &Model) -> usize {
    let mut n = 1024 + model.skeleton.bones.len() * 200;
    for m in &model.meshes {
        n += m.vertices.len() * 160 + m.indices.len() * 8 + m.inverse_bind.len() * 120;
    }
    for c in &model.clips {
        for t in &c.tracks {
            n += t.keys.len() * 110;
        }
    }
    n
}

struct Writer {
    out: String,
}

impl Writer {
    fn s(&mut self, s: &str) {
        self.out.push_str(s);
    }

    fn f(&mut self, v: f32) {
        push_f32(&mut self.out, v);
    }

    fn u(&mut self, v: u64) {
        // Writing to a String cannot fail.
        let _ = std::fmt::Write::write_fmt(&mut self.out, format_args!("{v}"));
    }

    fn i(&mut self, v: i64) {
        let _ = std::fmt::Write::write_fmt(&mut self.out, format_args!("{v}"));
    }

    fn string(&mut self, s: &str) {
        self.out.push('"');
        for c in s.chars() {
            match c {
                '"' => self.out.push_str("\\\""),
                '\\' => self.out.push_str("\\\\"),
                '\n' => self.out.push_str("\\n"),
                '\t' => self.out.push_str("\\t"),
                c if (c as u32) < 0x20 || c as u32 == 0x7F => {
                    let _ = std::fmt::Write::write_fmt(
                        &mut self.out,
                        format_args!("\\u{:04X}", c as u32),
                    );
                }
                c => self.out.push(c),
            }
        }
        self.out.push('"');
    }

    fn floats(&mut self, v: &[f32]) {
        self.out.push('[');
        for (i, x) in v.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.f(*x);
        }
        self.out.push(']');
    }

    fn ints<T: Copy + Into<u64>>(&mut self, v: &[T]) {
        self.out.push('[');
        for (i, x) in v.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.u((*x).into());
        }
        self.out.push(']');
    }

    fn matrix(&mut self, m: &Mat4) {
        self.out.push('[');
        for r in 0..4 {
            if r > 0 {
                self.out.push_str(", ");
            }
            self.floats(&m[r * 4..r * 4 + 4]);
        }
        self.out.push(']');
    }

    fn names(&mut self, names: &[&str]) {
        self.out.push('[');
        for (i, n) in names.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.string(n);
        }
        self.out.push(']');
    }

    fn header(&mut self, model: &Model) {
        let h = &model.header;
        self.s("GOMT0001\nHeader = {\n  sourceHash = \"");
        self.s(&names::format_hash(&h.source_hash));
        self.s("\",\n  converterVersion = ");
        self.string(&h.converter_version);
        self.s(",\n  validationFlags = ");
        // D13: each flag set exactly when its check passes, as the GOMB writer does.
        let set = names::validation_flag_names(flags_for(model));
        self.names(&set);
        self.s(",\n  coordinateSystem = \"");
        self.s(names::COORDINATE_SYSTEM);
        self.s("\",\n  matrixConvention = \"");
        self.s(names::MATRIX_CONVENTION);
        self.s("\",\n}\n");
    }

    fn skeleton(&mut self, model: &Model) {
        let bones = &model.skeleton.bones;
        self.s("Skeleton = {\n  boneCount = ");
        self.u(bones.len() as u64);
        if bones.is_empty() {
            self.s(",\n  bones = [],\n}\n");
            return;
        }
        self.s(",\n  bones = [\n");
        for b in bones {
            self.s("    {\n      parent = ");
            self.i(i64::from(b.parent));
            self.s(",\n      name = ");
            self.string(&b.name);
            self.s(",\n      path = ");
            self.string(&b.path);
            self.s(",\n      bindLocal = ");
            self.matrix(&b.bind_local);
            self.s(",\n    },\n");
        }
        self.s("  ],\n}\n");
    }

    fn materials(&mut self, materials: &[Material]) {
        if materials.is_empty() {
            self.s("Materials = []\n");
            return;
        }
        self.s("Materials = [\n");
        for m in materials {
            self.s("  { name = ");
            self.string(&m.name);
            if let Some(t) = &m.base_color_texture {
                self.s(", baseColorTexture = ");
                self.string(t);
            }
            self.s(", baseColorFactor = ");
            self.floats(&m.base_color_factor);
            self.s(" },\n");
        }
        self.s("]\n");
    }

    fn meshes(&mut self, model: &Model) {
        if model.meshes.is_empty() {
            self.s("Meshes = []\n");
            return;
        }
        self.s("Meshes = [\n");
        for m in &model.meshes {
            self.mesh(m);
        }
        self.s("]\n");
    }

    fn mesh(&mut self, m: &MeshPart) {
        self.s("  {\n    name = ");
        self.string(&m.name);
        if m.skinning != crate::model::SkinningMethod::Linear {
            self.s(",\n    skinning = ");
            self.string(m.skinning.name());
        }
        if let Some(g) = &m.mesh_bind_geo_to_model {
            self.s(",\n    meshBindGeoToModel = ");
            self.matrix(g);
        }
        let v = &m.vertices;
        let mut keys: Vec<&str> = vec!["p"];
        let present = [
            (v.normals.is_some(), "n"),
            (v.tangents.is_some(), "t"),
            (v.uv0.is_some(), "uv"),
            (v.uv1.is_some(), "uv1"),
            (v.colors.is_some(), "c"),
            (v.skin.is_some(), "bi"),
            (v.skin.is_some(), "bw"),
            (v.skin_extra.is_some(), "bi2"),
            (v.skin_extra.is_some(), "bw2"),
            (v.dq_weights.is_some(), "dq"),
        ];
        keys.extend(present.iter().filter(|(on, _)| *on).map(|(_, k)| *k));
        self.s(",\n    vertexFormat = ");
        self.names(&keys);
        if v.positions.is_empty() {
            self.s(",\n    vertices = [],\n");
        } else {
            self.s(",\n    vertices = [\n");
            for i in 0..v.positions.len() {
                self.vertex(v, i);
            }
            self.s("    ],\n");
        }
        if m.indices.is_empty() {
            self.s("    indices = [],\n");
        } else {
            self.s("    indices = [\n");
            for tri in m.indices.chunks(3) {
                self.s("      ");
                for (j, x) in tri.iter().enumerate() {
                    if j > 0 {
                        self.s(" ");
                    }
                    self.u(u64::from(*x));
                    self.s(",");
                }
                self.s("\n");
            }
            self.s("    ],\n");
        }
        self.submeshes(&m.submeshes);
        if m.inverse_bind.is_empty() {
            self.s("    inverseBind = [],\n");
        } else {
            self.s("    inverseBind = [\n");
            for ib in &m.inverse_bind {
                self.s("      ");
                self.matrix(ib);
                self.s(",\n");
            }
            self.s("    ],\n");
        }
        // D7: every writer recomputes the bounds; the model's own are not copied.
        let b = compute_bounds(m);
        self.s("    bounds = { aabbMin = ");
        self.floats(&b.aabb_min);
        self.s(", aabbMax = ");
        self.floats(&b.aabb_max);
        self.s(", sphereCenter = ");
        self.floats(&b.sphere_center);
        self.s(", sphereRadius = ");
        self.f(b.sphere_radius);
        self.s(" },\n");
        self.morph_targets(m);
        self.s("  },\n");
    }

    fn vertex(&mut self, v: &crate::model::Vertices, i: usize) {
        self.s("      { p = ");
        self.floats(&v.positions[i]);
        if let Some(n) = &v.normals {
            self.s(", n = ");
            self.floats(&n[i]);
        }
        if let Some(t) = &v.tangents {
            self.s(", t = ");
            self.floats(&t[i]);
        }
        if let Some(uv) = &v.uv0 {
            self.s(", uv = ");
            self.floats(&uv[i]);
        }
        if let Some(uv) = &v.uv1 {
            self.s(", uv1 = ");
            self.floats(&uv[i]);
        }
        if let Some(c) = &v.colors {
            self.s(", c = ");
            self.ints(&c[i]);
        }
        if let Some(s) = &v.skin {
            self.s(", bi = ");
            self.ints(&s[i].bones);
            self.s(", bw = ");
            self.floats(&s[i].weights);
        }
        if let Some(s) = &v.skin_extra {
            self.s(", bi2 = ");
            self.ints(&s[i].bones);
            self.s(", bw2 = ");
            self.floats(&s[i].weights);
        }
        if let Some(d) = &v.dq_weights {
            self.s(", dq = ");
            self.f(d[i]);
        }
        self.s(" },\n");
    }

    fn submeshes(&mut self, subs: &[Submesh]) {
        if subs.is_empty() {
            self.s("    submeshes = [],\n");
            return;
        }
        self.s("    submeshes = [\n");
        for s in subs {
            self.s("      { materialIndex = ");
            self.i(i64::from(s.material_index));
            self.s(", indexStart = ");
            self.u(u64::from(s.index_start));
            self.s(", indexCount = ");
            self.u(u64::from(s.index_count));
            self.s(" },\n");
        }
        self.s("    ],\n");
    }

    /// A compressed clip's settings (readable) and its payload (hexadecimal, written
    /// back unchanged), `docs/extensions.md` §2.5.
    fn compressed(&mut self, payload: &[u8]) {
        self.s(",\n    compressed = { ");
        if let Some(layout) = crate::compressed::Layout::parse(payload, 0, u32::MAX)
            .ok()
            .or_else(|| crate::compressed::Layout::header(payload))
        {
            self.s("toleranceMm = ");
            self.f(layout.tolerance * 1000.0);
            self.s(", distanceCm = ");
            self.f(layout.distance * 100.0);
            self.s(", frames = ");
            self.u(u64::from(layout.frame_count));
            self.s(", ");
        }
        self.s("data = \"");
        for b in payload {
            self.s(&format!("{b:02x}"));
        }
        self.s("\" }");
    }

    /// An additive clip's reference (`docs/extensions.md` §4.4).
    fn additive(&mut self, r: &crate::additive::Reference) {
        match r {
            crate::additive::Reference::BindPose => {
                self.s(",\n    additive = { reference = \"bindPose\" }")
            }
            crate::additive::Reference::ClipFrame { clip, time } => {
                self.s(",\n    additive = { clip = ");
                self.string(clip);
                self.s(", time = ");
                self.f(*time);
                self.s(" }");
            }
        }
    }

    /// A clip's float tracks (`docs/extensions.md` §5.4), when it has any.
    fn float_tracks(&mut self, tracks: &[crate::events::FloatTrack]) {
        if tracks.is_empty() {
            return;
        }
        self.s(",\n    floatTracks = [\n");
        for t in tracks {
            self.s("      { name = ");
            self.string(&t.name);
            self.s(", components = ");
            self.u(u64::from(t.components));
            self.s(", interpolation = \"");
            self.s(t.interpolation.name());
            self.s("\", times = ");
            self.floats(&t.times);
            self.s(", values = ");
            self.floats(&t.values);
            self.s(" },\n");
        }
        self.s("    ]");
    }

    /// A clip's events, when it has any.
    fn events(&mut self, events: &[crate::events::Event]) {
        if events.is_empty() {
            return;
        }
        self.s(",\n    events = [\n");
        for e in events {
            self.s("      { time = ");
            self.f(e.time);
            self.s(", name = ");
            self.string(&e.name);
            if let Some(p) = &e.payload {
                self.s(", payload = ");
                self.string(p);
            }
            self.s(" },\n");
        }
        self.s("    ]");
    }

    fn clips(&mut self, clips: &[Clip]) {
        if clips.is_empty() {
            self.s("Animations = []\n");
            return;
        }
        self.s("Animations = [\n");
        for c in clips {
            self.s("  {\n    name = ");
            self.string(&c.name);
            self.s(",\n    duration = ");
            self.f(c.duration);
            self.s(",\n    sampleRate = ");
            self.f(c.sample_rate);
            self.s(",\n    rootBoneIndex = ");
            self.i(i64::from(c.root_bone_index));
            self.s(",\n    flags = ");
            let set: Vec<&str> = names::CLIP_FLAGS
                .iter()
                .filter(|(_, bit)| c.flags.intersects(*bit))
                .map(|(n, _)| *n)
                .collect();
            self.names(&set);
            if let Some(r) = &c.extras.additive {
                self.additive(r);
            }
            if let Some(payload) = &c.compressed {
                self.compressed(payload);
            }
            self.weight_tracks(c);
            self.float_tracks(&c.extras.float_tracks);
            self.events(&c.extras.events);
            if c.tracks.is_empty() {
                self.s(",\n    tracks = [],\n  },\n");
                continue;
            }
            self.s(",\n    tracks = [\n");
            for t in &c.tracks {
                self.s("      {\n        bone = ");
                self.u(u64::from(t.bone));
                if t.keys.is_empty() {
                    self.s(",\n        keys = [],\n      },\n");
                    continue;
                }
                self.s(",\n        keys = [\n");
                for k in &t.keys {
                    self.s("          { time = ");
                    self.f(k.time);
                    self.s(", t = ");
                    self.floats(&k.translation);
                    self.s(", r = ");
                    self.floats(&k.rotation);
                    self.s(", s = ");
                    self.floats(&k.scale);
                    self.s(" },\n");
                }
                self.s("        ],\n      },\n");
            }
            self.s("    ],\n  },\n");
        }
        self.s("]\n");
    }
}
