//! The bytes behind a glTF document: the `.glb` container, data URIs and external files.

use std::path::{Path, PathBuf};

use super::GltfError;

/// The JSON text and the optional `BIN` chunk of a `.glb` container (or the whole
/// input when it is a `.gltf` JSON file).
pub(crate) struct Container<'a> {
    /// The JSON bytes.
    pub json: &'a [u8],
    /// The `BIN` chunk, if any.
    pub bin: Option<&'a [u8]>,
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Splits the input into JSON and binary chunk. Input that does not start with the
/// `glTF` magic is taken as JSON text.
pub(crate) fn split<'a>(bytes: &'a [u8], file: &str) -> Result<Container<'a>, GltfError> {
    if !bytes.starts_with(b"glTF") {
        return Ok(Container {
            json: bytes,
            bin: None,
        });
    }
    let err = |offset: usize, message: String| GltfError::Container {
        file: file.to_string(),
        offset: offset as u64,
        message,
    };
    let version = u32_at(bytes, 4).ok_or_else(|| err(4, "header cut short".into()))?;
    if version != 2 {
        return Err(err(4, format!("version {version} is not 2")));
    }
    let length = u32_at(bytes, 8).ok_or_else(|| err(8, "header cut short".into()))? as usize;
    if length < 12 || length > bytes.len() {
        return Err(err(
            8,
            format!(
                "declared length {length} does not match the {} bytes present",
                bytes.len()
            ),
        ));
    }
    let data = &bytes[..length];
    let mut at = 12usize;
    let mut json = None;
    let mut bin = None;
    let mut chunk_index = 0usize;
    while at < data.len() {
        let chunk_len = u32_at(data, at)
            .ok_or_else(|| err(at, format!("chunk {chunk_index}: header cut short")))?
            as usize;
        let kind = u32_at(data, at + 4)
            .ok_or_else(|| err(at + 4, format!("chunk {chunk_index}: header cut short")))?;
        let start = at + 8;
        let end = start
            .checked_add(chunk_len)
            .filter(|&e| e <= data.len())
            .ok_or_else(|| {
                err(
                    at,
                    format!(
                        "chunk {chunk_index}: length {chunk_len} runs past the end of the file ({} bytes)",
                        data.len()
                    ),
                )
            })?;
        let payload = &data[start..end];
        match &kind.to_le_bytes() {
            b"JSON" if chunk_index == 0 => json = Some(payload),
            b"JSON" => return Err(err(at + 4, "a second JSON chunk".into())),
            b"BIN\0" if chunk_index == 1 => bin = Some(payload),
            b"BIN\0" => {
                return Err(err(
                    at + 4,
                    format!("BIN chunk at position {chunk_index}; it must follow the JSON chunk"),
                ))
            }
            _ if chunk_index == 0 => return Err(err(at + 4, "the first chunk is not JSON".into())),
            _ => {} // unknown chunks are skipped (glTF 2.0, GLB)
        }
        chunk_index += 1;
        at = (end + 3) & !3;
    }
    let json = json.ok_or_else(|| err(12, "no JSON chunk".into()))?;
    Ok(Container { json, bin })
}

fn b64_value(c: u8) -> Option<u32> {
    match c {
        b'A'..=b'Z' => Some(u32::from(c - b'A')),
        b'a'..=b'z' => Some(u32::from(c - b'a') + 26),
        b'0'..=b'9' => Some(u32::from(c - b'0') + 52),
        b'+' | b'-' => Some(62),
        b'/' | b'_' => Some(63),
        _ => None,
    }
}

/// Decodes standard (or URL-safe) base64, padding optional, whitespace ignored.
pub(crate) fn base64_decode(text: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3 + 3);
    let mut acc = 0u32;
    let mut bits = 0u32;
    let mut padding = false;
    for (i, c) in text.bytes().enumerate() {
        if c.is_ascii_whitespace() {
            continue;
        }
        if c == b'=' {
            padding = true;
            continue;
        }
        if padding {
            return Err(format!(
                "base64 data continues after padding at character {i}"
            ));
        }
        let v = b64_value(c).ok_or_else(|| format!("invalid base64 character at {i}"))?;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Ok(out)
}

