#!/usr/bin/env bash
# Installs Math-Verify 0.9.0 (the reference math grader) into a venv under the HACRL cache.
# Used by verifier/benches/mathverify_compare.sh (benchmarks only, no test needs it); idempotent.
set -euo pipefail
CACHE="${HACRL_CACHE:-$HOME/.cache/hacrl}"
VENV="$CACHE/venv-math-verify"
if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c 'import math_verify, importlib.metadata as m; assert m.version("math-verify") == "0.9.0"' 2>/dev/null; then
  echo "math-verify 0.9.0 already in $VENV"
  exit 0
fi
mkdir -p "$CACHE"
python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet --upgrade pip
"$VENV/bin/pip" install --quiet "math-verify[antlr4_13_2]==0.9.0"
"$VENV/bin/python" -c 'import math_verify; print("math-verify installed in", __import__("sys").prefix)'
