#!/usr/bin/env bash
# Builds tcc from Debian's source package with gcc's --coverage: the compiler whose coverage
# the witness mode (DiWi) ranks. Nothing of it is committed; it lives under target/tcc/.
#
#   scripts/build-tcc.sh             fetch the source once (target/tcc/src), build target/tcc/build
#   scripts/build-tcc.sh --in DIR    build the tcc source tree DIR in place (a patched copy)
#
# Prints the build folder: it holds `tcc`, its `include/` and `libtcc1.a`, and the .gcno
# files `whittle coverage --objects` reads. Idempotent: an up-to-date build is left alone.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TCC_DIR="$ROOT/target/tcc"

say() { echo "build-tcc: $*" >&2; }
die() { echo "build-tcc: error: $*" >&2; exit 1; }

build() {  # $1: a tcc source tree
  local dir="$1"
  if [ -x "$dir/tcc" ] && [ -f "$dir/libtcc1.a" ] && [ -f "$dir/tccgen.gcno" ] && [ "$dir/tcc" -nt "$dir/tccgen.c" ]; then
    echo "$dir"; return
  fi
  say "building $dir with --coverage"
  ( cd "$dir" \
    && ./configure --extra-cflags="--coverage -O0" --extra-ldflags=--coverage >/dev/null \
    && make -j"$(nproc)" >"$dir/build.log" 2>&1 ) || die "the build failed: see $dir/build.log"
  # The build ran tcc (libtcc1.a): drop those counts, each compile starts from zero.
  find "$dir" -name '*.gcda' -delete
  echo "$dir"
}

fetch() {
  [ -f "$TCC_DIR/src/tccgen.c" ] && return
  command -v dpkg-source >/dev/null || die "dpkg-source not found: apt-get install -y dpkg-dev"
  # apt-get source needs a deb-src entry for the Debian mirror already configured.
  local sources=/etc/apt/sources.list.d/debian.sources
  if ! grep -rqs '^\(Types:.*deb-src\|deb-src\)' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    [ -f "$sources" ] || die "no deb-src entry and no $sources to add one to: add a deb-src line for your Debian mirror"
    [ "$(id -u)" -eq 0 ] || die "adding a deb-src entry needs root"
    say "adding deb-src to $sources"
    sed -i 's/^Types: deb$/Types: deb deb-src/' "$sources"
    DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null
  fi
  rm -rf "$TCC_DIR/fetch" && mkdir -p "$TCC_DIR/fetch"
  say "apt-get source tcc"
  ( cd "$TCC_DIR/fetch" && apt-get source -q tcc >/dev/null 2>&1 ) \
    || { DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null; ( cd "$TCC_DIR/fetch" && apt-get source -q tcc >/dev/null ); } \
    || die "apt-get source tcc failed"
  local src
  src="$(find "$TCC_DIR/fetch" -maxdepth 1 -mindepth 1 -type d -name 'tcc-*' | head -1)"
  [ -n "$src" ] || die "apt-get source tcc made no source folder"
  rm -rf "$TCC_DIR/src" && mv "$src" "$TCC_DIR/src" && rm -rf "$TCC_DIR/fetch"
}

if [ "${1:-}" = "--in" ]; then
  [ -f "${2:-}/tccgen.c" ] || die "--in needs a tcc source folder"
  build "$(cd "$2" && pwd)"
  exit
fi
mkdir -p "$TCC_DIR"
fetch
if [ ! -d "$TCC_DIR/build" ]; then
  cp -a "$TCC_DIR/src" "$TCC_DIR/build"
fi
build "$TCC_DIR/build"
