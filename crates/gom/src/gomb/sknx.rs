//! `SKNX`, a mesh's skinning method and influences five to eight (the extension of
//! `docs/extensions.md` §3; layout in [`crate::skinning`]).

use super::cursor::{lef32, Chunk};
use crate::error::{FourCc, Place, ReadError, ReadErrorKind};
use crate::limits::MAX_SKIN_INFLUENCES;
use crate::model::{SkinWeights, SkinningMethod};
use crate::skinning::{dq_weight_ok, EXTRA_BYTES};
use crate::validate::{finite_bits, item, mark_used, skin_structure, weights_rule, Tally};

/// A checked `SKNX` header with its arrays (their values are checked by [`check`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sknx<'a> {
    pub method: SkinningMethod,
    /// `vertexCount × 24` bytes: slots 4..8 of each vertex, or `None` with 4 slots.
    pub extra: Option<&'a [u8]>,
    /// Where `extra` starts in the file.
    pub extra_at: usize,
    /// `vertexCount × 4` bytes of dual-quaternion shares (blended only).
    pub dq: Option<&'a [u8]>,
    /// Where `dq` starts in the file.
    pub dq_at: usize,
}

fn value(at: usize, field: &'static str, v: u32, expected: &'static str) -> ReadError {
    ReadError {
        offset: at as u64,
        place: Place::Chunk(FourCc::SKNX),
        field,
        kind: ReadErrorKind::Value {
            value: u64::from(v),
            expected,
        },
    }
}

/// Reads `SKNX`'s fixed fields and finds its arrays; `skinned` and `vertex_count` are
/// MSH0's.
pub(crate) fn parse<'a>(
    file: &'a [u8],
    ch: &Chunk,
    skinned: bool,
    vertex_count: u32,
) -> Result<Sknx<'a>, ReadError> {
    let mut c = ch.cur(file);
    let at = c.pos;
    let code = c.u32("method")?;
    let method = SkinningMethod::from_code(code).ok_or(ReadError {
        offset: at as u64,
        place: c.place,
        field: "method",
        kind: ReadErrorKind::UnknownEnum { value: code },
    })?;
    let at_n = c.pos;
    let influences = c.u32("influenceCount")?;
    if influences != 4 && influences as usize != MAX_SKIN_INFLUENCES {
        return Err(value(at_n, "influenceCount", influences, "4 or 8"));
    }
    if method == SkinningMethod::Linear && influences == 4 {
        return Err(value(
            at_n,
            "influenceCount",
            influences,
            "8 with method 0 (linear with 4 influences is GOM v1: no SKNX)",
        ));
    }
    if !skinned {
        return Err(value(
            at,
            "method",
            code,
            "no SKNX on a static mesh (vertexFormat without bit 6)",
        ));
    }
    let at_vc = c.pos;
    let n = c.u32("vertexCount")?;
    if n != vertex_count {
        return Err(value(at_vc, "vertexCount", n, "MSH0's vertexCount"));
    }
    c.reserved(4, "reserved")?;
    let vc = u64::from(vertex_count);
    let extra_at = c.pos;
    let extra = if influences == 4 {
        None
    } else {
        Some(c.take(vc * EXTRA_BYTES as u64, "influences")?)
    };
    let dq_at = c.pos;
    let dq = if method == SkinningMethod::Blended {
        Some(c.take(vc * 4, "dqWeights")?)
    } else {
        None
    };
    c.finish(if dq.is_some() {
        "dqWeights"
    } else {
        "influences"
    })?;
    Ok(Sknx {
        method,
        extra,
        extra_at,
        dq,
        dq_at,
    })
}

/// Slots 4..8 of one vertex from its 24 bytes.
pub(crate) fn extra_at(b: &[u8]) -> SkinWeights {
    let bone = |k: usize| u16::from_le_bytes([b[2 * k], b[2 * k + 1]]);
    let w = |k: usize| lef32(&b[8 + 4 * k..]);
    SkinWeights {
        bones: [bone(0), bone(1), bone(2), bone(3)],
        weights: [w(0), w(1), w(2), w(3)],
    }
}

/// What [`check`] needs of the mesh: slot 0..4 of every vertex (from VB0) and the
/// skeleton's bone count.
pub(crate) struct Vb0Skin<'v> {
    pub first: &'v dyn Fn(usize) -> SkinWeights,
    pub bone_count: u32,
}

/// Checks every value of `x`: extra weights finite and structurally valid (an error),
/// the weight rules over all eight slots (findings in `weights`, which VB0's check
/// left to this one), the bones used marked; dual-quaternion shares within [0, 1].
pub(crate) fn check(
    x: &Sknx<'_>,
    vb0: &Vb0Skin<'_>,
    used: &mut [bool],
    weights: &mut Tally,
) -> Result<(), ReadError> {
    let place = Place::Chunk(FourCc::SKNX);
    if let Some(extra) = x.extra {
        for (v, b) in extra.chunks_exact(EXTRA_BYTES).enumerate() {
            let base = x.extra_at + v * EXTRA_BYTES;
            let e = extra_at(b);
            if let Some(k) = e.weights.iter().position(|w| !finite_bits(w.to_bits())) {
                return Err(ReadError {
                    offset: (base + 8 + 4 * k) as u64,
                    place,
                    field: "influences",
                    kind: ReadErrorKind::NotFinite,
                });
            }
            if let Some((k, reason)) = skin_structure(e.bones, e.weights, vb0.bone_count) {
                return Err(ReadError {
                    offset: (base + 2 * k) as u64,
                    place,
                    field: "influences",
                    kind: ReadErrorKind::Rule {
                        reason: format!("vertex {v}, slot {}: {reason}", k + 4),
                    },
                });
            }
            let f = (vb0.first)(v);
            let mut bones = [0u16; 8];
            let mut w = [0.0f32; 8];
            bones[..4].copy_from_slice(&f.bones);
            bones[4..].copy_from_slice(&e.bones);
            w[..4].copy_from_slice(&f.weights);
            w[4..].copy_from_slice(&e.weights);
            if let Some(reason) = weights_rule(bones, w) {
                weights.fail(item(v), || format!("vertex {v}: {reason}"));
            }
            mark_used(used, e.bones, e.weights);
        }
    }
    if let Some(dq) = x.dq {
        for (v, b) in dq.chunks_exact(4).enumerate() {
            let a = lef32(b);
            if !dq_weight_ok(a) {
                let kind = if finite_bits(a.to_bits()) {
                    ReadErrorKind::Rule {
                        reason: format!(
                            "vertex {v}: the dual-quaternion weight {a} is not within [0, 1]"
                        ),
                    }
                } else {
                    ReadErrorKind::NotFinite
                };
                return Err(ReadError {
                    offset: (x.dq_at + 4 * v) as u64,
                    place,
                    field: "dqWeights",
                    kind,
                });
            }
        }
    }
    Ok(())
}
