#!/bin/sh
# The official postgres image's contract, for the Debian stand-in: on an empty PGDATA, initdb
# with POSTGRES_USER as superuser (password POSTGRES_PASSWORD, required as there), create
# POSTGRES_DB, accept password logins from the network; then run the server as `postgres`.
set -eu
if [ "${1:-}" = postgres ] && [ "$(id -u)" = 0 ]; then
    mkdir -p "$PGDATA"
    chown postgres:postgres "$PGDATA"
    chmod 700 "$PGDATA"
    exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
if [ "${1:-}" = postgres ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
    : "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD must be set (the official image refuses to start without it too)}"
    user="${POSTGRES_USER:-postgres}"
    db="${POSTGRES_DB:-$user}"
    pwfile=$(mktemp)
    printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
    initdb --username="$user" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 \
        --encoding=UTF8 -D "$PGDATA" >/dev/null
    rm -f "$pwfile"
    echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
    echo "listen_addresses = '*'" >>"$PGDATA/postgresql.conf"
    if [ "$db" != postgres ]; then
        pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
        psql -v ON_ERROR_STOP=1 --username="$user" --dbname=postgres \
            -c "create database \"$db\"" >/dev/null
        pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
    fi
    echo "postgres: initialised $PGDATA (user $user, database $db)"
fi
exec "$@"
