//! The page, embedded in the binary: plain HTML, CSS and JavaScript with WebGL2,
//! nothing fetched from elsewhere.
//!
//! `page/index.html` is a template with two markers, [`STYLE_MARKER`] and
//! [`SCRIPT_MARKER`]: the served page puts links to the style sheet and the script
//! there, the self-contained file ([`crate::html`]) the style sheet and the script
//! themselves. A template that lacks a marker, or holds one twice, is an error, never
//! a page without its script.

/// The page's template (see the module documentation).
pub const INDEX_TEMPLATE: &str = include_str!("../page/index.html");
/// The blend-shape part of the viewer's script, loaded before [`VIEWER_JS`].
pub const MORPH_JS: &str = include_str!("../page/morph.js");
/// The viewer's script.
pub const VIEWER_JS: &str = include_str!("../page/viewer.js");
/// Skinning beyond four linear influences (dual quaternions, blended, eight
/// influences): GLSL and hooks the viewer's script uses, loaded before it.
pub const DQ_JS: &str = include_str!("../page/dq.js");
/// A clip's events (ticks on the time slider), float tracks and additive flag; loaded
/// before [`VIEWER_JS`], which calls it.
pub const EVENTS_JS: &str = include_str!("../page/events.js");
/// The page's scripts, in the order they load.
pub const SCRIPTS: [(&str, &str); 4] = [
    ("dq.js", DQ_JS),
    ("morph.js", MORPH_JS),
    ("events.js", EVENTS_JS),
    ("viewer.js", VIEWER_JS),
];
/// The page's style sheet.
pub const STYLE_CSS: &str = include_str!("../page/style.css");
/// Where the style sheet goes, in the page's `<head>`.
pub const STYLE_MARKER: &str = "<!-- gom:style -->";
/// Where the script goes, at the end of the page's `<body>`.
pub const SCRIPT_MARKER: &str = "<!-- gom:script -->";

/// A template marker that is not there exactly once.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the page template holds {marker:?} {found} times instead of once")]
pub struct TemplateError {
    /// The marker.
    pub marker: &'static str,
    /// How often the template holds it.
    pub found: usize,
}

/// `template` with each `(marker, text)` marker replaced by its text; every marker
/// must be in `template` exactly once.
pub fn fill(template: &str, parts: &[(&'static str, &str)]) -> Result<String, TemplateError> {
    let mut out = template.to_string();
    for &(marker, text) in parts {
        let found = out.matches(marker).count();
        if found != 1 {
            return Err(TemplateError { marker, found });
        }
        out = out.replacen(marker, text, 1);
    }
    Ok(out)
}

/// The page as the server sends it: the style sheet and the script linked.
pub fn served() -> Result<String, TemplateError> {
    fill(
        INDEX_TEMPLATE,
        &[
            (STYLE_MARKER, r#"<link rel="stylesheet" href="style.css">"#),
            (
                SCRIPT_MARKER,
                r#"<script src="dq.js"></script><script src="morph.js"></script><script src="events.js"></script><script src="viewer.js"></script>"#,
            ),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_served_page_links_the_style_sheet_and_the_script_in_place_of_the_markers() {
        let page = served().unwrap();
        assert!(!page.contains("<!-- gom:"), "{page}");
        let style = page.find(r#"href="style.css""#).unwrap();
        let dq = page.find(r#"src="dq.js""#).unwrap();
        let script = page.find(r#"src="viewer.js""#).unwrap();
        let morph = page.find(r#"src="morph.js""#).unwrap();
        let events = page.find(r#"src="events.js""#).unwrap();
        assert!(style < page.find("</head>").unwrap());
        assert!(script > page.find("<canvas").unwrap());
        assert!(morph < script, "viewer.js uses what morph.js defines");
        assert!(events > page.find("<canvas").unwrap() && events < script);
        assert!(dq > page.find("<canvas").unwrap() && dq < script);
    }

    #[test]
    fn a_missing_or_repeated_marker_is_an_error_not_a_page_without_its_script() {
        let parts = [(STYLE_MARKER, "S"), (SCRIPT_MARKER, "J")];
        assert_eq!(
            fill("<head><!-- gom:style --></head><body></body>", &parts),
            Err(TemplateError {
                marker: SCRIPT_MARKER,
                found: 0
            })
        );
        let twice = "<!-- gom:style --><!-- gom:script --><!-- gom:script -->";
        assert_eq!(
            fill(twice, &parts),
            Err(TemplateError {
                marker: SCRIPT_MARKER,
                found: 2
            })
        );
        assert_eq!(
            fill("a<!-- gom:style -->b<!-- gom:script -->c", &parts),
            Ok("aSbJc".to_string())
        );
    }
}
