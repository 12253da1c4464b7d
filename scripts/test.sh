#!/usr/bin/env bash
# The whole test suite, exactly as CI runs it (.ci/run calls this script):
#   1. formatting     cargo fmt --all -- --check
#   2. lints          cargo clippy --workspace --all-targets -- -D warnings
#   3. tests          cargo test --workspace, with insta set to fail on snapshot mismatches
#                     instead of writing new snapshot files
#   4. runtimes       scripts/test-python.sh (the `scenic` Python package in a fresh venv, pytest)
#                     and scripts/test-cpp.sh (the C header and the C++ examples, run)
#   5. driver         scripts/test-kmod.sh (as root: kmod/ built with W=1 and sparse, then run in a
#                     QEMU guest against the emulated NIC; it installs Debian's kernel headers and
#                     image, QEMU and busybox itself; not as root it says so and skips)
#   6. goldens        tests that rewrite golden files under testsuite/ must leave them exactly as
#                     committed: `git status --porcelain -- testsuite/` must print nothing
#
# Set-up: a Rust toolchain from rustup (cargo, rustc, rustfmt, clippy). If rustfmt or clippy is
# missing and rustup is available, the script adds the component itself. Later issues that need more
# (e.g. the ap_types headers for HLS C-simulation) add their set-up here.
#
# The `scenicc sim` real-traffic test (testsuite/tests/sim_real_traffic.rs) needs root (network
# namespaces, a veth pair) and the tools ip (iproute2), tcpdump, ping (iputils-ping) and socat. As
# root, the script installs whichever are missing with apt-get, checks that a namespace can be created,
# and then sets SCENIC_REQUIRE_NETNS=1 so that the test fails instead of skipping if it cannot run.
# Not as root, it says so and the test skips ("skipping: needs root to create network namespaces").
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

# Installs (as root, with apt-get, quietly) what the real-traffic test needs, and requires the test
# to run when everything is there. Idempotent: installs only what is missing.
ensure_netns_tools() {
    if [ "$(id -u)" != 0 ]; then
        echo "note: not root: the real-traffic test (sim_real_traffic) will skip: needs root to create network namespaces"
        return 0
    fi
    local missing=() tool
    for tool in ip:iproute2 tcpdump:tcpdump ping:iputils-ping socat:socat; do
        command -v "${tool%%:*}" >/dev/null 2>&1 || missing+=("${tool#*:}")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        if ! command -v apt-get >/dev/null 2>&1; then
            echo "note: cannot install ${missing[*]} (no apt-get): the real-traffic test will skip"
            return 0
        fi
        step "apt-get install ${missing[*]} (for the real-traffic test)"
        local log
        log=$(mktemp)
        export DEBIAN_FRONTEND=noninteractive
        if ! apt-get install -y -qq --no-install-recommends "${missing[@]}" >"$log" 2>&1; then
            # The package lists may be missing or stale (fresh containers): refresh them once.
            if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
                cat "$log" >&2
                rm -f "$log"
                echo "note: installing ${missing[*]} failed (above): the real-traffic test will skip"
                return 0
            fi
        fi
        rm -f "$log"
    fi
    # Root without the capabilities (an unprivileged container) cannot create namespaces.
    local probe="scntprobe$$"
    if ! ip netns add "$probe" >/dev/null 2>&1; then
        echo "note: cannot create a network namespace here: the real-traffic test will skip"
        return 0
    fi
    ip netns del "$probe" >/dev/null 2>&1 || true
    export SCENIC_REQUIRE_NETNS=1
}

# Fetches AMD's Apache-2.0 ap_types headers (never committed) for the HLS C-simulation tests and
# exports AP_TYPES; with CI=true those tests fail rather than skip when the headers are missing.
# Needs g++, python3 with pip, and unzip; as root, installs what is missing with apt-get.
ensure_ap_types() {
    local missing=()
    command -v g++ >/dev/null 2>&1 || missing+=(g++)
    command -v unzip >/dev/null 2>&1 || missing+=(unzip)
    python3 -m pip --version >/dev/null 2>&1 || missing+=(python3-pip)
    if [ ${#missing[@]} -gt 0 ]; then
        if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
            echo "error: the HLS C-simulation tests need ${missing[*]}; install them (Debian: apt-get install ${missing[*]})" >&2
            exit 1
        fi
        step "apt-get install ${missing[*]} (for HLS C-simulation)"
        export DEBIAN_FRONTEND=noninteractive
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1 ||
            { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}"; }
    fi
    step "scripts/fetch-ap-types.sh (AMD ap_types headers from the hls4ml==1.3.0 wheel)"
    AP_TYPES=$(scripts/fetch-ap-types.sh)
    export AP_TYPES
    echo "AP_TYPES=$AP_TYPES"
}

# The PNG plots of `scenicc cc-sim` draw their text with a system font (DejaVu Sans, Debian's
# fonts-dejavu-core); without one only the SVGs are written (ir/ccsim/tests/plots.rs checks both).
# As root, installs it with apt-get when missing.
ensure_plot_font() {
    [ -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] && return 0
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
        echo "note: no DejaVu Sans font: the cc-sim tests check SVG plots only (install fonts-dejavu-core)"
        return 0
    fi
    step "apt-get install fonts-dejavu-core (for the PNG plots of cc-sim)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq --no-install-recommends fonts-dejavu-core >/dev/null 2>&1 ||
        { apt-get update -qq && apt-get install -y -qq --no-install-recommends fonts-dejavu-core; }
}

# The Python runtime's tests (scripts/test-python.sh) make a venv: Debian's python3 needs
# python3-venv for that. As root, installs it when `python3 -m venv` is missing.
ensure_python_venv() {
    python3 -c 'import venv, ensurepip' >/dev/null 2>&1 && return 0
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
        echo "error: the Python runtime's tests need python3's venv module (Debian: apt-get install python3-venv)" >&2
        exit 1
    fi
    step "apt-get install python3-venv (for the Python runtime's tests)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq --no-install-recommends python3-venv >/dev/null 2>&1 ||
        { apt-get update -qq && apt-get install -y -qq --no-install-recommends python3-venv; }
}

ensure_component fmt rustfmt
ensure_component clippy clippy
ensure_netns_tools
ensure_ap_types
ensure_plot_font
ensure_python_venv

step "cargo fmt --all -- --check"
cargo fmt --all -- --check

step "scripts/module_cycles.py (no crate's modules import each other in a cycle)"
python3 scripts/module_cycles.py

step "cargo clippy --workspace --all-targets -- -D warnings"
cargo clippy --workspace --all-targets -- -D warnings

step "cargo doc --workspace --no-deps (RUSTDOCFLAGS=-D warnings: every doc link resolves)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps

step "cargo test --workspace (INSTA_UPDATE=no CI=true)"
export INSTA_UPDATE=no
export CI=true
cargo test --workspace

step "scripts/test-python.sh (the scenic Python package in a fresh venv; pytest against the emulated NIC)"
scripts/test-python.sh

step "scripts/test-cpp.sh (scenic.h as C11; the C++ examples built with g++ and run against the emulated NIC)"
scripts/test-cpp.sh

step "scripts/test-kmod.sh (the driver in a QEMU guest against the emulated NIC)"
scripts/test-kmod.sh

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
