//! The extension module `gom._gom` behind the Python package `gom`
//! (`crates/gom-py/python/gom`): conversion, batch builds, validation and loading
//! through the same library calls as the `gom` command line, the runtime's sampling
//! and skinning, and the game's libraries. The Python layer turns what these functions
//! return (JSON texts, dictionaries of NumPy arrays) into its classes; errors become
//! the exceptions of `gom._errors` (module `error`).
//!
//! The work itself runs with the interpreter released (`Python::detach`), so other
//! Python threads go on while a file converts, a folder builds or a mesh skins.

mod asset;
mod convert;
mod error;
mod jpog_py;
mod load;
mod options;

use pyo3::prelude::*;

/// The module `gom._gom`.
#[pymodule]
fn _gom(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(convert::convert, m)?)?;
    m.add_function(wrap_pyfunction!(convert::build, m)?)?;
    m.add_function(wrap_pyfunction!(convert::validate, m)?)?;
    m.add_function(wrap_pyfunction!(load::load, m)?)?;
    m.add_function(wrap_pyfunction!(jpog_py::tmd_info, m)?)?;
    m.add_function(wrap_pyfunction!(jpog_py::tkl_info, m)?)?;
    m.add_class::<asset::Asset>()?;
    m.add_class::<jpog_py::Tml>()?;
    Ok(())
}
