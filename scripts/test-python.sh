#!/usr/bin/env bash
# The Python runtime's checks (runtime/python, the `scenic` package; scripts/test.sh calls this):
#   1. cargo fmt --check and cargo clippy -D warnings of its crate, which is its own workspace
#      (the root workspace excludes it: an extension module does not link as a test binary)
#   2. scenicc built (the tests build the examples' packages with it)
#   3. a fresh venv; `pip install runtime/python` (pip fetches maturin from PyPI as the PEP 517
#      backend, maturin builds the extension with cargo); `pip install pytest numpy pandas matplotlib`
#   4. pytest runtime/python/tests against the emulated NIC (in process, `scenic.Emulator`)
# Set-up: python3 >= 3.9 with the venv module, and PyPI reachable (or pip's cache warm).
# Cargo's target directory is $CARGO_TARGET_DIR, else the workspace's target/, for maturin too.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target}

step() {
    printf '\n==> %s\n' "$*"
}

step "runtime/python: cargo fmt --check, cargo clippy -D warnings"
cargo fmt --manifest-path runtime/python/Cargo.toml -- --check
cargo clippy --manifest-path runtime/python/Cargo.toml --all-targets -- -D warnings

step "cargo build -p scenicc (the tests build example packages with it)"
cargo build -q -p scenicc

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
step "python3 -m venv; pip install ./runtime/python; pip install pytest numpy pandas matplotlib"
python3 -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q --disable-pip-version-check ./runtime/python
"$work/venv/bin/python" -m pip install -q --disable-pip-version-check pytest numpy pandas matplotlib

step "pytest runtime/python/tests"
SCENICC="$CARGO_TARGET_DIR/debug/scenicc" "$work/venv/bin/python" -m pytest -q -p no:cacheprovider runtime/python/tests
