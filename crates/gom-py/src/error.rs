//! One exception hierarchy (`gom._errors`, re-exported as `gom.Error` and its
//! subclasses), mapped from the typed Rust errors: each exception carries the file,
//! record, field, byte offset or line and column the Rust error holds, as attributes.

use std::path::Path;

use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Which exception class of `gom._errors` an error becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A file could not be read or written (`gom.IoError`).
    Io,
    /// The GOM binary reader refused the bytes (`gom.ReadError`).
    Read,
    /// The GOM text reader refused the text (`gom.TextError`).
    Text,
    /// A game file (`.tmd`, `.tkl`, `.tml`) could not be read (`gom.JpogError`).
    Jpog,
    /// An importer (FBX, glTF, BVH) or a pipeline step failed (`gom.SourceError`).
    Source,
    /// A model could not be written in the output format (`gom.ExportError`).
    Export,
    /// An option is unknown or out of range (`gom.OptionError`).
    Option,
    /// The runtime refused a model, a clip or a time (`gom.AssetError`).
    Asset,
    /// A batch build could not run (`gom.BuildError`).
    Build,
}

impl Kind {
    fn class(self) -> &'static str {
        match self {
            Kind::Io => "IoError",
            Kind::Read => "ReadError",
            Kind::Text => "TextError",
            Kind::Jpog => "JpogError",
            Kind::Source => "SourceError",
            Kind::Export => "ExportError",
            Kind::Option => "OptionError",
            Kind::Asset => "AssetError",
            Kind::Build => "BuildError",
        }
    }
}

/// An error on its way to Python: the class, the sentence and the places it names
/// (boxed: results carry it through every call).
#[derive(Debug)]
pub struct GomError(Box<Details>);

/// What a [`GomError`] says.
#[derive(Debug)]
struct Details {
    kind: Kind,
    message: String,
    file: Option<String>,
    record: Option<String>,
    field: Option<String>,
    offset: Option<u64>,
    line: Option<u32>,
    column: Option<u32>,
}

/// Results of this crate's work before they reach Python.
pub type Result<T, E = GomError> = std::result::Result<T, E>;

impl GomError {
    /// An error of `kind` saying `message`, naming nothing else yet.
    pub fn new(kind: Kind, message: impl Into<String>) -> Self {
        GomError(Box::new(Details {
            kind,
            message: message.into(),
            file: None,
            record: None,
            field: None,
            offset: None,
            line: None,
            column: None,
        }))
    }

    /// An invalid option.
    pub fn option(message: impl Into<String>) -> Self {
        GomError::new(Kind::Option, message)
    }

    /// The file the error concerns.
    pub fn file(mut self, file: impl AsRef<Path>) -> Self {
        self.0.file = Some(file.as_ref().display().to_string());
        self
    }

    /// The file the error concerns, by the name given for it.
    pub fn file_name_of(self, file: &str) -> Self {
        self.file_name(file)
    }

    fn file_name(mut self, file: &str) -> Self {
        self.0.file = Some(file.to_string());
        self
    }

    fn record(mut self, record: &str) -> Self {
        self.0.record = Some(record.to_string());
        self
    }

    /// The field the error concerns.
    pub fn field(mut self, field: &str) -> Self {
        self.0.field = Some(field.to_string());
        self
    }

    /// The byte offset the error concerns.
    pub fn offset(mut self, offset: u64) -> Self {
        self.0.offset = Some(offset);
        self
    }

    fn line_column(mut self, line: u32, column: u32) -> Self {
        self.0.line = Some(line);
        self.0.column = Some(column);
        self
    }

    /// A file that could not be read or written.
    pub fn io(path: &Path, e: &std::io::Error) -> Self {
        GomError::new(Kind::Io, format!("{}: {e}", path.display())).file(path)
    }

    /// The GOM binary reader's refusal of `path` (or of bytes, without a path).
    pub fn gomb(path: Option<&Path>, e: &gom::error::ReadError) -> Self {
        let message = match path {
            Some(p) => format!("{}: {e}", p.display()),
            None => e.to_string(),
        };
        let err = GomError::new(Kind::Read, message)
            .field(e.field)
            .offset(e.offset)
            .record(&e.place.to_string());
        match path {
            Some(p) => err.file(p),
            None => err,
        }
    }

