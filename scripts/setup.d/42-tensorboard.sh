#!/usr/bin/env bash
# Installs TensorBoard (pinned) into a venv cached in $HACRL_CACHE: trainer/tests/tensorboard.rs
# reads the event files `trainer run` writes with TensorBoard's own reader, so the test checks
# the format against the real consumer rather than against the trainer's encoder.
set -euo pipefail

CACHE="${HACRL_CACHE:-$HOME/.cache/hacrl}"
VENV="$CACHE/tensorboard-venv"
VERSION=2.21.0
PYTHON="${PYTHON:-python3}"

if [[ -x "$VENV/bin/tensorboard" ]] && "$VENV/bin/python" -m pip show tensorboard 2>/dev/null | grep -qx "Version: $VERSION"; then
  echo "42-tensorboard: tensorboard $VERSION present"
  exit 0
fi
# Debian ships venv support separately from python3.
if ! "$PYTHON" -c 'import ensurepip' 2>/dev/null; then
  sudo_=""; [ "$(id -u)" = 0 ] || sudo_="sudo"
  $sudo_ apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq python3-venv
fi
echo "42-tensorboard: installing tensorboard==$VERSION into $VENV"
rm -rf "$VENV"
"$PYTHON" -m venv "$VENV"
"$VENV/bin/pip" install --quiet --upgrade pip
"$VENV/bin/pip" install --quiet "tensorboard==$VERSION"
"$VENV/bin/python" -c 'from tensorboard.backend.event_processing import event_accumulator'
"$VENV/bin/tensorboard" --version
