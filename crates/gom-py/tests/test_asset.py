"""`gom.Asset` against `gom pose`: the model-space matrices equal `gom pose --joints`
and the skinned meshes equal the OBJ `gom pose` writes, bit for bit; the local pose
composes into the model pose."""

import json

import numpy as np
import pytest

import gom
from conftest import data

ANIMATED = [
    "gltf/RiggedSimple.gltf",
    "gltf/RiggedFigure.gltf",
    "fbx/maya_game_sausage_7500_binary_wiggle.fbx",
    "jpog/tmd_creature.tmd",
]


@pytest.fixture(params=ANIMATED)
def converted(request, tmp_path):
    """The sample converted to .gom by gom.convert."""
    out = tmp_path / "model.gom"
    gom.convert(data(request.param), out)
    return out


def obj_meshes(text):
    """The positions and normals of each `g` group of an OBJ `gom pose` wrote."""
    meshes = []
    for line in text.splitlines():
        head, _, rest = line.partition(" ")
        if head == "g":
            meshes.append(([], []))
        elif head == "v":
            meshes[-1][0].append([np.float32(x) for x in rest.split()])
        elif head == "vn":
            meshes[-1][1].append([np.float32(x) for x in rest.split()])
    return meshes


def middle_of_first_clip(asset):
    name = asset.clip_names[0]
    return name, asset.duration(name) * 0.37


def test_model_pose_equals_gom_pose_joints(converted, gom_cli, tmp_path):
    asset = gom.Asset(converted)
    clip, time = middle_of_first_clip(asset)
    for args, pose in [
        ((), asset.model_pose()),
        (("--clip", clip, "--time", repr(float(time))), asset.model_pose(clip, time)),
    ]:
        out = tmp_path / "joints.json"
        gom_cli("pose", converted, *args, "--joints", "-o", out)
        doc = json.loads(out.read_text())
        expected = np.array([b["matrix"] for b in doc["bones"]], dtype=np.float32)
        assert pose.shape == (len(asset.bone_names), 4, 4)
        assert np.array_equal(pose.reshape(-1, 16), expected)


def test_skin_equals_gom_pose_obj(converted, gom_cli, tmp_path):
    asset = gom.Asset(converted)
    clip, time = middle_of_first_clip(asset)
    out = tmp_path / "pose.obj"
    gom_cli("pose", converted, "--clip", clip, "--time", repr(float(time)), "-o", out)
    expected = obj_meshes(out.read_text())
    skinned = asset.skin(clip, time)
    assert len(skinned) == len(expected)
    for (positions, normals), (want_p, want_n) in zip(skinned, expected):
        assert np.array_equal(positions, np.array(want_p, dtype=np.float32).reshape(-1, 3))
        if normals is None:
            assert want_n == []
        else:
            assert np.array_equal(normals, np.array(want_n, dtype=np.float32))


def local_matrix(t, r, s):
    """The row-vector matrix of a translation, rotation (x, y, z, w) and scale."""
    x, y, z, w = (float(v) for v in r)
    rot = np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w)],
            [2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w)],
            [2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y)],
        ]
    )
    m = np.eye(4)
    m[:3, :3] = np.asarray(s, dtype=np.float64)[:, None] * rot
    m[3, :3] = t
    return m


def test_sample_composes_into_model_pose(converted):
    asset = gom.Asset(converted)
    clip, time = middle_of_first_clip(asset)
    t, r, s = asset.sample(clip, time)
    n = len(asset.bone_names)
    assert t.shape == (n, 3) and r.shape == (n, 4) and s.shape == (n, 3)
    assert np.allclose(np.linalg.norm(r, axis=1), 1.0, atol=1e-5)
    world = []
    for i, parent in enumerate(asset.parents):
        m = local_matrix(t[i], r[i], s[i])
        world.append(m if parent < 0 else m @ world[parent])
    assert np.allclose(np.array(world), asset.model_pose(clip, time), atol=1e-4)


def test_sample_at_a_key_gives_the_stored_key():
    path = data("gltf/RiggedSimple.gltf")
    model = gom.load(path)
    asset = gom.Asset(path)
    clip = model.clips[0]
    track = clip.tracks[0]
    k = len(track.times) // 2
    t, r, s = asset.sample(clip.name, float(track.times[k]))
    assert np.allclose(t[track.bone], track.translations[k], atol=1e-6)
    # q and -q are one rotation
    assert min(
        np.abs(r[track.bone] - track.rotations[k]).max(),
        np.abs(r[track.bone] + track.rotations[k]).max(),
    ) < 1e-6


def test_bytes_and_path_open_the_same_asset(converted):
    by_path = gom.Asset(converted)
    by_bytes = gom.Asset(converted.read_bytes())
    clip, time = middle_of_first_clip(by_path)
    assert by_path.bone_names == by_bytes.bone_names
    assert np.array_equal(by_path.model_pose(clip, time), by_bytes.model_pose(0, time))
    assert np.array_equal(by_path.skin(clip, time)[0][0], by_bytes.skin(clip, time)[0][0])


def test_a_source_file_poses_as_gom_pose_poses_it(gom_cli, tmp_path):
    path = data("gltf/RiggedFigure.gltf")
    asset = gom.Asset(path)
    clip, time = middle_of_first_clip(asset)
    out = tmp_path / "joints.json"
    gom_cli("pose", path, "--clip", clip, "--time", repr(float(time)), "--joints", "-o", out)
    expected = [b["matrix"] for b in json.loads(out.read_text())["bones"]]
    assert np.array_equal(
        asset.model_pose(clip, time).reshape(-1, 16), np.array(expected, dtype=np.float32)
    )


def test_looped_time_wraps():
    asset = gom.Asset(data("gltf/RiggedSimple.gltf"))
    clip = asset.clip_names[0]
    d = asset.duration(clip)
    assert np.allclose(
        asset.model_pose(clip, d + 0.25 * d, looped=True),
        asset.model_pose(clip, 0.25 * d),
        atol=1e-5,
    )
