"""Import and export times of the add-on against Blender's own glTF importer and
exporter on the same model, in one Blender run (docs/blender.md, "Measured"):

    blender -b --factory-startup --python measure_in_blender.py -- ADDON.zip MODEL.gom MODEL.glb

Each operation runs 7 times on an emptied scene; the median is printed.
"""

import os
import statistics
import sys
import tempfile
import time

import bpy
import numpy

# Debian's Blender 3.4 glTF importer still uses `numpy.bool`, which Debian 12's
# NumPy 1.24 no longer has; the alias it stood for lets it run.
if not hasattr(numpy, "bool"):
    numpy.bool = bool

ADDON, GOM_FILE, GLB_FILE = sys.argv[sys.argv.index("--") + 1 :][:3]


def empty_scene():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.preferences.addon_enable(module="io_scene_gom")


def timed(prepare, run, repeat=7):
    times = []
    for _ in range(repeat):
        prepare()
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
        assert result == {"FINISHED"}, result
    return statistics.median(times)


def select_all():
    for o in bpy.context.view_layer.objects:
        o.select_set(o.type in {"ARMATURE", "MESH"})


def imported(op, path):
    def prepare():
        empty_scene()
        op(filepath=path)
        select_all()

    return prepare


bpy.ops.preferences.addon_install(filepath=ADDON, overwrite=True)
out = tempfile.mkdtemp()
rows = [
    ("import", "gom add-on (.gom)", timed(empty_scene, lambda: bpy.ops.import_scene.gom(filepath=GOM_FILE))),
    ("import", "Blender glTF (.glb)", timed(empty_scene, lambda: bpy.ops.import_scene.gltf(filepath=GLB_FILE))),
    (
        "export",
        "gom add-on (.gom)",
        timed(
            imported(bpy.ops.import_scene.gom, GOM_FILE),
            lambda: bpy.ops.export_scene.gom(filepath=os.path.join(out, "m.gom")),
        ),
    ),
    (
        "export",
        "Blender glTF (.glb)",
        timed(
            imported(bpy.ops.import_scene.gom, GOM_FILE),
            lambda: bpy.ops.export_scene.gltf(
                filepath=os.path.join(out, "m.glb"), export_format="GLB", use_selection=True
            ),
        ),
    ),
]
for what, who, seconds in rows:
    print(f"MEASURE {what:6} {who:22} {seconds * 1000:8.1f} ms")
