#!/bin/sh
# Writes the Swift file that holds passkeyd's version and source revision (the BuildInfo plugin runs it when one of
# the files it reads changes: VERSION, REVISION, git's HEAD and the branch's ref).
#
#   build-info.sh REPOSITORY_ROOT OUTPUT_FILE
#
# version:  the VERSION file at the repository root (one line, MAJOR.MINOR.PATCH with an optional -suffix)
# revision: the first line of the file REVISION at the repository root when there is one (not committed: the
#           Dockerfile writes it from its build argument, as a build has no .git there: docker build --build-arg
#           PASSKEYD_REVISION=$(git rev-parse --short=12 HEAD) .); else git's 12-digit abbreviation of HEAD (the
#           commit checked out: uncommitted changes are not marked); else "unknown". Only [0-9A-Za-z._-] is kept,
#           at most 64 characters.
# (SwiftPM runs this without the caller's environment, so a file, not a variable, carries the revision.)
set -eu
root=$1
output=$2
version=$(tr -d ' \r\n' <"$root/VERSION")
if ! printf '%s' "$version" | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.]+)?$'; then
    echo "build-info.sh: VERSION holds '$version', not MAJOR.MINOR.PATCH[-suffix]" >&2
    exit 1
fi
revision=
[ -f "$root/REVISION" ] && revision=$(head -n 1 "$root/REVISION")
if [ -z "$revision" ]; then
    revision=$(git -C "$root" rev-parse --short=12 HEAD 2>/dev/null) || revision=unknown
fi
revision=$(printf '%s' "$revision" | tr -cd '0-9A-Za-z._-' | cut -c1-64)
[ -n "$revision" ] || revision=unknown
mkdir -p "$(dirname "$output")"
new="$output.new.$$"
cat >"$new" <<SWIFT
// Written by Plugins/BuildInfo/build-info.sh during the build; not edited by hand, not committed.
extension BuildInfo {
    /// The release version: the repository's VERSION file.
    public static let version = "$version"
    /// The source revision this binary was built from: git's abbreviation of HEAD (the commit checked out), the
    /// REVISION file where there was no git checkout (the Docker build), or "unknown".
    public static let revision = "$revision"
}
SWIFT
mv -f "$new" "$output"
