"""gom from Python: convert, build, validate, load and pose game models.

The same library calls as the ``gom`` command line, in-process::

    import gom
    report = gom.convert("walker.fbx", "walker.gom", key_tolerance_mm=0.5)
    model = gom.load("walker.gom")          # NumPy arrays
    asset = gom.Asset("walker.gom")
    pose = asset.model_pose("walk", 0.5)     # (bones, 4, 4)

Options are the command's flags by the same names, with ``_`` for ``-``
(``--key-tolerance-mm 0.5`` is ``key_tolerance_mm=0.5``). Every error is a
:class:`gom.Error`.
"""

import json
import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Union

from . import _gom, jpog
from ._errors import (
    AssetError,
    BuildError,
    Error,
    ExportError,
    IoError,
    JpogError,
    OptionError,
    ReadError,
    SourceError,
    TextError,
)
from ._gom import Asset
from ._model import Clip, Material, Mesh, Model, Skeleton, Track, from_dict

__version__: str = _gom.__version__

PathLike = Union[str, "os.PathLike[str]"]


def _options_json(options: Dict[str, Any]) -> str:
    """The options as the JSON object the extension module reads: paths as text."""

    def plain(v: Any) -> Any:
        if isinstance(v, os.PathLike):
            return os.fspath(v)
        if isinstance(v, (list, tuple)):
            return [plain(x) for x in v]
        return v

    try:
        return json.dumps({k: plain(v) for k, v in options.items()})
    except (TypeError, ValueError) as e:
        raise OptionError(f"the options cannot be read: {e}") from None


@dataclass
class ConvertReport:
    """What :func:`convert` did, as ``gom convert --report json`` prints it."""

    warnings: List[str]
    """The import's and the export's warnings."""
    validation: List[str]
    """Validation findings of the converted model (empty when valid)."""
    written: List[str]
    """The files written (for a ``.tmd``: the ``.tkl``, the ``.tml``, the ``.tmd``)."""
    summary: List[str]
    """The lines ``gom convert`` prints about the import."""
    data: Dict[str, Any] = field(repr=False, default_factory=dict)
    """The whole report (the importer's own fields too)."""


@dataclass
class BuildReport:
    """What :func:`build` did, as ``gom build --report json`` prints it."""

    converted: int
    up_to_date: int
    failed: int
    cached: int
    warnings: int
    files: List[Dict[str, Any]]
    """One entry per source: ``source``, ``outcome``, its ``warnings`` or ``error``."""
    data: Dict[str, Any] = field(repr=False, default_factory=dict)


def convert(src: PathLike, dst: PathLike, **options: Any) -> ConvertReport:
    """Converts ``src`` into ``dst`` as ``gom convert SRC DST`` does.

    The output format is ``dst``'s extension (``.gom``, ``.gomt``, ``.glb``,
    ``.gltf``, ``.tmd``) or ``to=``. Options are ``gom convert``'s flags:
    ``sample_rate``, ``key_tolerance_mm``, ``key_tolerance_distance_cm``,
    ``compress``, ``no_optimize``, ``lod``, ``tkl``, ``tml``, ``handedness``,
    ``channel_flag3``, ``drop_end_sites``, ``anim``, ``bone_map``,
    ``keep_translations``, ``clip``, ``rename_clip``, ``clip_range``,
    ``root_motion``, ``additive``, ``event``, ``scale``, ``up``, ``forward``,
    ``unit``; for ``.tmd`` output also ``tkl_out``, ``tkl_name``, ``loop``,
    ``template``, ``rename``, ``lods``. Repeatable flags take lists.

    No output replaces a file the conversion reads (except the ``tkl`` library a
    ``.tmd`` output appends to, as the command does). Runs with the GIL released.
    """
    text = _gom.convert(os.fspath(src), os.fspath(dst), _options_json(options))
    data = json.loads(text)
    return ConvertReport(
        warnings=list(data.get("warnings", [])),
        validation=list(data.get("validation", [])),
        written=list(data.get("written", [])),
        summary=list(data.get("summary", [])),
        data=data,
    )


def build(src: PathLike, out: PathLike, **options: Any) -> BuildReport:
    """Builds every source under ``src`` into ``out`` as ``gom build SRC OUT`` does:
    in parallel (``jobs``, all cores by default), incrementally (``force=True``
    rebuilds all), with ``gom.toml`` configs, ``format`` (``gom`` by default) and
    ``cache``, and the import options of :func:`convert`. A file that fails is listed
    in the report; an exception only when the build cannot run. Runs with the GIL
    released."""
    text = _gom.build(os.fspath(src), os.fspath(out), _options_json(options))
    data = json.loads(text)
    return BuildReport(
        converted=data.get("converted", 0),
        up_to_date=data.get("upToDate", 0),
        failed=data.get("failed", 0),
        cached=data.get("cached", 0),
        warnings=data.get("warnings", 0),
        files=list(data.get("files", [])),
        data=data,
    )


def validate(path: PathLike) -> List[str]:
    """The validation findings of ``path`` as ``gom validate`` lists them: empty when
    the file is valid. Raises a :class:`gom.Error` when it cannot be read."""
    return list(_gom.validate(os.fspath(path)))


def load(path: PathLike, **options: Any) -> Model:
    """Reads any model gom reads (``.gom``, ``.gomt``, ``.fbx``, ``.gltf``, ``.glb``,
    ``.tmd``, ``.bvh``) into a :class:`Model` whose arrays are NumPy arrays. Takes the
    import options of :func:`convert` (a ``.tmd``'s ``tkl``, ``tml``...)."""
    return from_dict(_gom.load(os.fspath(path), _options_json(options)))


__all__ = [
    "Asset",
    "AssetError",
    "BuildError",
    "BuildReport",
    "Clip",
    "ConvertReport",
    "Error",
    "ExportError",
    "IoError",
    "JpogError",
    "Material",
    "Mesh",
    "Model",
    "OptionError",
    "ReadError",
    "Skeleton",
    "SourceError",
    "TextError",
    "Track",
    "build",
    "convert",
    "jpog",
    "load",
    "validate",
]
