#!/usr/bin/env python3
"""Copies the files of SRC into DST except those holding 64 bytes in a row of any file
under SHARED (the third-party test data, which must not be committed as seeds), and,
when MAX_BYTES is given, those larger than that.

usage: not_shared.py SHARED SRC DST [MAX_BYTES]
"""
import os
import sys

WINDOW = 64


def windows(data):
    return {hash(data[i:i + WINDOW]) for i in range(0, max(len(data) - WINDOW + 1, 0))}


def main():
    shared, src, dst = sys.argv[1:4]
    max_bytes = int(sys.argv[4]) if len(sys.argv) > 4 else None
    known = set()
    if os.path.isdir(shared):
        for base, _, files in os.walk(shared):
            for f in files:
                with open(os.path.join(base, f), "rb") as fh:
                    known |= windows(fh.read())
    else:
        print(f"note: {shared} is absent; no input is checked against it")
    os.makedirs(dst, exist_ok=True)
    kept = dropped = large = 0
    for f in sorted(os.listdir(src)) if os.path.isdir(src) else []:
        with open(os.path.join(src, f), "rb") as fh:
            data = fh.read()
        if max_bytes is not None and len(data) > max_bytes:
            large += 1
            continue
        if windows(data) & known:
            dropped += 1
            continue
        with open(os.path.join(dst, f), "wb") as fh:
            fh.write(data)
        kept += 1
    print(f"{src}: kept {kept}, left out {dropped} holding third-party bytes"
          + (f" and {large} over {max_bytes} bytes" if large else ""))


if __name__ == "__main__":
    main()
