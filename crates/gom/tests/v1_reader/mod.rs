//! A GOM v1 reader written from the draft and D3, D4, D9 and D13 alone, sharing no
//! code with `gom`: it walks the chunks, skips unknown FourCCs by their size (§8.5)
//! and reads ANIM's clips. The extension tests check what it does with their files
//! (docs/extensions.md §1.2).
#![allow(dead_code)]

/// A clip as the independent reader sees it: name id, flags, (bone, key count) pairs.
#[derive(Debug, PartialEq)]
pub struct V1Clip {
    pub flags: u32,
    pub tracks: Vec<(i32, u32)>,
}

fn u32_at(b: &[u8], at: usize) -> Result<u32, String> {
    b.get(at..at + 4)
        .map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
        .ok_or_else(|| format!("truncated at {at}"))
}

/// The clips of a GOMB file, or the error a strict v1 reader gives.
pub fn v1_read_clips(b: &[u8]) -> Result<Vec<V1Clip>, String> {
    if b.get(..8) != Some(b"GOMB0001") {
        return Err("magic".into());
    }
    let table = u32_at(b, 64)? as usize;
    let end = if table == 0 { b.len() } else { table };
    let mut pos = 512;
    let mut clips = Vec::new();
    while pos < end {
        let (fourcc, size) = (&b[pos..pos + 4], u32_at(b, pos + 4)? as usize);
        let payload = pos + 16;
        if payload + size > end {
            return Err(format!("chunk at {pos} runs past the end"));
        }
        if fourcc == b"ANIM" {
            let count = u32_at(b, payload)? as usize;
            let mut at = payload + 16;
            while at < payload + size {
                let (cc, csize) = (&b[at..at + 4], u32_at(b, at + 4)? as usize);
                if cc == b"CLP0" {
                    clips.push(v1_clip(b, at + 16)?);
                } // any other child is skipped (§8.5)
                at += 16 + csize.div_ceil(16) * 16;
            }
            if clips.len() != count {
                return Err(format!("ANIM says {count} clips, holds {}", clips.len()));
            }
        }
        pos = payload + size.div_ceil(16) * 16;
    }
    Ok(clips)
}

fn v1_clip(b: &[u8], p: usize) -> Result<V1Clip, String> {
    let flags = u32_at(b, p + 16)?;
    if flags & !1 != 0 {
        // D13: clip flag bits 1..31 are reserved.
        return Err(format!(
            "CLP0 field flags at offset {}: reserved bits set",
            p + 16
        ));
    }
    let count = u32_at(b, p + 20)?;
    let mut at = p + 24;
    let mut tracks = Vec::new();
    for _ in 0..count {
        let bone = u32_at(b, at)? as i32;
        let keys = u32_at(b, at + 4)?;
        tracks.push((bone, keys));
        at += 8 + 44 * keys as usize;
    }
    Ok(V1Clip { flags, tracks })
}
