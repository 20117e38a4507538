//! bufferViews compressed with `EXT_meshopt_compression` / `KHR_meshopt_compression`,
//! decoded with meshoptimizer's decoders (the `meshopt` crate) into new buffers that
//! the views then point at, so that the rest of the importer reads plain bytes.

use super::prepare::MeshoptView;
use super::GltfError;

/// The most bytes all decoded views together may hold.
const MAX_DECODED_TOTAL: usize = 1 << 30;

/// How many times its compressed size a view may decode to: meshoptimizer's vertex
/// codec spends at least a few bits per 16 vertices and byte, so a larger ratio is
/// not a file meshoptimizer wrote, and the allocation would not be justified by the
/// input.
const MAX_RATIO: usize = 4096;

/// Decodes every view of `views`, appending one buffer per view to `root` and
/// `data` and pointing the view at it.
pub(crate) fn decode_all(
    root: &mut gltf::json::Root,
    data: &mut Vec<Vec<u8>>,
    views: &[MeshoptView],
    file: &str,
) -> Result<(), GltfError> {
    let mut total = 0usize;
    for v in views {
        let object = format!("bufferViews[{}].extensions.{}", v.view, v.extension);
        let invalid = |message: String| GltfError::Invalid {
            file: file.to_string(),
            object: object.clone(),
            message,
        };
        let decoded_len = v
            .count
            .checked_mul(v.stride)
            .filter(|&n| n <= v.length.saturating_mul(MAX_RATIO).saturating_add(1 << 20))
            .ok_or_else(|| {
                invalid(format!(
                    "{} elements of {} bytes from {} compressed bytes is more than the input justifies",
                    v.count, v.stride, v.length
                ))
            })?;
        total = total.saturating_add(decoded_len);
        if total > MAX_DECODED_TOTAL {
            return Err(invalid(format!(
                "the decoded views exceed {MAX_DECODED_TOTAL} bytes"
            )));
        }
        let source = data
            .get(v.buffer)
            .ok_or_else(|| invalid(format!("buffer {} does not exist", v.buffer)))?;
        let encoded = v
            .offset
            .checked_add(v.length)
            .and_then(|end| source.get(v.offset..end))
            .ok_or_else(|| {
                invalid(format!(
                    "bytes {}..+{} lie outside buffers[{}] ({} bytes)",
                    v.offset,
                    v.length,
                    v.buffer,
                    source.len()
                ))
            })?;
        let bytes = decode(v, encoded).map_err(invalid)?;
        let Some(view) = root.buffer_views.get_mut(v.view) else {
            return Err(invalid("the bufferView does not exist".into()));
        };
        let index = u32::try_from(data.len()).map_err(|_| invalid("too many buffers".into()))?;
        view.buffer = gltf::json::Index::new(index);
        view.byte_offset = None;
        view.byte_length = gltf::json::validation::USize64(bytes.len() as u64);
        root.buffers.push(gltf::json::Buffer {
            byte_length: gltf::json::validation::USize64(bytes.len() as u64),
            name: None,
            uri: None,
            extensions: None,
            extras: Default::default(),
        });
        data.push(bytes);
    }
    Ok(())
}

/// One view's bytes, decoded and filtered.
fn decode(v: &MeshoptView, encoded: &[u8]) -> Result<Vec<u8>, String> {
    let failed = |e: meshopt::Error| format!("meshoptimizer cannot decode it: {e:?}");
    match v.mode.as_str() {
        "ATTRIBUTES" => {
            let mut bytes = vertices(encoded, v.count, v.stride)?;
            filter(&mut bytes, v)?;
            Ok(bytes)
        }
        "TRIANGLES" | "INDICES" => {
            if v.filter != "NONE" {
                return Err(format!("filter {} on {} data", v.filter, v.mode));
            }
            let triangles = v.mode == "TRIANGLES";
            match v.stride {
                2 => {
                    let i: Vec<u16> = if triangles {
                        meshopt::decode_index_buffer(encoded, v.count).map_err(failed)?
                    } else {
                        meshopt::decode_index_sequence(encoded, v.count).map_err(failed)?
                    };
                    Ok(i.iter().flat_map(|x| x.to_le_bytes()).collect())
                }
                4 => {
                    let i: Vec<u32> = if triangles {
                        meshopt::decode_index_buffer(encoded, v.count).map_err(failed)?
                    } else {
                        meshopt::decode_index_sequence(encoded, v.count).map_err(failed)?
                    };
                    Ok(i.iter().flat_map(|x| x.to_le_bytes()).collect())
                }
                s => Err(format!("index stride {s} (must be 2 or 4)")),
            }
        }
        m => Err(format!("unknown mode {m:?}")),
    }
}

