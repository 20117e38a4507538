//! The game's name limits: 15 bytes for nodes, animations and libraries, 31 for
//! materials; a name that does not fit is refused, or shortened when asked to.

use std::collections::{BTreeMap, BTreeSet};

use super::{refused, ExportError};

/// Which of the game's names a name is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NameLimit {
    /// A node (bone) name: 15 bytes.
    Node,
    /// An animation name: 15 bytes.
    Animation,
    /// A keyframe-library name (also the output's stem): 15 bytes.
    Library,
    /// A material name: 31 bytes.
    Material,
}

impl NameLimit {
    /// The most bytes such a name holds.
    pub fn max(self) -> usize {
        match self {
            NameLimit::Material => 31,
            _ => 15,
        }
    }

    fn what(self) -> &'static str {
        match self {
            NameLimit::Node => "node",
            NameLimit::Animation => "animation",
            NameLimit::Library => "library",
            NameLimit::Material => "material",
        }
    }
}

/// `name` cut to at most `max` bytes on a character boundary.
pub(crate) fn cut(name: &str, max: usize) -> &str {
    let mut end = name.len().min(max);
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    &name[..end]
}

/// `name` if it fits `limit`; shortened when `rename` is set; otherwise refused with
/// the limit named. A name holding a NUL is always refused.
pub fn fit_name(
    name: &str,
    limit: NameLimit,
    rename: bool,
    record: &str,
) -> Result<String, ExportError> {
    let max = limit.max();
    if name.contains('\0') {
        return Err(refused(record, format!("{name:?} holds a NUL byte")));
    }
    if name.is_empty() {
        return Err(refused(record, "the name is empty"));
    }
    if name.len() <= max {
        return Ok(name.to_string());
    }
    if rename {
        return Ok(cut(name, max).to_string());
    }
    Err(refused(
        record,
        format!(
            "{name:?} has {} bytes; {} names hold at most {max} (--rename shortens them)",
            name.len(),
            limit.what()
        ),
    ))
}

/// The bytes of a keyframe-library name that modding tools read (a public Blender
/// add-on reads only the first 8 of the header's 16-byte field); the game's own names
/// are short categories (`STRUCT`, `MISC`, `FLORA`).
pub const TOOL_LIBRARY_NAME: usize = 8;

/// A keyframe-library name of at most [`TOOL_LIBRARY_NAME`] bytes made from `stem`: its
/// first 8 bytes, or when `taken` says a name is used, the first free of its first 6
/// bytes with `~2`, `~3`… (first 5 with `~10`…), as short file names are made. `None`
/// when `stem` holds no byte a name may hold (empty, or a NUL).
pub fn short_library_name(stem: &str, taken: impl Fn(&str) -> bool) -> Option<String> {
    if stem.is_empty() || stem.contains('\0') {
        return None;
    }
    let first = cut(stem, TOOL_LIBRARY_NAME).to_string();
    if first.is_empty() {
        // a first character longer than 8 bytes cannot happen in UTF-8 (4 at most)
        return None;
    }
    if !taken(&first) {
        return Some(first);
    }
    // the longest tag still leaves a name of 8 bytes
    (2u32..10_000_000)
        .map(|k| {
            let tag = format!("~{k}");
            format!("{}{tag}", cut(stem, TOOL_LIBRARY_NAME - tag.len()))
        })
        .find(|c| !taken(c))
}

/// Names given so far, per kind (material names compared ignoring ASCII case), and the
/// ones changed.
#[derive(Debug, Default)]
pub(crate) struct Renames {
    rename: bool,
    taken: BTreeMap<NameLimit, BTreeSet<String>>,
    mapping: Vec<(NameLimit, String, String)>,
}

/// How a name is compared with those given before: material names ignoring ASCII case
/// (the material library looks them up that way), the others exactly.
fn taken_key(limit: NameLimit, name: &str) -> String {
    if limit == NameLimit::Material {
        name.to_ascii_lowercase()
    } else {
        name.to_string()
    }
}

impl Renames {
    pub fn new(rename: bool) -> Self {
        Renames {
            rename,
            ..Renames::default()
        }
    }

    /// The name `name` takes: itself when it fits, else (with renaming) its first bytes,
    /// made unique among the names of its kind with a `~2`, `~3`… suffix. A material
    /// name equal (ignoring case) to one given before is always made unique that way,
    /// renaming or not.
    pub fn fit(
        &mut self,
        name: &str,
        limit: NameLimit,
        record: &str,
    ) -> Result<String, ExportError> {
        self.fit_suffixed(name, "", limit, record)
    }

