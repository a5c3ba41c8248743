#!/usr/bin/env bash
# Builds the engine for the browser: web/pkg/whittle.js + web/pkg/whittle_bg.wasm (git-ignored),
# then the page's JavaScript bundle (scripts/bundle-web.mjs, when present).
#
#   1. cargo build --profile wasm-release --target wasm32-unknown-unknown -p whittle-wasm (the cdylib in crate/wasm)
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

say "cargo build --profile wasm-release --target wasm32-unknown-unknown -p whittle-wasm"
CFLAGS_wasm32_unknown_unknown="-I$ROOT/grammars/wasm-include" \
CC_wasm32_unknown_unknown=clang \
AR_wasm32_unknown_unknown=llvm-ar \
  cargo build --profile wasm-release --target wasm32-unknown-unknown -p whittle-wasm

WASM_IN="${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/wasm-release/whittle_wasm.wasm"
[ -f "$WASM_IN" ] || die "$WASM_IN was not produced"

say "wasm-bindgen --target web --out-dir web/pkg"
mkdir -p web/pkg
wasm-bindgen --target web --out-dir web/pkg --out-name whittle "$WASM_IN"
WASM_OUT=web/pkg/whittle_bg.wasm

WASM_OPT="node_modules/.bin/wasm-opt"
if [ -x "$WASM_OPT" ]; then
  say "wasm-opt -O2 --skip-pass=memory-packing (binaryen $("$WASM_OPT" --version | sed 's/.*version \([0-9]*\).*/\1/'))"
  # rustc's wasm32 target emits these post-MVP features; every current browser has them.
  # Memory packing splits the grammars' tables at their runs of zeros: 2.4 MB less raw, but
  # 170 KB more gzipped (what the page downloads), so it is skipped.
  if "$WASM_OPT" -O2 --skip-pass=memory-packing \
      --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
      --enable-mutable-globals --enable-reference-types --enable-multivalue \
      "$WASM_OUT" -o "$WASM_OUT.opt"; then
    mv "$WASM_OUT.opt" "$WASM_OUT"
  else
    rm -f "$WASM_OUT.opt"
    echo "build-wasm: warning: wasm-opt failed; keeping the unoptimised .wasm" >&2
  fi
else
  say "no node_modules/.bin/wasm-opt (npm package binaryen): skipping optimisation"
fi

raw=$(wc -c <"$WASM_OUT")
gz=$(gzip -9 -c "$WASM_OUT" | wc -c)
echo "wasm: $(commas "$raw") bytes, $(commas "$gz") gzipped ($WASM_OUT)"

if [ -f scripts/bundle-web.mjs ]; then
  say "node scripts/bundle-web.mjs"
  node scripts/bundle-web.mjs
fi
