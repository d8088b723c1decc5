#!/usr/bin/env bash
# Installs kubernetes-validate (pinned) into a venv cached in $HACRL_CACHE: tests/tests/k8s.rs runs
# it on deploy/k8s/. It bundles the Kubernetes OpenAPI schemas of every release it knows, so the
# check needs no cluster and no network once installed.
set -euo pipefail

CACHE="${HACRL_CACHE:-$HOME/.cache/hacrl}"
VENV="$CACHE/k8s-validate-venv"
VERSION=1.37.0
# Its validation engine and YAML reader, pinned too: a new jsonschema may judge the same schema
# differently, and the test should change only when this file does.
DEPS=(jsonschema==4.26.0 PyYAML==6.0.4)
PYTHON="${PYTHON:-python3}"
# Written last, after the tool ran once, with the pins it was installed from: a venv left half-made
# by an interrupted install has none, and one from other pins has other contents, so the next
# run starts over instead of trusting it.
MARKER="$VENV/.installed-$VERSION"
PINS=$(printf '%s\n' "kubernetes-validate==$VERSION" "${DEPS[@]}")

if [[ -f "$MARKER" && -x "$VENV/bin/kubernetes-validate" && "$(cat "$MARKER")" == "$PINS" ]]; then
  echo "41-k8s-validate: kubernetes-validate $VERSION present"
  exit 0
fi
# Debian ships venv support separately from python3.
if ! "$PYTHON" -c 'import ensurepip' 2>/dev/null; then
  sudo_=""; [ "$(id -u)" = 0 ] || sudo_="sudo"
  $sudo_ apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq python3-venv
fi
echo "41-k8s-validate: installing kubernetes-validate==$VERSION into $VENV"
rm -rf "$VENV"
"$PYTHON" -m venv "$VENV"
"$VENV/bin/pip" install --quiet --upgrade pip
"$VENV/bin/pip" install --quiet "kubernetes-validate==$VERSION" "${DEPS[@]}"
"$VENV/bin/kubernetes-validate" --version
echo "$PINS" > "$MARKER"
