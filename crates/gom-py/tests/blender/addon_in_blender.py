"""The Blender add-on in real Blender, headless:

    blender -b --factory-startup --python-exit-code 1 \
        --python crates/gom-py/tests/blender/addon_in_blender.py -- ADDON.zip

It installs the add-on zip, imports the shared creature .tmd and a glTF-sourced .gom
and checks bones, vertices, weights, textures and actions against `gom info --json`
and the poses against `gom pose --joints`; exports back to .gom and .tmd, checks them
with `gom validate` and a pose comparison, and checks that exporting into a shared
.tkl leaves the other model's keys as they were. The `gom` command is `GOM_CLI` (or
the workspace's target/debug/gom); the data `GOM_TEST_DATA` (or ../shared/data).
Any failed check raises, and Blender exits with 1.
"""

import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

import bpy
import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[4]
DATA = pathlib.Path(os.environ.get("GOM_TEST_DATA", REPO.parent / "shared" / "data"))
CLI = pathlib.Path(os.environ.get("GOM_CLI", REPO / "target" / "debug" / "gom"))
ARGS = sys.argv[sys.argv.index("--") + 1 :] if "--" in sys.argv else []


def gom_cli(*args, check=True):
    done = subprocess.run([str(CLI), *map(str, args)], capture_output=True, text=True)
    if check and done.returncode != 0:
        raise AssertionError(f"gom {args}: {done.stdout}{done.stderr}")
    return done


def info(path, *extra):
    return json.loads(gom_cli("info", "--json", path, *extra).stdout)


def joints(path, clip, time, *extra):
    out = pathlib.Path(tempfile.mkdtemp()) / "joints.json"
    gom_cli("pose", path, "--clip", clip, "--time", repr(time), "--joints", "-o", out, *extra)
    return {b["name"]: np.array(b["position"]) for b in json.loads(out.read_text())["bones"]}


def blender_point(p):
    """A GOM point in Blender's axes (the add-on's mapping: x, z, y)."""
    return np.array([p[0], p[2], p[1]])


def reset():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    enable_addon()


def enable_addon():
    bpy.ops.preferences.addon_enable(module="io_scene_gom")


def install_addon(zip_path):
    bpy.ops.preferences.addon_install(filepath=str(zip_path), overwrite=True)
    enable_addon()


