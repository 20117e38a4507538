"""GOM and Jurassic Park: Operation Genesis models in Blender, through the gom
Python package (bundled in this add-on's `_vendor` folder by `make_addon.py`)."""

bl_info = {
    "name": "GOM and JPOG (.gom, .gomt, .tmd)",
    "author": "gom contributors",
    "version": (0, 1, 0),
    "blender": (3, 4, 0),
    "location": "File > Import, File > Export",
    "description": "Import and export GOM models and Jurassic Park: Operation Genesis .tmd models",
    "category": "Import-Export",
}

import os
import sys

_VENDOR = os.path.join(os.path.dirname(__file__), "_vendor")
if os.path.isdir(_VENDOR) and _VENDOR not in sys.path:
    sys.path.insert(0, _VENDOR)

import bpy  # noqa: E402
from bpy.props import BoolProperty, FloatProperty, IntProperty, StringProperty  # noqa: E402
from bpy_extras.io_utils import ExportHelper, ImportHelper  # noqa: E402


def _gom():
    """The gom package, or None with the reason (shown in the report area)."""
    try:
        import gom

        return gom, None
    except ImportError as e:
        return None, f"the gom Python package cannot be loaded: {e}"


class _Import:
    def execute(self, context):
        gom, why = _gom()
        if gom is None:
            self.report({"ERROR"}, why)
            return {"CANCELLED"}
        from . import importer

        try:
            result = importer.import_file(context, self.filepath, **self.import_options())
        except gom.Error as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        for w in result.warnings:
            self.report({"WARNING"}, w)
        return {"FINISHED"}

    def import_options(self):
        return {}


class IMPORT_OT_gom(bpy.types.Operator, _Import, ImportHelper):
    """Import a GOM model (.gom, .gomt)"""

    bl_idname = "import_scene.gom"
    bl_label = "Import GOM"
    bl_options = {"REGISTER", "UNDO", "PRESET"}
    filename_ext = ".gom"
    filter_glob: StringProperty(default="*.gom;*.gomt", options={"HIDDEN"})


class IMPORT_OT_tmd(bpy.types.Operator, _Import, ImportHelper):
    """Import a Jurassic Park: Operation Genesis model (.tmd with its .tkl and .tml)"""

    bl_idname = "import_scene.jpog_tmd"
    bl_label = "Import JPOG TMD"
    bl_options = {"REGISTER", "UNDO", "PRESET"}
    filename_ext = ".tmd"
    filter_glob: StringProperty(default="*.tmd", options={"HIDDEN"})
    tkl: StringProperty(name="Keyframe library", description="The .tkl (found beside the model when empty)", subtype="FILE_PATH")
    tml: StringProperty(name="Material library", description="The .tml (found beside the model when empty)", subtype="FILE_PATH")
    lod: IntProperty(name="Level of detail", default=0, min=0)

    def import_options(self):
        options = {"lod": self.lod} if self.lod else {}
        for name in ("tkl", "tml"):
            if getattr(self, name):
                options[name] = bpy.path.abspath(getattr(self, name))
        return options


class _Export:
    def execute(self, context):
        gom, why = _gom()
        if gom is None:
            self.report({"ERROR"}, why)
            return {"CANCELLED"}
        from . import exporter

        try:
            report = exporter.export_file(context, self.filepath, **self.export_options())
        except exporter.SelectionError as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        except gom.Error as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        for w in report.warnings + report.validation:
            self.report({"WARNING"}, w)
        self.report({"INFO"}, "wrote " + ", ".join(report.written))
        return {"FINISHED"}


class EXPORT_OT_gom(bpy.types.Operator, _Export, ExportHelper):
    """Export the selected armature and meshes as a GOM model"""

    bl_idname = "export_scene.gom"
    bl_label = "Export GOM"
    filename_ext = ".gom"
    filter_glob: StringProperty(default="*.gom;*.gomt", options={"HIDDEN"})
    key_tolerance_mm: FloatProperty(name="Key tolerance (mm)", default=1.0, min=0.0)
    sample_rate: FloatProperty(name="Sample rate (Hz)", default=30.0, min=1.0)
    compress: BoolProperty(name="Compress clips", default=False)

    def export_options(self):
        return {
            "key_tolerance_mm": self.key_tolerance_mm,
            "sample_rate": self.sample_rate,
            "compress": self.compress,
        }


class EXPORT_OT_tmd(bpy.types.Operator, _Export, ExportHelper):
    """Export the selected armature and meshes as a JPOG model (.tmd, .tkl, .tml)"""

    bl_idname = "export_scene.jpog_tmd"
    bl_label = "Export JPOG TMD"
    filename_ext = ".tmd"
    filter_glob: StringProperty(default="*.tmd", options={"HIDDEN"})
    tkl: StringProperty(name="Shared keyframe library", description="Append to this .tkl; other models' keys are kept", subtype="FILE_PATH")
    template: StringProperty(name="Template", description="The .tmd being replaced", subtype="FILE_PATH")
    lods: IntProperty(name="Extra LODs", default=0, min=0, max=8)
    rename: BoolProperty(name="Shorten long names", default=False)
    key_tolerance_mm: FloatProperty(name="Key tolerance (mm)", default=1.0, min=0.0)

    def export_options(self):
        options = {"lods": self.lods, "rename": self.rename, "key_tolerance_mm": self.key_tolerance_mm}
        if self.tkl:
            options["tkl"] = bpy.path.abspath(self.tkl)
        if self.template:
            options["template"] = bpy.path.abspath(self.template)
        return options


def _menu_import(self, context):
    self.layout.operator(IMPORT_OT_gom.bl_idname, text="GOM (.gom, .gomt)")
    self.layout.operator(IMPORT_OT_tmd.bl_idname, text="Jurassic Park: Operation Genesis (.tmd)")


def _menu_export(self, context):
    self.layout.operator(EXPORT_OT_gom.bl_idname, text="GOM (.gom, .gomt)")
    self.layout.operator(EXPORT_OT_tmd.bl_idname, text="Jurassic Park: Operation Genesis (.tmd)")


_CLASSES = (IMPORT_OT_gom, IMPORT_OT_tmd, EXPORT_OT_gom, EXPORT_OT_tmd)


def register():
    for c in _CLASSES:
        bpy.utils.register_class(c)
    bpy.types.TOPBAR_MT_file_import.append(_menu_import)
    bpy.types.TOPBAR_MT_file_export.append(_menu_export)


def unregister():
    bpy.types.TOPBAR_MT_file_export.remove(_menu_export)
    bpy.types.TOPBAR_MT_file_import.remove(_menu_import)
    for c in reversed(_CLASSES):
        bpy.utils.unregister_class(c)
