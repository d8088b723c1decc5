# Base tools the scripts use: the PostgreSQL client (psql, pg_isready).
set -euo pipefail
if ! command -v psql >/dev/null || ! command -v pg_isready >/dev/null; then
    sudo_=""; [ "$(id -u)" = 0 ] || sudo_="sudo"
    $sudo_ apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq postgresql-client
fi
