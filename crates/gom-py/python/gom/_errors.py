"""The exceptions of the gom package: one hierarchy under :class:`Error`.

Each is raised from the typed error of the Rust library it stands for, and carries
what that error names, as attributes (``None`` where the error does not name it):
``file``, ``record`` (a chunk, node or texture), ``field``, ``offset`` (bytes from the
start of the file), ``line`` and ``column`` (text formats, from 1).
"""

from typing import Optional


class Error(Exception):
    """Base class of every error gom raises."""

    def __init__(
        self,
        message: str,
        *,
        file: Optional[str] = None,
        record: Optional[str] = None,
        field: Optional[str] = None,
        offset: Optional[int] = None,
        line: Optional[int] = None,
        column: Optional[int] = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.record = record
        self.field = field
        self.offset = offset
        self.line = line
        self.column = column


class IoError(Error):
    """A file could not be read or written, or an output would replace an input."""


class ReadError(Error):
    """A binary file (GOM, GLB container) breaks its format: ``offset``, ``field`` and
    ``record`` (the place: header, chunk table or chunk) say where."""


class TextError(Error):
    """A text file (GOMT, BVH) cannot be read: ``line`` and ``column`` say where."""


class JpogError(Error):
    """A game file (``.tmd``, ``.tkl``, ``.tml``) cannot be read or written:
    ``record``, ``field`` and ``offset`` say where."""


class SourceError(Error):
    """An importer (FBX, glTF, BVH) or a pipeline step refused the source."""


class ExportError(Error):
    """The model cannot be written in the output format."""


class OptionError(Error, ValueError):
    """An option is unknown or has a value it cannot take."""


class AssetError(Error):
    """The runtime refused a model, a clip or a pose."""


class BuildError(Error):
    """A batch build could not run (its files' own failures are in its report)."""


__all__ = [
    "Error",
    "IoError",
    "ReadError",
    "TextError",
    "JpogError",
    "SourceError",
    "ExportError",
    "OptionError",
    "AssetError",
    "BuildError",
]
