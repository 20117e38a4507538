"""Conversion and builds release the GIL: another Python thread runs while they
work. (Skinning releases it too, but one skinning call on the shared samples takes
under a millisecond, too short to tell.)"""

import shutil
import sys
import threading
import time

import gom
from conftest import data


def ticks_while(work):
    """How many times this thread counted while `work` ran in another thread. The
    interpreter's switch interval is made far longer than the work, so that this
    thread runs only while the worker has released the GIL."""
    started, done = threading.Event(), threading.Event()

    def run():
        started.set()
        try:
            work()
        finally:
            done.set()

    interval = sys.getswitchinterval()
    sys.setswitchinterval(30.0)
    try:
        worker = threading.Thread(target=run)
        worker.start()
        started.wait()
        ticks = 0
        while not done.is_set():
            ticks += 1
            time.sleep(0)  # gives the GIL back, so that the worker can return
        worker.join()
    finally:
        sys.setswitchinterval(interval)
    return ticks


def test_build_and_convert_let_other_threads_run(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    for i in range(12):
        shutil.copy(data("fbx/blender_279_sausage_7400_binary.fbx"), src / f"s{i}.fbx")
    # Each work is one call of some tens of milliseconds. Held, the GIL would stop
    # this thread for the whole call: no tick at all (checked by removing the
    # release); released, this thread runs at once.
    assert ticks_while(lambda: gom.build(src, tmp_path / "out", jobs=1)) > 0
    source = data("fbx/blender_279_sausage_7400_binary.fbx")
    assert ticks_while(lambda: gom.convert(source, tmp_path / "s.tmd", lods=3, rename=True)) > 0
