//! Writing a `.tmd` in the public writers' canonical layout.

use super::{MeshBlock, NodeLayout, Tmd, TmdHeader, NODE_SIZE, SCENE_START, TMD, VERTEX_SIZE};
use crate::bytes::{name_field16, to_u32, Writer};
use crate::error::{Error, Result};

/// File offsets of every structure in the canonical layout of a model.
struct Plan {
    header_size: usize,
    order_off: usize,
    node_off: usize,
    table_off: usize,
    anim_offs: Vec<usize>,
    mesh_off: usize,
}

fn add(a: usize, b: usize) -> Result<usize> {
    a.checked_add(b).ok_or_else(|| {
        Error::refused(
            TMD,
            "model",
            "size",
            "the model is too large for 32-bit offsets",
        )
    })
}

impl Tmd {
    /// A new, empty model (one root-less node list, no LODs), for building from scratch.
    pub fn new(tkl_name: &str) -> Result<Tmd> {
        let name = name_field16(TMD, tkl_name, "header", "tklName")?;
        Ok(Tmd {
            header: TmdHeader {
                zero: 0,
                tkl_name: name,
                raw_base: 0x0003_5000,
                u1: 0,
                u2: 0,
                zeros_2c: [0; 4],
                u3: 0,
                u4: 1,
                reserved_48: [0; 44],
            },
            node_layout: NodeLayout::Direct,
            nodes: Vec::new(),
            animations: Vec::new(),
            mesh: MeshBlock {
                lod_distance: 0.0,
                lods: Vec::new(),
            },
            trailing: Vec::new(),
            layout: None,
            original: None,
            read_digest: None,
        })
    }

    fn plan(&self) -> Result<Plan> {
        let n = self.nodes.len();
        let header_size = match self.node_layout {
            NodeLayout::Direct => 0x7C,
            NodeLayout::Indexed { .. } => 0x80,
        };
        let order_off = header_size;
        let node_off = match &self.node_layout {
            NodeLayout::Direct => header_size,
            NodeLayout::Indexed { node_order } => add(order_off, node_order.len() * 4)?,
        };
        let table_off = add(node_off, n * NODE_SIZE)?;
        let mut at = add(table_off, self.animations.len() * 4)?;
        let mut anim_offs = Vec::with_capacity(self.animations.len());
        for a in &self.animations {
            anim_offs.push(at);
            at = add(at, 32 + a.channels.len() * 4)?;
            for c in &a.channels {
                at = add(at, 4 + c.keys.len() * 8)?;
            }
        }
        Ok(Plan {
            header_size,
            order_off,
            node_off,
            table_off,
            anim_offs,
            mesh_off: at,
        })
    }

    /// The stored pointer for file offset `off`; `lenient` (hashing only) wraps instead of
    /// refusing, so that any model that was read can be fingerprinted.
    fn raw(&self, off: usize, lenient: bool) -> Result<u32> {
        if lenient {
            return Ok((off as u64)
                .wrapping_add(u64::from(self.header.raw_base))
                .wrapping_sub(SCENE_START as u64) as u32);
        }
        (off as u64 + u64::from(self.header.raw_base))
            .checked_sub(SCENE_START as u64)
            .and_then(|v| u32::try_from(v).ok())
            .ok_or_else(|| {
                Error::refused(TMD, "header", "rawBase", "pointers do not fit in 32 bits")
            })
    }

