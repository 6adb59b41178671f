# shellcheck shell=bash
# Sourced by scripts/dev.sh and scripts/lib/passkeyd.sh: the key-encryption key of development and of the test stages.
#
#   dev_kek REPO    print the path of REPO/var/kek: 32 random bytes in base64 (`openssl rand -base64 32`), made on first
#                   use and then kept. With it passkeyd runs stateless ceremonies (ceremony keys in the database) and
#                   keeps session signing keys; the local PostgreSQL under var/ (scripts/postgres.sh, one database that
#                   `scripts/dev.sh run` and the test stages share) keeps what passkeyd sealed under it, and a passkeyd
#                   with another key-encryption key cannot open that: stored ceremony keys that do not open stop its
#                   start. So every one of them uses this file. Deleting it goes with `scripts/postgres.sh destroy` (or
#                   `DELETE FROM ceremony_keys`).
dev_kek() {
    local file="$1/var/kek"
    if [[ ! -s $file ]]; then
        mkdir -p "$1/var"
        local new="$file.new.$$"
        (umask 077 && openssl rand -base64 32 >"$new")
        # No clobbering: if another process made the file meanwhile, its key stays.
        mv -n "$new" "$file"
        rm -f "$new"
    fi
    printf '%s\n' "$file"
}
