#!/usr/bin/env bash
# Optional: Ruby, as ruby.wasm's prebuilt CRuby for WASI (its standard library packed inside
# the module by wasi-vfs), into ${HACRL_CACHE:-$HOME/.cache/hacrl}/interpreters/ruby.wasm where
# the sandbox loads it (sandbox/src/interpreters/ruby.rs). Nothing is compiled here, so unlike
# 22-interpreters.sh this needs no clang. Pinned and checksummed from the npm registry:
#   - Ruby 3.4.1: npm @ruby/3.4-wasm-wasi 2.10.1, dist/ruby+stdlib.wasm (Ruby's licence,
#     BSD-2-Clause; the package's own files MIT)
# A download or check that fails leaves Ruby `unsupported_language`; this step never fails the
# set-up. Reinstalled when the pins or this script change (a stamp next to the module).
set -uo pipefail

CACHE="${HACRL_CACHE:-$HOME/.cache/hacrl}"
DEST="$CACHE/interpreters"
DOWNLOADS="$CACHE/interpreter-sources"

NPM_PACKAGE=3.4-wasm-wasi NPM_VERSION=2.10.1 RUBY_VERSION=3.4.1
NPM_SHA256=2e709bd9eddefe1c5d63e9fc0391a35cce4754e936d8a2f24b8582f6d5c2ea88
# The module inside the tarball, checked too: the sandbox drives its exports directly.
WASM_SHA256=4b814fc9d13505ea5b4c1f3bd3a7cc7ccca137f551196b9b21f0a7caf9cc5878

. "$(dirname "${BASH_SOURCE[0]}")/../lib/pinned.sh"
log() { echo "23-ruby: $*"; }
sha256_of() { sha256sum "$1" | cut -d' ' -f1; }
stamp() { sha256_of "${BASH_SOURCE[0]}"; }

install_ruby() {
  local file="ruby-$NPM_PACKAGE-$NPM_VERSION.tgz"
  pinned_fetch "https://registry.npmjs.org/@ruby/$NPM_PACKAGE/-/$NPM_PACKAGE-$NPM_VERSION.tgz" \
    "$file" "$NPM_SHA256" "$DOWNLOADS" || return 1
  local work; work="$(mktemp -d)"; trap 'rm -rf "$work"' RETURN
  tar xzf "$DOWNLOADS/$file" -C "$work" package/dist/ruby+stdlib.wasm || return 1
  local wasm="$work/package/dist/ruby+stdlib.wasm"
  pinned_check "$wasm" "$WASM_SHA256" || return 1
  mkdir -p "$DEST"
  mv "$wasm" "$DEST/ruby.wasm"
  echo "$RUBY_VERSION" > "$DEST/ruby.version"
  stamp > "$DEST/ruby.stamp"
  log "ruby $RUBY_VERSION installed ($(du -h "$DEST/ruby.wasm" | cut -f1))"
}

if [[ -f "$DEST/ruby.wasm" && -f "$DEST/ruby.stamp" && "$(cat "$DEST/ruby.stamp")" == "$(stamp)" ]]; then
  log "ruby up to date"
  exit 0
fi
if ! install_ruby; then
  rm -f "$DEST/ruby.wasm" "$DEST/ruby.version" "$DEST/ruby.stamp"
  log "installing ruby failed; it stays unsupported" >&2
fi
exit 0
