//! The game's rules checked before a `.tmd` is written, and its open fields.

use super::{
    Lod, NodeLayout, Piece, Tmd, Vertex, MAX_NAME, MAX_PALETTE, MAX_STRIP, NODE_SIZE, TMD,
    VERTEX_SIZE,
};
use crate::bytes::check_name_field16;
use crate::error::{Error, Result};
use crate::open::OpenField;

/// Refuses a name length over [`MAX_NAME`] in a model to be written.
fn check_name_length(record: &str, n: u8) -> Result<()> {
    if usize::from(n) > MAX_NAME {
        return Err(Error::refused(
            TMD,
            record,
            "nameLength",
            format!("is {n}, at most {MAX_NAME}"),
        ));
    }
    Ok(())
}

impl Tmd {
    /// Checks the game's rules for a model to be written: names of at most 15 bytes,
    /// parents in range without cycles, one channel per node in every animation, palettes
    /// of at most 28 nodes in range, strips of fewer than 32767 indices in range, every
    /// vertex in a mesh's first piece and drawn by one piece only, bone bytes that are
    /// palette slot × 3 within that piece's palette for every weighted slot.
    pub fn validate(&self) -> Result<()> {
        let n = self.nodes.len();
        if n > usize::from(u16::MAX) || self.animations.len() > usize::from(u16::MAX) {
            return Err(Error::refused(
                TMD,
                "header",
                "nodeCount/animationCount",
                "more than 65535",
            ));
        }
        check_name_field16(TMD, &self.header.tkl_name, "header", "tklName")?;
        if let NodeLayout::Indexed { node_order } = &self.node_layout {
            if node_order.len() != n {
                return Err(Error::refused(
                    TMD,
                    "node order table",
                    "length",
                    format!("{} entries for {n} nodes", node_order.len()),
                ));
            }
        }
        for (i, node) in self.nodes.iter().enumerate() {
            let rec = format!("node {i}");
            check_name_length(&rec, node.name_length)?;
            if node.parent < -1 || node.parent as isize >= n as isize {
                return Err(Error::refused(
                    TMD,
                    rec,
                    "parent",
                    format!("{} is not -1 or a node index", node.parent),
                ));
            }
        }
        crate::scene::check_acyclic(&self.nodes)?;
        for (i, a) in self.animations.iter().enumerate() {
            let rec = format!("animation {i}");
            check_name_length(&rec, a.name_length)?;
            if a.channels.len() != n {
                return Err(Error::refused(
                    TMD,
                    rec,
                    "channels",
                    format!("{} channels for {n} nodes", a.channels.len()),
                ));
            }
            for (k, c) in a.channels.iter().enumerate() {
                if c.keys.len() > usize::from(u16::MAX) {
                    return Err(Error::refused(
                        TMD,
                        format!("{rec} channel {k}"),
                        "keyCount",
                        "more than 65535 keys",
                    ));
                }
            }
        }
        for (l, lod) in self.mesh.lods.iter().enumerate() {
            for (mi, mesh) in lod.meshes.iter().enumerate() {
                let vcount = mesh.vertex_count();
                let mut owner: Vec<Option<usize>> = vec![None; vcount];
                let all: Vec<&Vertex> = mesh.vertices().collect();
                for (pi, pc) in mesh.pieces.iter().enumerate() {
                    let rec = format!("lod {l} mesh {mi} piece {pi}");
                    if pi > 0 && !pc.vertices.is_empty() {
                        return Err(Error::refused(
                            TMD,
                            rec,
                            "vertexCount",
                            "only a mesh's first piece carries vertices",
                        ));
                    }
                    if pc.palette.len() > MAX_PALETTE {
                        return Err(Error::refused(
                            TMD,
                            rec,
                            "paletteCount",
                            format!("{} nodes, at most {MAX_PALETTE}", pc.palette.len()),
                        ));
                    }
                    if let Some(&v) = pc.palette.iter().find(|&&v| v as usize >= n) {
                        return Err(Error::refused(
                            TMD,
                            rec,
                            "palette",
                            format!("node {v} but the model has {n}"),
                        ));
                    }
                    if pc.strip.len() > MAX_STRIP {
                        return Err(Error::refused(
                            TMD,
                            rec,
                            "stripIndexCount",
                            format!("{} indices, at most {MAX_STRIP}", pc.strip.len()),
                        ));
                    }
                    for &s in &pc.strip {
                        let s = s as usize;
                        let Some(v) = all.get(s) else {
                            return Err(Error::refused(
                                TMD,
                                rec,
                                "strip",
                                format!("index {s} but the mesh has {vcount} vertices"),
                            ));
                        };
                        match owner[s] {
                            Some(o) if o != pi => {
                                return Err(Error::refused(TMD, rec, "strip", format!("vertex {s} is also drawn by piece {o}; a vertex belongs to one piece")));
                            }
                            Some(_) => continue,
                            None => owner[s] = Some(pi),
                        }
                        for k in 0..4 {
                            if v.weights[k] != 0
                                && (v.bones[k] % 3 != 0
                                    || usize::from(v.bones[k] / 3) >= pc.palette.len())
                            {
                                return Err(Error::refused(TMD, rec, "bones", format!("vertex {s} slot {k} has bone byte {} which is not 3 × a slot of this piece's {}-node palette", v.bones[k], pc.palette.len())));
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// The fields whose meaning is open, with their stored values, plus scene-block gaps.
    /// Offsets are where the file that was read holds each field; a model built or
    /// edited in memory (no [`Tmd::layout`]) reports the offsets it cannot know as 0.
    pub fn open_fields(&self) -> Vec<OpenField> {
        let h = &self.header;
        let mut out = vec![
            OpenField::new("header", "zero", 4, h.zero.to_string()),
            OpenField::new("header", "u1", 0x24, h.u1.to_string()),
            OpenField::new("header", "u2", 0x28, h.u2.to_string()),
            OpenField::new("header", "zeros_0x2c", 0x2C, format!("{:?}", h.zeros_2c)),
            OpenField::new("header", "u3", 0x42, h.u3.to_string()),
            OpenField::new("header", "u4", 0x46, h.u4.to_string()),
        ];
        let tl = crate::bytes::field_bytes(&h.tkl_name).len();
        if tl + 1 < 16 && h.tkl_name[tl + 1..].iter().any(|&b| b != 0) {
            out.push(OpenField::new(
                "header",
                "tklName bytes after NUL",
                0x0C + tl + 1,
                hex::encode(&h.tkl_name[tl + 1..]),
            ));
        }
        if h.reserved_48.iter().any(|&b| b != 0) {
            out.push(OpenField::new(
                "header",
                "reserved 0x48",
                0x48,
                hex::encode(h.reserved_48),
            ));
        }
        if let NodeLayout::Indexed { node_order } = &self.node_layout {
            let at = self
                .layout
                .as_ref()
                .and_then(|l| l.node_order_offset)
                .unwrap_or(0x80);
            out.push(OpenField::new(
                "node order table",
                "i32[nodeCount]",
                at,
                format!("{node_order:?}"),
            ));
        }
        let node_at = self.layout.as_ref().map_or(0x7C, |l| l.node_array_offset);
        for (i, n) in self.nodes.iter().enumerate() {
            out.push(OpenField::new(
                format!("node {i}"),
                "flag",
                node_at + i * NODE_SIZE + 0xA2,
                n.flag.to_string(),
            ));
        }
        for (i, a) in self.animations.iter().enumerate() {
            let at = self
                .layout
                .as_ref()
                .and_then(|l| l.animation_offsets.get(i).copied())
                .unwrap_or(0);
            out.push(OpenField::new(
                format!("animation {i}"),
                "unknown",
                at + 20,
                a.unknown.to_string(),
            ));
            for (k, c) in a.channels.iter().enumerate() {
                if c.flags & !1 != 0 {
                    let at = self
                        .layout
                        .as_ref()
                        .and_then(|l| l.channel_offsets.get(i)?.get(k).copied())
                        .unwrap_or(0);
                    out.push(OpenField::new(
                        format!("animation {i} channel {k}"),
                        "flags (bit 1 and up)",
                        at,
                        format!("{:#06x}", c.flags),
                    ));
                }
            }
        }
        // Each LOD record's shaderType sits 4 bytes into the record; records follow
        // each other from 8 bytes into the mesh block (lodCount, lodDistance). Offsets
        // are known for a file that was read.
        let mut lod_at = self.layout.as_ref().map(|lay| lay.mesh_block_offset + 8);
        for (l, lod) in self.mesh.lods.iter().enumerate() {
            out.push(OpenField::new(
                format!("lod {l}"),
                "shaderType",
                lod_at.map_or(0, |at| at + 4),
                lod.shader_type.to_string(),
            ));
            lod_at = lod_at.map(|at| at.saturating_add(lod_record_size(lod)));
        }
        if let Some(lay) = &self.layout {
            for &(s, e) in &lay.gaps {
                out.push(OpenField::new(
                    "scene block",
                    "unclaimed bytes",
                    s,
                    format!("{} bytes", e - s),
                ));
            }
        }
        if !self.trailing.is_empty() {
            out.push(OpenField::new(
                "end",
                "trailing bytes",
                self.layout.as_ref().map_or(0, |l| l.trailing_offset),
                format!("{} bytes", self.trailing.len()),
            ));
        }
        out
    }
}

/// Bytes one LOD record takes in the mesh block: its 24-byte header, then each mesh's
/// 44-byte header and pieces (40-byte header, palette, 40-byte vertices, u16 strip).
fn lod_record_size(lod: &Lod) -> usize {
    let piece =
        |p: &Piece| 40 + 4 * p.palette.len() + VERTEX_SIZE * p.vertices.len() + 2 * p.strip.len();
    24 + lod
        .meshes
        .iter()
        .map(|m| 44 + m.pieces.iter().map(piece).sum::<usize>())
        .sum::<usize>()
}
