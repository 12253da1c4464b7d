#!/usr/bin/env bash
# The whole test suite, exactly as CI runs it (.ci/run calls this script):
#   1. formatting     cargo fmt --all -- --check
#   2. lints          cargo clippy --workspace --all-targets -- -D warnings
#   3. tests          cargo test --workspace, with insta set to fail on snapshot mismatches
#                     instead of writing new snapshot files
#   4. goldens        tests that rewrite golden files under testsuite/ must leave them exactly as
#                     committed: `git status --porcelain -- testsuite/` must print nothing
#
# Set-up: none beyond a Rust toolchain from rustup (cargo, rustc, rustfmt, clippy). If rustfmt or
# clippy is missing and rustup is available, the script adds the component itself. Later issues that
# need more (e.g. the ap_types headers for HLS C-simulation) add their set-up here.
set -euo pipefail
cd "$(dirname "$0")/.."

step() {
    printf '\n==> %s\n' "$*"
}

# Adds a rustup component if its cargo subcommand is missing.
ensure_component() {
    local subcommand=$1 component=$2
    if ! cargo "$subcommand" --version >/dev/null 2>&1; then
        if command -v rustup >/dev/null 2>&1; then
            step "rustup component add $component"
            rustup component add "$component"
        else
            echo "error: \`cargo $subcommand\` is missing and rustup is not available to add $component" >&2
            exit 1
        fi
    fi
}

ensure_component fmt rustfmt
ensure_component clippy clippy

step "cargo fmt --all -- --check"
cargo fmt --all -- --check

step "cargo clippy --workspace --all-targets -- -D warnings"
cargo clippy --workspace --all-targets -- -D warnings

step "cargo test --workspace (INSTA_UPDATE=no CI=true)"
export INSTA_UPDATE=no
export CI=true
cargo test --workspace

step "goldens: git status --porcelain -- testsuite/"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    changes=$(git status --porcelain --untracked-files=all -- testsuite/)
    if [ -n "$changes" ]; then
        echo "$changes"
        git --no-pager diff -- testsuite/
        echo "error: files under testsuite/ differ from what is committed (see above);" >&2
        echo "       review the changes and commit them, or fix the code that produced them" >&2
        exit 1
    fi
    echo "ok: testsuite/ matches the commit"
else
    echo "skipped: not a git checkout, cannot compare goldens with the commit"
fi

step "all checks passed"
