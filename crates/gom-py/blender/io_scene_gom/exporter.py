"""The selected armature and meshes to a GOM model or a .tmd: Blender's own glTF
exporter writes them to a temporary .glb, which gom's pipeline converts with the
options of the `gom convert` command (key tolerance, sample rate; for .tmd the shared
keyframe library, template, LODs, renaming)."""

import os
import tempfile

import bpy

import gom


class SelectionError(Exception):
    """Nothing exportable is selected."""


def export_file(context, path, **options):
    selected = [o for o in context.selected_objects if o.type in {"ARMATURE", "MESH"}]
    if not selected:
        raise SelectionError("select an armature and its meshes to export")
    wm = context.window_manager
    wm.progress_begin(0, 2)
    try:
        with tempfile.TemporaryDirectory() as d:
            glb = os.path.join(d, os.path.splitext(os.path.basename(path))[0] + ".glb")
            bpy.ops.export_scene.gltf(
                filepath=glb,
                export_format="GLB",
                use_selection=True,
                export_animations=True,
                export_nla_strips=True,
                export_force_sampling=True,
                export_frame_range=False,
            )
            wm.progress_update(1)
            report = gom.convert(glb, path, **options)
            wm.progress_update(2)
            return report
    finally:
        wm.progress_end()
