#!/usr/bin/env bash
# Installs PyTorch 2.13.0 (the libtorch that tch 0.26 binds) into a venv at a fixed path outside
# the repo. Only the wheels libtorch_cpu needs are installed (--no-deps): the full CUDA dependency
# set is ~2.7 GB and CI never has a GPU. Python's `import torch` does not work in this slim venv
# (torch/_C needs cuDNN etc.); only the Rust side uses it. For a GPU machine or the PyTorch-eager
# reference bench, set HACRL_TORCH_FULL=1 to install torch with all its dependencies (and
# transformers, the reference implementation) into a second venv instead.
set -euo pipefail

cache="${HACRL_CACHE:-$HOME/.cache/hacrl}"
venv="$cache/torch-venv"
if [[ "${HACRL_TORCH_FULL:-0}" == 1 ]]; then
    venv="$cache/torch-venv-full"
fi
marker="$venv/.hacrl-torch-2.13.0"

# llama.cpp's own Python package: its numpy dequantisers are the reference the GGUF kernels'
# tests compare with (trainer/tests/gemma3). Checked apart from the marker, so that venvs made
# before it was added get it too.
gguf_version=0.19.0
ensure_gguf() {
    if ! "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('gguf') != '$gguf_version')" 2>/dev/null; then
        "$venv/bin/pip" install --quiet --disable-pip-version-check "gguf==$gguf_version"
    fi
}

if [[ -f "$marker" ]]; then
    ensure_gguf
    echo "torch venv ready: $venv"
    exit 0
fi

mkdir -p "$cache"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --upgrade pip
# pip checks every wheel against the sha256 that PyPI publishes for it.
if [[ "${HACRL_TORCH_FULL:-0}" == 1 ]]; then
    "$venv/bin/pip" install --quiet torch==2.13.0 numpy safetensors transformers
    "$venv/bin/python" -c 'import torch; assert torch.__version__.startswith("2.13.0"), torch.__version__'
else
    "$venv/bin/pip" install --quiet --no-deps \
        torch==2.13.0 nvidia-cuda-runtime==13.0.96 nvidia-cuda-cupti==13.0.85
fi
torch_dir="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/torch"
grep -q "__version__ = '2.13.0" "$torch_dir/version.py"
# libtorch_cpu must resolve all its shared libraries, or test binaries fail to start.
if ldd "$torch_dir/lib/libtorch_cpu.so" | grep -q "not found"; then
    echo "libtorch_cpu.so has unresolved libraries:" >&2
    ldd "$torch_dir/lib/libtorch_cpu.so" | grep "not found" >&2
    exit 1
fi
ensure_gguf
touch "$marker"
echo "torch venv ready: $venv"
