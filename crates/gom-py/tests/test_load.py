"""`gom.load` against `gom info --json` on the shared samples: the skeleton, meshes,
materials and clips the NumPy arrays hold are those the command describes."""

import numpy as np
import pytest

import gom
from conftest import data

SOURCES = [
    "gltf/RiggedSimple.gltf",
    "gltf/RiggedFigure.gltf",
    "gltf/SimpleSkin.gltf",
    "gltf/BoxAnimated.gltf",
    "fbx/maya_game_sausage_7500_binary_wiggle.fbx",
    "fbx/blender_293_half_skinned_7400_binary.fbx",
    "jpog/tmd_creature.tmd",
    "jpog/tmd_static.tmd",
    "bvh/002_01.bvh",
]


def f32(x):
    """A number of `gom info --json` (an f32 printed exactly) as the f32 it is."""
    return np.float32(x)


@pytest.mark.parametrize("source", SOURCES)
def test_load_matches_gom_info_json(source, gom_json):
    path = data(source)
    model = gom.load(path)
    info = gom_json("info", "--json", path)

    bones = info["skeleton"]["bones"]
    assert len(model.skeleton) == info["skeleton"]["boneCount"] == len(bones)
    assert model.skeleton.names == [b["name"] for b in bones]
    assert model.skeleton.paths == [b["path"] for b in bones]
    assert model.skeleton.parents.tolist() == [b["parent"] for b in bones]
    assert model.skeleton.bind_local.shape == (len(bones), 4, 4)

    assert [m.name for m in model.materials] == [m["name"] for m in info["materials"]]
    assert [m.base_color_texture for m in model.materials] == [
        m["baseColorTexture"] for m in info["materials"]
    ]

    assert len(model.meshes) == len(info["meshes"])
    for mesh, described in zip(model.meshes, info["meshes"]):
        assert mesh.name == described["name"]
        assert mesh.vertex_count == described["vertexCount"]
        assert mesh.indices.shape == (described["indexCount"],)
        assert mesh.indices.dtype == np.uint32
        assert len(mesh.submeshes) == len(described["submeshes"])
        assert (mesh.weights is not None) == described["skinned"]
        assert (mesh.normals is not None) == ("normal" in described["vertexFormat"])
        assert (mesh.uvs is not None) == ("uv0" in described["vertexFormat"])
        lo, hi = mesh.positions.min(axis=0), mesh.positions.max(axis=0)
        if mesh.mesh_bind_geo_to_model is None and not described["skinned"]:
            # the stored box is rounded outwards: it holds the positions, tightly
            assert np.all(lo >= np.float32(described["bounds"]["min"]) - 1e-6)
            assert np.allclose(lo, described["bounds"]["min"], atol=1e-5)
            assert np.allclose(hi, described["bounds"]["max"], atol=1e-5)
        if mesh.weights is not None:
            assert mesh.joints.dtype == np.uint16 and mesh.joints.shape == (mesh.vertex_count, 4)
            assert np.all(mesh.joints < len(bones))
            total = mesh.weights.sum(axis=1)
            if mesh.weights_extra is not None:
                total += mesh.weights_extra.sum(axis=1)
            assert np.allclose(total, 1.0, atol=1e-5)

    assert [c.name for c in model.clips] == [c["name"] for c in info["clips"]]
    for clip, described in zip(model.clips, info["clips"]):
        assert np.float32(clip.duration) == f32(described["duration"])
        assert np.float32(clip.sample_rate) == f32(described["sampleRate"])
        assert clip.root_bone_index == described["rootBoneIndex"]
        assert len(clip.tracks) == described["trackCount"]
        assert [(t.bone, len(t.times)) for t in clip.tracks] == [
            (t["bone"], t["keys"]) for t in described["tracks"]
        ]
        for t in clip.tracks:
            assert t.translations.shape == (len(t.times), 3)
            assert t.rotations.shape == (len(t.times), 4)
            assert np.all(np.diff(t.times) > 0)

    assert sorted(model.warnings) == sorted(
        w for w in info["warnings"] if w not in model.findings
    )


def test_arrays_take_the_model_vectors_without_copies():
    model = gom.load(data("gltf/RiggedSimple.gltf"))
    mesh = model.meshes[0]
    # Owned by the Rust vector they were made from, not by a NumPy copy.
    for array in (mesh.positions, mesh.normals, mesh.indices, mesh.inverse_bind):
        assert not array.flags["OWNDATA"]
        assert array.flags["C_CONTIGUOUS"]


def test_load_takes_the_import_options(gom_json, tmp_path):
    path = data("gltf/RiggedSimple.gltf")
    plain = gom.load(path)
    scaled = gom.load(path, scale=2.0)
    assert np.allclose(scaled.meshes[0].positions, 2.0 * plain.meshes[0].positions, atol=1e-5)
    with pytest.raises(gom.OptionError):
        gom.load(path, no_such_option=1)
