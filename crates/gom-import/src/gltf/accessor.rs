//! Reading glTF accessors with every range checked against the bytes present.

use gltf::accessor::{DataType, Dimensions};

use super::GltfError;

/// The decoded buffers of a document, each cut to its declared `byteLength`.
pub(crate) struct Buffers<'f> {
    /// The file name used in error messages.
    pub file: &'f str,
    /// One entry per `buffers[i]`.
    pub data: Vec<Vec<u8>>,
}

/// Number of components of an accessor type.
pub(crate) fn dims_count(d: Dimensions) -> usize {
    match d {
        Dimensions::Scalar => 1,
        Dimensions::Vec2 => 2,
        Dimensions::Vec3 => 3,
        Dimensions::Vec4 => 4,
        Dimensions::Mat2 => 4,
        Dimensions::Mat3 => 9,
        Dimensions::Mat4 => 16,
    }
}

fn type_size(t: DataType) -> usize {
    match t {
        DataType::I8 | DataType::U8 => 1,
        DataType::I16 | DataType::U16 => 2,
        DataType::U32 | DataType::F32 => 4,
    }
}

/// Byte size of one element, including the column padding the glTF spec requires
/// for byte and short matrices.
fn element_size(t: DataType, d: Dimensions) -> usize {
    let ts = type_size(t);
    match (d, ts) {
        (Dimensions::Mat2, 1) => 8,
        (Dimensions::Mat3, 1) => 12,
        (Dimensions::Mat3, 2) => 24,
        _ => ts * dims_count(d),
    }
}

/// Byte offset of component `c` inside an element (matrices pad columns to 4 bytes).
fn component_offset(t: DataType, d: Dimensions, c: usize) -> usize {
    let ts = type_size(t);
    let rows = match d {
        Dimensions::Mat2 => 2,
        Dimensions::Mat3 => 3,
        _ => return c * ts,
    };
    let column_bytes = (rows * ts + 3) & !3;
    (c / rows) * column_bytes + (c % rows) * ts
}

fn read_component(bytes: &[u8], at: usize, t: DataType, normalized: bool) -> Option<f64> {
    let v = match t {
        DataType::I8 => {
            let c = f64::from(*bytes.get(at)? as i8);
            if normalized {
                (c / 127.0).max(-1.0)
            } else {
                c
            }
        }
        DataType::U8 => {
            let c = f64::from(*bytes.get(at)?);
            if normalized {
                c / 255.0
            } else {
                c
            }
        }
        DataType::I16 => {
            let b = bytes.get(at..at.checked_add(2)?)?;
            let c = f64::from(i16::from_le_bytes([b[0], b[1]]));
            if normalized {
                (c / 32767.0).max(-1.0)
            } else {
                c
            }
        }
        DataType::U16 => {
            let b = bytes.get(at..at.checked_add(2)?)?;
            let c = f64::from(u16::from_le_bytes([b[0], b[1]]));
            if normalized {
                c / 65535.0
            } else {
                c
            }
        }
        DataType::U32 => {
            let b = bytes.get(at..at.checked_add(4)?)?;
            f64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        }
        DataType::F32 => {
            let b = bytes.get(at..at.checked_add(4)?)?;
            f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        }
    };
    Some(v)
}

/// The values of an accessor: `count` elements of `dims` components, each as `f64`
/// (exact for every glTF component type), normalised integers already divided.
pub(crate) struct AccessorData {
    /// Components per element.
    pub dims: usize,
    /// `count * dims` values.
    pub values: Vec<f64>,
    /// The component type as stored.
    pub data_type: DataType,
}

impl AccessorData {
    /// Number of elements.
    pub fn count(&self) -> usize {
        self.values.len().checked_div(self.dims).unwrap_or(0)
    }

    /// Element `i` (empty slice when out of range).
    pub fn element(&self, i: usize) -> &[f64] {
        let start = i.saturating_mul(self.dims);
        self.values
            .get(start..start.saturating_add(self.dims))
            .unwrap_or(&[])
    }
}

