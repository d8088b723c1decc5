# syntax=docker/dockerfile:1
# The HACPO trainer (tch/libtorch) on a CUDA runtime base, with PyTorch 2.13's libraries.
# Build from the repository root: docker build -f docker/trainer.Dockerfile -t hacrl/trainer .
# Recipe (see the trainer README): tch 0.26 needs PyTorch 2.13.0, installed from PyPI into a venv at a
# fixed path and linked with VIRTUAL_ENV + LIBTORCH_USE_PYTORCH=1; the trainer's build.rs bakes
# the rpath to that path, so the runtime stage keeps the libraries at the same path.
# BUILD=host (docker/build-host.sh) skips every Rust stage: the binary, its libtorch and the GGUF
# come from the build context `host`, as the host built and fetched them; the tail is the same.

ARG RUST_IMAGE=rust:1.95-slim-bookworm
ARG CUDA_IMAGE=nvidia/cuda:13.0.0-runtime-ubuntu24.04
ARG TORCH_VERSION=2.13.0
# cpu: torch with only the two CUDA wheels libtorch_cpu needs (scripts/setup.d/30-torch.sh's set,
# ~1.2 GB); cuda: with every CUDA library (~5 GB), for GPUs (compose.gpu.yaml).
ARG TORCH_SET=cpu
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
ARG TORCH_VERSION
ARG TORCH_SET
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates g++ python3 python3-venv \
    && rm -rf /var/lib/apt/lists/*
# PyPI's torch is the CUDA build; its nvidia-* wheels carry the CUDA libraries, of which the cpu set
# takes only those libtorch_cpu links (pinned as in 30-torch.sh). /opt/torch/build.env holds the
# set's build settings (DESIGN.md's two recipes), for the cook and the build alike: the cuda set
# through Python (LIBTORCH_USE_PYTORCH=1), with HACRL_TORCH_CUDA=1, which makes trainer/build.rs
# link libtorch_cuda (--no-as-needed), without which the CUDA backend never registers; the cpu
# set, whose `import torch` lacks the other wheels, through LIBTORCH.
RUN python3 -m venv /opt/torch \
    && site=$(/opt/torch/bin/python -c 'import site; print(site.getsitepackages()[0])') \
    && if [ "$TORCH_SET" = cuda ]; then \
        /opt/torch/bin/pip install --no-cache-dir "torch==${TORCH_VERSION}" \
        && echo "export LIBTORCH_USE_PYTORCH=1 HACRL_TORCH_CUDA=1" >/opt/torch/build.env; \
    else \
        /opt/torch/bin/pip install --no-cache-dir --no-deps "torch==${TORCH_VERSION}" \
            nvidia-cuda-runtime==13.0.96 nvidia-cuda-cupti==13.0.85 \
        && echo "export LIBTORCH=$site/torch LIBTORCH_CXX11_ABI=1" >/opt/torch/build.env; \
    fi
ENV VIRTUAL_ENV=/opt/torch \
    PATH=/opt/torch/bin:$PATH
# Only the shared libraries are needed at run time, not the Python interpreter. This layer and
# the model's come before the sources: a source change then rebuilds neither (each copy of the
# libraries is up to ~5 GB of image store).
RUN mkdir -p /opt/torch-libs \
    && site=$(/opt/torch/bin/python -c 'import site; print(site.getsitepackages()[0])') \
    && cp -a "$site/torch" "$site/nvidia" /opt/torch-libs/ \
    && echo "$site" > /opt/torch-libs/SITE_PACKAGES
# The example agents' tokenizer comes from SmolLM2's GGUF: fetched and checksummed by the
# project's own setup step, so the compose stack creates the agents without a native build.
COPY scripts/lib/pinned.sh scripts/lib/zip-extract.py /tmp/hacrl/scripts/lib/
COPY scripts/setup.d/31-smollm2.sh /tmp/hacrl/scripts/setup.d/
RUN HACRL_CACHE=/opt/hacrl/cache bash /tmp/hacrl/scripts/setup.d/31-smollm2.sh && rm -rf /tmp/hacrl
# The patched dependencies (vendor/README.md) are not in the recipe (cargo-chef skeletons only
# workspace members), and the workspace's [patch] names them.
COPY vendor vendor
COPY --from=planner /src/recipe.json recipe.json
RUN . /opt/torch/build.env && cargo chef cook --release --locked -p trainer --recipe-path recipe.json
COPY . .
RUN . /opt/torch/build.env && cargo build --release --locked -p trainer --bin trainer

FROM ${CUDA_IMAGE} AS base
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates libgomp1 \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --user-group --create-home --home-dir /home/hacrl hacrl

FROM base AS from-source
# Same path as in the builder (the binary's rpath points there).
COPY --from=builder /opt/torch-libs /opt/torch-libs
RUN site=$(cat /opt/torch-libs/SITE_PACKAGES) \
    && mkdir -p "$site" \
    && ln -s /opt/torch-libs/torch "$site/torch" \
    && ln -s /opt/torch-libs/nvidia "$site/nvidia"
COPY --from=builder /src/target/release/trainer /usr/local/bin/trainer
COPY --from=builder /opt/hacrl/cache/smollm2/SmolLM2-135M-Instruct.Q4_1.gguf /opt/hacrl/smollm2/

# The host's binary with the torch and nvidia folders of the venv it was linked against (its
# rpath names the host's path, so LD_LIBRARY_PATH below finds them), and the host's GGUF.
FROM base AS from-host
COPY --from=host torch-libs /opt/torch-libs
COPY --from=host trainer /usr/local/bin/trainer
COPY --from=host SmolLM2-135M-Instruct.Q4_1.gguf /opt/hacrl/smollm2/

FROM from-${BUILD:-source} AS runtime
COPY trainer/assets/byte-tokenizer /app/trainer/assets/byte-tokenizer
# Run configs and their data. The agents' folder and the run outputs are named volumes in
# compose (examples/tiny-cpu/init-agents.sh fills the first); the folders exist here, owned by
# the runtime user, so that a new volume starts out writable by it.
COPY --chown=hacrl:hacrl examples /app/examples
RUN install -d -o hacrl -g hacrl /app/examples/tiny-cpu/agents /app/examples/tiny-cpu/runs
ENV LD_LIBRARY_PATH=/opt/torch-libs/torch/lib \
    TRAINER=trainer \
    SMOLLM2_GGUF=/opt/hacrl/smollm2/SmolLM2-135M-Instruct.Q4_1.gguf \
    BYTE_TOKENIZER=/app/trainer/assets/byte-tokenizer \
    NVIDIA_VISIBLE_DEVICES=all \
    NVIDIA_DRIVER_CAPABILITIES=compute,utility
# The binary starts: every library it links resolves, and this image's glibc is new enough.
RUN trainer --help >/dev/null
USER hacrl
WORKDIR /app
ENTRYPOINT ["trainer"]
CMD ["--help"]
