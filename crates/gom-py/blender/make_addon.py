#!/usr/bin/env python3
"""Builds the Blender add-on zip: `io_scene_gom/` with the gom wheel unpacked into
`io_scene_gom/_vendor/` (Blender 3.x has no wheel installer of its own; an abi3 wheel
runs on Blender's Python 3.9 and later).

    python3 make_addon.py WHEEL OUT.zip
"""

import pathlib
import sys
import zipfile

HERE = pathlib.Path(__file__).resolve().parent


def main(wheel: str, out: str) -> None:
    addon = HERE / "io_scene_gom"
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for f in sorted(addon.glob("*.py")):
            z.write(f, f"io_scene_gom/{f.name}")
        with zipfile.ZipFile(wheel) as w:
            for name in sorted(w.namelist()):
                if ".dist-info/" in name:
                    continue
                z.writestr(f"io_scene_gom/_vendor/{name}", w.read(name))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
