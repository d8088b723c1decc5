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
# Re-initialised every time natively (the container's `agents` service keeps existing ones).
rm -f "$here/agents/.complete"
TRAINER=target/release/trainer SMOLLM2_GGUF="${HACRL_CACHE}/smollm2/SmolLM2-135M-Instruct.Q4_1.gguf" \
    BYTE_TOKENIZER=trainer/assets/byte-tokenizer AGENTS="$here/agents" "$here/init-agents.sh"
for split in train test; do
    curl -sf -XPOST "$url/v1/tasks?dataset=arith-$split" -H 'content-type: application/x-ndjson' \
        --data-binary "@$here/arith-$split.jsonl" >/dev/null
done
echo "agents in $here/agents; tasks arith-train/arith-test imported into $url"
