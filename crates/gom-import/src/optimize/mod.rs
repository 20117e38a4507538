//! Shared post-processing for importers: animation key reduction ([`keys`]), vertex
//! welding and cache/fetch ordering ([`mesh`]) with a triangle order for bone locality
//! between the two ([`bone_order`]), and skin influence limiting ([`skin`]).
//!
//! Everything here is deterministic (D11): no hash-map iteration reaches the output and
//! no platform math library is used (the few transcendental functions needed are
//! evaluated with plain IEEE arithmetic in [`keys`]).

pub mod bone_order;
pub mod keys;
pub mod mesh;
pub mod skin;
