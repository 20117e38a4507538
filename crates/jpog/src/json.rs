//! Minimal JSON text output for the listing and manifest structs (no serde dependency).

/// A JSON string literal.
pub(crate) fn s(v: &str) -> String {
    let mut o = String::with_capacity(v.len() + 2);
    o.push('"');
    for c in v.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            '\r' => o.push_str("\\r"),
            '\t' => o.push_str("\\t"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

/// A JSON number for an `f32` (`null` when not finite).
pub(crate) fn f(v: f32) -> String {
    if v.is_finite() {
        format!("{v}")
    } else {
        "null".into()
    }
}

/// A JSON array from already-formatted items.
pub(crate) fn arr<I: IntoIterator<Item = String>>(items: I) -> String {
    format!("[{}]", items.into_iter().collect::<Vec<_>>().join(", "))
}

/// A JSON object from (key, formatted value) pairs.
pub(crate) fn obj(fields: &[(&str, String)]) -> String {
    let parts: Vec<String> = fields
        .iter()
        .map(|(k, v)| format!("{}: {v}", s(k)))
        .collect();
    format!("{{{}}}", parts.join(", "))
}

/// An optional value or `null`.
pub(crate) fn opt(v: Option<String>) -> String {
    v.unwrap_or_else(|| "null".into())
}
