"""The layout of a keyframe library (`.tkl`), for the tests that check what an
export into a shared library keeps (pytest and the Blender test use it)."""


def tkl_ranges_kept(old: bytes, new: bytes, old_info, new_info) -> bool:
    """Whether `new` (a keyframe library written with keys appended) keeps `old`'s
    name and its location and rotation records byte for byte at their indices: a
    56-byte header (the name at 12..28), then 12-byte locations, 16-byte rotations."""
    lo, ln = old_info["locations"], new_info["locations"]
    ro = old_info["rotations"]
    head = 56
    return (
        old[12:28] == new[12:28]
        and old[head : head + 12 * lo] == new[head : head + 12 * lo]
        and old[head + 12 * lo : head + 12 * lo + 16 * ro]
        == new[head + 12 * ln : head + 12 * ln + 16 * ro]
    )
