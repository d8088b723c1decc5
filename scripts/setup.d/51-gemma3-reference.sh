#!/usr/bin/env bash
# The reference the Gemma 3 tests (trainer/tests/gemma3) compare with is transformers itself:
# `Gemma3ForCausalLM` for the logits, gradients and generation, and its GGUF tokenizer conversion
# for the token ids. The venv holding torch 2.13 and transformers on these machines is vLLM's
# (50-vllm.sh); the GGUF conversion also needs llama.cpp's `gguf` package, added here.
set -euo pipefail

cache="${HACRL_CACHE:-$HOME/.cache/hacrl}"
venv="$cache/vllm-venv"
gguf_version=0.19.0

if [[ "${HACRL_SKIP_VLLM:-0}" == 1 || ! -x "$venv/bin/python" ]]; then
    echo "51-gemma3-reference: skipped (no $venv; the Gemma 3 reference tests then fail, saying so)"
    exit 0
fi
if ! "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('gguf') != '$gguf_version')" 2>/dev/null; then
    # torch stays at vLLM's pin: gguf needs only numpy, pyyaml, requests and tqdm, all there.
    "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps "gguf==$gguf_version"
fi
"$venv/bin/python" -c 'import gguf, torch, transformers.models.gemma3'
echo "51-gemma3-reference: gguf $gguf_version in $venv"
