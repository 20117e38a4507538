"""`gom.convert`, `gom.build` and `gom.validate` against the `gom` command: the same
files, byte for byte, and the same reports."""

import json
import shutil

import pytest

import gom
from conftest import data
from tkl_layout import tkl_ranges_kept

REPORT_ONLY_IN_PYTHON = ("written", "summary")


@pytest.mark.parametrize(
    "source, ext",
    [
        ("gltf/RiggedFigure.gltf", "gom"),
        ("fbx/maya_game_sausage_7500_binary_wiggle.fbx", "gomt"),
        ("jpog/tmd_creature.tmd", "glb"),
        ("bvh/002_01.bvh", "gom"),
    ],
)
def test_convert_writes_what_gom_convert_writes(source, ext, gom_cli, tmp_path):
    src = data(source)
    mine, theirs = tmp_path / f"py.{ext}", tmp_path / f"cli.{ext}"
    report = gom.convert(src, mine, key_tolerance_mm=0.5, sample_rate=24)
    done = gom_cli(
        "convert", src, theirs, "--key-tolerance-mm", "0.5", "--sample-rate", "24",
        "--report", "json",
    )
    assert mine.read_bytes() == theirs.read_bytes()
    expected = json.loads(done.stdout)
    got = {k: v for k, v in report.data.items() if k not in REPORT_ONLY_IN_PYTHON}
    assert got == expected
    assert report.warnings == expected["warnings"]
    assert report.validation == expected["validation"]
    assert report.written == [str(mine)]


def test_options_change_the_output_as_the_flags_do(gom_cli, tmp_path):
    src = data("gltf/RiggedSimple.gltf")
    gom.convert(src, tmp_path / "a.gom", key_tolerance_mm=0, no_optimize=True, scale=0.01)
    gom_cli("convert", src, tmp_path / "b.gom", "--key-tolerance-mm", "0", "--no-optimize",
            "--scale", "0.01")
    gom.convert(src, tmp_path / "c.gom")
    assert (tmp_path / "a.gom").read_bytes() == (tmp_path / "b.gom").read_bytes()
    assert (tmp_path / "a.gom").read_bytes() != (tmp_path / "c.gom").read_bytes()


def test_convert_to_tmd_writes_the_three_files_gom_convert_writes(gom_cli, tmp_path):
    src = data("gltf/RiggedFigure.gltf")
    (tmp_path / "py").mkdir()
    (tmp_path / "cli").mkdir()
    report = gom.convert(src, tmp_path / "py" / "figure.tmd", lods=1, rename=True)
    gom_cli("convert", src, tmp_path / "cli" / "figure.tmd", "--lods", "1", "--rename")
    names = sorted(p.name for p in (tmp_path / "cli").iterdir())
    assert sorted(p.name for p in (tmp_path / "py").iterdir()) == names
    assert len(names) == 3
    for name in names:
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes()
    assert [p.rsplit("/", 1)[-1] for p in report.written] == sorted(
        names, key=lambda n: ["tkl", "tml", "tmd"].index(n.rsplit(".", 1)[1])
    )
    assert gom.validate(tmp_path / "py" / "figure.tmd") == []


def test_a_shared_tkl_keeps_the_other_models_keys(tmp_path):
    shared = tmp_path / "Ddev.tkl"
    shutil.copy(data("jpog/Ddev.tkl"), shared)
    before = gom.jpog.tkl_info(shared)
    original = shared.read_bytes()
    gom.convert(data("gltf/RiggedSimple.gltf"), tmp_path / "simple.tmd", tkl=shared)
    after = gom.jpog.tkl_info(shared)
    assert after["name"] == before["name"]
    assert after["locations"] >= before["locations"]
    assert after["rotations"] >= before["rotations"]
    assert after["locations"] + after["rotations"] > before["locations"] + before["rotations"]
    # The creature that uses the library still reads the same keys from it.
    creature = tmp_path / "creature.tmd"
    shutil.copy(data("jpog/tmd_creature.tmd"), creature)
    old = gom.load(data("jpog/tmd_creature.tmd"), tkl=data("jpog/Ddev.tkl"))
    new = gom.load(creature, tkl=shared)
    for a, b in zip(old.clips, new.clips):
        for ta, tb in zip(a.tracks, b.tracks):
            assert (ta.translations == tb.translations).all()
            assert (ta.rotations == tb.rotations).all()
    assert shared.read_bytes() != original
    assert tkl_ranges_kept(original, shared.read_bytes(), before, after)


def test_no_output_replaces_an_input(tmp_path):
    src = tmp_path / "model.gom"
    gom.convert(data("gltf/RiggedSimple.gltf"), src)
    before = src.read_bytes()
    with pytest.raises(gom.IoError) as caught:
        gom.convert(src, src)
    assert caught.value.file == str(src)
    assert src.read_bytes() == before


def test_unknown_options_and_formats_are_option_errors(tmp_path):
    src = data("gltf/RiggedSimple.gltf")
    with pytest.raises(gom.OptionError, match="key_tolerance"):
        gom.convert(src, tmp_path / "a.gom", key_tolerence_mm=1)
    with pytest.raises(ValueError):
        gom.convert(src, tmp_path / "a.gom", sample_rate="fast")
    with pytest.raises(gom.OptionError):
        gom.convert(src, tmp_path / "a.xyz")
    with pytest.raises(gom.OptionError):
        gom.convert(src, tmp_path / "a.gom", lods=2)  # only for .tmd output
    assert not (tmp_path / "a.gom").exists()


def sources_folder(tmp_path):
    folder = tmp_path / "src"
    folder.mkdir()
    for name in ["RiggedSimple.gltf", "RiggedFigure.gltf", "BoxAnimated.gltf"]:
        shutil.copy(data(f"gltf/{name}"), folder / name)
    (folder / "broken.gltf").write_text("{ not json")
    return folder


def test_build_writes_what_gom_build_writes(gom_cli, tmp_path):
    src = sources_folder(tmp_path)
    report = gom.build(src, tmp_path / "py", jobs=2)
    done = gom_cli("build", src, tmp_path / "cli", "--report", "json", "-j", "2", check=False)
    expected = json.loads(done.stdout)
    assert report.converted == expected["converted"] == 3
    assert report.failed == expected["failed"] == 1
    assert [f["source"] for f in report.files] == [f["source"] for f in expected["files"]]
    for f in (tmp_path / "cli").glob("*.gom"):
        assert (tmp_path / "py" / f.name).read_bytes() == f.read_bytes()
    again = gom.build(src, tmp_path / "py")
    assert again.converted == 0 and again.up_to_date == 3


def test_validate_agrees_with_gom_validate(gom_cli, tmp_path):
    out = tmp_path / "figure.gom"
    gom.convert(data("gltf/RiggedFigure.gltf"), out)
    assert gom.validate(out) == []
    assert gom_cli("validate", out).stdout.strip() == f"{out}: valid"
    assert gom.validate(data("jpog/tml_main.tml")) == []
    assert gom.validate(data("jpog/Ddev.tkl")) == []
