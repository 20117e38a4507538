"""A GOM model (or a .tmd read through gom) into the scene: an armature with the
skeleton's rest pose, meshes with UVs, normals, vertex groups and materials, one
Action per clip with the keys as stored.

GOM is left-handed, +Y up; Blender right-handed, +Z up. A GOM point (x, y, z) is
Blender's (x, z, y): a mirror, so each triangle's second and third index swap (GOM's
front faces are clockwise), and a GOM matrix M (row vectors) is C·Mᵀ·C in Blender
with C the y/z swap.
"""

import os
import tempfile
from dataclasses import dataclass, field
from typing import List

import bpy
import numpy as np
from mathutils import Matrix, Quaternion, Vector

import gom

SWAP = np.array([0, 2, 1])
C = Matrix(((1, 0, 0, 0), (0, 0, 1, 0), (0, 1, 0, 0), (0, 0, 0, 1)))


@dataclass
class Imported:
    armature: object = None
    meshes: List[object] = field(default_factory=list)
    actions: List[object] = field(default_factory=list)
    warnings: List[str] = field(default_factory=list)


def points(a: np.ndarray) -> np.ndarray:
    """GOM points or directions (n × 3) in Blender's axes."""
    return np.ascontiguousarray(a[:, SWAP], dtype=np.float32)


def matrix(m: np.ndarray) -> Matrix:
    """A GOM row-vector matrix as a Blender matrix."""
    return C @ Matrix(m.T.tolist()) @ C


def key_matrix(t, r, s) -> Matrix:
    """A GOM key (translation, rotation x y z w, scale) as a Blender matrix."""
    x, y, z, w = (float(v) for v in r)
    return C @ Matrix.LocRotScale(Vector(t.tolist()), Quaternion((w, x, y, z)), Vector(s.tolist())) @ C


def import_file(context, path, **options) -> Imported:
    model = gom.load(path, **options)
    # With options (a .tmd's library or level of detail) pose what they load.
    asset = _asset_with(path, options) if options else gom.Asset(path)
    name = os.path.splitext(os.path.basename(path))[0]
    result = Imported(warnings=list(model.warnings) + list(model.findings))
    collection = context.scene.collection
    result.armature = _armature(context, collection, name, model, asset)
    materials = _materials(model, os.path.dirname(path))
    for i, (mesh, (positions, normals)) in enumerate(zip(model.meshes, asset.skin())):
        obj = _mesh(collection, mesh, positions, normals, materials, model, result.armature)
        obj["gom_mesh_index"] = i
        result.meshes.append(obj)
    result.actions = _actions(context, result.armature, model)
    return result


def _asset_with(path, options):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "model.gom")
        gom.convert(path, out, **options)
        with open(out, "rb") as f:
            return gom.Asset(f.read())


def _armature(context, collection, name, model, asset):
    data = bpy.data.armatures.new(name)
    obj = bpy.data.objects.new(name, data)
    collection.objects.link(obj)
    world = asset.model_pose()
    heads = np.array([matrix(m).translation[:] for m in world]) if len(world) else np.zeros((1, 3))
    size = float(np.ptp(heads, axis=0).max()) if len(heads) > 1 else 1.0
    length = max(size * 0.05, 0.01)
    view_layer = context.view_layer
    view_layer.objects.active = obj
    obj.select_set(True)
    bpy.ops.object.mode_set(mode="EDIT")
    bones = []
    for i, bone_name in enumerate(model.skeleton.names):
        b = data.edit_bones.new(bone_name)
        b.head = (0.0, 0.0, 0.0)
        b.tail = (0.0, length, 0.0)
        b.matrix = matrix(world[i])
        parent = int(model.skeleton.parents[i])
        if parent >= 0:
            b.parent = bones[parent]
        bones.append(b)
    bpy.ops.object.mode_set(mode="OBJECT")
    return obj


def _image(name, model, folder):
    if name in model.images:
        with tempfile.NamedTemporaryFile(suffix=os.path.splitext(name)[1] or ".png", delete=False) as f:
            f.write(model.images[name])
            temp = f.name
        image = bpy.data.images.load(temp)
        image.pack()
        os.unlink(temp)
    else:
        path = os.path.join(folder, name)
        if not os.path.isfile(path):
            return None
        image = bpy.data.images.load(path)
    image.name = name
    return image


def _materials(model, folder):
    made = []
    for m in model.materials:
        mat = bpy.data.materials.new(m.name)
        mat.use_nodes = True
        bsdf = mat.node_tree.nodes.get("Principled BSDF")
        bsdf.inputs["Base Color"].default_value = m.base_color_factor
        if m.base_color_texture:
            image = _image(m.base_color_texture, model, folder)
            if image is not None:
                tex = mat.node_tree.nodes.new("ShaderNodeTexImage")
                tex.image = image
                mat.node_tree.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
        made.append(mat)
    return made


