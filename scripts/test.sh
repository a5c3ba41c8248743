#!/usr/bin/env bash
# Everything `npm test` checks, in order; stops at the first failure with a non-zero status.
#   1. scripts/setup.sh                  install whatever is missing (fast when all is there)
#   2. cargo test --workspace --release  all Rust tests (unit, integration, CLI)
#   3. scripts/build-wasm.sh             the wasm engine in web/pkg and the page bundle
#      npm run typecheck                 tsc --noEmit: the page's // @ts-check files against
#                                        web/src/types.js and web/pkg/whittle.d.ts
#   4. cargo build --release -p whittle-cli  the native binary the end-to-end tests run
#   5. node --test tests/**/*.test.mjs   end-to-end tests: CLI, server, headless chromium
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
[ -d "$HOME/.cargo/bin" ] && export PATH="$HOME/.cargo/bin:$PATH"

start=$SECONDS
step() { echo; echo "=== test: $* ($((SECONDS - start)) s so far)"; }

step "setup"
bash scripts/setup.sh

step "cargo test --workspace --release"
cargo test --workspace --release

step "build wasm"
bash scripts/build-wasm.sh

step "typecheck (tsc --noEmit)"
npm run --silent typecheck

step "cargo build --release -p whittle-cli"
cargo build --release -p whittle-cli

step "end-to-end tests"
mapfile -t files < <(find tests -name node_modules -prune -o -type f -name '*.test.mjs' -print | sort)
if [ ${#files[@]} -eq 0 ]; then
  echo "no tests/**/*.test.mjs files yet"
else
  printf '  %s\n' "${files[@]}"
  # One test file at a time: browser tests each start a server and a chromium.
  node --test --test-reporter=spec --test-concurrency=1 "${files[@]}"
fi

echo
echo "=== test: all passed in $((SECONDS - start)) s"
