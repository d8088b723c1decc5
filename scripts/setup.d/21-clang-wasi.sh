#!/usr/bin/env bash
# Optional: clang's wasm32-wasi toolchain from Debian, so the sandbox can run C and C++, and
# bubblewrap, which confines the compiler (sandbox/src/confine). Without them the sandbox answers
# `unsupported_language` for C/C++ (it never compiles unconfined); so this never fails the set-up.
set -euo pipefail

PKGS=(clang-19 lld-19 wasi-libc libclang-rt-19-dev-wasm32 libc++-19-dev-wasm32 libc++abi-19-dev-wasm32 bubblewrap)

if command -v clang-19 >/dev/null 2>&1 && command -v bwrap >/dev/null 2>&1 && [[ -f /usr/lib/wasm32-wasi/libc.a ]] \
  && dpkg -s "${PKGS[@]}" >/dev/null 2>&1; then
  echo "21-clang-wasi: toolchain present"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "21-clang-wasi: no apt-get here; C/C++ in the sandbox stay unsupported" >&2
  exit 0
fi
SUDO=""
if [[ "$(id -u)" != 0 ]]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO="sudo -n"
  else
    echo "21-clang-wasi: not root and no passwordless sudo; C/C++ in the sandbox stay unsupported" >&2
    exit 0
  fi
fi
echo "21-clang-wasi: installing ${PKGS[*]}"
if ! { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${PKGS[@]}"; }; then
  echo "21-clang-wasi: apt-get failed; C/C++ in the sandbox stay unsupported" >&2
  exit 0
fi
echo "21-clang-wasi: installed"