    /// A game file reader's or writer's refusal, in file `file`.
    pub fn jpog(file: &str, e: &jpog::Error) -> Self {
        let err = GomError::new(Kind::Jpog, format!("{file}: {e}")).file_name(file);
        match e {
            jpog::Error::Malformed {
                record,
                field,
                offset,
                ..
            } => err.record(record).field(field).offset(*offset),
            jpog::Error::Refused { record, field, .. }
            | jpog::Error::Reference { record, field, .. } => err.record(record).field(field),
            jpog::Error::UnsupportedFormat { record, .. } => err.record(record),
            _ => err,
        }
    }

    /// An import's failure, with what its typed error names.
    pub fn import(e: &gom_import::source::ImportError) -> Self {
        use gom_import::source::ImportError as E;
        let message = e.to_string();
        match e {
            E::Io { path, source } => GomError::io(path, source),
            E::Gomb { path, source } => GomError::gomb(Some(path), source),
            E::Gomt { path, source } => GomError::new(Kind::Text, message)
                .file(path)
                .line_column(source.line, source.column),
            E::Empty { path } | E::NotGlb { path } => {
                GomError::new(Kind::Read, message).file(path).offset(0)
            }
            E::UnknownFormat { path } => GomError::new(Kind::Option, message).file(path),
            E::Jpog(j) => jpog_import(j, message),
            E::Bvh(b) => bvh(b, message),
            E::Gltf(g) => gltf(g, message),
            E::Fbx(f) => fbx(f, message),
            E::AnimFile { source, .. } => GomError::import(source),
            E::Pipeline { path, .. } | E::Compress { path, .. } => {
                GomError::new(Kind::Source, message).file(path)
            }
            _ => GomError::new(Kind::Source, message),
        }
    }

    /// The runtime's refusal.
    pub fn runtime(e: &gom_runtime::Error) -> Self {
        match e {
            gom_runtime::Error::Read(r) => GomError::gomb(None, r),
            _ => GomError::new(Kind::Asset, e.to_string()),
        }
    }

    /// The exception this error becomes.
    pub fn into_pyerr(self, py: Python<'_>) -> PyErr {
        match self.instance(py) {
            Ok(e) => e,
            Err(e) => e,
        }
    }

    fn instance(self, py: Python<'_>) -> PyResult<PyErr> {
        let d = *self.0;
        let class = py.import("gom._errors")?.getattr(d.kind.class())?;
        let kwargs = PyDict::new(py);
        kwargs.set_item("file", d.file)?;
        kwargs.set_item("record", d.record)?;
        kwargs.set_item("field", d.field)?;
        kwargs.set_item("offset", d.offset)?;
        kwargs.set_item("line", d.line)?;
        kwargs.set_item("column", d.column)?;
        let value = class.call((d.message,), Some(&kwargs))?;
        Ok(PyErr::from_value(value))
    }
}

impl From<GomError> for PyErr {
    fn from(e: GomError) -> PyErr {
        Python::attach(|py| e.into_pyerr(py))
    }
}

fn jpog_import(e: &gom_import::jpog::JpogImportError, message: String) -> GomError {
    use gom_import::jpog::JpogImportError as J;
    match e {
        J::Read { file, source } => GomError::jpog(file, source),
        J::Invalid { file, record, .. } => GomError::new(Kind::Jpog, message)
            .file_name(file)
            .record(record),
        J::Option(_) => GomError::option(message),
        _ => GomError::new(Kind::Jpog, message),
    }
}

fn bvh(e: &gom_import::bvh::BvhError, message: String) -> GomError {
    use gom_import::bvh::BvhError as B;
    match e {
        B::Syntax {
            file, line, column, ..
        } => GomError::new(Kind::Text, message)
            .file_name(file)
            .line_column(*line, *column),
        B::Invalid { file, record, .. } => GomError::new(Kind::Source, message)
            .file_name(file)
            .record(record),
        _ => GomError::new(Kind::Source, message),
    }
}

fn gltf(e: &gom_import::gltf::GltfError, message: String) -> GomError {
    use gom_import::gltf::GltfError as G;
    match e {
        G::Io { path, source } => GomError::io(path, source),
        G::Container { file, offset, .. } => GomError::new(Kind::Read, message)
            .file_name(file)
            .offset(*offset),
        G::Json { file, .. } => GomError::new(Kind::Source, message).file_name(file),
        _ => GomError::new(Kind::Source, message),
    }
}

fn fbx(e: &gom_import::fbx::FbxError, message: String) -> GomError {
    use gom_import::fbx::FbxError as F;
    match e {
        F::Load { file, .. } | F::Limit { file, .. } | F::TooManyBones { file, .. } => {
            GomError::new(Kind::Source, message).file_name(file)
        }
        _ => GomError::new(Kind::Source, message),
    }
}
