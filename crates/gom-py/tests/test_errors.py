"""Hostile files: truncated and corrupted copies of the shared samples raise
`gom.Error` subclasses carrying the file, field and offset the Rust errors name, and
never crash the interpreter."""

import random

import pytest

import gom
from conftest import data


@pytest.fixture(scope="module")
def gomb(tmp_path_factory):
    out = tmp_path_factory.mktemp("gomb") / "figure.gom"
    gom.convert(data("gltf/RiggedFigure.gltf"), out)
    return out.read_bytes()


def test_every_truncation_of_a_gom_file_is_a_read_error(gomb, tmp_path):
    path = tmp_path / "cut.gom"
    for length in list(range(0, 200)) + list(range(200, len(gomb), 97)):
        path.write_bytes(gomb[:length])
        with pytest.raises(gom.ReadError) as caught:
            gom.load(path)
        e = caught.value
        assert e.file == str(path)
        assert e.offset is not None and e.offset <= len(gomb)
        if length > 0:
            assert e.field
        with pytest.raises(gom.ReadError):
            gom.Asset(gomb[:length])


def test_corrupted_files_raise_gom_errors_or_load(gomb, tmp_path):
    rng = random.Random(7)
    cases = [
        ("model.gom", gomb),
        ("creature.tmd", data("jpog/tmd_creature.tmd").read_bytes()),
        ("figure.gltf", data("gltf/RiggedFigure.gltf").read_bytes()),
        ("walk.bvh", data("bvh/002_01.bvh").read_bytes()[:20000]),
    ]
    for name, original in cases:
        path = tmp_path / name
        for _ in range(60):
            bytes_ = bytearray(original)
            for _ in range(rng.randint(1, 8)):
                bytes_[rng.randrange(len(bytes_))] = rng.randrange(256)
            path.write_bytes(bytes(bytes_))
            try:
                model = gom.load(path)
            except gom.Error:
                continue
            if model.clips:  # a file that reads must pose
                try:
                    gom.Asset(path).skin(0, 0.1)
                except gom.Error:
                    pass


def test_game_files_name_record_field_and_offset(tmp_path):
    for name, read in [
        ("creature.tmd", gom.load),
        ("Ddev.tkl", gom.jpog.tkl_info),
        ("main.tml", gom.jpog.Tml),
        ("static.tmd", gom.jpog.tmd_info),
    ]:
        source = {
            "creature.tmd": "jpog/tmd_creature.tmd",
            "Ddev.tkl": "jpog/Ddev.tkl",
            "main.tml": "jpog/tml_main.tml",
            "static.tmd": "jpog/tmd_static.tmd",
        }[name]
        original = data(source).read_bytes()
        path = tmp_path / name
        path.write_bytes(original[: len(original) // 2])
        with pytest.raises(gom.JpogError) as caught:
            read(path)
        e = caught.value
        assert e.file == str(path), name
        assert e.record and e.field and e.offset is not None, (name, str(e))
        assert f"byte {e.offset}" in str(e)


def test_text_errors_carry_line_and_column(gomb, tmp_path):
    text = tmp_path / "figure.gomt"
    gom.convert(data("gltf/RiggedFigure.gltf"), text)
    lines = text.read_text().splitlines()
    k = len(lines) // 2
    lines[k] = "@@@ " + lines[k]
    text.write_text("\n".join(lines) + "\n")
    with pytest.raises(gom.TextError) as caught:
        gom.load(text)
    assert caught.value.line == k + 1 and caught.value.column is not None
    bvh = tmp_path / "broken.bvh"
    bvh.write_text("HIERARCHY\nROOT Hips\n{\n  OFFSET 0 zero 0\n")
    with pytest.raises(gom.TextError) as caught:
        gom.load(bvh)
    assert caught.value.line == 4 and caught.value.file == str(bvh)


def test_runtime_refusals_are_asset_errors():
    asset = gom.Asset(data("gltf/RiggedSimple.gltf"))
    with pytest.raises(gom.AssetError):
        asset.model_pose("no such clip", 0.0)
    with pytest.raises(gom.AssetError):
        asset.sample(99, 0.0)


def test_missing_files_are_io_errors(tmp_path):
    with pytest.raises(gom.IoError) as caught:
        gom.load(tmp_path / "absent.gom")
    assert caught.value.file == str(tmp_path / "absent.gom")
    assert isinstance(caught.value, gom.Error)
