//! Reporting the fields whose meaning is open (kept verbatim, not interpreted).

/// One stored value whose meaning is not settled, with where it sits.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct OpenField {
    /// The record, e.g. "texture 3" or "header".
    pub record: String,
    /// The field name.
    pub field: &'static str,
    /// File offset.
    pub offset: u64,
    /// The stored value, shown as text (numbers in decimal, bytes in hex).
    pub value: String,
}

impl OpenField {
    pub(crate) fn new(
        record: impl Into<String>,
        field: &'static str,
        offset: usize,
        value: impl Into<String>,
    ) -> Self {
        OpenField {
            record: record.into(),
            field,
            offset: offset as u64,
            value: value.into(),
        }
    }
}
