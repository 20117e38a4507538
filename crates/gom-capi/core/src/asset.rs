//! Opening assets and reading their skeleton, meshes and clips.

use std::ffi::{c_char, c_void, CStr, CString};
use std::ptr::NonNull;

use gom_runtime::Asset;

use crate::boundary::{create, deref, slice, slice_mut, status, to_usize, value, Fail};
use crate::{gom_error, gom_transform, GOM_E_IO, GOM_E_RANGE};

/// Where an asset's bytes live.
enum Bytes {
    /// The caller's: they must outlive the asset.
    Borrowed,
    /// Ours, in 8-byte words so that arrays are aligned and read in place.
    Owned(#[allow(dead_code)] OwnedWords),
}

/// A heap block of words held through a raw pointer, freed on drop.
///
/// Invariant: `ptr` comes from `Box::leak` of a `Box<[u64]>` and is freed only by
/// `Drop`; every reference into the block is derived from `ptr` itself. Moving an
/// `OwnedWords` (or the asset holding it) moves only the raw pointer, which asserts
/// no uniqueness over the block, so the asset's `'static` slices into it stay valid
/// until the drop. (A `Box` would not do: moving a `Box` reasserts unique access to
/// its block and, under Stacked Borrows, invalidates references taken before.)
struct OwnedWords {
    ptr: NonNull<[u64]>,
}

// SAFETY: the block is plain words, never written after `copy_of`, and freed once
// (by `Drop`); sharing or sending it is sharing or sending a `Box<[u64]>`.
unsafe impl Send for OwnedWords {}
// SAFETY: as above: after `copy_of` the block is only read.
unsafe impl Sync for OwnedWords {}

impl OwnedWords {
    /// A copy of `bytes` in a fresh block of words (the last one zero-padded).
    fn copy_of(bytes: &[u8]) -> OwnedWords {
        let mut words = vec![0u64; bytes.len().div_ceil(8)].into_boxed_slice();
        bytemuck::cast_slice_mut::<u64, u8>(&mut words)[..bytes.len()].copy_from_slice(bytes);
        let ptr = NonNull::from(Box::leak(words));
        OwnedWords { ptr }
    }

    /// The first `len` bytes of the block (`len` at most its size in bytes), valid
    /// while `self` lives, wherever `self` is moved meanwhile.
    ///
    /// # Safety
    /// The slice must not be used after `self` is dropped.
    unsafe fn bytes<'a>(&self, len: usize) -> &'a [u8] {
        let words = self.ptr.as_ptr();
        assert!(len <= words.len() * 8, "more bytes than the block holds");
        // SAFETY: `ptr` is a live block of `words.len()` initialised `u64`s (the
        // invariant of the type), `len` bytes of it are in bounds (asserted), `u8` has
        // no alignment, nothing writes the block after `copy_of`, and the caller uses
        // the slice only while `self` lives.
        unsafe { std::slice::from_raw_parts(words.cast::<u8>().cast_const(), len) }
    }
}

impl Drop for OwnedWords {
    fn drop(&mut self) {
        // SAFETY: `ptr` came from `Box::leak` of a `Box<[u64]>` (`copy_of`) and is
        // freed only here, once.
        drop(unsafe { Box::from_raw(self.ptr.as_ptr()) });
    }
}

/// An opened GOM file: skeleton, meshes, materials and clips. Opaque to C.
pub struct gom_asset {
    /// Borrows `bytes` (or the caller's bytes): declared first, so dropped first.
    pub(crate) asset: Asset<'static>,
    /// Keeps owned bytes alive for `asset`; the heap block never moves.
    _bytes: Bytes,
    /// The byte range `asset` reads, for the overlap checks of output buffers.
    pub(crate) span: (usize, usize),
    pub(crate) bone_names: Vec<CString>,
    pub(crate) mesh_names: Vec<CString>,
    pub(crate) clip_names: Vec<CString>,
    pub(crate) material_names: Vec<CString>,
    pub(crate) material_textures: Vec<Option<CString>>,
    /// Per mesh, its morph targets' names.
    pub(crate) morph_names: Vec<Vec<CString>>,
    /// Per clip, the names of its float tracks, events and additive reference clip.
    pub(crate) clip_extras: Vec<crate::events::ClipNames>,
}

/// `s` as a C string, cut at its first NUL (GOM strings hold none, but C cannot
/// show one).
pub(crate) fn c_string(s: &str) -> CString {
    let s = s.split('\0').next().unwrap_or("");
    CString::new(s).unwrap_or_default()
}

impl gom_asset {
    fn new(asset: Asset<'static>, bytes: Bytes, span: (usize, usize)) -> Self {
        let m = asset.materials();
        gom_asset {
            bone_names: asset
                .skeleton()
                .names()
                .iter()
                .map(|n| c_string(n))
                .collect(),
            mesh_names: asset.meshes().iter().map(|x| c_string(x.name())).collect(),
            clip_names: asset.clips().iter().map(|x| c_string(x.name())).collect(),
            material_names: m.iter().map(|x| c_string(&x.name)).collect(),
            material_textures: m
                .iter()
                .map(|x| x.base_color_texture.as_deref().map(c_string))
                .collect(),
            morph_names: crate::morph::target_names(&asset),
            clip_extras: asset
                .clips()
                .iter()
                .map(crate::events::ClipNames::of)
                .collect(),
            asset,
            _bytes: bytes,
            span,
        }
    }

