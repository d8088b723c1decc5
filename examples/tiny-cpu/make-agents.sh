#!/usr/bin/env bash
# Creates the two tiny agents of this example (different architecture AND tokenizer) and imports
# its tasks into the verifier at $VERIFIER_URL (default http://127.0.0.1:8080):
#   agents/tiny-llama       llama, 2 layers, SmolLM2's 49,152-token BPE tokenizer
#   agents/tiny-qwen3-bytes qwen3 (q/k norm), 3 layers, a 259-token byte-level tokenizer
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/../.."
cd "$root"
. scripts/env
url="${VERIFIER_URL:-http://127.0.0.1:8080}"
cargo build --release -q -p trainer
trainer=target/release/trainer
smol="${HACRL_CACHE}/smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
tok="$here/agents/smollm2-tokenizer"
if [ ! -f "$tok/tokenizer.json" ]; then
    "$trainer" import-gguf --gguf "$smol" --out "$here/agents/smollm2-135m"
    mkdir -p "$tok" && cp "$here/agents/smollm2-135m"/tokenizer*.json "$tok/"
fi
"$trainer" init-model --config "$here/llama.json" --tokenizer "$tok" --out "$here/agents/tiny-llama" --seed 1
"$trainer" init-model --config "$here/qwen3.json" --tokenizer trainer/assets/byte-tokenizer --out "$here/agents/tiny-qwen3-bytes" --seed 2
for split in train test; do
    curl -sf -XPOST "$url/v1/tasks?dataset=arith-$split" -H 'content-type: application/x-ndjson' \
        --data-binary "@$here/arith-$split.jsonl" >/dev/null
done
echo "agents in $here/agents; tasks arith-train/arith-test imported into $url"
