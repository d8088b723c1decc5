#!/usr/bin/env bash
# Installs the training frameworks whose reward paths the Python client is tested inside
# (clients/python/tests/frameworks): TRL, verl and OpenRLHF at today's releases, into a venv of
# their own that reuses the vLLM venv's torch and transformers (50-vllm.sh) through a .pth file
# instead of downloading a second torch. The frameworks go in with --no-deps, since their full
# requirements (flash-attn, DeepSpeed, vLLM pins, wandb) do not install on a CPU machine, plus
# only the light packages their reward paths import: accelerate and datasets (TRL's
# GRPOTrainer), hydra/omegaconf, tensordict, codetiming, pandas and ray (verl's config, DataProto
# and reward loop), pylatexenc (OpenRLHF's utils). Set HACRL_SKIP_FRAMEWORKS=1 to leave it out.
set -euo pipefail
. "$(dirname "$0")/../lib/pinned-venv.sh"

cache="${HACRL_CACHE:-$HOME/.cache/hacrl}"
venv="$cache/frameworks-venv"
base="$cache/vllm-venv"
pins=$(printf '%s\n' trl==1.16.0 verl==0.9.1 openrlhf==0.11.2 \
    accelerate==1.16.0 datasets==5.2.0 hydra-core==1.3.8 omegaconf==2.3.1 tensordict==0.10.0 \
    codetiming==1.4.0 pandas==3.1.1 ray==2.55.0 pylatexenc==2.11 pytest==9.2.0)
frameworks=(trl==1.16.0 verl==0.9.1 openrlhf==0.11.2)

if [[ "${HACRL_SKIP_FRAMEWORKS:-0}" == 1 ]]; then
    echo "52-frameworks: skipped (HACRL_SKIP_FRAMEWORKS=1)"
    exit 0
fi
# The base's marker says which torch this venv borrows: a new base means a new venv.
marker=$(printf '%s\nbase: %s\n' "$pins" "$(cat "$base/.hacrl-installed")")
if venv_ready "$venv" "$marker"; then
    echo "52-frameworks: ready: $venv"
    exit 0
fi
start=$SECONDS
echo "52-frameworks: installing ${frameworks[*]} into $venv (torch from $base)"
PYTHON="$base/bin/python" venv_fresh "$venv"
site() { "$1/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])'; }
# After this venv's own site-packages on sys.path: what is installed here wins.
site "$base" >"$(site "$venv")/hacrl-vllm-venv.pth"
pip=("$venv/bin/pip" --quiet --disable-pip-version-check)
"${pip[@]}" install --no-deps "${frameworks[@]}"
# The light requirements with theirs; torch and transformers resolve to the base's.
grep -v -e '^trl==' -e '^verl==' -e '^openrlhf==' <<<"$pins" >"$venv/light.txt"
# pip reports the frameworks' unmet pins (flash-attn, deepspeed, …) as conflicts, by design here.
"${pip[@]}" install -r "$venv/light.txt" >"$venv/pip.log" 2>&1 || { cat "$venv/pip.log" >&2; exit 1; }

# The check: the reward paths under test import, and torch is the base's, not a second one.
"$venv/bin/python" -W ignore "$(dirname "$0")/../lib/frameworks-check.py" "$base"
venv_done "$venv" "$marker"
echo "52-frameworks: ready: $venv ($((SECONDS - start)) s, $(du -sh "$venv" | cut -f1))"