    /// As [`Renames::fit`] for `base` followed by `suffix`; shortening cuts `base` and
    /// keeps the suffix (an animation's `_lp`).
    pub fn fit_suffixed(
        &mut self,
        base: &str,
        suffix: &str,
        limit: NameLimit,
        record: &str,
    ) -> Result<String, ExportError> {
        let full = format!("{base}{suffix}");
        if full.len() <= limit.max() || !self.rename {
            fit_name(&full, limit, false, record)?;
        }
        let max = limit.max() - suffix.len();
        let fitted = fit_name(base, limit, true, record).map(|_| cut(base, max).to_string())?;
        let taken = self.taken.entry(limit).or_default();
        let mut out = format!("{fitted}{suffix}");
        let must_differ = limit == NameLimit::Material;
        if out != full || (must_differ && taken.contains(&taken_key(limit, &out))) {
            let mut k = 2;
            while taken.contains(&taken_key(limit, &out)) {
                let tag = format!("~{k}");
                out = format!("{}{tag}{suffix}", cut(&fitted, max - tag.len()));
                k += 1;
            }
            self.mapping.push((limit, full, out.clone()));
        }
        taken.insert(taken_key(limit, &out));
        Ok(out)
    }

    /// One line per changed name: shortened to fit, or (a material) made unique.
    pub fn report(&self) -> Vec<String> {
        self.mapping
            .iter()
            .map(|(l, from, to)| {
                let how = if to.len() < from.len() {
                    "shortened to"
                } else {
                    "renamed (another has that name, ignoring case) to"
                };
                format!("{} name {from:?} {how} {to:?}", l.what())
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_names_are_refused_or_shortened_uniquely() {
        let long = "Bip01_L_Forearm_Twist";
        let e = fit_name(long, NameLimit::Node, false, "bone 3").unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("bone 3") && msg.contains("at most 15"),
            "{msg}"
        );
        let mut r = Renames::new(true);
        let a = r.fit(long, NameLimit::Node, "bone 3").unwrap();
        let b = r
            .fit("Bip01_L_Forearm_Roll", NameLimit::Node, "bone 4")
            .unwrap();
        assert_eq!(a, "Bip01_L_Forearm");
        assert_eq!(b, "Bip01_L_Forea~2");
        assert_eq!(r.report().len(), 2);
        // a fitting name is kept as it is and not reported
        assert_eq!(r.fit("Head", NameLimit::Node, "bone 5").unwrap(), "Head");
        assert_eq!(r.report().len(), 2);
        // a loop suffix survives shortening
        let l = r
            .fit_suffixed("Walk_cycle_slow", "_lp", NameLimit::Animation, "clip 0")
            .unwrap();
        assert_eq!(l, "Walk_cycle_s_lp");
        // cutting respects character boundaries
        assert_eq!(cut("ééééééééé", 15), "ééééééé");
    }

    #[test]
    fn short_library_names_take_eight_bytes_and_the_next_free_suffix() {
        let none = |_: &str| false;
        assert_eq!(
            short_library_name("RiggedFigure", none).unwrap(),
            "RiggedFi"
        );
        assert_eq!(short_library_name("Raptor", none).unwrap(), "Raptor");
        let used = ["riggedfi", "rigged~2"];
        let taken = |n: &str| used.contains(&n.to_ascii_lowercase().as_str());
        assert_eq!(
            short_library_name("RiggedFigure", taken).unwrap(),
            "Rigged~3"
        );
        // ten and more take a shorter stem
        let busy = |n: &str| n != "Rigge~10";
        assert_eq!(
            short_library_name("RiggedFigure", busy).unwrap(),
            "Rigge~10"
        );
        // whole characters only
        assert_eq!(short_library_name("ééééé", none).unwrap(), "éééé");
        assert_eq!(short_library_name("", none), None);
        assert_eq!(short_library_name("a\0b", none), None);
    }

    #[test]
    fn material_names_equal_ignoring_case_are_made_unique_and_reported() {
        let mut r = Renames::new(false);
        let m = NameLimit::Material;
        assert_eq!(r.fit("Skin", m, "material 0").unwrap(), "Skin");
        assert_eq!(r.fit("skin", m, "material 1").unwrap(), "skin~2");
        assert_eq!(r.fit("Skin", m, "material 2").unwrap(), "Skin~3");
        // a suffixed name a source material already holds is skipped too
        assert_eq!(r.fit("SKIN~4", m, "material 3").unwrap(), "SKIN~4");
        assert_eq!(r.fit("Skin", m, "material 4").unwrap(), "Skin~5");
        // a 31-byte name keeps 31 bytes with its suffix
        let long = "A".repeat(31);
        assert_eq!(r.fit(&long, m, "material 5").unwrap(), long);
        let again = r.fit(&long.to_lowercase(), m, "material 6").unwrap();
        assert_eq!(again, format!("{}~2", "a".repeat(29)));
        let report = r.report();
        assert_eq!(report.len(), 4, "{report:?}");
        assert!(report[0].contains("\"skin\"") && report[0].contains("\"skin~2\""));
        assert!(report[0].contains("ignoring case"), "{report:?}");
        // node names keep the old rule: equal names are left to the skeleton's checks
        assert_eq!(r.fit("Head", NameLimit::Node, "bone 0").unwrap(), "Head");
        assert_eq!(r.fit("head", NameLimit::Node, "bone 1").unwrap(), "head");
    }
}
