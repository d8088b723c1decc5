#!/usr/bin/env bash
# Side-by-side benchmark of our math checker against Math-Verify 0.9.0 (installs it on demand
# into ${HACRL_CACHE:-$HOME/.cache/hacrl}/venv-math-verify). Run from anywhere; prints a
# Markdown table (throughput per core, ratio, agreement) and writes disagreements under target/.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash verifier/benches/mathverify_setup.sh
exec "${HACRL_CACHE:-$HOME/.cache/hacrl}/venv-math-verify/bin/python" \
  verifier/benches/mathverify_compare.py "$@"