def check_import(path, operator, described, tol_pose=1e-4, between=1e-4):
    """Imports `path` and checks it against `gom info --json`'s `described`."""
    before = set(bpy.data.objects)
    result = operator(filepath=str(path))
    assert result == {"FINISHED"}, result
    new = [o for o in bpy.data.objects if o not in before]
    armatures = [o for o in new if o.type == "ARMATURE"]
    meshes = sorted((o for o in new if o.type == "MESH"), key=lambda o: o["gom_mesh_index"])
    assert len(armatures) == 1
    arm = armatures[0]
    bones = described["skeleton"]["bones"]
    assert [b.name for b in arm.data.bones] == [b["name"] for b in bones]
    for b, want in zip(arm.data.bones, bones):
        parent = b.parent.name if b.parent else None
        assert parent == (bones[want["parent"]]["name"] if want["parent"] >= 0 else None)
    assert sorted(len(m.data.vertices) for m in meshes) == sorted(
        m["vertexCount"] for m in described["meshes"]
    )
    assert sorted(3 * len(m.data.polygons) for m in meshes) == sorted(
        m["indexCount"] for m in described["meshes"]
    )
    # weights: each skinned vertex's groups sum to 1, groups name bones
    import gom

    model = gom.load(path)
    for obj, mesh in zip(meshes, model.meshes):
        assert obj.data.name.startswith(mesh.name[:50])
        if mesh.weights is None:
            continue
        names = {g.index: g.name for g in obj.vertex_groups}
        for v in obj.data.vertices:
            got = {}
            for g in v.groups:
                got[names[g.group]] = got.get(names[g.group], 0.0) + g.weight
            want = {}
            for j, w in zip(mesh.joints[v.index], mesh.weights[v.index]):
                if w > 0:
                    n = model.skeleton.names[int(j)]
                    want[n] = want.get(n, 0.0) + float(w)
            assert got.keys() == want.keys(), (v.index, got, want)
            assert all(abs(got[k] - want[k]) < 1e-6 for k in got)
    # materials and textures
    made = {m.name for o in meshes for m in o.data.materials}
    for m in described["materials"]:
        assert m["name"] in made or any(n.startswith(m["name"]) for n in made), m["name"]
        if m["baseColorTexture"]:
            mat = next(x for x in bpy.data.materials if x.name.startswith(m["name"]))
            images = [n.image for n in mat.node_tree.nodes if n.type == "TEX_IMAGE"]
            assert images and images[0].name == m["baseColorTexture"]
            assert images[0].size[0] > 0
    # one action per clip, the keys as stored
    actions = {a.name: a for a in bpy.data.actions}
    for clip in described["clips"]:
        action = actions[clip["name"]]
        for t in clip["tracks"]:
            bone = bones[t["bone"]]["name"]
            curves = [
                fc for fc in action.fcurves if fc.data_path == f'pose.bones["{bone}"].location'
            ]
            assert len(curves) == 3 and all(len(fc.keyframe_points) == t["keys"] for fc in curves)
    # the pose against `gom pose --joints`: exactly at the clip's ends, where every
    # track is at a key; within `between` in the middle, where Blender interpolates
    # the rotation keys linearly and GOM by slerp
    scene = bpy.context.scene
    fps = scene.render.fps / scene.render.fps_base
    for clip in described["clips"]:
        arm.animation_data.action = actions[clip["name"]]
        for time, tol in [(0.0, tol_pose), (clip["duration"], tol_pose), (clip["duration"] * 0.4, between)]:
            frame = time * fps
            scene.frame_set(int(frame), subframe=frame - int(frame))
            want = joints(path, clip["name"], time)
            for pb in arm.pose.bones:
                got = np.array((arm.matrix_world @ pb.matrix).translation[:])
                assert np.allclose(got, blender_point(want[pb.name]), atol=tol), (
                    clip["name"], time, pb.name, got, blender_point(want[pb.name]))
    return arm, meshes


def select_only(objects):
    for o in bpy.context.view_layer.objects:
        o.select_set(o in objects)
    bpy.context.view_layer.objects.active = objects[0]


def test_import_and_export(tmp):
    # the creature, with its keyframe library
    creature = DATA / "jpog" / "tmd_creature.tmd"
    arm, meshes = check_import(
        creature, bpy.ops.import_scene.jpog_tmd, info(creature), between=0.05
    )

    # export to .gom: valid, and poses as the source does
    out = tmp / "creature.gom"
    select_only([arm, *meshes])
    assert bpy.ops.export_scene.gom(filepath=str(out), key_tolerance_mm=0.1) == {"FINISHED"}
    assert gom_cli("validate", out).stdout.strip() == f"{out}: valid"
    compare_poses(creature, out, between=0.05)

    # export to .tmd into a copy of the shared library: the creature's keys stay
    shared = tmp / "Ddev.tkl"
    shutil.copy(DATA / "jpog" / "Ddev.tkl", shared)
    tmd = tmp / "remake.tmd"
    select_only([arm, *meshes])
    result = bpy.ops.export_scene.jpog_tmd(filepath=str(tmd), tkl=str(shared), rename=True)
    assert result == {"FINISHED"}
    assert gom_cli("validate", tmd).stdout.strip() == f"{tmd}: valid"
    compare_poses(creature, tmd, between=0.05, tol=5e-3)
    import gom

    old = gom.load(creature, tkl=str(DATA / "jpog" / "Ddev.tkl"))
    new = gom.load(creature, tkl=str(shared))
    for a, b in zip(old.clips, new.clips):
        for ta, tb in zip(a.tracks, b.tracks):
            assert np.array_equal(ta.translations, tb.translations)
            assert np.array_equal(ta.rotations, tb.rotations)
    before = gom.jpog.tkl_info(DATA / "jpog" / "Ddev.tkl")
    after = gom.jpog.tkl_info(shared)
    assert after["locations"] > before["locations"] and after["name"] == before["name"]
    original = (DATA / "jpog" / "Ddev.tkl").read_bytes()
    assert shared.read_bytes() != original
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
    from tkl_layout import tkl_ranges_kept

    assert tkl_ranges_kept(original, shared.read_bytes(), before, after)

    # textures decoded from a .tml: a library packed with the creature's material
    # names, its texture the pixels of the shared library's first
    reset()
    check_textures(tmp)

    # a glTF-sourced .gom
    reset()
    figure = tmp / "figure.gom"
    gom_cli("convert", DATA / "gltf" / "RiggedFigure.gltf", figure)
    arm, meshes = check_import(figure, bpy.ops.import_scene.gom, info(figure), between=1e-3)
    out = tmp / "figure_out.gom"
    select_only([arm, *meshes])
    assert bpy.ops.export_scene.gom(filepath=str(out)) == {"FINISHED"}
    assert gom_cli("validate", out).stdout.strip() == f"{out}: valid"
    compare_poses(figure, out, between=2e-3)

    # an export with nothing selected is an error in the report area, not a traceback
    for o in bpy.context.view_layer.objects:
        o.select_set(False)
    try:
        bpy.ops.export_scene.gom(filepath=str(tmp / "nothing.gom"))
        raise AssertionError("exporting nothing succeeded")
    except RuntimeError as e:
        assert "select an armature" in str(e)