/// One vertex of `N` words, as the decoder writes it.
#[derive(Clone, Copy)]
struct Words<const N: usize>([u32; N]);

impl<const N: usize> Default for Words<N> {
    fn default() -> Self {
        Words([0; N])
    }
}

/// `count` vertices of `stride` bytes: the decoder is generic over the element type,
/// so the stride (a multiple of 4 up to 256, as the extension requires) picks an
/// array of that many words.
fn vertices(encoded: &[u8], count: usize, stride: usize) -> Result<Vec<u8>, String> {
    macro_rules! by_words {
        ($($n:literal)*) => {
            match stride / 4 {
                $($n => meshopt::decode_vertex_buffer::<Words<$n>>(encoded, count)
                    .map(|v| v.iter().flat_map(|w| w.0).flat_map(u32::to_ne_bytes).collect()),)*
                _ => return Err(format!("byteStride {stride} (must be a multiple of 4 up to 256)")),
            }
        };
    }
    if !stride.is_multiple_of(4) {
        return Err(format!(
            "byteStride {stride} (must be a multiple of 4 up to 256)"
        ));
    }
    let decoded: Result<Vec<u8>, meshopt::Error> = by_words!(
        1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32
        33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60
        61 62 63 64
    );
    decoded.map_err(|e| format!("meshoptimizer cannot decode it: {e:?}"))
}

/// Applies the view's filter in place (bytes as the decoder wrote them).
fn filter(bytes: &mut [u8], v: &MeshoptView) -> Result<(), String> {
    match (v.filter.as_str(), v.stride) {
        ("NONE", _) => Ok(()),
        ("OCTAHEDRAL", 4) => {
            let mut e: Vec<[i8; 4]> = bytes
                .chunks_exact(4)
                .map(|c| [c[0] as i8, c[1] as i8, c[2] as i8, c[3] as i8])
                .collect();
            meshopt::decode_filter_oct(&mut e);
            copy_back(bytes, e.iter().flatten().map(|&x| x as u8));
            Ok(())
        }
        ("OCTAHEDRAL", 8) | ("QUATERNION", 8) | ("COLOR", 8) => {
            let mut e: Vec<[i16; 4]> = bytes
                .chunks_exact(8)
                .map(|c| std::array::from_fn(|i| i16::from_ne_bytes([c[2 * i], c[2 * i + 1]])))
                .collect();
            match v.filter.as_str() {
                "OCTAHEDRAL" => meshopt::decode_filter_oct(&mut e),
                "COLOR" => meshopt::decode_filter_color(&mut e),
                _ => meshopt::decode_filter_quat(&mut e),
            }
            copy_back(bytes, e.iter().flatten().flat_map(|x| x.to_ne_bytes()));
            Ok(())
        }
        ("EXPONENTIAL", s) if s.is_multiple_of(4) => {
            let mut e: Vec<[u32; 1]> = bytes
                .chunks_exact(4)
                .map(|c| [u32::from_ne_bytes([c[0], c[1], c[2], c[3]])])
                .collect();
            meshopt::decode_filter_exp(&mut e);
            copy_back(bytes, e.iter().flatten().flat_map(|x| x.to_ne_bytes()));
            Ok(())
        }
        ("COLOR", 4) => {
            let mut e: Vec<[i8; 4]> = bytes
                .chunks_exact(4)
                .map(|c| [c[0] as i8, c[1] as i8, c[2] as i8, c[3] as i8])
                .collect();
            meshopt::decode_filter_color(&mut e);
            copy_back(bytes, e.iter().flatten().map(|&x| x as u8));
            Ok(())
        }
        (f, s) => Err(format!("filter {f} with byteStride {s}")),
    }
}

fn copy_back(dst: &mut [u8], src: impl Iterator<Item = u8>) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d = s;
    }
}
