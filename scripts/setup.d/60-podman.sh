#!/usr/bin/env bash
# A container engine for the compose stack's end-to-end test (e2e/tests/compose_up.rs):
# Debian's podman with runc (its default crun is refused setrlimit on these machines), netavark
# for the compose network and its DNS, debootstrap for the base-image stand-ins
# (scripts/base-images), and PyPI's podman-compose, which drives compose.yaml unchanged.
set -euo pipefail
cache="${HACRL_CACHE:-$HOME/.cache/hacrl}"
. "$(dirname "$0")/../lib/pinned-venv.sh"

if ! command -v podman >/dev/null || ! command -v runc >/dev/null \
    || ! command -v debootstrap >/dev/null || ! command -v iptables >/dev/null; then
    sudo_=""; [ "$(id -u)" = 0 ] || sudo_="sudo"
    $sudo_ apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq --no-install-recommends \
        podman runc conmon netavark aardvark-dns iptables catatonit debootstrap
fi
echo "60-podman: $(podman --version), runc $(runc --version | head -n1 | cut -d' ' -f3)"

venv="$cache/podman-compose-venv"
pins="podman-compose==1.6.0"
if ! venv_ready "$venv" "$pins"; then
    venv_fresh "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check $pins
    "$venv/bin/podman-compose" --version >/dev/null
    venv_done "$venv" "$pins"
fi
echo "60-podman: $("$venv/bin/podman-compose" --version 2>/dev/null | tail -n1)"
