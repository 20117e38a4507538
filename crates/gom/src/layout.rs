//! The layout of one interleaved vertex (D7): which attributes a [`VertexFormat`]
//! carries, where each starts and the stride. Every reader, writer and the runtime take
//! it from here.

use crate::model::VertexFormat;

/// One vertex attribute of GOM v1, in the order attributes are laid out in a vertex.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Attribute {
    /// Position, f32x3 (required).
    Position,
    /// Normal, f32x3.
    Normal,
    /// Tangent, f32x4 (w = ±1 handedness).
    Tangent,
    /// First texture coordinate set, f32x2.
    Uv0,
    /// Second texture coordinate set, f32x2.
    Uv1,
    /// Vertex colour, RGBA u8x4 unorm.
    Color0,
    /// Skin: bone indices u16x4, then weights f32x4.
    Skin,
}

impl Attribute {
    /// Every attribute, in layout (bit) order.
    pub const ALL: [Attribute; 7] = [
        Attribute::Position,
        Attribute::Normal,
        Attribute::Tangent,
        Attribute::Uv0,
        Attribute::Uv1,
        Attribute::Color0,
        Attribute::Skin,
    ];

    /// The attribute's `vertexFormat` bit.
    pub const fn bit(self) -> VertexFormat {
        VertexFormat::from_bits_retain(1 << self as u32)
    }

    /// Byte size of the attribute in one vertex (a multiple of 4).
    pub const fn size(self) -> usize {
        match self {
            Attribute::Position | Attribute::Normal => 12,
            Attribute::Tangent => 16,
            Attribute::Uv0 | Attribute::Uv1 => 8,
            Attribute::Color0 => 4,
            Attribute::Skin => 24,
        }
    }

    /// The attribute's name: `position`, `normal`, `tangent`, `uv0`, `uv1`, `color0`,
    /// `skin`.
    pub const fn name(self) -> &'static str {
        match self {
            Attribute::Position => "position",
            Attribute::Normal => "normal",
            Attribute::Tangent => "tangent",
            Attribute::Uv0 => "uv0",
            Attribute::Uv1 => "uv1",
            Attribute::Color0 => "color0",
            Attribute::Skin => "skin",
        }
    }
}

/// Byte offsets of the attributes of one vertex format inside a vertex, and the stride.
/// An attribute the format lacks has no offset; bits GOM v1 does not define count
/// nothing (readers reject them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct VertexLayout {
    offsets: [Option<usize>; 7],
    stride: usize,
}

impl VertexLayout {
    /// The layout of `format`: its attributes one after another in bit order.
    pub const fn of(format: VertexFormat) -> VertexLayout {
        let mut offsets = [None; 7];
        let mut at = 0;
        let mut k = 0;
        while k < Attribute::ALL.len() {
            let a = Attribute::ALL[k];
            if format.contains(a.bit()) {
                offsets[k] = Some(at);
                at += a.size();
            }
            k += 1;
        }
        VertexLayout {
            offsets,
            stride: at,
        }
    }

    /// Byte size of one vertex.
    pub const fn stride(&self) -> usize {
        self.stride
    }

    /// Where `a` starts inside a vertex, in bytes, or `None` when the format lacks it.
    pub const fn offset(&self, a: Attribute) -> Option<usize> {
        self.offsets[a as usize]
    }

    /// The attributes the format carries, in layout order.
    pub fn attributes(&self) -> impl Iterator<Item = Attribute> + '_ {
        Attribute::ALL
            .into_iter()
            .filter(|&a| self.offset(a).is_some())
    }

    /// The attribute holding byte `byte` of a vertex, or `None` past the stride.
    pub fn attribute_at(&self, byte: usize) -> Option<Attribute> {
        self.attributes().find(|&a| {
            let start = self.offsets[a as usize].unwrap_or(0);
            (start..start + a.size()).contains(&byte)
        })
    }

    /// Byte size of the leading `f32` attributes (position, normal, tangent, uv0,
    /// uv1), which are contiguous at the start of a vertex.
    pub fn float_bytes(&self) -> usize {
        self.attributes()
            .filter(|a| *a <= Attribute::Uv1)
            .map(Attribute::size)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_match_the_vertex_format_constants() {
        let bits = Attribute::ALL.map(Attribute::bit);
        assert_eq!(
            bits,
            [
                VertexFormat::POSITION,
                VertexFormat::NORMAL,
                VertexFormat::TANGENT,
                VertexFormat::UV0,
                VertexFormat::UV1,
                VertexFormat::COLOR0,
                VertexFormat::SKIN,
            ]
        );
    }

    #[test]
    fn every_attribute_follows_the_previous_one() {
        // Position 12 + normal 12 + tangent 16 + uv0 8 + uv1 8 + colour 4 + skin 24.
        let all = VertexLayout::of(VertexFormat::all());
        let starts = Attribute::ALL.map(|a| all.offset(a));
        let expect = [0, 12, 24, 40, 48, 56, 60].map(Some);
        assert_eq!(starts, expect);
        assert_eq!(all.stride(), 84);
        assert_eq!(all.float_bytes(), 56);
    }

    #[test]
    fn missing_attributes_take_no_room() {
        // Position, uv0 and skin: 12 + 8 + 24 bytes.
        let f = VertexFormat::POSITION | VertexFormat::UV0 | VertexFormat::SKIN;
        let l = VertexLayout::of(f);
        assert_eq!(l.offset(Attribute::Normal), None);
        assert_eq!(l.offset(Attribute::Uv0), Some(12));
        assert_eq!(l.offset(Attribute::Skin), Some(20));
        assert_eq!(l.stride(), 44);
        assert_eq!(l.float_bytes(), 20);
        assert_eq!(l.attribute_at(19), Some(Attribute::Uv0));
        assert_eq!(l.attribute_at(20), Some(Attribute::Skin));
        assert_eq!(l.attribute_at(44), None);
        let names: Vec<&str> = l.attributes().map(Attribute::name).collect();
        assert_eq!(names, ["position", "uv0", "skin"]);
    }

    #[test]
    fn unknown_bits_count_nothing() {
        let l = VertexLayout::of(VertexFormat::POSITION | VertexFormat::from_bits_retain(1 << 9));
        assert_eq!(l.stride(), 12);
    }
}
