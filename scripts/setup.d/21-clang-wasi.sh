#!/usr/bin/env bash
# Optional: clang's wasm32-wasi toolchain from Debian, so the sandbox can run C and C++, and
# bubblewrap, which confines the compiler (sandbox/src/confine). Without them the sandbox answers
# `unsupported_language` for C/C++ (it never compiles unconfined); so this never fails the set-up.
#
# Then C++ exceptions: Debian's wasm32 libc++ and libc++abi are built without them, so this
# builds libc++, libc++abi and libunwind with wasm exception handling into
# ${HACRL_CACHE:-$HOME/.cache/hacrl}/clang-wasi/exceptions (lib/ and a stamp), about 35 s on two
# cores. The sources are LLVM 19's, as Debian's clang-19 and its libc++ headers are: the ones
# PyPI's ziglang 0.14.1 wheel ships (Zig 0.14 is built on LLVM 19; the Apache-2.0 WITH
# LLVM-exception sources are unchanged), pinned and checksummed. Without this build the sandbox
# compiles C++ with -fno-exceptions as before (sandbox/src/toolchain/clang.rs).
set -uo pipefail

PKGS=(clang-19 lld-19 wasi-libc libclang-rt-19-dev-wasm32 libc++-19-dev-wasm32 libc++abi-19-dev-wasm32 bubblewrap)
CACHE="${HACRL_CACHE:-$HOME/.cache/hacrl}"
EXCEPTIONS="$CACHE/clang-wasi/exceptions"
DOWNLOADS="$CACHE/clang-wasi/downloads"
ZIG_VERSION=0.14.1
WHEEL=ziglang-$ZIG_VERSION-py3-none-manylinux_2_12_x86_64.manylinux2010_x86_64.musllinux_1_1_x86_64.whl
WHEEL_SHA256=6eb9d4d759b292c83810dbee2e9e8e3fbfbf01d864e6e9811bae711fd74e1c2f

log() { echo "21-clang-wasi: $*"; }

install_toolchain() {
  if command -v clang-19 >/dev/null 2>&1 && command -v bwrap >/dev/null 2>&1 && [[ -f /usr/lib/wasm32-wasi/libc.a ]] \
    && dpkg -s "${PKGS[@]}" >/dev/null 2>&1; then
    log "toolchain present"
    return 0
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    log "no apt-get here; C/C++ in the sandbox stay unsupported" >&2
    return 1
  fi
  local sudo=""
  if [[ "$(id -u)" != 0 ]]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      sudo="sudo -n"
    else
      log "not root and no passwordless sudo; C/C++ in the sandbox stay unsupported" >&2
      return 1
    fi
  fi
  log "installing ${PKGS[*]}"
  if ! { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${PKGS[@]}"; }; then
    log "apt-get failed; C/C++ in the sandbox stay unsupported" >&2
    return 1
  fi
  log "installed"
}

# The build's identity: this script holds the pin and every flag.
stamp() { sha256sum "${BASH_SOURCE[0]}" | cut -d' ' -f1; }

# build_one KIND NAME: compiles one source of the wheel's LLVM tree ($src) into $obj for
# wasm32-wasi with wasm exception handling. __WASM_EXCEPTIONS__ selects libunwind's and
# libc++abi's wasm code (emscripten's driver defines it; plain clang does not).
# shellcheck disable=SC2329 # run by xargs, through bash -c
build_one() {
  local cc=(clang-19 --target=wasm32-wasi --sysroot=/usr -O2 -DNDEBUG -fwasm-exceptions
    -D__WASM_EXCEPTIONS__ -fvisibility=hidden)
  case "$1" in
    unwind) "${cc[@]}" -std=c11 "-I$src/libunwind/include" -D_LIBUNWIND_IS_NATIVE_ONLY \
      -D_LIBUNWIND_HIDE_SYMBOLS -c "$src/libunwind/src/$2.c" -o "$obj/unwind/$2.o" ;;
    abi) "${cc[@]}" -std=c++20 "-I$src/libcxx/src" "-I$src/libcxxabi/include" "-I$src/libunwind/include" \
      -D_LIBCXXABI_BUILDING_LIBRARY -D_LIBCPP_BUILDING_LIBRARY -D_LIBCXXABI_HAS_NO_THREADS \
      -c "$src/libcxxabi/src/$2.cpp" -o "$obj/abi/$2.cpp.o" ;;
    cxx) "${cc[@]}" -std=c++23 -fvisibility-inlines-hidden "-I$src/libcxx/src" "-I$src/libcxxabi/include" \
      -D_LIBCPP_BUILDING_LIBRARY -DLIBCXX_BUILDING_LIBCXXABI -Wno-user-defined-literals \
      -c "$src/libcxx/src/$2.cpp" -o "$obj/cxx/$(basename "$2").cpp.o" ;;
  esac
}

