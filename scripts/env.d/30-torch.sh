# Sourced (not executed): points tch's build at the libtorch inside the venv that
# scripts/setup.d/30-torch.sh creates. HACRL_TORCH_FULL=1 selects the full CUDA venv instead.
_hacrl_cache="${HACRL_CACHE:-$HOME/.cache/hacrl}"
if [[ "${HACRL_TORCH_FULL:-0}" == 1 ]]; then
    _hacrl_venv="$_hacrl_cache/torch-venv-full"
    # Links libtorch_cuda into the trainer's binaries (see trainer/build.rs).
    export HACRL_TORCH_CUDA=1
else
    _hacrl_venv="$_hacrl_cache/torch-venv"
fi
for _hacrl_torch in "$_hacrl_venv"/lib/python3*/site-packages/torch; do
    if [[ -d "$_hacrl_torch/lib" ]]; then
        export LIBTORCH="$_hacrl_torch"
        export LD_LIBRARY_PATH="$_hacrl_torch/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
        # The PyPI wheels are built with the C++11 ABI.
        export LIBTORCH_CXX11_ABI=1
    fi
done
unset _hacrl_cache _hacrl_venv _hacrl_torch
