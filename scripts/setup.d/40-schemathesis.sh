#!/usr/bin/env bash
# Installs schemathesis (pinned) into a venv cached in $HACRL_CACHE: scripts/test runs it against
# the verifier's /openapi.json to check that the document says exactly what the service does.
set -euo pipefail

CACHE="${HACRL_CACHE:-$HOME/.cache/hacrl}"
VENV="$CACHE/schemathesis-venv"
VERSION=4.32.5
PYTHON="${PYTHON:-python3}"

if [[ -x "$VENV/bin/st" ]] && "$VENV/bin/python" -m pip show schemathesis 2>/dev/null | grep -qx "Version: $VERSION"; then
  echo "40-schemathesis: schemathesis $VERSION present"
  exit 0
fi
# Debian ships venv support separately from python3.
if ! "$PYTHON" -c 'import ensurepip' 2>/dev/null; then
  sudo_=""; [ "$(id -u)" = 0 ] || sudo_="sudo"
  $sudo_ apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq python3-venv
fi
echo "40-schemathesis: installing schemathesis==$VERSION into $VENV"
rm -rf "$VENV"
"$PYTHON" -m venv "$VENV"
"$VENV/bin/pip" install --quiet --upgrade pip
"$VENV/bin/pip" install --quiet "schemathesis==$VERSION"
"$VENV/bin/st" --version
