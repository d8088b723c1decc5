#!/usr/bin/env bash
# Installs schemathesis (pinned) into a venv cached in $HACRL_CACHE: scripts/test runs it against
# the verifier's /openapi.json to check that the document says exactly what the service does.
set -euo pipefail
. "$(dirname "$0")/../lib/pinned-venv.sh"

VENV="${HACRL_CACHE:-$HOME/.cache/hacrl}/schemathesis-venv"
VERSION=4.32.5
PINS="schemathesis==$VERSION"

if venv_ready "$VENV" "$PINS"; then
  echo "40-schemathesis: schemathesis $VERSION present"
  exit 0
fi
echo "40-schemathesis: installing schemathesis==$VERSION into $VENV"
venv_fresh "$VENV"
"$VENV/bin/pip" install --quiet "$PINS"
"$VENV/bin/st" --version
venv_done "$VENV" "$PINS"
