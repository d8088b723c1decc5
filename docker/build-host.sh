#!/usr/bin/env bash
# Builds compose.yaml's images under podman through their Dockerfiles' host path (BUILD=host):
# no Rust compiles in a container. The binaries are this checkout's (target/debug: what
# `cargo test --workspace` or `cargo build --workspace` makes; Debian bookworm like the images),
# and what the builder stages would fetch comes from the host's setup, which ran the same
# scripts/setup.d steps: the sandbox's runtimes, the torch venv the trainer was linked against,
# SmolLM2's GGUF. They are hard-linked into target/compose-host/IMAGE, the build context `host`.
#   docker/build-host.sh [verifier] [trainer]      (both when none is named)
# HACRL_BIN_DIR: where the binaries are (default target/debug); HACRL_VERSION: the tag (latest).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/podman-env
cache="${HACRL_CACHE:-$HOME/.cache/hacrl}"
bin="${HACRL_BIN_DIR:-target/debug}"
tag="${HACRL_VERSION:-latest}"

die() { echo "build-host: $*" >&2; exit 1; }
# Hard links where source and stage share a file system, copies where not.
link() { cp -al "$@" 2>/dev/null || cp -a "$@"; }

# stage IMAGE: a fresh, empty context folder for IMAGE, printed.
stage() {
    local dir="target/compose-host/$1"
    [[ -x "$bin/$1" ]] || die "no $bin/$1: cargo build --workspace --locked"
    rm -rf "$dir" && mkdir -p "$dir" && link "$bin/$1" "$dir/"
    echo "$dir"
}

build() {
    podman build --build-arg BUILD=host --build-context "host=$2" \
        -f "docker/$1.Dockerfile" -t "hacrl/$1:$tag" .
}

verifier() {
    local dir go rust wasm stem newest
    dir=$(stage verifier)
    # The versions the sandbox looks for (sandbox/src/golang.rs, rust.rs), as the steps pin them.
    go=$(sed -n 's/^GO_VERSION=//p' scripts/setup.d/25-go.sh)
    rust=$(sed -n 's/^RUST_VERSION=//p' scripts/setup.d/27-rust.sh)
    for d in python-wasm scientific-python interpreters "go/wasip1-$go" "rust/wasi-$rust"; do
        [[ -d "$cache/$d" ]] || die "no $cache/$d: scripts/setup"
        mkdir -p "$dir/cache/$(dirname "$d")" && link "$cache/$d" "$dir/cache/$d"
    done
    # C++ exceptions' libraries (step 21), where the host's set-up could build them; without
    # them the image's C++ has no exceptions, as the host's has not.
    [[ ! -d "$cache/clang-wasi/exceptions" ]] \
        || { mkdir -p "$dir/cache/clang-wasi" && link "$cache/clang-wasi/exceptions" "$dir/cache/clang-wasi/exceptions"; }
    # What the host's verifier precompiled from those runtimes (the image's warm-up takes minutes
    # without): per runtime the newest module, named by its engine's settings and its bytes, so
    # the warm-up either loads it or, where it is another engine's, compiles its own.
    mkdir "$dir/cache/wasmtime-precompiled"
    for wasm in "$dir"/cache/{python-wasm,scientific-python,interpreters}/*.wasm; do
        stem=$(basename "$wasm" .wasm)
        newest=$(ls -t "$cache"/wasmtime-precompiled/*.cwasm 2>/dev/null \
            | grep -E "/$stem-[0-9a-f]{32}\.cwasm$" || true)
        [[ -z "$newest" ]] || link "${newest%%$'\n'*}" "$dir/cache/wasmtime-precompiled/"
    done
    build verifier "$dir"
}

trainer() {
    local dir lib site gguf="$cache/smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
    dir=$(stage trainer)
    # The binary's rpath names the libtorch it was linked against: .../site-packages/torch/lib.
    lib=$(readelf -d "$bin/trainer" | sed -n 's/.*R[UN]*PATH.*\[\(.*\)\]/\1/p' | tr : '\n' \
        | grep '/torch/lib$' || true)
    [[ -n "$lib" ]] || die "$bin/trainer names no torch/lib in its rpath"
    site=${lib%%$'\n'*} && site=${site%/torch/lib}
    [[ -f "$gguf" ]] || die "no $gguf: scripts/setup"
    mkdir "$dir/torch-libs" && link "$site/torch" "$site/nvidia" "$dir/torch-libs/"
    link "$gguf" "$dir/"
    build trainer "$dir"
}

scripts/base-images >&2
(($#)) || set -- verifier trainer
for image in "$@"; do
    case "$image" in
        verifier | trainer) "$image" ;;
        *) die "no image $image (verifier, trainer)" ;;
    esac
done