def check_textures(tmp):
    import gom

    shared = gom.jpog.Tml(DATA / "jpog" / "tml_main.tml")
    png = tmp / "skin.png"
    png.write_bytes(shared.png(0))
    library = tmp / "skin.tml"
    gom_cli("tml", "pack", "--format", "0", "--material", f"SynthSkin_Body={png}", library)
    result = bpy.ops.import_scene.jpog_tmd(
        filepath=str(DATA / "jpog" / "tmd_creature.tmd"), tml=str(library)
    )
    assert result == {"FINISHED"}
    mat = bpy.data.materials["SynthSkin_Body"]
    images = [n.image for n in mat.node_tree.nodes if n.type == "TEX_IMAGE"]
    assert len(images) == 1, images
    want = gom.jpog.Tml(library).rgba(0)
    h, w, _ = want.shape
    assert tuple(images[0].size) == (w, h)
    got = np.array(images[0].pixels[:]).reshape(h, w, 4)[::-1]  # Blender's rows go up
    assert np.allclose(got * 255.0, want, atol=0.51), (got * 255.0, want)
    assert not [n for n in bpy.data.materials["SynthEye"].node_tree.nodes if n.type == "TEX_IMAGE"]


def compare_poses(source, exported, between, tol=2e-3):
    """Every bone of the source where the export has it, at each clip's ends within
    `tol` metres (the key tolerance), and at 40 % within `between` (Blender
    interpolates rotation keys linearly, GOM by slerp)."""
    import gom

    a, b = gom.Asset(source), gom.Asset(exported)
    assert set(a.bone_names) <= set(b.bone_names)
    index = {n: i for i, n in enumerate(b.bone_names)}
    for clip in a.clip_names:
        assert clip in b.clip_names, (clip, b.clip_names)
        d = a.duration(clip)
        for t, atol in [(0.0, tol), (d, tol), (d * 0.4, between)]:
            pa = a.model_pose(clip, t)[:, 3, :3]
            pb = b.model_pose(clip, t)[:, 3, :3]
            for i, name in enumerate(a.bone_names):
                assert np.allclose(pa[i], pb[index[name]], atol=atol), (
                    clip, t, name, pa[i], pb[index[name]])


def main():
    if not ARGS:
        raise SystemExit("usage: blender -b --python addon_in_blender.py -- ADDON.zip")
    for needed in (DATA / "jpog" / "tmd_creature.tmd", CLI):
        if not needed.exists():
            raise AssertionError(f"{needed} is absent")
    install_addon(ARGS[0])
    with tempfile.TemporaryDirectory() as d:
        test_import_and_export(pathlib.Path(d))
    print("blender add-on tests: passed")


main()