    /// Parses `bytes`, which must stay valid and unchanged for the asset's life.
    fn parse(bytes: &'static [u8], owned: Bytes) -> Result<Self, Fail> {
        let span = (
            bytes.as_ptr() as usize,
            bytes.as_ptr() as usize + bytes.len(),
        );
        let asset = Asset::parse(bytes)?;
        Ok(gom_asset::new(asset, owned, span))
    }

    /// Copies `bytes` into aligned storage the asset owns, and parses them.
    fn parse_copy(bytes: &[u8]) -> Result<Self, Fail> {
        let words = OwnedWords::copy_of(bytes);
        // SAFETY: the asset keeps `words` (field `_bytes`) and drops `asset`, the only
        // holder of the slice, before it (field order); `OwnedWords` never hands out
        // a reference that a move of the asset would invalidate (see its invariant).
        let view: &'static [u8] = unsafe { words.bytes(bytes.len()) };
        gom_asset::parse(view, Bytes::Owned(words))
    }
}

/// Opens GOMB bytes in place, without copying them: the asset reads `data` for as long
/// as it lives, so `data` MUST stay valid and unchanged until `gom_asset_free`.
/// Vertex, index and key arrays are used where they stand (zero copy) when `data` is
/// 4-byte aligned (16 is best); otherwise those arrays are copied. The whole file is
/// checked once, as strictly as the Rust reader checks it: hostile bytes give an
/// error, never undefined behaviour.
///
/// Returns the asset, or NULL with `*err` filled (`GOM_E_NULL` when `data` is NULL,
/// `GOM_E_READ` with the byte offset when the bytes are refused). `err` may be NULL;
/// on success `err->code` is set to 0. Free the asset with `gom_asset_free`. Any
/// thread; several threads may open assets at once.
///
/// # Safety
/// `data` must point to `size` readable bytes that stay valid and unchanged until the
/// asset is freed; `err` must be NULL or point to a writable `gom_error`.
#[no_mangle]
pub unsafe extern "C" fn gom_asset_open(
    data: *const c_void,
    size: usize,
    err: *mut gom_error,
) -> *mut gom_asset {
    create(err, || {
        if data.is_null() {
            return Err(Fail::null("data"));
        }
        let bytes: &[u8] = slice(data.cast::<u8>(), size, "data")?;
        // SAFETY: the caller promises (header) that the bytes outlive the asset.
        let bytes: &'static [u8] = unsafe { std::slice::from_raw_parts(bytes.as_ptr(), size) };
        gom_asset::parse(bytes, Bytes::Borrowed)
    })
}

/// Like `gom_asset_open`, but copies `data` first: `data` may be freed or changed as
/// soon as this returns. Costs one copy of the file; the arrays of the copy are read in
/// place. Same errors as `gom_asset_open`. Any thread.
///
/// # Safety
/// `data` must point to `size` readable bytes for the duration of the call; `err` must
/// be NULL or point to a writable `gom_error`.
#[no_mangle]
pub unsafe extern "C" fn gom_asset_open_copy(
    data: *const c_void,
    size: usize,
    err: *mut gom_error,
) -> *mut gom_asset {
    create(err, || {
        if data.is_null() {
            return Err(Fail::null("data"));
        }
        gom_asset::parse_copy(slice(data.cast::<u8>(), size, "data")?)
    })
}

/// Reads the GOMB file at `path` (UTF-8 on every platform) into memory the asset owns
/// and opens it (arrays read in place). Returns NULL with `*err` filled on failure:
/// `GOM_E_NULL` for a NULL path, `GOM_E_IO` when the file cannot be read, `GOM_E_READ`
/// with the byte offset when its bytes are refused. Any thread.
///
/// # Safety
/// `path` must be NULL or a NUL-terminated string; `err` NULL or a writable `gom_error`.
#[no_mangle]
pub unsafe extern "C" fn gom_asset_open_file(
    path: *const c_char,
    err: *mut gom_error,
) -> *mut gom_asset {
    create(err, || {
        if path.is_null() {
            return Err(Fail::null("path"));
        }
        // SAFETY: not NULL; the caller promises a NUL-terminated string.
        let path = unsafe { CStr::from_ptr(path) };
        let path = path
            .to_str()
            .map_err(|_| Fail::new(GOM_E_IO, "the path is not UTF-8 (gom paths are UTF-8)"))?;
        let bytes = std::fs::read(path)
            .map_err(|e| Fail::new(GOM_E_IO, format!("cannot read {path}: {e}")))?;
        gom_asset::parse_copy(&bytes).map_err(|mut f| {
            f.message = format!("{path}: {}", f.message);
            f
        })
    })
}

/// Frees an asset and everything it owns. NULL is allowed (nothing happens). Every
/// sampler of the asset, and every pointer the asset returned, must be unused from
/// then on. Not concurrently with other calls on the same asset.
///
/// # Safety
/// `asset` must be NULL or a pointer returned by a `gom_asset_open*` call and not
/// freed yet.
#[no_mangle]
pub unsafe extern "C" fn gom_asset_free(asset: *mut gom_asset) {
    if asset.is_null() {
        return;
    }
    // SAFETY: the caller promises a live asset made by `Box::into_raw` in `create`.
    let boxed = unsafe { Box::from_raw(asset) };
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || drop(boxed)));
}

