#!/usr/bin/env bash
# Fetches a Debian source package with apt-get source, adding a deb-src entry for the Debian
# mirror already configured if there is none (that needs root). Used by build-tcc.sh and by the
# bench's generated cases (scripts/bench/make-cases.mjs).
#
#   scripts/deb-source.sh PACKAGE DIR              Debian's source, unpacked with its patches
#   scripts/deb-source.sh --upstream PACKAGE DIR   only the upstream tarball (*.orig.tar.*),
#       unpacked: for when Debian's packaging part is not needed, since a mirror may not serve it
#
# Prints the source folder made under DIR. DIR is emptied first.
set -euo pipefail

say() { echo "deb-source: $*" >&2; }
die() { echo "deb-source: error: $*" >&2; exit 1; }

ensure_deb_src() {
  grep -rqs '^\(Types:.*deb-src\|deb-src\)' /etc/apt/sources.list /etc/apt/sources.list.d/ && return
  local sources=/etc/apt/sources.list.d/debian.sources
  [ -f "$sources" ] || die "no deb-src entry and no $sources to add one to: add a deb-src line for your Debian mirror"
  [ "$(id -u)" -eq 0 ] || die "adding a deb-src entry needs root"
  say "adding deb-src to $sources"
  sed -i 's/^Types: deb$/Types: deb deb-src/' "$sources"
  DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null
}

# apt-get source ARGS in the current folder, once more after apt-get update if it fails (the
# package lists may be older than the mirror).
apt_source() {
  apt-get source -q "$@" >/dev/null 2>&1 && return
  DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null 2>&1 || true
  apt-get source -q "$@" >/dev/null
}

upstream=false
if [ "${1:-}" = "--upstream" ]; then upstream=true; shift; fi
[ $# -eq 2 ] || die "usage: deb-source.sh [--upstream] PACKAGE DIR"
package="$1"
dir="$2"

ensure_deb_src
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir"
if $upstream; then
  say "apt-get source --download-only $package (the upstream tarball)"
  apt_source --download-only "$package" 2>/dev/null || true  # Debian's part may be missing
  tarball="$(find . -maxdepth 1 -name '*.orig.tar.*' ! -name '*.asc' | head -1)"
  [ -n "$tarball" ] || die "apt-get source $package fetched no upstream tarball"
  tar xf "$tarball"
else
  command -v dpkg-source >/dev/null || die "dpkg-source not found: apt-get install -y dpkg-dev"
  say "apt-get source $package"
  apt_source "$package" || die "apt-get source $package failed"
fi
src="$(find "$PWD" -maxdepth 1 -mindepth 1 -type d | head -1)"
[ -n "$src" ] || die "apt-get source $package made no source folder"
echo "$src"