impl Buffers<'_> {
    fn invalid(&self, object: String, message: impl Into<String>) -> GltfError {
        GltfError::Invalid {
            file: self.file.to_string(),
            object,
            message: message.into(),
        }
    }

    /// The bytes of `bufferViews[view]`, checked against its buffer.
    fn view_bytes(&self, view: &gltf::buffer::View<'_>) -> Result<&[u8], GltfError> {
        let object = format!("bufferViews[{}]", view.index());
        let buffer = self
            .data
            .get(view.buffer().index())
            .ok_or_else(|| self.invalid(object.clone(), "its buffer is not loaded"))?;
        let end = view
            .offset()
            .checked_add(view.length())
            .ok_or_else(|| self.invalid(object.clone(), "byteOffset + byteLength overflows"))?;
        buffer.get(view.offset()..end).ok_or_else(|| {
            self.invalid(
                object,
                format!(
                    "bytes {}..{} lie outside buffers[{}] ({} bytes)",
                    view.offset(),
                    end,
                    view.buffer().index(),
                    buffer.len()
                ),
            )
        })
    }

    /// Reads `count` elements of type `(t, d)` from `view` at `offset`, checking that
    /// every byte lies inside the view.
    #[allow(clippy::too_many_arguments)]
    fn read_strided(
        &self,
        object: &str,
        view: &gltf::buffer::View<'_>,
        offset: usize,
        count: usize,
        t: DataType,
        d: Dimensions,
        normalized: bool,
        allow_stride: bool,
    ) -> Result<Vec<f64>, GltfError> {
        let bytes = self.view_bytes(view)?;
        let elem = element_size(t, d);
        let stride = match view.stride() {
            Some(s) if allow_stride => s,
            _ => elem,
        };
        if stride < elem {
            return Err(self.invalid(
                object.to_string(),
                format!(
                    "byteStride {stride} of bufferViews[{}] is smaller than one element ({elem} bytes)",
                    view.index()
                ),
            ));
        }
        if count > 0 {
            let last = (count - 1)
                .checked_mul(stride)
                .and_then(|x| x.checked_add(offset))
                .and_then(|x| x.checked_add(elem));
            match last {
                Some(end) if end <= bytes.len() => {}
                _ => {
                    return Err(self.invalid(
                        object.to_string(),
                        format!(
                            "{count} elements of {elem} bytes (stride {stride}) from byte {offset} do not fit in bufferViews[{}] ({} bytes)",
                            view.index(),
                            bytes.len()
                        ),
                    ))
                }
            }
        }
        let dims = dims_count(d);
        let mut out = Vec::with_capacity(count * dims);
        for i in 0..count {
            let base = offset + i * stride;
            for c in 0..dims {
                let at = base + component_offset(t, d, c);
                let v = read_component(bytes, at, t, normalized).ok_or_else(|| {
                    self.invalid(object.to_string(), format!("byte {at} out of range"))
                })?;
                out.push(v);
            }
        }
        Ok(out)
    }

    /// Reads a whole accessor (sparse substitution included).
    pub fn read(&self, accessor: &gltf::Accessor<'_>) -> Result<AccessorData, GltfError> {
        let object = format!("accessors[{}]", accessor.index());
        let t = accessor.data_type();
        let d = accessor.dimensions();
        let dims = dims_count(d);
        let count = accessor.count();
        let normalized = accessor.normalized();
        let mut values = match accessor.view() {
            Some(view) => self.read_strided(
                &object,
                &view,
                accessor.offset(),
                count,
                t,
                d,
                normalized,
                true,
            )?,
            None => {
                // No bytes back this accessor: it is all zeros (plus sparse values).
                // Refuse counts the input cannot justify.
                let total: usize = self.data.iter().map(Vec::len).sum();
                let limit = total.saturating_add(1 << 16);
                if count > limit {
                    return Err(self.invalid(
                        object,
                        format!("count {count} with no bufferView exceeds what the file justifies"),
                    ));
                }
                vec![0.0; count * dims]
            }
        };
        if let Some(sparse) = accessor.sparse() {
            let n = sparse.count();
            if n > count {
                return Err(self.invalid(
                    format!("{object}.sparse"),
                    format!("count {n} exceeds the accessor count {count}"),
                ));
            }
            let idx = sparse.indices();
            let it = match idx.index_type() {
                gltf::accessor::sparse::IndexType::U8 => DataType::U8,
                gltf::accessor::sparse::IndexType::U16 => DataType::U16,
                gltf::accessor::sparse::IndexType::U32 => DataType::U32,
            };
            let indices = self.read_strided(
                &format!("{object}.sparse.indices"),
                &idx.view(),
                idx.offset(),
                n,
                it,
                Dimensions::Scalar,
                false,
                false,
            )?;
            let vals = sparse.values();
            let subst = self.read_strided(
                &format!("{object}.sparse.values"),
                &vals.view(),
                vals.offset(),
                n,
                t,
                d,
                normalized,
                false,
            )?;
            for (k, &i) in indices.iter().enumerate() {
                let i = i as usize;
                if i >= count {
                    return Err(self.invalid(
                        format!("{object}.sparse.indices"),
                        format!("index {i} is not below the accessor count {count}"),
                    ));
                }
                values[i * dims..(i + 1) * dims].copy_from_slice(&subst[k * dims..(k + 1) * dims]);
            }
        }
        if values.iter().any(|v| !v.is_finite()) {
            return Err(self.invalid(object, "holds a NaN or infinite value"));
        }
        Ok(AccessorData {
            dims,
            values,
            data_type: t,
        })
    }

    /// Reads an accessor that must have the given type.
    pub fn read_typed(
        &self,
        accessor: &gltf::Accessor<'_>,
        expected: &[Dimensions],
        what: &str,
    ) -> Result<AccessorData, GltfError> {
        if !expected.contains(&accessor.dimensions()) {
            return Err(self.invalid(
                format!("accessors[{}]", accessor.index()),
                format!(
                    "{what} must be of type {expected:?}, found {:?}",
                    accessor.dimensions()
                ),
            ));
        }
        self.read(accessor)
    }

    /// Reads an accessor of unsigned integers (indices, joints).
    pub fn read_uints(
        &self,
        accessor: &gltf::Accessor<'_>,
        expected: Dimensions,
        what: &str,
    ) -> Result<AccessorData, GltfError> {
        let data = self.read_typed(accessor, &[expected], what)?;
        if !matches!(data.data_type, DataType::U8 | DataType::U16 | DataType::U32)
            || accessor.normalized()
        {
            return Err(self.invalid(
                format!("accessors[{}]", accessor.index()),
                format!(
                    "{what} must be unsigned integers, found {:?}",
                    data.data_type
                ),
            ));
        }
        Ok(data)
    }
}
