//! `.tkl` keyframe libraries ("TPKL"): shared translation and rotation keys.

use crate::bytes::{check_name_field16, field_text, name_field16, to_u32, Reader, Writer};
use crate::error::{Error, FileKind, Result};
use crate::open::OpenField;

/// Size of the header.
pub const HEADER_SIZE: usize = 0x38;
const TKL: FileKind = FileKind::Tkl;

/// A parsed keyframe library. Equality compares the content, not the bytes it came from.
#[derive(Debug, Clone)]
pub struct Tkl {
    /// u32 at 0x04 (0 in practice).
    pub zero: u32,
    /// 16-byte name field (bytes after the NUL kept).
    pub name_field: [u8; 16],
    /// Translations (x, y, z).
    pub locations: Vec<[f32; 3]>,
    /// Rotations (x, y, z, w).
    pub rotations: Vec<[f32; 4]>,
    /// Scale entries (4 bytes each, none in practice), kept raw.
    pub scales: Vec<[u8; 4]>,
    /// Bytes after the data, kept verbatim.
    pub trailing: Vec<u8>,
    original: Option<Vec<u8>>,
}

impl PartialEq for Tkl {
    fn eq(&self, o: &Self) -> bool {
        self.zero == o.zero
            && self.name_field == o.name_field
            && self.locations == o.locations
            && self.rotations == o.rotations
            && self.scales == o.scales
            && self.trailing == o.trailing
    }
}

impl Tkl {
    /// A new, empty library.
    pub fn new(name: &str) -> Result<Tkl> {
        let name_field = name_field16(TKL, name, "header", "name")?;
        Ok(Tkl {
            zero: 0,
            name_field,
            locations: Vec::new(),
            rotations: Vec::new(),
            scales: Vec::new(),
            trailing: Vec::new(),
            original: None,
        })
    }

    /// The name: text up to the first NUL.
    pub fn name(&self) -> String {
        field_text(&self.name_field)
    }

    /// Reads a library.
    pub fn read(data: &[u8]) -> Result<Tkl> {
        let mut r = Reader::new(data, TKL);
        if r.array::<4>("magic")? != *b"TPKL" {
            return Err(r.err_at("magic", 0, "is not \"TPKL\""));
        }
        let zero = r.u32("zero")?;
        let len44 = r.u32("dataLength+44")?;
        let name_field = r.array::<16>("name")?;
        let loc_count = r.u32("locCount")? as usize;
        let quat_count = r.u32("quatCount")? as usize;
        let scale_count = r.u32("scaleCount")? as usize;
        for (want, field, at) in [
            (12, "locSize", 0x28),
            (16, "quatSize", 0x2C),
            (4, "scaleSize", 0x30),
        ] {
            let v = r.u32(field)?;
            if v != want {
                return Err(r.err_at(field, at, format!("is {v}, expected {want}")));
            }
        }
        let data_len = r.u32("dataLength")? as usize;
        if u64::from(len44) != data_len as u64 + 44 {
            return Err(r.err_at(
                "dataLength+44",
                8,
                format!("is {len44}, dataLength is {data_len}"),
            ));
        }
        let need = (loc_count as u64) * 12 + (quat_count as u64) * 16 + (scale_count as u64) * 4;
        if need != data_len as u64 {
            return Err(r.err_at(
                "dataLength",
                0x34,
                format!("is {data_len}, the counts need {need}"),
            ));
        }
        if data_len > r.left() {
            return Err(r.err_at(
                "dataLength",
                0x34,
                format!("{data_len} bytes but only {} are left", r.left()),
            ));
        }
        r.record = "locations".into();
        let mut locations = Vec::with_capacity(loc_count);
        for _ in 0..loc_count {
            locations.push(r.f32s::<3>("location")?);
        }
        r.record = "rotations".into();
        let mut rotations = Vec::with_capacity(quat_count);
        for _ in 0..quat_count {
            rotations.push(r.f32s::<4>("rotation")?);
        }
        r.record = "scales".into();
        let mut scales = Vec::with_capacity(scale_count);
        for _ in 0..scale_count {
            scales.push(r.array::<4>("scale")?);
        }
        Ok(Tkl {
            zero,
            name_field,
            locations,
            rotations,
            scales,
            trailing: data[r.pos()..].to_vec(),
            original: Some(data.to_vec()),
        })
    }

    /// Writes the library: an unmodified library gives back its bytes; an edited one must
    /// have a name of at most 15 bytes. Keys are never renumbered: other models share them.
    pub fn write(&self) -> Result<Vec<u8>> {
        let out = self.serialize()?;
        if self.original.as_deref() != Some(out.as_slice()) {
            check_name_field16(TKL, &self.name_field, "header", "name")?;
        }
        Ok(out)
    }

    fn serialize(&self) -> Result<Vec<u8>> {
        let data_len = self.locations.len() as u64 * 12
            + self.rotations.len() as u64 * 16
            + self.scales.len() as u64 * 4;
        let data_len = usize::try_from(data_len).unwrap_or(usize::MAX);
        let mut w = Writer::default();
        w.bytes(b"TPKL");
        w.u32(self.zero);
        w.u32(to_u32(
            TKL,
            data_len.saturating_add(44),
            "header",
            "dataLength+44",
        )?);
        w.bytes(&self.name_field);
        w.u32(to_u32(TKL, self.locations.len(), "header", "locCount")?);
        w.u32(to_u32(TKL, self.rotations.len(), "header", "quatCount")?);
        w.u32(to_u32(TKL, self.scales.len(), "header", "scaleCount")?);
        w.u32(12);
        w.u32(16);
        w.u32(4);
        w.u32(to_u32(TKL, data_len, "header", "dataLength")?);
        for l in &self.locations {
            w.f32s(l);
        }
        for q in &self.rotations {
            w.f32s(q);
        }
        for s in &self.scales {
            w.bytes(s);
        }
        w.bytes(&self.trailing);
        Ok(w.buf)
    }

    /// Appends a translation and returns its index (existing indices never move).
    pub fn push_location(&mut self, v: [f32; 3]) -> Result<u16> {
        let i = u16::try_from(self.locations.len()).map_err(|_| {
            Error::refused(
                TKL,
                "locations",
                "locCount",
                "a key index must fit in 16 bits",
            )
        })?;
        self.locations.push(v);
        Ok(i)
    }

    /// Appends a rotation and returns its index (existing indices never move).
    pub fn push_rotation(&mut self, q: [f32; 4]) -> Result<u16> {
        let i = u16::try_from(self.rotations.len()).map_err(|_| {
            Error::refused(
                TKL,
                "rotations",
                "quatCount",
                "a key index must fit in 16 bits",
            )
        })?;
        self.rotations.push(q);
        Ok(i)
    }

    /// The fields whose meaning is open.
    pub fn open_fields(&self) -> Vec<OpenField> {
        let mut out = vec![OpenField::new("header", "zero", 4, self.zero.to_string())];
        if !self.scales.is_empty() {
            out.push(OpenField::new(
                "scales",
                "scale entries",
                HEADER_SIZE + self.locations.len() * 12 + self.rotations.len() * 16,
                format!("{} entries", self.scales.len()),
            ));
        }
        if !self.trailing.is_empty() {
            out.push(OpenField::new(
                "end",
                "trailing bytes",
                0,
                format!("{} bytes", self.trailing.len()),
            ));
        }
        out
    }
}
