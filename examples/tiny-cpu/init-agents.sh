#!/bin/sh
# Creates this example's two agents (different architecture AND tokenizer) with a built trainer:
#   $AGENTS/tiny-llama        llama, 2 layers, SmolLM2's 49,152-token BPE tokenizer
#   $AGENTS/tiny-qwen3-bytes  qwen3 (q/k norm), 3 layers, a 259-token byte-level tokenizer
# Used natively by make-agents.sh and, in the compose stack, by the `agents` service inside the
# trainer image (no native build needed there). Does nothing when the agents exist already.
#
# Environment: TRAINER (trainer binary), SMOLLM2_GGUF (SmolLM2-135M-Instruct.Q4_1.gguf, which
# scripts/setup.d/31-smollm2.sh fetches), BYTE_TOKENIZER (trainer/assets/byte-tokenizer),
# AGENTS (output folder; default: agents/ next to this script).
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
agents="${AGENTS:-$here/agents}"
: "${TRAINER:?TRAINER must name the trainer binary}"
: "${SMOLLM2_GGUF:?SMOLLM2_GGUF must name SmolLM2-135M-Instruct.Q4_1.gguf}"
: "${BYTE_TOKENIZER:?BYTE_TOKENIZER must name trainer/assets/byte-tokenizer}"
if [ -f "$agents/.complete" ]; then
    echo "agents already in $agents"
    exit 0
fi
tok="$agents/smollm2-tokenizer"
if [ ! -f "$tok/tokenizer.json" ]; then
    "$TRAINER" import-gguf --gguf "$SMOLLM2_GGUF" --out "$agents/smollm2-135m"
    mkdir -p "$tok" && cp "$agents/smollm2-135m"/tokenizer*.json "$tok/"
fi
"$TRAINER" init-model --config "$here/llama.json" --tokenizer "$tok" --out "$agents/tiny-llama" --seed 1
"$TRAINER" init-model --config "$here/qwen3.json" --tokenizer "$BYTE_TOKENIZER" --out "$agents/tiny-qwen3-bytes" --seed 2
# Written last: a run interrupted before this point starts over next time.
touch "$agents/.complete"
echo "agents in $agents"
