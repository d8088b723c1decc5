#!/usr/bin/env bash
# Optional: TypeScript's type stripper, sucrase bundled into one script,
# ${HACRL_CACHE:-$HOME/.cache/hacrl}/interpreters/typescript-strip.js, which the sandbox hands to
# ts.wasm (QuickJS, built by 22-interpreters.sh) to run inside the wasm guest before each
# program (sandbox/src/interpreters/typescript.rs). Pinned and checksummed from the npm registry:
#   - sucrase 3.35.1 (MIT) and what its transform requires: @jridgewell/gen-mapping 0.3.13,
#     @jridgewell/trace-mapping 0.3.31, @jridgewell/sourcemap-codec 1.5.5,
#     @jridgewell/resolve-uri 3.1.2, lines-and-columns 1.2.4 (MIT), ts-interface-checker 0.1.13
#     (Apache-2.0); its command-line dependencies are left out;
#   - esbuild 0.25.12 (@esbuild/linux-x64, MIT), which bundles them; it runs here only.
# The bundle is checked against a pinned checksum too, so every machine runs the same stripper.
# A download or check that fails leaves TypeScript `unsupported_language`; this step never fails
# the set-up. Rebuilt when the pins or this script change (a stamp next to the bundle).
set -uo pipefail

CACHE="${HACRL_CACHE:-$HOME/.cache/hacrl}"
DEST="$CACHE/interpreters"
DOWNLOADS="$CACHE/interpreter-sources"

SUCRASE_VERSION=3.35.1
# npm package, version, sha256 of its tarball.
PACKAGES=(
  "sucrase $SUCRASE_VERSION fa555afbe97fb4f4866084a8838cb66ff520aa1adcd211269b2708afda4bc9bf"
  "@jridgewell/gen-mapping 0.3.13 bc16f658c1f6d63e0c8738ab881d03f49f1955d8f853cdcb8f7d315cf62f0082"
  "@jridgewell/trace-mapping 0.3.31 c64c71a119630d5abe8246889edf334b2ca9ddad094e20d623332956b1453ccf"
  "@jridgewell/sourcemap-codec 1.5.5 47ad3b0d20a2e5e31ed65049829440fb1e3d4ac554d93f8040562c1821816585"
  "@jridgewell/resolve-uri 3.1.2 db52f9f62558baab13353dd39e3200750fc33e6a129a575b46226f493776e230"
  "lines-and-columns 1.2.4 471f92d12385192f3c12006295a25cef335a711b071f9a146047ffac53a29a9c"
  "ts-interface-checker 0.1.13 98f799dc404eedd94c52b1e0f18699dc0e34c5d599e40cb8ea5abc0e102dcafd"
)
ESBUILD="@esbuild/linux-x64 0.25.12 f7efc127658a108dcda9d4210b01804ee8f5d6b3acbd6d63f20aa51d3b50bd5f"
BUNDLE_SHA256=4ac34b1bc9e83c3357eee4deb4a5ccb654926eec27db14783fd96e9ea0e67a0a

. "$(dirname "${BASH_SOURCE[0]}")/../lib/pinned.sh"
log() { echo "24-typescript: $*"; }
sha256_of() { sha256sum "$1" | cut -d' ' -f1; }
stamp() { sha256_of "${BASH_SOURCE[0]}"; }

# unpack "NAME VERSION SHA256" DIR: the npm package, downloaded once and checked, in DIR.
unpack() {
  local name version want
  read -r name version want <<<"$1"
  local file="npm-${name//\//-}-$version.tgz"
  pinned_fetch "https://registry.npmjs.org/$name/-/${name##*/}-$version.tgz" "$file" "$want" \
    "$DOWNLOADS" || return 1
  mkdir -p "$2" && tar xzf "$DOWNLOADS/$file" -C "$2" --strip-components=1
}

install_stripper() {
  if [[ "$(uname -m)" != x86_64 ]]; then
    log "esbuild is pinned for x86_64 only, not $(uname -m)" >&2
    return 1
  fi
  local work; work="$(mktemp -d)"; trap 'rm -rf "$work"' RETURN
  local p
  for p in "${PACKAGES[@]}"; do
    unpack "$p" "$work/node_modules/${p%% *}" || return 1
  done
  unpack "$ESBUILD" "$work/esbuild" || return 1
  # One script whose value is sucrase's exports (`var sucrase`), for any JavaScript engine;
  # minified, as QuickJS parses it on every run.
  "$work/esbuild/bin/esbuild" "$work/node_modules/sucrase/dist/index.js" --bundle --minify \
    --format=iife --global-name=sucrase --platform=neutral --main-fields=main --target=es2020 \
    --log-level=warning --outfile="$work/typescript-strip.js" || return 1
  local got; got="$(sha256_of "$work/typescript-strip.js")"
  if [[ "$got" != "$BUNDLE_SHA256" ]]; then
    log "the bundle is not the pinned one: $got, pinned $BUNDLE_SHA256" >&2
    return 1
  fi
  mkdir -p "$DEST"
  mv "$work/typescript-strip.js" "$DEST/typescript-strip.js"
  echo "$SUCRASE_VERSION" > "$DEST/typescript-strip.version"
  stamp > "$DEST/typescript-strip.stamp"
  log "sucrase $SUCRASE_VERSION bundled ($(du -h "$DEST/typescript-strip.js" | cut -f1))"
}

if [[ -f "$DEST/typescript-strip.js" && -f "$DEST/typescript-strip.stamp" \
  && "$(cat "$DEST/typescript-strip.stamp")" == "$(stamp)" ]]; then
  log "typescript-strip up to date"
  exit 0
fi
if ! install_stripper; then
  rm -f "$DEST/typescript-strip.js" "$DEST/typescript-strip.version" "$DEST/typescript-strip.stamp"
  log "installing the TypeScript stripper failed; TypeScript stays unsupported" >&2
fi
exit 0
