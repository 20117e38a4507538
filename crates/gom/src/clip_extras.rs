//! What a clip may carry beyond GOM v1's tracks, for a game: the additive reference
//! (`CLPA`, [`crate::additive`]), float tracks and events (`EVNT`, [`crate::events`]).

use crate::additive::Reference;
use crate::error::WriteError;
use crate::model::Model;

/// A clip's extension data ([`crate::Clip::extras`]); the default is a v1 clip.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClipExtras {
    /// Set when the clip is additive: its tracks are deltas from this reference
    /// (`CLPA`, a required extension).
    pub additive: Option<Reference>,
    /// Named curves of 1 to 4 floats (`EVNT`, optional).
    pub float_tracks: Vec<crate::events::FloatTrack>,
    /// Named moments, in time order (`EVNT`, optional).
    pub events: Vec<crate::events::Event>,
}

/// The rules of clip `index`'s extension data (`docs/extensions.md` §5).
pub fn check_clip(model: &Model, index: usize) -> Result<(), WriteError> {
    crate::additive::check_clip(model, index)?;
    crate::events::check_clip(model, index)
}
