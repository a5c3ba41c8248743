#!/usr/bin/env bash
# Installs what Whittle needs to build and test, and only what is missing:
#   apt:    clang lld llvm (C grammars for wasm32), chromium (browser tests), creduce cvise (baselines),
#           bubblewrap (the sandbox of whittle serve's jobs, and what ties a test to whittle reduce),
#           csmith and its headers (programs for the injected tcc bugs), dpkg-dev (apt-get source tcc),
#           tcc and valgrind (bench:generators' wrong-code part: tcc 0.9.27 is its compiler under test,
#           valgrind one of its judges of undefined behaviour)
#   tcc:    built from Debian's source package with --coverage (scripts/build-tcc.sh)
#   rustup: the wasm32-unknown-unknown target
#   cargo:  wasm-bindgen-cli at the version crate/Cargo.toml pins
#   npm:    node_modules from package-lock.json
#   python: a venv in .cache/python with Dask's distributed (the cluster tests; apt: python3-venv)
# Idempotent; when everything is present it only checks, in about a second.
# Runs as root, or as a user with sudo for the apt step. Never downloads a browser:
# the browser tests drive Debian's /usr/bin/chromium through playwright-core.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
[ -d "$HOME/.cargo/bin" ] && export PATH="$HOME/.cargo/bin:$PATH"

WASM_BINDGEN_VERSION=0.2.130   # must equal the `wasm-bindgen = "=..."` pin in crate/Cargo.toml

say() { echo "setup: $*"; }
die() { echo "setup: error: $*" >&2; exit 1; }

# --- apt packages: check each by a file it installs ---------------------------------------
declare -A APT_CHECK=(
  [clang]=/usr/bin/clang
  [lld]=/usr/bin/ld.lld
  [llvm]=/usr/bin/llvm-ar
  [chromium]=/usr/bin/chromium
  [creduce]=/usr/bin/creduce
  [cvise]=/usr/bin/cvise
  [bubblewrap]=/usr/bin/bwrap
  [csmith]=/usr/bin/csmith
  [libcsmith-dev]=/usr/include/csmith/csmith.h
  [dpkg-dev]=/usr/bin/dpkg-source
  [python3-venv]=/usr/share/doc/python3-venv
  [tcc]=/usr/bin/tcc
  [valgrind]=/usr/bin/valgrind
)
APT=(clang lld llvm chromium creduce cvise bubblewrap csmith libcsmith-dev dpkg-dev python3-venv tcc valgrind)
missing=()
for pkg in "${APT[@]}"; do
  [ -e "${APT_CHECK[$pkg]}" ] || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ]; then
    SUDO=()
  elif command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
  else
    die "need apt packages (${missing[*]}) but not root and no sudo: install them as root"
  fi
  say "apt-get install ${missing[*]}"
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${APT[@]}"
else
  say "apt packages present (${APT[*]})"
fi

# --- Rust ------------------------------------------------------------------------------------
command -v cargo >/dev/null 2>&1 && command -v rustup >/dev/null 2>&1 \
  || die "cargo/rustup not found: install Rust with rustup (https://rustup.rs), then rerun"

if rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "rust target wasm32-unknown-unknown present"
else
  say "rustup target add wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

have_bindgen="$(wasm-bindgen --version 2>/dev/null || true)"
if [ "$have_bindgen" = "wasm-bindgen $WASM_BINDGEN_VERSION" ]; then
  say "wasm-bindgen $WASM_BINDGEN_VERSION present"
else
  say "cargo install wasm-bindgen-cli --version $WASM_BINDGEN_VERSION (was: ${have_bindgen:-none}; takes a few minutes)"
  # Not --locked: its lock file pins a webpki-roots release crates.io no longer serves.
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force
fi

# --- npm -------------------------------------------------------------------------------------
command -v npm >/dev/null 2>&1 || die "npm not found: install Node.js 20 or later, then rerun"
# npm writes node_modules/.package-lock.json after every install; if package.json or the
# lock file is newer than it, node_modules is stale.
stamp=node_modules/.package-lock.json
if [ ! -f "$stamp" ] || [ package.json -nt "$stamp" ] || { [ -f package-lock.json ] && [ package-lock.json -nt "$stamp" ]; }; then
  if [ -f package-lock.json ]; then
    say "npm ci"
    npm ci --no-audit --no-fund
  else
    say "npm install"
    npm install --no-audit --no-fund
  fi
  touch "$stamp"
else
  say "node_modules up to date"
fi

# --- Python: Dask for the cluster tests (whittle reduce --cluster) ---------------------------
# Debian's python3 (python3-venv above), not whatever python3 comes first on PATH.
VENV=.cache/python
if "$VENV/bin/python" -c 'import distributed' 2>/dev/null; then
  say "$VENV has distributed $("$VENV/bin/python" -c 'import distributed; print(distributed.__version__)')"
else
  say "python venv $VENV with distributed (pip)"
  rm -rf "$VENV"
  /usr/bin/python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check distributed
fi

# --- tcc with coverage (the witness mode's compiler) -----------------------------------------
say "tcc with --coverage: $(bash scripts/build-tcc.sh)"
