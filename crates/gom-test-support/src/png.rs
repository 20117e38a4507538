//! PNG files built by hand, for tests of what decoders do with unusual or hostile
//! chunks: the chunk framing (length, type, data, CRC-32 by the `crc32fast` crate the
//! `png` crate uses too) written once.

/// The 8-byte PNG signature.
pub const SIGNATURE: &[u8; 8] = b"\x89PNG\r\n\x1a\n";

/// CRC-32 (ISO 3309) of `bytes`, as a PNG chunk stores it over its type and data.
pub fn crc32(bytes: &[u8]) -> u32 {
    crc32fast::hash(bytes)
}

/// One chunk: big-endian length, type, data, CRC of type and data.
pub fn chunk(kind: &[u8; 4], data: &[u8]) -> Vec<u8> {
    let body = [&kind[..], data].concat();
    let mut out = Vec::with_capacity(body.len() + 8);
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    out.extend_from_slice(&body);
    out.extend_from_slice(&crc32(&body).to_be_bytes());
    out
}

/// A PNG file: the signature and `chunks` in order.
pub fn file(chunks: &[(&[u8; 4], &[u8])]) -> Vec<u8> {
    let mut out = SIGNATURE.to_vec();
    for (kind, data) in chunks {
        out.extend_from_slice(&chunk(kind, data));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_iend_chunk_has_its_well_known_crc() {
        assert_eq!(crc32(b"IEND"), 0xAE42_6082);
        assert_eq!(
            chunk(b"IEND", &[]),
            [0, 0, 0, 0, b'I', b'E', b'N', b'D', 0xAE, 0x42, 0x60, 0x82]
        );
    }
}
