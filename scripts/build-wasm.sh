#!/usr/bin/env bash
# Builds the engine for the browser: web/pkg/whittle.js + web/pkg/whittle_bg.wasm (every
# grammar) and web/pkg/whittle_core_bg.wasm (all but C++'s: what the page loads first), all
# git-ignored, then the page's JavaScript bundle (scripts/bundle-web.mjs, when present).
#
#   1. cargo build --profile wasm-release --target wasm32-unknown-unknown -p whittle-wasm (the cdylib in crate/wasm;
#      for the core build with --no-default-features)
#      The grammars' C sources are compiled with clang for wasm32; the headers in
#      grammars/wasm-include stand in for a libc (see grammars/wasm-include/README.md).
#   2. wasm-bindgen --target web into web/pkg
#   3. wasm-opt -O2 (but memory packing) from the npm package `binaryen`, when installed (Debian's wasm-opt is
#      too old for what rustc emits, so it is never used)
#   4. prints the .wasm size, raw and gzipped
#   5. node scripts/bundle-web.mjs, when that file exists
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
[ -d "$HOME/.cargo/bin" ] && export PATH="$HOME/.cargo/bin:$PATH"

say() { echo "build-wasm: $*"; }
die() { echo "build-wasm: error: $*" >&2; exit 1; }
# 1234567 -> 1,234,567
commas() { echo "$1" | sed -e ':a' -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/; ta'; }

command -v clang >/dev/null 2>&1 || die "clang not found: run scripts/setup.sh"
command -v llvm-ar >/dev/null 2>&1 || die "llvm-ar not found: run scripts/setup.sh"
command -v wasm-bindgen >/dev/null 2>&1 || die "wasm-bindgen not found: run scripts/setup.sh"

WASM_OPT="node_modules/.bin/wasm-opt"

# build DIR CARGO-FLAGS...: the engine as DIR/whittle.js + DIR/whittle_bg.wasm (the glue names
# the module its wasm imports from after its own file: one name for both builds)
build() {
  local dir=$1
  shift
  say "cargo build --profile wasm-release --target wasm32-unknown-unknown -p whittle-wasm $*"
  CFLAGS_wasm32_unknown_unknown="-I$ROOT/grammars/wasm-include" \
  CC_wasm32_unknown_unknown=clang \
  AR_wasm32_unknown_unknown=llvm-ar \
    cargo build --profile wasm-release --target wasm32-unknown-unknown -p whittle-wasm "$@"

  local wasm_in="${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/wasm-release/whittle_wasm.wasm"
  [ -f "$wasm_in" ] || die "$wasm_in was not produced"

  say "wasm-bindgen --target web --out-dir $dir --out-name whittle"
  mkdir -p "$dir"
  wasm-bindgen --target web --out-dir "$dir" --out-name whittle "$wasm_in"
  local out="$dir/whittle_bg.wasm"

  if [ -x "$WASM_OPT" ]; then
    say "wasm-opt -O2 --skip-pass=memory-packing (binaryen $("$WASM_OPT" --version | sed 's/.*version \([0-9]*\).*/\1/'))"
    # rustc's wasm32 target emits these post-MVP features; every current browser has them.
    # Memory packing splits the grammars' tables at their runs of zeros: 2.4 MB less raw, but
    # 170 KB more gzipped (what the page downloads), so it is skipped.
    if "$WASM_OPT" -O2 --skip-pass=memory-packing \
        --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
        --enable-mutable-globals --enable-reference-types --enable-multivalue \
        "$out" -o "$out.opt"; then
      mv "$out.opt" "$out"
    else
      rm -f "$out.opt"
      echo "build-wasm: warning: wasm-opt failed; keeping the unoptimised .wasm" >&2
    fi
  else
    say "no node_modules/.bin/wasm-opt (npm package binaryen): skipping optimisation"
  fi

  local raw gz
  raw=$(wc -c <"$out")
  gz=$(gzip -9 -c "$out" | wc -c)
  echo "wasm: $(commas "$raw") bytes, $(commas "$gz") gzipped ($out)"
}

# The full build (every grammar), then the one the page loads first (all but C++'s tables,
# the largest). The page loads the full one when a program is C++ (engine-client.js).
build web/pkg
CORE=target/wasm-core
rm -rf "$CORE"
build "$CORE" --no-default-features
# Both share one glue (web/pkg/whittle.js): the worker is bundled with it and is handed
# either build's bytes, so their imports and exports must be the same.
cmp -s "$CORE/whittle.js" web/pkg/whittle.js \
  || die "the two builds' glue differs ($CORE/whittle.js, web/pkg/whittle.js)"
mv "$CORE/whittle_bg.wasm" web/pkg/whittle_core_bg.wasm
rm -rf "$CORE"

if [ -f scripts/bundle-web.mjs ]; then
  say "node scripts/bundle-web.mjs"
  node scripts/bundle-web.mjs
fi