/// Entry `i` of one of the asset's name lists, NULL when `a` is NULL or `i` is out
/// of range.
pub(crate) fn name_at(
    a: *const gom_asset,
    list: fn(&gom_asset) -> &[CString],
    i: u32,
) -> *const c_char {
    value(std::ptr::null(), || {
        Some(list(asset_ref(a)?).get(to_usize(i))?.as_ptr())
    })
}

/// The asset behind `a`, or `None` for NULL.
pub(crate) fn asset_ref<'a>(a: *const gom_asset) -> Option<&'a gom_asset> {
    deref(a, "asset").ok()
}

/// The number of bones of the skeleton (0 for NULL). Any thread.
#[no_mangle]
pub extern "C" fn gom_bone_count(a: *const gom_asset) -> u32 {
    value(0, || {
        Some(asset_ref(a)?.asset.skeleton().bone_count() as u32)
    })
}

/// Bone `bone`'s name (UTF-8, NUL-terminated, owned by the asset and valid until
/// `gom_asset_free`), or NULL when `a` is NULL or `bone` is out of range. Any thread.
#[no_mangle]
pub extern "C" fn gom_bone_name(a: *const gom_asset, bone: u32) -> *const c_char {
    name_at(a, |x| &x.bone_names, bone)
}

/// Bone `bone`'s parent index, or -1 for a root, a NULL asset or `bone` out of range.
/// A parent always comes before its children. Any thread.
#[no_mangle]
pub extern "C" fn gom_bone_parent(a: *const gom_asset, bone: u32) -> i32 {
    value(-1, || {
        let p = *asset_ref(a)?
            .asset
            .skeleton()
            .parents()
            .get(to_usize(bone))?;
        Some(p.max(-1))
    })
}

