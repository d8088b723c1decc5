# Sourced by the setup steps that install a pinned Python tool into a venv of its own
# (scripts/setup.d/40, 41, 42, 46, 50, 52, 60; scripts/tokenizer-parity). One rule for all of
# them: a venv is installed when its marker holds exactly the pins it was installed from. The
# marker is written last, after the tool ran once, so a venv left half-made by an interrupted
# install has none, and one from other pins has other contents: either way the next run starts
# over instead of trusting it.

# venv_ready VENV PINS: whether VENV was installed from PINS (one requirement a line).
venv_ready() {
    [[ -f "$1/.hacrl-installed" && "$(cat "$1/.hacrl-installed")" == "$2" ]]
}

# venv_fresh VENV: an empty venv at VENV (python3-venv installed first where Debian lacks it),
# with an up-to-date pip. $PYTHON picks the interpreter (default python3).
venv_fresh() {
    local python="${PYTHON:-python3}"
    # Debian ships venv support separately from python3.
    if ! "$python" -c 'import ensurepip' 2>/dev/null; then
        local sudo_=""
        [ "$(id -u)" = 0 ] || sudo_="sudo"
        $sudo_ apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq python3-venv
    fi
    rm -rf "$1"
    "$python" -m venv "$1"
    "$1/bin/pip" install --quiet --disable-pip-version-check --upgrade pip
}

# venv_done VENV PINS: marks VENV installed from PINS; call it after the tool's own check.
venv_done() {
    printf '%s\n' "$2" >"$1/.hacrl-installed"
}