build_exceptions() {
  if ! python3 -m pip --version >/dev/null 2>&1; then
    log "no python3 with pip for the pinned download; C++ stays without exceptions" >&2
    return 1
  fi
  . "$(dirname "${BASH_SOURCE[0]}")/../lib/pinned.sh" || return 1
  mkdir -p "$CACHE/clang-wasi" || return 1
  wheel_fetch "ziglang==$ZIG_VERSION" "$WHEEL" "$WHEEL_SHA256" "$DOWNLOADS" \
    --platform manylinux_2_12_x86_64 || return 1
  local work; work="$(mktemp -d "$CACHE/clang-wasi/.build-XXXXXX")" || return 1
  # shellcheck disable=SC2064 # expand now: $work is local
  trap "rm -rf '$work'" RETURN
  python3 -m zipfile -e "$DOWNLOADS/$WHEEL" "$work/wheel" >/dev/null || return 1
  src="$work/wheel/ziglang/lib" obj="$work/obj"
  local out="$work/out"
  mkdir -p "$obj/unwind" "$obj/abi" "$obj/cxx" "$out/lib"
  local abi=(abort_message cxa_aux_runtime cxa_default_handlers cxa_demangle cxa_exception
    cxa_exception_storage cxa_guard cxa_handlers cxa_personality cxa_vector cxa_virtual
    fallback_malloc private_typeinfo stdlib_exception stdlib_stdexcept stdlib_typeinfo
    stdlib_new_delete)
  # Every member of Debian's wasm32 libc++.a, rebuilt: a library function that throws
  # (std::stoi, std::string::at, locale, regex, ...) has to be compiled with exceptions.
  local cxx=(algorithm any bind call_once charconv chrono error_category exception expected
    filesystem/filesystem_clock filesystem/filesystem_error filesystem/path functional hash
    legacy_pointer_safety memory memory_resource new_handler new_helpers optional print
    random_shuffle ryu/d2fixed ryu/d2s ryu/f2s stdexcept string system_error typeinfo valarray
    variant vector verbose_abort random fstream ios ios.instantiations iostream locale ostream
    regex strstream)
  export src obj
  export -f build_one
  # shellcheck disable=SC2016 # expanded by the bash that xargs starts
  printf '%s\n' "unwind Unwind-wasm" "${abi[@]/#/abi }" "${cxx[@]/#/cxx }" \
    | xargs -P "$(nproc)" -n 2 bash -c 'build_one "$1" "$2"' _ || return 1
  # As Debian's, libc++.a holds libc++abi's members too.
  ar rcs "$out/lib/libunwind.a" "$obj"/unwind/*.o \
    && ar rcs "$out/lib/libc++abi.a" "$obj"/abi/*.o \
    && ar rcs "$out/lib/libc++.a" "$obj"/cxx/*.o "$obj"/abi/*.o || return 1
  stamp > "$out/stamp"
  chmod -R go+rX "$out"
  rm -rf "$EXCEPTIONS" && mv "$out" "$EXCEPTIONS" || return 1
  log "libc++, libc++abi and libunwind with wasm exceptions built ($(du -sh "$EXCEPTIONS" | cut -f1))"
}

install_toolchain || exit 0
if [[ -f "$EXCEPTIONS/stamp" && "$(cat "$EXCEPTIONS/stamp")" == "$(stamp)" ]]; then
  log "C++ exception libraries up to date"
  exit 0
fi
if ! build_exceptions; then
  rm -rf "$EXCEPTIONS"
  log "building the C++ exception libraries failed; C++ stays without exceptions" >&2
fi
exit 0