/// The index of the first bone with this name or path, or -1 when there is none (or
/// `a` or `name` is NULL). Any thread.
///
/// # Safety
/// `name` must be NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn gom_bone_find(a: *const gom_asset, name: *const c_char) -> i32 {
    value(-1, || {
        let a = asset_ref(a)?;
        // SAFETY: the caller promises NULL or a NUL-terminated string.
        let name = unsafe { c_str(name) }?;
        i32::try_from(a.asset.skeleton().find(name)?).ok()
    })
}

/// `p` as UTF-8 text, `None` when NULL or not UTF-8.
///
/// # Safety
/// `p` must be NULL or a NUL-terminated string.
pub(crate) unsafe fn c_str<'a>(p: *const c_char) -> Option<&'a str> {
    if p.is_null() {
        return None;
    }
    // SAFETY: not NULL; the caller promises a NUL-terminated string.
    unsafe { CStr::from_ptr(p) }.to_str().ok()
}

/// The bind pose: every bone's bind-local transform (what a bone without a track keeps
/// during sampling), `bone_count` = `gom_bone_count(a)` entries into `out_local`.
/// Returns 0, or `GOM_E_NULL` / `GOM_E_COUNT`. Any thread.
///
/// # Safety
/// `out_local` must be NULL or point to `bone_count` writable `gom_transform`s.
#[no_mangle]
pub unsafe extern "C" fn gom_bind_pose(
    a: *const gom_asset,
    out_local: *mut gom_transform,
    bone_count: u32,
) -> i32 {
    status(|| {
        let a = deref(a, "asset")?;
        let bind = a.asset.skeleton().bind_local();
        let n = expect_count("bone_count", bind.len(), bone_count)?;
        let out = slice_mut(out_local, n, "out_local")?;
        for (o, t) in out.iter_mut().zip(bind) {
            *o = (*t).into();
        }
        Ok(())
    })
}

/// The bind-local matrices of every bone, 16 floats each, row-major, row vectors (GOM's
/// convention), `gom_bone_count(a)` of them; owned by the asset (valid until
/// `gom_asset_free`). NULL when `a` is NULL or has no bones. Any thread.
#[no_mangle]
pub extern "C" fn gom_bind_local_matrices(a: *const gom_asset) -> *const f32 {
    value(std::ptr::null(), || {
        let m = asset_ref(a)?.asset.skeleton().bind_local_matrices();
        (!m.is_empty()).then(|| m.as_ptr().cast::<f32>())
    })
}

/// The number of mesh parts (0 for NULL). Any thread.
#[no_mangle]
pub extern "C" fn gom_mesh_count(a: *const gom_asset) -> u32 {
    value(0, || Some(asset_ref(a)?.asset.meshes().len() as u32))
}

/// Mesh `mesh`'s name (owned by the asset), or NULL when out of range. Any thread.
#[no_mangle]
pub extern "C" fn gom_mesh_name(a: *const gom_asset, mesh: u32) -> *const c_char {
    name_at(a, |x| &x.mesh_names, mesh)
}

/// The number of vertices of mesh `mesh` (0 when `a` is NULL or `mesh` out of range).
/// Any thread.
#[no_mangle]
pub extern "C" fn gom_mesh_vertex_count(a: *const gom_asset, mesh: u32) -> u32 {
    value(0, || Some(mesh_ref(a, mesh).ok()?.vertex_count() as u32))
}

/// The number of indices (3 per triangle) of mesh `mesh` (0 when out of range). Any
/// thread.
#[no_mangle]
pub extern "C" fn gom_mesh_index_count(a: *const gom_asset, mesh: u32) -> u32 {
    value(0, || Some(mesh_ref(a, mesh).ok()?.indices().len() as u32))
}

/// Mesh `mesh` of `a`, or `GOM_E_NULL` / `GOM_E_RANGE`.
pub(crate) fn mesh_ref<'a>(
    a: *const gom_asset,
    mesh: u32,
) -> Result<&'a gom_runtime::Mesh<'static>, Fail> {
    let a = deref(a, "asset")?;
    a.asset.meshes().get(to_usize(mesh)).ok_or_else(|| {
        Fail::new(
            GOM_E_RANGE,
            format!(
                "mesh {mesh} is out of range: the asset has {}",
                a.asset.meshes().len()
            ),
        )
    })
}

