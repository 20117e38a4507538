"""What :func:`gom.load` returns: a model's skeleton, meshes, materials and clips, with
every array a NumPy array (GOM conventions: left-handed, +Y up, metres; matrices
row-major for row vectors, ``p' = p @ M``, translation in the last row)."""

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

import numpy as np


@dataclass
class Skeleton:
    """The bones, in order (a parent before its children)."""

    names: List[str]
    """Each bone's name."""
    paths: List[str]
    """Each bone's path of names from its root."""
    parents: np.ndarray
    """int32 (n,): each bone's parent index, -1 for a root."""
    bind_local: np.ndarray
    """float32 (n, 4, 4): each bone's bind transform relative to its parent."""

    def __len__(self) -> int:
        return len(self.names)


@dataclass
class Material:
    """A material: its name, base colour texture (a file name) and factor."""

    name: str
    base_color_texture: Optional[str]
    base_color_factor: List[float]


@dataclass
class Mesh:
    """One mesh part. Absent streams are ``None``."""

    name: str
    positions: np.ndarray
    """float32 (n, 3), geometry space."""
    normals: Optional[np.ndarray]
    """float32 (n, 3)."""
    tangents: Optional[np.ndarray]
    """float32 (n, 4): xyz and handedness."""
    uvs: Optional[np.ndarray]
    """float32 (n, 2): the first UV set, origin top-left."""
    uv1: Optional[np.ndarray]
    colors: Optional[np.ndarray]
    """uint8 (n, 4)."""
    joints: Optional[np.ndarray]
    """uint16 (n, 4): skeleton bone indices of the first four influences."""
    weights: Optional[np.ndarray]
    """float32 (n, 4): their weights."""
    joints_extra: Optional[np.ndarray]
    weights_extra: Optional[np.ndarray]
    indices: np.ndarray
    """uint32 (3 × triangles,)."""
    submeshes: List[Tuple[int, int, int]]
    """(material index or -1, first index, index count) per submesh."""
    inverse_bind: np.ndarray
    """float32 (n, 4, 4): inverse bind matrix of each skeleton bone."""
    mesh_bind_geo_to_model: Optional[np.ndarray]
    """float32 (4, 4): geometry to model space of a static mesh, else None."""
    skinning: str

    @property
    def vertex_count(self) -> int:
        return len(self.positions)


@dataclass
class Track:
    """One bone's keys, as stored (never resampled)."""

    bone: int
    times: np.ndarray
    """float32 (k,), seconds."""
    translations: np.ndarray
    """float32 (k, 3)."""
    rotations: np.ndarray
    """float32 (k, 4): x, y, z, w."""
    scales: np.ndarray
    """float32 (k, 3)."""


@dataclass
class Clip:
    """An animation clip."""

    name: str
    duration: float
    sample_rate: float
    root_bone_index: int
    flags: int
    compressed: bool
    """Stored compressed: ``tracks`` is empty; sample it with :class:`gom.Asset`."""
    tracks: List[Track]


@dataclass
class Model:
    """A model as gom reads it, with what the reading said."""

    skeleton: Skeleton
    meshes: List[Mesh]
    materials: List[Material]
    clips: List[Clip]
    warnings: List[str]
    """Reader and importer warnings."""
    findings: List[str]
    """Validation findings (empty when the model is valid)."""
    converter_version: str
    source_hash: str
    images: Dict[str, bytes] = field(default_factory=dict)
    """Images the import extracted (a ``.tmd``'s textures as PNG, a ``.glb``'s
    embedded images), by the names the materials use."""


def _mesh(d: Dict[str, Any]) -> Mesh:
    return Mesh(
        name=d["name"],
        positions=d["positions"],
        normals=d["normals"],
        tangents=d["tangents"],
        uvs=d["uv0"],
        uv1=d["uv1"],
        colors=d["colors"],
        joints=d["joints"],
        weights=d["weights"],
        joints_extra=d["joints_extra"],
        weights_extra=d["weights_extra"],
        indices=d["indices"],
        submeshes=[tuple(s) for s in d["submeshes"]],
        inverse_bind=d["inverse_bind"],
        mesh_bind_geo_to_model=None
        if d["mesh_bind_geo_to_model"] is None
        else d["mesh_bind_geo_to_model"][0],
        skinning=d["skinning"],
    )


def _clip(d: Dict[str, Any]) -> Clip:
    return Clip(
        name=d["name"],
        duration=d["duration"],
        sample_rate=d["sample_rate"],
        root_bone_index=d["root_bone_index"],
        flags=d["flags"],
        compressed=d["compressed"],
        tracks=[Track(**t) for t in d["tracks"]],
    )


def from_dict(d: Dict[str, Any]) -> Model:
    """The model of the dictionary the extension module returns."""
    return Model(
        skeleton=Skeleton(**d["skeleton"]),
        meshes=[_mesh(m) for m in d["meshes"]],
        materials=[Material(**m) for m in d["materials"]],
        clips=[_clip(c) for c in d["clips"]],
        warnings=list(d["warnings"]),
        findings=list(d["findings"]),
        converter_version=d["converter_version"],
        source_hash=d["source_hash"],
        images=dict(d["images"]),
    )
