"""`gom.jpog` on the shared game files: textures against the generator's expected
pixels and `gom tml extract`'s PNG files; summaries against the `gom` command's."""

import json

import numpy as np

import gom
from conftest import data


def test_textures_decode_to_the_expected_pixels():
    expected = json.loads(data("jpog/tml_main.expected.json").read_text())
    tml = gom.jpog.Tml(data("jpog/tml_main.tml"))
    assert len(tml) == len(expected["textures"])
    for i, t in enumerate(expected["textures"]):
        rgba = tml.rgba(i)
        assert rgba.shape == (t["height"], t["width"], 4) and rgba.dtype == np.uint8
        readings = [t["rgba_hex"]]
        alt = t.get("rgba_hex_alt")
        if isinstance(alt, dict):
            readings.append(alt["rgba_hex"])
        assert rgba.tobytes().hex() in readings, f"texture {i}"


def test_png_bytes_are_those_gom_tml_extract_writes(gom_cli, tmp_path):
    path = data("jpog/tml_main.tml")
    tml = gom.jpog.Tml(path.read_bytes())
    gom_cli("tml", "extract", path, tmp_path)
    written = {p.read_bytes() for p in tmp_path.glob("*.png")}
    pngs = {tml.png(i) for i in range(len(tml))}
    assert written and written <= pngs
    for i in range(len(tml)):
        assert tml.png(i).startswith(b"\x89PNG\r\n\x1a\n")


def without_file(doc):
    return {k: v for k, v in doc.items() if k != "file"}


def test_library_listings_equal_gom_info_json(gom_json):
    tml = data("jpog/tml_main.tml")
    assert gom.jpog.Tml(tml).info() == without_file(gom_json("info", "--json", tml))
    tkl = data("jpog/Ddev.tkl")
    assert gom.jpog.tkl_info(tkl) == without_file(gom_json("info", "--json", tkl))


def test_tmd_info_equals_gom_tmd_info(gom_json):
    for name in ["jpog/tmd_creature.tmd", "jpog/tmd_static.tmd"]:
        path = data(name)
        assert gom.jpog.tmd_info(path) == gom_json("tmd", "info", "--json", path)


def test_material_textures_name_the_textures_in_use():
    expected = json.loads(data("jpog/tml_main.expected.json").read_text())
    tml = gom.jpog.Tml(data("jpog/tml_main.tml"))
    listing = tml.info()["listing"]
    for m in listing["materials"]:
        used = tml.material_textures(m["name"])
        ids = [listing["textures"][i]["id"] for i in used]
        assert ids == [i for i in m["texture_ids"] if i in ids]
    assert tml.material_textures("no such material") is None
    assert len(expected["materials"]) == len(listing["materials"])
