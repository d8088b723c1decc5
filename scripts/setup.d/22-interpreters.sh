#!/usr/bin/env bash
# Optional: Lua, SQLite's shell and QuickJS-ng built once with clang's wasm32-wasi toolchain
# (21-clang-wasi.sh) into ${HACRL_CACHE:-$HOME/.cache/hacrl}/interpreters, where the sandbox
# loads them (sandbox/src/interpreters.rs). Their C sources come pinned and checksummed from the
# registries:
#   - Lua 5.4.8:       crates.io lua-src 548.1.2 (MIT; the copy mlua builds, patched for WASI)
#   - QuickJS-ng:      crates.io rquickjs-sys 0.10.0 (MIT; bundles quickjs-ng 0.10.1)
#   - SQLite 3.52.0:   npm sqlite3 6.0.1 (its deps/ carry SQLite's own autoconf amalgamation:
#                      sqlite3.c and the shell, shell.c; public domain)
# plus the entry points and shims in sandbox/interpreters. QuickJS is linked twice: js.wasm for
# JavaScript and ts.wasm, the same with js_main.c's HACRL_TYPESCRIPT entry, which takes its type
# stripper from the host (24-typescript.sh installs it). A language whose build fails stays
# `unsupported_language`, so this step never fails the set-up. Rebuilt when the pins, those
# files, this script or the compiler change (a stamp next to each module).
set -euo pipefail

CACHE="${HACRL_CACHE:-$HOME/.cache/hacrl}"
DEST="$CACHE/interpreters"
DOWNLOADS="$CACHE/interpreter-sources"
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$REPO/sandbox/interpreters"
CC="${CLANG:-clang-19}"
SYSROOT=/usr/lib/wasm32-wasi

LUA_CRATE=lua-src LUA_CRATE_VERSION=548.1.2 LUA_DIR=lua-5.4.8 LUA_VERSION=5.4.8
LUA_SHA256=bdc4e1aff422ad5f08cffb4719603dcdbc2be2307f4c1510d7aab74b7fa88ca8
QJS_CRATE=rquickjs-sys QJS_CRATE_VERSION=0.10.0 QJS_VERSION=0.10.1
QJS_SHA256=57b1b6528590d4d65dc86b5159eae2d0219709546644c66408b2441696d1d725
SQLITE_NPM_VERSION=6.0.1 SQLITE_AUTOCONF=sqlite-autoconf-3520000 SQLITE_VERSION=3.52.0
SQLITE_NPM_SHA256=ab8d044a93e05bd031d7ea75547c7fa60387cdc259d27f93c0e3e2832c4b1df9
SQLITE_AUTOCONF_SHA256=f6b50b0c103392af32a8be15b2b9d25959de9a00a70c3979128aafeaa5338b3f

# Flags every interpreter is built with: optimised, signals emulated (the interpreters install
# no handler that could fire in wasm), nothing that needs threads.
CFLAGS=(--target=wasm32-wasi -O2 -D_WASI_EMULATED_SIGNAL -D_WASI_EMULATED_PROCESS_CLOCKS -D_WASI_EMULATED_GETPID -Wno-return-type)
LIBS=(-lwasi-emulated-signal -lwasi-emulated-process-clocks -lwasi-emulated-getpid)

. "$(dirname "${BASH_SOURCE[0]}")/../lib/pinned.sh"
log() { echo "22-interpreters: $*"; }
sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

# Our files each module is built from, in sandbox/interpreters. stamp reads them through ${!own},
# which ShellCheck does not follow.
# shellcheck disable=SC2034
{
  OWN_lua=(lua_main.c shim/hacrl_lua_throw.h shim/setjmp.h)
  OWN_sqlite3=(shim/hacrl_sqlite_shell.h)
  OWN_js=(js_main.c prelude.js)
  OWN_ts=("${OWN_js[@]}")
}

# stamp NAME: what the module NAME.wasm was built from.
stamp() {
  local own="OWN_$1[@]"
  { echo "$1"; "$CC" --version | head -1; sha256_of "${BASH_SOURCE[0]}"
    (cd "$HERE" && sha256sum "${!own}"); } | sha256sum | cut -d' ' -f1
}

