//! The one binary buffer of an export, with its buffer views and accessors.

use gltf::json::accessor::{ComponentType, GenericComponentType, Type};
use gltf::json::buffer::{Target, View};
use gltf::json::validation::{Checked::Valid, USize64};
use gltf::json::{Accessor, Index, Value};

/// The binary buffer being built, with its views and accessors, in the order they are
/// added.
#[derive(Default)]
pub(super) struct Bin {
    /// The buffer's bytes.
    pub(super) data: Vec<u8>,
    /// One view per block of bytes added.
    pub(super) views: Vec<View>,
    /// One accessor per attribute, index list, key list or matrix list.
    pub(super) accessors: Vec<Accessor>,
}

impl Bin {
    /// Pads the buffer to a 4-byte boundary (glTF's alignment for every component type).
    pub(super) fn pad(&mut self) {
        while !self.data.len().is_multiple_of(4) {
            self.data.push(0);
        }
    }

    /// Appends `bytes` on a 4-byte boundary as a view of buffer 0.
    pub(super) fn view(&mut self, bytes: &[u8], target: Option<Target>) -> Index<View> {
        self.pad();
        let view = View {
            buffer: Index::new(0),
            byte_length: USize64::from(bytes.len()),
            byte_offset: Some(USize64::from(self.data.len())),
            byte_stride: None,
            name: None,
            target: target.map(Valid),
            extensions: None,
            extras: Default::default(),
        };
        self.data.extend_from_slice(bytes);
        Index::push(&mut self.views, view)
    }

    /// A float accessor of `ty` elements; `min_max` adds their bounds (glTF requires
    /// them on positions and on animation inputs).
    pub(super) fn floats(
        &mut self,
        values: &[f32],
        ty: Type,
        target: Option<Target>,
        min_max: bool,
    ) -> Index<Accessor> {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let view = self.view(&bytes, target);
        let dims = ty.multiplicity();
        let mut accessor = accessor(view, ComponentType::F32, values.len() / dims, ty);
        if min_max && values.len() >= dims {
            let (lo, hi) = bounds(values, dims);
            accessor.min = Some(Value::from(lo));
            accessor.max = Some(Value::from(hi));
        }
        Index::push(&mut self.accessors, accessor)
    }

    /// An unsigned-integer accessor of `ty` elements stored as `component` (`U8`,
    /// `U16` or `U32`), each value cut to that width (the callers chose the width the
    /// values fit).
    pub(super) fn uints(
        &mut self,
        values: &[u32],
        component: ComponentType,
        ty: Type,
        target: Option<Target>,
        normalized: bool,
    ) -> Index<Accessor> {
        let bytes: Vec<u8> = match component {
            ComponentType::U8 => values.iter().map(|&v| v as u8).collect(),
            ComponentType::U16 => values
                .iter()
                .flat_map(|&v| (v as u16).to_le_bytes())
                .collect(),
            _ => values.iter().flat_map(|v| v.to_le_bytes()).collect(),
        };
        let view = self.view(&bytes, target);
        let mut accessor = accessor(view, component, values.len() / ty.multiplicity(), ty);
        accessor.normalized = normalized;
        Index::push(&mut self.accessors, accessor)
    }
}

/// An accessor of `count` elements over the whole of `view`.
fn accessor(view: Index<View>, component: ComponentType, count: usize, ty: Type) -> Accessor {
    Accessor {
        buffer_view: Some(view),
        byte_offset: None,
        count: USize64::from(count),
        component_type: Valid(GenericComponentType(component)),
        extensions: None,
        extras: Default::default(),
        type_: Valid(ty),
        min: None,
        max: None,
        name: None,
        normalized: false,
        sparse: None,
    }
}

/// Each component's smallest and largest value over the elements of `values`.
fn bounds(values: &[f32], dims: usize) -> (Vec<f32>, Vec<f32>) {
    let mut lo = vec![f32::INFINITY; dims];
    let mut hi = vec![f32::NEG_INFINITY; dims];
    for e in values.chunks_exact(dims) {
        for (k, &v) in e.iter().enumerate() {
            lo[k] = lo[k].min(v);
            hi[k] = hi[k].max(v);
        }
    }
    (lo, hi)
}