    /// Lays the model out in the public writers' order into `w`.
    fn emit(&self, w: &mut Writer) -> Result<()> {
        let p = self.plan()?;
        let h = &self.header;
        let lenient = w.is_hasher();
        let count16 = |n: usize, field: &'static str| {
            u16::try_from(n).map_err(|_| {
                Error::refused(TMD, "header", field, format!("{n} does not fit in 16 bits"))
            })
        };
        let scene = p.mesh_off - SCENE_START;
        let scene32 = to_u32(TMD, scene, "header", "sceneBlockSize")?;
        w.bytes(b"TMDL");
        w.u32(h.zero);
        // the total size is known only at the end: count it first
        let total = add(p.mesh_off, self.mesh_size()?)?;
        let total = add(total, self.trailing.len())?;
        w.u32(to_u32(TMD, total - 12, "header", "fileSize-12")?);
        w.bytes(&h.tkl_name);
        w.u32(scene32);
        w.u32(h.raw_base);
        w.u32(h.u1);
        w.u32(h.u2);
        for z in h.zeros_2c {
            w.u32(z);
        }
        w.u32(scene32);
        w.u16(count16(self.nodes.len(), "nodeCount")?);
        w.u16(h.u3);
        w.u16(count16(self.animations.len(), "animationCount")?);
        w.u16(h.u4);
        w.bytes(&h.reserved_48);
        match &self.node_layout {
            NodeLayout::Direct => {
                w.u32(self.raw(p.node_off, lenient)?);
                w.u32(self.raw(p.table_off, lenient)?);
            }
            NodeLayout::Indexed { node_order } => {
                w.u32(self.raw(p.order_off, lenient)?);
                w.u32(self.raw(p.node_off, lenient)?);
                w.u32(self.raw(p.table_off, lenient)?);
                for &v in node_order {
                    w.i32(v);
                }
            }
        }
        debug_assert!(p.header_size <= p.node_off);
        for n in &self.nodes {
            w.f32s(&n.rest_rotation);
            w.f32s(&n.bind);
            w.f32s(&n.inverse_bind);
            w.u8(n.name_length);
            w.bytes(&n.name_field);
            w.i16(n.parent);
            w.u16(n.flag);
            w.f32s(&n.rest_translation);
        }
        for &off in &p.anim_offs {
            w.u32(self.raw(off, lenient)?);
        }
        for (i, (a, &off)) in self.animations.iter().zip(&p.anim_offs).enumerate() {
            w.u8(a.name_length);
            w.bytes(&a.name_field);
            w.u32(a.overlay);
            w.u32(a.unknown);
            w.u32(a.used_node_count);
            w.f32(a.duration);
            let mut c_off = off + 32 + a.channels.len() * 4;
            for c in &a.channels {
                w.u32(self.raw(c_off, lenient)?);
                c_off += 4 + c.keys.len() * 8;
            }
            for (k, c) in a.channels.iter().enumerate() {
                w.u16(c.flags);
                let kc = u16::try_from(c.keys.len()).map_err(|_| {
                    Error::refused(
                        TMD,
                        format!("animation {i} channel {k}"),
                        "keyCount",
                        "more than 65535 keys",
                    )
                })?;
                w.u16(kc);
                for key in &c.keys {
                    w.f32(key.time);
                    w.u16(key.loc_index);
                    w.u16(key.rot_index);
                }
            }
        }
        let m = &self.mesh;
        w.u32(to_u32(TMD, m.lods.len(), "mesh block", "lodCount")?);
        w.f32(m.lod_distance);
        for (l, lod) in m.lods.iter().enumerate() {
            w.u32(to_u32(
                TMD,
                lod.meshes.len(),
                &format!("lod {l}"),
                "meshCount",
            )?);
            w.u32(lod.shader_type);
            w.f32s(&lod.sphere);
            for (mi, mesh) in lod.meshes.iter().enumerate() {
                let rec = format!("lod {l} mesh {mi}");
                let strips: usize = mesh.pieces.iter().map(|p| p.strip.len()).sum();
                w.u32(to_u32(TMD, mesh.pieces.len(), &rec, "pieceCount")?);
                w.u32(to_u32(TMD, strips, &rec, "totalStripIndices")?);
                w.u32(to_u32(TMD, mesh.vertex_count(), &rec, "totalVertices")?);
                w.bytes(&mesh.material_field);
                for pc in &mesh.pieces {
                    w.u32(to_u32(TMD, pc.strip.len(), &rec, "stripIndexCount")?);
                    w.u32(to_u32(TMD, pc.vertices.len(), &rec, "vertexCount")?);
                    w.u32(to_u32(TMD, pc.palette.len(), &rec, "paletteCount")?);
                    w.u32(pc.verts_required);
                    w.f32s(&pc.box_center);
                    w.f32s(&pc.box_extents);
                    for &v in &pc.palette {
                        w.u32(v);
                    }
                    for v in &pc.vertices {
                        w.f32s(&v.position);
                        w.f32s(&v.normal);
                        w.bytes(&v.weights);
                        w.bytes(&v.bones);
                        w.f32s(&v.uv);
                    }
                    for &s in &pc.strip {
                        w.u16(s);
                    }
                }
            }
        }
        w.bytes(&self.trailing);
        Ok(())
    }

    fn mesh_size(&self) -> Result<usize> {
        let mut n = 8usize;
        for lod in &self.mesh.lods {
            n = add(n, 24)?;
            for m in &lod.meshes {
                n = add(n, 44)?;
                for p in &m.pieces {
                    n = add(
                        n,
                        40 + p.palette.len() * 4
                            + p.vertices.len() * VERTEX_SIZE
                            + p.strip.len() * 2,
                    )?;
                }
            }
        }
        Ok(n)
    }

    pub(super) fn canonical_digest(&self) -> Option<u64> {
        let mut w = Writer::hasher();
        self.emit(&mut w).ok()?;
        Some(w.digest())
    }

    /// Whether the model differs from the file it was read from (true for new models).
    pub fn is_modified(&self) -> bool {
        match (&self.original, &self.layout) {
            (Some(_), Some(_)) => {
                self.read_digest.is_none() || self.canonical_digest() != self.read_digest
            }
            _ => true,
        }
    }

    /// Writes the model. An unmodified model gives back the bytes it was read from
    /// (gaps and block order included); anything else is laid out again in the public
    /// writers' order (header, nodes, animation table, each animation followed by its
    /// channels, mesh block, trailing bytes) with sizes and pointers recomputed, after
    /// passing [`Tmd::validate`]. Scene-block gaps are not carried into a new layout.
    pub fn write(&self) -> Result<Vec<u8>> {
        if let Some(o) = &self.original {
            if !self.is_modified() {
                return Ok(o.clone());
            }
        }
        self.validate()?;
        let mut w = Writer::default();
        self.emit(&mut w)?;
        Ok(w.buf)
    }
}