/// Decodes `%XX` escapes of a relative URI.
pub(crate) fn percent_decode(uri: &str) -> String {
    let b = uri.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let h = std::str::from_utf8(&b[i + 1..i + 3])
                .ok()
                .and_then(|s| u8::from_str_radix(s, 16).ok());
            if let Some(h) = h {
                out.push(h);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// What a URI resolved to.
pub(crate) enum Resolved {
    /// Bytes decoded from a `data:` URI, with its MIME type.
    Data(Vec<u8>, String),
    /// A file relative to the base directory.
    File(PathBuf),
}

/// Resolves a URI against the base directory.
pub(crate) fn resolve(uri: &str, base: Option<&Path>) -> Result<Resolved, String> {
    if let Some(rest) = uri.strip_prefix("data:") {
        let (head, payload) = rest
            .split_once(',')
            .ok_or_else(|| "data URI without a comma".to_string())?;
        let Some(mime) = head.strip_suffix(";base64") else {
            return Err("data URI is not base64-encoded".into());
        };
        let bytes = base64_decode(payload)?;
        return Ok(Resolved::Data(bytes, mime.to_string()));
    }
    let has_scheme = uri
        .split_once(':')
        .is_some_and(|(s, _)| s.len() > 1 && s.bytes().all(|c| c.is_ascii_alphanumeric()));
    if has_scheme {
        return Err(format!("unsupported URI scheme in {uri:?}"));
    }
    let Some(base) = base else {
        return Err(format!(
            "refers to the external file {uri:?} but no base directory was given"
        ));
    };
    Ok(Resolved::File(base.join(percent_decode(uri))))
}

/// Reads at most `len` bytes from the start of the file at `path`: the bytes past a
/// buffer's `byteLength` are never used, and the file may be endless (a device, a pipe).
fn read_prefix(path: &Path, len: usize) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let file = std::fs::File::open(path)?;
    let mut out = Vec::new();
    file.take(u64::try_from(len).unwrap_or(u64::MAX))
        .read_to_end(&mut out)?;
    Ok(out)
}

/// Loads every buffer of `root`, cut to its `byteLength`. A buffer in `fallback` (one
/// that only stands in for meshopt-compressed data) holds no bytes and may be absent.
pub(crate) fn load_buffers(
    root: &gltf::json::Root,
    bin: Option<&[u8]>,
    base: Option<&Path>,
    file: &str,
    fallback: &[usize],
) -> Result<Vec<Vec<u8>>, GltfError> {
    let mut out = Vec::new();
    for (index, buffer) in root.buffers.iter().enumerate() {
        let object = format!("buffers[{index}]");
        let invalid = |message: String| GltfError::Invalid {
            file: file.to_string(),
            object: object.clone(),
            message,
        };
        let length = usize::try_from(buffer.byte_length.0).unwrap_or(usize::MAX);
        let loaded = match buffer.uri.as_deref() {
            None => bin
                .map(<[u8]>::to_vec)
                .ok_or_else(|| invalid("refers to the GLB BIN chunk, which is absent".into())),
            Some(uri) => match resolve(uri, base).map_err(invalid)? {
                Resolved::Data(b, _) => Ok(b),
                Resolved::File(path) => read_prefix(&path, length)
                    .map_err(|e| invalid(format!("cannot read {}: {e}", path.display()))),
            },
        };
        let mut bytes = match loaded {
            Err(_) if fallback.contains(&index) => Vec::new(),
            other => other?,
        };
        if bytes.len() < length && !fallback.contains(&index) {
            return Err(invalid(format!(
                "byteLength is {} but only {} bytes are present",
                length,
                bytes.len()
            )));
        }
        bytes.truncate(length);
        out.push(bytes);
    }
    Ok(out)
}