def _mesh(collection, mesh, positions, normals, materials, model, armature):
    me = bpy.data.meshes.new(mesh.name)
    n = len(positions)
    tris = mesh.indices.reshape(-1, 3)[:, [0, 2, 1]]
    me.vertices.add(n)
    me.vertices.foreach_set("co", points(positions).ravel())
    me.loops.add(tris.size)
    me.loops.foreach_set("vertex_index", tris.ravel().astype(np.int32))
    me.polygons.add(len(tris))
    me.polygons.foreach_set("loop_start", np.arange(0, tris.size, 3, dtype=np.int32))
    me.polygons.foreach_set("loop_total", np.full(len(tris), 3, dtype=np.int32))
    if mesh.uvs is not None:
        uv = mesh.uvs.copy()
        uv[:, 1] = 1.0 - uv[:, 1]
        layer = me.uv_layers.new(name="UVMap")
        layer.data.foreach_set("uv", uv[tris.ravel()].ravel())
    for m in materials:
        me.materials.append(m)
    if mesh.submeshes:
        slots = np.zeros(len(tris), dtype=np.int32)
        for material, start, count in mesh.submeshes:
            slots[start // 3 : (start + count) // 3] = max(material, 0)
        me.polygons.foreach_set("material_index", slots)
    me.update(calc_edges=True)
    if normals is not None:
        me.use_auto_smooth = True
        me.normals_split_custom_set_from_vertices([tuple(v) for v in points(normals)])
    obj = bpy.data.objects.new(mesh.name, me)
    collection.objects.link(obj)
    if mesh.weights is not None:
        _vertex_groups(obj, mesh, model.skeleton.names)
        obj.parent = armature
        mod = obj.modifiers.new("Armature", "ARMATURE")
        mod.object = armature
    return obj


def _vertex_groups(obj, mesh, names):
    joints = mesh.joints if mesh.joints_extra is None else np.hstack([mesh.joints, mesh.joints_extra])
    weights = mesh.weights if mesh.weights_extra is None else np.hstack([mesh.weights, mesh.weights_extra])
    used = weights > 0
    for bone in np.unique(joints[used]):
        group = obj.vertex_groups.new(name=names[int(bone)])
        vert, slot = np.nonzero((joints == bone) & used)
        w = weights[vert, slot]
        for value in np.unique(w):
            group.add(vert[w == value].tolist(), float(value), "REPLACE")


def _actions(context, armature, model):
    if not model.clips:
        return []
    # Keys at their own times, on the scene's frame rate (no resampling).
    fps = context.scene.render.fps / context.scene.render.fps_base
    bones = armature.data.bones
    rest = {}
    for b in bones:
        rest[b.name] = (b.parent.matrix_local.inverted() @ b.matrix_local) if b.parent else b.matrix_local.copy()
    armature.animation_data_create()
    actions = []
    for clip in model.clips:
        action = bpy.data.actions.new(clip.name)
        action.use_fake_user = True
        for track in clip.tracks:
            name = model.skeleton.names[track.bone]
            inverse_rest = rest[name].inverted()
            frames = track.times * fps
            loc, rot, scl = [], [], []
            previous = None
            for t, r, s in zip(track.translations, track.rotations, track.scales):
                basis = inverse_rest @ key_matrix(t, r, s)
                l, q, sc = basis.decompose()
                if previous is not None and previous.dot(q) < 0:
                    q.negate()
                previous = q
                loc.append(l[:])
                rot.append(q[:])
                scl.append(sc[:])
            _curves(action, name, "location", frames, np.array(loc))
            _curves(action, name, "rotation_quaternion", frames, np.array(rot))
            _curves(action, name, "scale", frames, np.array(scl))
        actions.append(action)
    armature.animation_data.action = actions[0]
    return actions


def _curves(action, bone, prop, frames, values):
    path = f'pose.bones["{bone}"].{prop}'
    for i in range(values.shape[1]):
        fc = action.fcurves.new(data_path=path, index=i, action_group=bone)
        fc.keyframe_points.add(len(frames))
        co = np.empty(2 * len(frames), dtype=np.float32)
        co[0::2] = frames
        co[1::2] = values[:, i]
        fc.keyframe_points.foreach_set("co", co)
        fc.keyframe_points.foreach_set("interpolation", [1] * len(frames))  # LINEAR
        fc.update()
