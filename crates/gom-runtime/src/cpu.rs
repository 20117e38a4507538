//! Which instruction-set path each stage of the runtime takes on this CPU.
//!
//! Every stage picks its path at run time from what the CPU reports, and every path
//! gives the results of the stage's reference path (bit for bit, or within 10⁻⁶
//! relative for skinning). This module only names the choices, for `gom --version`
//! and for bug reports; the stages make them themselves.

use crate::skinning::SkinPath;

/// One stage of the runtime and the path it takes on this CPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StagePath {
    /// The stage, as the runtime's documentation names it.
    pub stage: &'static str,
    /// The path it takes here.
    pub path: &'static str,
}

/// The path of every stage that has more than one, in the order a frame runs them.
pub fn stage_paths() -> [StagePath; 3] {
    let sampling = if crate::sampling::has_avx() {
        "AVX, eight bones at a time"
    } else {
        "four lanes, four bones at a time"
    };
    [
        StagePath {
            stage: "sampling",
            path: sampling,
        },
        StagePath {
            stage: "local to model",
            path: crate::pose::path_name(),
        },
        StagePath {
            stage: "skinning",
            path: skin_path_name(SkinPath::best()),
        },
    ]
}

/// A skinning path's name as `gom --version` prints it.
pub fn skin_path_name(path: SkinPath) -> &'static str {
    match path {
        SkinPath::Scalar => "scalar",
        SkinPath::Vec4 => "four lanes (SSE2 or NEON)",
        SkinPath::Avx2Fma => "AVX2 and FMA, eight vertices at a time",
        SkinPath::Avx512 => "AVX-512, sixteen vertices at a time",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_skinning_stage_names_the_path_skin_takes() {
        let named = stage_paths()[2];
        assert_eq!(named.stage, "skinning");
        assert_eq!(named.path, skin_path_name(SkinPath::best()));
        // Each path has its own name, so the report tells them apart.
        let names: std::collections::BTreeSet<_> =
            SkinPath::ALL.iter().map(|p| skin_path_name(*p)).collect();
        assert_eq!(names.len(), SkinPath::ALL.len());
    }
}
