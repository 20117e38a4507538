//! The page, embedded in the binary: plain HTML, CSS and JavaScript with WebGL2,
//! nothing fetched from elsewhere.

/// The page.
pub const INDEX_HTML: &str = include_str!("../page/index.html");
/// The viewer's script.
pub const VIEWER_JS: &str = include_str!("../page/viewer.js");
/// The page's style sheet.
pub const STYLE_CSS: &str = include_str!("../page/style.css");
