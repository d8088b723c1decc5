#!/usr/bin/env bash
# Optional: Rust for the sandbox (sandbox/src/rust.rs), into
# ${HACRL_CACHE:-$HOME/.cache/hacrl}/rust. Debian bookworm's rustc 1.63.0 with its wasm32-wasi
# standard library and LLVM 14's lld as the wasm linker: the newest rustc with a wasm32-wasi
# standard library on the registries this project reaches (crates.io carries no toolchain;
# rustup's servers are not a registry). Old (August 2022), and /v1/capabilities says so.
#
# The five packages are fetched as .deb files (apt-get download, else the Debian mirror's pool),
# pinned by sha256, and unpacked with dpkg-deb -x: nothing is installed system-wide. The sandbox
# folder rust/wasi-1.63.0/ is their /usr (plus VERSION, e.g. `rustc 1.63.0`): bin/rustc, lib/x86_64-linux-gnu/ (rustc's and LLVM's
# shared libraries; the sandbox sets LD_LIBRARY_PATH to it), lib/rustlib/wasm32-wasi/,
# lib/llvm-14/bin/lld (rust-lld). libLLVM's own dependencies (libz3, libxml2, libedit, libffi,
# ICU …) come from the host: Debian bookworm has them wherever libllvm14 was ever installed,
# and this step checks that they resolve.
# A download or check that fails leaves Rust `unsupported_language`; this step never fails the
# set-up. Reinstalled when the pins or this script change (a stamp in the sandbox folder).
set -uo pipefail

CACHE="${HACRL_CACHE:-$HOME/.cache/hacrl}"
RUST_VERSION=1.63.0
SANDBOX="$CACHE/rust/wasi-$RUST_VERSION"
DOWNLOADS="$CACHE/rust/downloads"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
# package version sha256 pool-path
PACKAGES=(
  "rustc 1.63.0+dfsg1-2 26dd439266153e38d3e6fbe0fe2dbbb41f20994afa688faa71f38427348589ed pool/main/r/rustc/rustc_1.63.0+dfsg1-2_amd64.deb"
  "libstd-rust-1.63 1.63.0+dfsg1-2 3970c02845cd407e2389623f138e2e96443702c46a789d394ec63b58a482448e pool/main/r/rustc/libstd-rust-1.63_1.63.0+dfsg1-2_amd64.deb"
  "libstd-rust-dev-wasm32 1.63.0+dfsg1-2 959a7c281b4a7af90e0ad67961aec82594d0eb09442c5e06d8478974d7287fd1 pool/main/r/rustc/libstd-rust-dev-wasm32_1.63.0+dfsg1-2_all.deb"
  "libllvm14 1:14.0.6-12 cd986403cfe53f47c41b80667f6b344c40fe35de4c5081dad9358b4c77cf64a8 pool/main/l/llvm-toolchain-14/libllvm14_14.0.6-12_amd64.deb"
  "lld-14 1:14.0.6-12 3b77ab0cc30bbba9e874ba57cabc090116ed52d5eebaa043cf1e1412c4523a99 pool/main/l/llvm-toolchain-14/lld-14_14.0.6-12_amd64.deb"
)

. "$(dirname "${BASH_SOURCE[0]}")/../lib/pinned.sh"
log() { echo "27-rust: $*"; }
sha256_of() { sha256sum "$1" | cut -d' ' -f1; }
stamp() { sha256_of "${BASH_SOURCE[0]}"; }

# deb_download NAME VERSION POOL: NAME.deb here, from apt's sources, else the Debian mirror's pool.
# pinned_make runs it, which ShellCheck does not see.
# shellcheck disable=SC2329
deb_download() {
  # apt's sandbox user must be able to write here.
  chmod 0777 .
  if apt-get download -q "$1=$2" >/dev/null 2>&1; then
    mv ./*.deb "$1.deb"
  else
    curl -fsSL --retry 3 -o "$1.deb" "$MIRROR/$3"
  fi
}

install_rust() {
  if [[ "$(uname -m)" != x86_64 ]]; then
    log "only the amd64 packages are pinned; Rust stays unsupported on $(uname -m)" >&2
    return 1
  fi
  mkdir -p "$DOWNLOADS"
  local line name version sha pool
  for line in "${PACKAGES[@]}"; do
    read -r name version sha pool <<< "$line"
    pinned_make "$name.deb" "$sha" "$DOWNLOADS" deb_download "$name" "$version" "$pool" \
      || { log "downloading $name failed" >&2; return 1; }
  done
  local work; work="$(mktemp -d "$CACHE/rust/.install-XXXXXX")"; trap 'rm -rf "$work"' RETURN
  for line in "${PACKAGES[@]}"; do
    read -r name _ <<< "$line"
    dpkg-deb -x "$DOWNLOADS/$name.deb" "$work" || return 1
  done
  local staged="$work/usr"
  # Not needed by a wasm32-wasi compile: the browser target's standard library, docs, man pages.
  rm -rf "$staged/lib/rustlib/wasm32-unknown-unknown" "$staged/share/doc" "$staged/share/man" \
    "$staged/share/lintian" "$staged/bin/rustdoc"
  local lib="$staged/lib/x86_64-linux-gnu"
  for exe in "$staged/bin/rustc" "$staged/lib/llvm-14/bin/lld"; do
    if LD_LIBRARY_PATH="$lib" ldd "$exe" | grep -q 'not found'; then
      log "$(basename "$exe") lacks host libraries (install Debian's libllvm14 once):" >&2
      LD_LIBRARY_PATH="$lib" ldd "$exe" | grep 'not found' >&2
      return 1
    fi
  done
  local got; got="$(LD_LIBRARY_PATH="$lib" "$staged/bin/rustc" --version)" || return 1
  [[ "$got" == "rustc $RUST_VERSION" ]] || { log "the packages hold $got" >&2; return 1; }
  [[ -x "$staged/bin/rust-lld" && -d "$staged/lib/rustlib/wasm32-wasi/lib" ]] || return 1
  echo "$got" > "$staged/VERSION"
  stamp > "$staged/stamp"
  chmod -R go+rX "$staged"
  rm -rf "$SANDBOX" && mv "$staged" "$SANDBOX" || return 1
  log "$got installed for wasm32-wasi: $(du -sh "$SANDBOX" | cut -f1)"
}

if [[ -f "$SANDBOX/stamp" && "$(cat "$SANDBOX/stamp")" == "$(stamp)" ]]; then
  log "rustc $RUST_VERSION up to date"
  exit 0
fi
mkdir -p "$CACHE/rust"
if ! install_rust; then
  rm -rf "$SANDBOX"
  log "installing Rust failed; it stays unsupported" >&2
fi
exit 0
