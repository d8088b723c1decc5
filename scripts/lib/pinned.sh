# Sourced by every setup step (scripts/setup.d) that downloads a file pinned by sha256, or takes
# one out of such a download. One rule for all of them: the file is made in a fresh temporary
# folder beside its place in the cache, trusted only once its sha256 matches the pin, and only
# then renamed into place; so an interrupted, failed or tampered download never passes for the
# pinned file, and only a whole, checked file ever sits at its place (a run killed mid-download
# leaves a hidden .pinned-* folder, which nothing reads). A file already there with the pinned
# sha256 is not fetched again.

# Messages name the step that sourced this file.
pinned_step="$(basename "$0" .sh)"

# pinned_ok PATH SHA256: whether PATH exists with that sha256.
pinned_ok() {
    [[ -f "$1" && "$(sha256sum "$1" | cut -d' ' -f1)" == "$2" ]]
}

# pinned_check PATH SHA256: pinned_ok, saying on stderr what differs when it does not hold.
pinned_check() {
    local got
    got="$(sha256sum "$1" 2>/dev/null | cut -d' ' -f1)"
    [[ "$got" == "$2" ]] && return 0
    echo "$pinned_step: checksum mismatch for $(basename "$1"): got ${got:-no file}, pinned $2" >&2
    return 1
}

# pinned_make FILE SHA256 FOLDER COMMAND [ARGS...]: FOLDER/FILE with the pinned SHA256, made by
# COMMAND unless already there. COMMAND runs in the temporary folder (relative paths in ARGS
# resolve there) and leaves FILE in it. Fails, leaving FOLDER/FILE as it was, on any error.
pinned_make() {
    local file="$1" pinned="$2" folder="$3"
    shift 3
    pinned_ok "$folder/$file" "$pinned" && return 0
    local work
    # In FOLDER, so that the final move is a rename on one file system.
    mkdir -p "$folder" && work="$(mktemp -d "$folder/.pinned-XXXXXX")" || return 1
    if ! (cd "$work" && "$@"); then
        echo "$pinned_step: fetching $file failed" >&2
        rm -rf "$work"
        return 1
    fi
    pinned_check "$work/$file" "$pinned" && mv "$work/$file" "$folder/$file"
    local rc=$?
    rm -rf "$work"
    return "$rc"
}

# pinned_fetch URL FILE SHA256 FOLDER: FOLDER/FILE, downloaded from URL unless already there.
pinned_fetch() {
    pinned_make "$2" "$3" "$4" curl -sSfL --retry 3 -o "$2" "$1"
}

# wheel_fetch REQUIREMENT FILE SHA256 FOLDER [PIP_ARGS...]: FOLDER/FILE, the wheel REQUIREMENT
# resolves to, downloaded by pip (nothing installed) unless already there.
wheel_fetch() {
    local requirement="$1" file="$2" pinned="$3" folder="$4"
    shift 4
    pinned_make "$file" "$pinned" "$folder" "${PYTHON:-python3}" -m pip download --quiet \
        --disable-pip-version-check --no-deps --only-binary=:all: "$@" -d . "$requirement"
}
