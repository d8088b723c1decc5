#!/usr/bin/env python3
"""Takes files out of a zip archive (a wheel, or a zip inside one) for the set-up steps.

    zip-extract.py ARCHIVE DEST [--strip PREFIX] [--from-inner MEMBER] [NAME ...]

Members under PREFIX (which is removed from their names) are written below DEST; with NAMEs,
only those: a NAME ending in "/" selects a folder. --from-inner reads the zip stored as MEMBER
inside ARCHIVE instead. A member whose name would leave DEST (absolute, "..") fails the step,
since the archive is downloaded: checksums pin it, and this keeps a bad pin from writing
anywhere else.
"""

import argparse
import io
import os
import shutil
import sys
import zipfile


def selected(rel: str, names: list[str]) -> bool:
    """Whether the member `rel` (prefix removed) is one the caller asked for."""
    return not names or any(
        rel == n or (n.endswith("/") and rel.startswith(n)) for n in names
    )


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("archive")
    p.add_argument("dest")
    p.add_argument("--strip", default="", help="prefix every wanted member has; removed")
    p.add_argument("--from-inner", help="a zip inside ARCHIVE to read instead")
    p.add_argument("names", nargs="*", help="members to take (a trailing / takes a folder)")
    args = p.parse_intermixed_args()

    archive = zipfile.ZipFile(args.archive)
    if args.from_inner:
        archive = zipfile.ZipFile(io.BytesIO(archive.read(args.from_inner)))
    taken = 0
    for info in archive.infolist():
        if info.is_dir() or not info.filename.startswith(args.strip):
            continue
        rel = info.filename[len(args.strip) :]
        if not selected(rel, args.names):
            continue
        parts = rel.split("/")
        if rel.startswith("/") or any(part in ("", ".", "..") for part in parts):
            sys.exit(f"zip-extract: unexpected member {info.filename!r} in {args.archive}")
        out = os.path.join(args.dest, *parts)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with archive.open(info) as src, open(out, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        taken += 1
    if taken == 0:
        sys.exit(f"zip-extract: nothing in {args.archive} matched {args.strip!r} {args.names}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
