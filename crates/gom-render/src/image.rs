//! RGBA8 images: the output of every renderer here, and the textures they read. The
//! type is gom's one image type, [`gom_image::Image`].

pub use gom_image::Image;