/// The number of clips (0 for NULL). Any thread.
#[no_mangle]
pub extern "C" fn gom_clip_count(a: *const gom_asset) -> u32 {
    value(0, || Some(asset_ref(a)?.asset.clips().len() as u32))
}

/// The index of the first clip named `name`, or -1 when there is none (or `a` or `name`
/// is NULL). Any thread.
///
/// # Safety
/// `name` must be NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn gom_clip_find(a: *const gom_asset, name: *const c_char) -> i32 {
    value(-1, || {
        let a = asset_ref(a)?;
        // SAFETY: the caller promises NULL or a NUL-terminated string.
        let name = unsafe { c_str(name) }?;
        let i = a.asset.clips().iter().position(|c| c.name() == name)?;
        i32::try_from(i).ok()
    })
}

/// Clip `clip`'s name (owned by the asset), or NULL when out of range. Any thread.
#[no_mangle]
pub extern "C" fn gom_clip_name(a: *const gom_asset, clip: u32) -> *const c_char {
    name_at(a, |x| &x.clip_names, clip)
}

/// Clip `clip`'s length in seconds (0 when `a` is NULL or `clip` out of range). Any
/// thread.
#[no_mangle]
pub extern "C" fn gom_clip_duration(a: *const gom_asset, clip: u32) -> f32 {
    value(0.0, || Some(clip_ref(a, clip).ok()?.duration()))
}

/// The rate clip `clip` was sampled at, keys per second (0 when out of range). Any
/// thread.
#[no_mangle]
pub extern "C" fn gom_clip_sample_rate(a: *const gom_asset, clip: u32) -> f32 {
    value(0.0, || Some(clip_ref(a, clip).ok()?.sample_rate()))
}

/// Clip `clip` of `a`, or `GOM_E_NULL` / `GOM_E_RANGE`.
pub(crate) fn clip_ref<'a>(
    a: *const gom_asset,
    clip: u32,
) -> Result<&'a gom_runtime::Clip<'static>, Fail> {
    let a = deref(a, "asset")?;
    a.asset.clips().get(to_usize(clip)).ok_or_else(|| {
        Fail::new(
            GOM_E_RANGE,
            format!(
                "clip {clip} is out of range: the asset has {}",
                a.asset.clips().len()
            ),
        )
    })
}

/// A count check shared by the entry points: `found` must equal `expected`.
pub(crate) fn expect_count(what: &str, expected: usize, found: u32) -> Result<usize, Fail> {
    if expected == to_usize(found) {
        Ok(expected)
    } else {
        Err(Fail::count(what, expected, found))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words outlive moves of their owner: an asset opened from a copy reads the
    /// same after the caller's bytes are gone and after the asset (with its words)
    /// has moved twice. Run under Miri this checks the Stacked Borrows rule as well.
    #[test]
    fn a_copied_asset_reads_its_words_after_moves() {
        let reference = gom::gomb::write(&gom_demo::build()).expect("the demo model writes");
        let expected = Asset::parse(&reference).expect("the demo model reads");
        let bytes = reference.clone();
        let asset = gom_asset::parse_copy(&bytes).expect("the copy reads");
        drop(bytes);
        let moved = vec![asset];
        let asset = Box::new(moved.into_iter().next().expect("one asset"));
        let m = &asset.asset.meshes()[0];
        assert_eq!(m.vertex_bytes(), expected.meshes()[0].vertex_bytes());
        assert_eq!(m.indices(), expected.meshes()[0].indices());
        assert_eq!(asset.asset.clips().len(), expected.clips().len());
    }

    /// `OwnedWords` keeps exactly the bytes it was given, zero-padded to whole words.
    #[test]
    fn owned_words_hold_the_bytes_given() {
        let words = OwnedWords::copy_of(b"abcdefghij");
        // SAFETY: `words` lives until the end of the test.
        let all = unsafe { words.bytes(16) };
        assert_eq!(all, b"abcdefghij\0\0\0\0\0\0");
        let moved = Box::new(words);
        // Still valid: the move did not touch the block.
        assert_eq!(all, b"abcdefghij\0\0\0\0\0\0");
        // SAFETY: as above, for `moved`.
        assert_eq!(unsafe { moved.bytes(10) }, b"abcdefghij");
    }
}
