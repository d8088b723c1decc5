#!/usr/bin/env bash
# Installs kubernetes-validate (pinned) into a venv cached in $HACRL_CACHE: e2e/tests/k8s.rs runs
# it on deploy/k8s/. It bundles the Kubernetes OpenAPI schemas of every release it knows, so the
# check needs no cluster and no network once installed.
set -euo pipefail
. "$(dirname "$0")/../lib/pinned-venv.sh"

VENV="${HACRL_CACHE:-$HOME/.cache/hacrl}/k8s-validate-venv"
VERSION=1.37.0
# Its validation engine and YAML reader, pinned too: a new jsonschema may judge the same schema
# differently, and the test should change only when this file does.
DEPS=(jsonschema==4.26.0 PyYAML==6.0.4)
PINS=$(printf '%s\n' "kubernetes-validate==$VERSION" "${DEPS[@]}")

if venv_ready "$VENV" "$PINS"; then
  echo "41-k8s-validate: kubernetes-validate $VERSION present"
  exit 0
fi
echo "41-k8s-validate: installing kubernetes-validate==$VERSION into $VENV"
venv_fresh "$VENV"
"$VENV/bin/pip" install --quiet "kubernetes-validate==$VERSION" "${DEPS[@]}"
"$VENV/bin/kubernetes-validate" --version
venv_done "$VENV" "$PINS"
