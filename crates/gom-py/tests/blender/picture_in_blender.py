"""The picture of docs/blender.md: the shared creature .tmd imported by the add-on,
posed at 40 % of its first clip, drawn by Blender's Workbench engine:

    blender -b --factory-startup --python picture_in_blender.py -- ADDON.zip CREATURE.tmd OUT.png
"""

import sys

import bpy
from mathutils import Vector

ADDON, MODEL, OUT = sys.argv[sys.argv.index("--") + 1 :][:3]

bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.preferences.addon_install(filepath=ADDON, overwrite=True)
bpy.ops.preferences.addon_enable(module="io_scene_gom")
assert bpy.ops.import_scene.jpog_tmd(filepath=MODEL) == {"FINISHED"}

scene = bpy.context.scene
arm = next(o for o in scene.objects if o.type == "ARMATURE")
action = arm.animation_data.action
start, end = action.frame_range
scene.frame_set(int(start + 0.4 * (end - start)))

meshes = [o for o in scene.objects if o.type == "MESH"]
corners = [o.matrix_world @ Vector(c) for o in meshes for c in o.bound_box]
lo = Vector(min(c[i] for c in corners) for i in range(3))
hi = Vector(max(c[i] for c in corners) for i in range(3))
center, size = (lo + hi) / 2, max((hi - lo).length, 0.1)

camera = bpy.data.objects.new("camera", bpy.data.cameras.new("camera"))
scene.collection.objects.link(camera)
camera.location = center + Vector((1.2, -1.6, 0.9)) * size
camera.rotation_euler = (center - camera.location).to_track_quat("-Z", "Y").to_euler()
scene.camera = camera

scene.render.engine = "BLENDER_WORKBENCH"
scene.display.shading.light = "STUDIO"
scene.display.shading.color_type = "MATERIAL"
scene.display.shading.show_cavity = True
scene.render.resolution_x, scene.render.resolution_y = 480, 360
scene.render.film_transparent = False
scene.world = bpy.data.worlds.new("world")
scene.render.filepath = OUT
bpy.ops.render.render(write_still=True)
