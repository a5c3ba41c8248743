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
  local src
  src="$("$ROOT/scripts/deb-source.sh" tcc "$TCC_DIR/fetch")" || die "could not fetch tcc's source"
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
