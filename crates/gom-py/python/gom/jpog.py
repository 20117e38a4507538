"""The game's files (Jurassic Park: Operation Genesis): ``.tml`` material libraries
(textures as NumPy RGBA or PNG bytes), ``.tmd`` and ``.tkl`` summaries."""

import json
import os
from typing import Any, Dict, List, Optional, Union

import numpy as np

from . import _gom

PathLike = Union[str, "os.PathLike[str]"]


class Tml:
    """A material library, read into memory from its path or its bytes."""

    def __init__(self, source: Union[bytes, PathLike]) -> None:
        if not isinstance(source, bytes):
            source = os.fspath(source)
        self._tml = _gom.Tml(source)

    def __len__(self) -> int:
        return self._tml.texture_count

    @property
    def texture_count(self) -> int:
        """The number of textures."""
        return self._tml.texture_count

    def info(self) -> Dict[str, Any]:
        """The listing ``gom info --json`` gives: textures, materials, open fields."""
        return json.loads(self._tml.info_json())

    def rgba(self, index: int) -> np.ndarray:
        """Texture ``index`` (file order) as uint8 (height, width, 4)."""
        return self._tml.rgba(index)

    def png(self, index: int) -> bytes:
        """Texture ``index`` as PNG bytes."""
        return self._tml.png(index)

    def material_textures(self, name: str) -> Optional[List[int]]:
        """The indices of the textures material ``name`` uses, or None."""
        return self._tml.material_textures(name)


def tmd_info(path: PathLike) -> Dict[str, Any]:
    """What a ``.tmd`` holds, as ``gom tmd info --json`` prints it: nodes,
    animations, levels of detail, the keyframe library's name."""
    return json.loads(_gom.tmd_info(os.fspath(path)))


def tkl_info(path: PathLike) -> Dict[str, Any]:
    """What a ``.tkl`` holds, as ``gom info --json`` prints it: its name and the
    numbers of locations and rotations."""
    return json.loads(_gom.tkl_info(os.fspath(path)))


__all__ = ["Tml", "tmd_info", "tkl_info"]
