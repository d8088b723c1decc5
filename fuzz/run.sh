#!/usr/bin/env bash
# Runs the math checker fuzz target for SECONDS (default 600) with a seed corpus built from both
# labelled case files. Needs cargo-fuzz (`cargo install cargo-fuzz`); uses RUSTC_BOOTSTRAP=1
# because cargo-fuzz passes nightly-only flags and only stable Rust is installed here.
set -euo pipefail
cd "$(dirname "$0")"
SECONDS_TO_RUN="${1:-600}"
mkdir -p corpus/math_verify
python3 - <<'PY'
import json, hashlib, pathlib
out = pathlib.Path("corpus/math_verify")
for path in ["math_cases.jsonl", "math_hard_cases.jsonl"]:
    for line in open("../verifier/tests/data/" + path):
        c = json.loads(line)
        data = (c["reference"] + "\0" + c["response"]).encode()
        (out / hashlib.sha1(data).hexdigest()).write_bytes(data)
PY
RUSTC_BOOTSTRAP=1 cargo fuzz run math_verify -s none corpus/math_verify -- \
  -dict=math.dict -max_len=1024 -max_total_time="$SECONDS_TO_RUN" -rss_limit_mb=2048 -timeout=5
