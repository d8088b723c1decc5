#!/usr/bin/env bash
# Installs TensorBoard (pinned) into a venv cached in $HACRL_CACHE: trainer/tests/tensorboard.rs
# reads the event files `trainer run` writes with TensorBoard's own reader, so the test checks
# the format against the real consumer rather than against the trainer's encoder.
set -euo pipefail
. "$(dirname "$0")/../lib/pinned-venv.sh"

VENV="${HACRL_CACHE:-$HOME/.cache/hacrl}/tensorboard-venv"
VERSION=2.21.0
PINS="tensorboard==$VERSION"

if venv_ready "$VENV" "$PINS"; then
  echo "42-tensorboard: tensorboard $VERSION present"
  exit 0
fi
echo "42-tensorboard: installing tensorboard==$VERSION into $VENV"
venv_fresh "$VENV"
"$VENV/bin/pip" install --quiet "$PINS"
"$VENV/bin/python" -c 'from tensorboard.backend.event_processing import event_accumulator'
"$VENV/bin/tensorboard" --version
venv_done "$VENV" "$PINS"