# install NAME WASM VERSION: moves a built module into place with its version and stamp.
install_module() {
  mv "$2" "$DEST/$1.wasm"
  echo "$3" > "$DEST/$1.version"
  stamp "$1" > "$DEST/$1.stamp"
  log "$1 $3 built ($(du -h "$DEST/$1.wasm" | cut -f1))"
}

build_lua() {
  pinned_fetch "https://static.crates.io/crates/$LUA_CRATE/$LUA_CRATE-$LUA_CRATE_VERSION.crate" "$LUA_CRATE-$LUA_CRATE_VERSION.crate" "$LUA_SHA256" "$DOWNLOADS"
  local work; work="$(mktemp -d)"; trap 'rm -rf "$work"' RETURN
  tar xzf "$DOWNLOADS/$LUA_CRATE-$LUA_CRATE_VERSION.crate" -C "$work" "$LUA_CRATE-$LUA_CRATE_VERSION/$LUA_DIR"
  local src="$work/$LUA_CRATE-$LUA_CRATE_VERSION/$LUA_DIR"
  for f in "$src"/*.c; do
    # shim/: an empty setjmp.h and the protected-call hooks that replace setjmp/longjmp.
    "$CC" "${CFLAGS[@]}" -I"$HERE/shim" -include hacrl_lua_throw.h -c "$f" -o "$work/$(basename "$f" .c).o"
  done
  "$CC" "${CFLAGS[@]}" -I"$src" -c "$HERE/lua_main.c" -o "$work/lua_main.o"
  # The table and stack pointer are exported for the host's protected calls.
  "$CC" "${CFLAGS[@]}" -o "$work/lua.wasm" "$work"/*.o "${LIBS[@]}" \
    -Wl,--export-table -Wl,--export=__stack_pointer -Wl,-z,stack-size=$((1 << 20))
  install_module lua "$work/lua.wasm" "$LUA_VERSION"
}

build_sqlite() {
  pinned_fetch "https://registry.npmjs.org/sqlite3/-/sqlite3-$SQLITE_NPM_VERSION.tgz" "sqlite3-$SQLITE_NPM_VERSION.tgz" "$SQLITE_NPM_SHA256" "$DOWNLOADS"
  local work; work="$(mktemp -d)"; trap 'rm -rf "$work"' RETURN
  tar xzf "$DOWNLOADS/sqlite3-$SQLITE_NPM_VERSION.tgz" -C "$work" "package/deps/$SQLITE_AUTOCONF.tar.gz"
  local inner="$work/package/deps/$SQLITE_AUTOCONF.tar.gz"
  pinned_check "$inner" "$SQLITE_AUTOCONF_SHA256"
  tar xzf "$inner" -C "$work" "$SQLITE_AUTOCONF/sqlite3.c" "$SQLITE_AUTOCONF/sqlite3.h" "$SQLITE_AUTOCONF/shell.c"
  local src="$work/$SQLITE_AUTOCONF"
  # One connection, one thread, no extensions, no write-ahead log (no shared memory in WASI),
  # no pipes to other programs.
  local defs=(-DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION -DSQLITE_OMIT_WAL -DSQLITE_OMIT_POPEN -DSQLITE_OMIT_SHARED_CACHE)
  "$CC" "${CFLAGS[@]}" "${defs[@]}" -c "$src/sqlite3.c" -o "$work/sqlite3.o"
  "$CC" "${CFLAGS[@]}" "${defs[@]}" -I"$src" -include "$HERE/shim/hacrl_sqlite_shell.h" -c "$src/shell.c" -o "$work/shell.o"
  "$CC" "${CFLAGS[@]}" -o "$work/sqlite3.wasm" "$work/shell.o" "$work/sqlite3.o" "${LIBS[@]}" -Wl,-z,stack-size=$((1 << 20))
  install_module sqlite3 "$work/sqlite3.wasm" "$SQLITE_VERSION"
}

build_js() {
  pinned_fetch "https://static.crates.io/crates/$QJS_CRATE/$QJS_CRATE-$QJS_CRATE_VERSION.crate" "$QJS_CRATE-$QJS_CRATE_VERSION.crate" "$QJS_SHA256" "$DOWNLOADS"
  local work; work="$(mktemp -d)"; trap 'rm -rf "$work"' RETURN
  tar xzf "$DOWNLOADS/$QJS_CRATE-$QJS_CRATE_VERSION.crate" -C "$work" "$QJS_CRATE-$QJS_CRATE_VERSION/quickjs"
  local src="$work/$QJS_CRATE-$QJS_CRATE_VERSION/quickjs"
  # QuickJS-ng turns its stack limit off on WASI; keep it, so deep recursion is a RangeError
  # (js_main.c sets the limit inside the shadow stack) instead of a trap or, for frames with
  # many locals, a shadow stack overrunning the heap below it.
  sed -i '/^static void update_stack_limit/,/^}/ s|^#if defined(__wasi__)$|#if 0 /* hacrl: limit kept */|' "$src/quickjs.c"
  grep -q 'hacrl: limit kept' "$src/quickjs.c"
  { echo 'static const unsigned char prelude_js[] = {'
    od -An -v -tx1 "$HERE/prelude.js" | sed 's/ *\([0-9a-f][0-9a-f]\)/0x\1,/g'
    echo '};'
    echo 'static const unsigned int prelude_js_len = sizeof prelude_js;'; } > "$work/prelude.h"
  for f in quickjs libregexp libunicode cutils dtoa quickjs-libc; do
    "$CC" "${CFLAGS[@]}" -D_GNU_SOURCE -c "$src/$f.c" -o "$work/$f.o"
  done
  mkdir "$work/js" "$work/ts"
  "$CC" "${CFLAGS[@]}" -I"$src" -I"$work" -c "$HERE/js_main.c" -o "$work/js/main.o"
  "$CC" "${CFLAGS[@]}" -DHACRL_TYPESCRIPT -I"$src" -I"$work" -c "$HERE/js_main.c" -o "$work/ts/main.o"
  for name in js ts; do
    # 8 MiB of shadow stack: js_main.c lets QuickJS use 6 of them before a RangeError.
    "$CC" "${CFLAGS[@]}" -o "$work/$name.wasm" "$work"/*.o "$work/$name/main.o" "${LIBS[@]}" \
      -Wl,-z,stack-size=$((8 << 20))
    install_module "$name" "$work/$name.wasm" "$QJS_VERSION"
  done
}

# A child invocation builds one interpreter, so `set -e` holds inside it.
if [[ "${1:-}" == --build ]]; then
  "build_$2"
  exit 0
fi

if ! command -v "$CC" >/dev/null 2>&1 || [[ ! -f "$SYSROOT/libc.a" || ! -f "$SYSROOT/libwasi-emulated-signal.a" ]]; then
  log "no clang wasm32-wasi toolchain (21-clang-wasi.sh); Lua, SQL and JavaScript stay unsupported" >&2
  exit 0
fi
mkdir -p "$DEST"
# current NAME: whether NAME.wasm is installed and built from what is here now.
current() { [[ -f "$DEST/$1.wasm" && -f "$DEST/$1.stamp" && "$(cat "$DEST/$1.stamp")" == "$(stamp "$1")" ]]; }

for name in lua sqlite3 js; do
  # One build makes both QuickJS modules.
  modules=("$name"); [[ "$name" == js ]] && modules+=(ts)
  if current "$name" && { [[ "$name" != js ]] || current ts; }; then
    log "$name up to date"
    continue
  fi
  log "building $name"
  if ! bash "${BASH_SOURCE[0]}" --build "${name%3}"; then
    for m in "${modules[@]}"; do rm -f "$DEST/$m.wasm" "$DEST/$m.version" "$DEST/$m.stamp"; done
    log "building $name failed; it stays unsupported" >&2
  fi
done
