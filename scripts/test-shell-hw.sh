#!/usr/bin/env bash
# The shell glue's checks (issue 17, docs/shell-hw.md), as `make -C shell-hw test` and CI run them:
#   1. lint   `verilator --lint-only -Wall` on every module of shell-hw/rtl/ (one file, one module
#             named like the file, with rtl/scenic_regs_pkg.sv) and on every file `scenicc link`
#             writes for the example builds in shell-hw/link-examples.txt (when that file exists);
#   2. benches every directory shell-hw/tb/NAME/ is one bench: `tb.sv` (top module `tb`) built
#             with the rtl/ files and the shared models of tb/common/ by `verilator --binary
#             --timing`, or, when it has a `main.cpp`, by `verilator --cc --exe --build` with that
#             harness (tb/common/ on its include path: scn.hpp reads the conformance scenarios). A bench prints one line per
#             scenario, `PASS <scenario>` or `FAIL <scenario>: why`, and exits 0 only when all
#             passed; a bench that fails to build or exits non-zero without a FAIL line counts as
#             one failure.
# Prints `N passed, N failed` and exits 1 on any failure. `--lint-only` stops after step 1.
# Set-up: Debian's verilator (5.x) and iverilog; as root, installed with apt-get when missing;
# otherwise the script says what to install and fails.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
hw=$root/shell-hw
build=${SHELL_HW_BUILD:-$root/target/shell-hw}
lint_only=0
[ "${1:-}" = "--lint-only" ] && lint_only=1

ensure_tools() {
    command -v verilator >/dev/null 2>&1 && command -v iverilog >/dev/null 2>&1 && return 0
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
        echo "error: shell-hw needs verilator (5.x) and iverilog (Debian: apt-get install verilator iverilog)" >&2
        exit 1
    fi
    echo "==> apt-get install verilator iverilog (for shell-hw)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq --no-install-recommends verilator iverilog >/dev/null 2>&1 ||
        { apt-get update -qq && apt-get install -y -qq --no-install-recommends verilator iverilog; } ||
        { echo "error: installing verilator and iverilog failed" >&2; exit 1; }
}

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "PASS $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }

pkg=$hw/rtl/scenic_regs_pkg.sv
# Every rtl module but the package, in a stable order.
rtl_modules() {
    find "$hw/rtl" -name '*.sv' ! -name 'scenic_regs_pkg.sv' | sort
}

lint_file() {
    local file=$1 top log
    top=$(basename "$file" .sv)
    log=$(mktemp)
    # shellcheck disable=SC2046
    if verilator --lint-only -Wall -I"$hw/rtl" "$pkg" $(rtl_modules | grep -vxF "$file") "$file" \
        --top-module "$top" >"$log" 2>&1; then
        pass "lint $(realpath --relative-to="$root" "$file")"
    else
        fail "lint $(realpath --relative-to="$root" "$file")"
        sed 's/^/    /' "$log"
    fi
    rm -f "$log"
}

lint_generated() {
    local list=$hw/link-examples.txt out scenicc
    [ -f "$list" ] || return 0
    cargo build -q -p scenicc || { fail "build scenicc for scenicc link"; return; }
    scenicc=${CARGO_TARGET_DIR:-$root/target}/debug/scenicc
    while read -r name args; do
        case "$name" in ''|'#'*) continue ;; esac
        out=$build/link/$name
        rm -rf "$out"
        # shellcheck disable=SC2086
        if ! "$scenicc" link $args -o "$out" >"$build/link-$name.log" 2>&1; then
            fail "scenicc link $name"
            sed 's/^/    /' "$build/link-$name.log"
            continue
        fi
        pass "scenicc link $name"
        while read -r f; do
            lint_generated_file "$f" "$out"
        done < <(find "$out" -name '*.sv' | sort)
    done <"$list"
}

# A generated .sv is linted with rtl/ and the other generated files of its build.
lint_generated_file() {
    local file=$1 out=$2 top log
    top=$(basename "$file" .sv)
    log=$(mktemp)
    # shellcheck disable=SC2046
    if verilator --lint-only -Wall -I"$hw/rtl" -I"$out" "$pkg" $(rtl_modules) \
        $(find "$out" -name '*.sv' ! -path "$file" | sort) "$file" --top-module "$top" >"$log" 2>&1; then
        pass "lint $(realpath --relative-to="$root" "$file")"
    else
        fail "lint $(realpath --relative-to="$root" "$file")"
        sed 's/^/    /' "$log"
    fi
    rm -f "$log"
}

common=$hw/tb/common
# A bench's own .sv files besides tb.sv, and the models every bench may use (tb/common/*.sv).
bench_sources() {
    find "$1" -name '*.sv' ! -name 'tb.sv' | sort
    find "$common" -name '*.sv' 2>/dev/null | sort
}

run_bench() {
    local dir=$1 name obj log bin
    name=$(basename "$dir")
    obj=$build/tb/$name
    log=$build/tb-$name.log
    rm -rf "$obj"
    mkdir -p "$obj"
    # shellcheck disable=SC2046
    if [ -f "$dir/main.cpp" ]; then
        verilator --cc --exe --build -j 2 -Wall -Wno-fatal -O2 --Mdir "$obj" -I"$hw/rtl" -I"$dir" \
            -I"$common" -CFLAGS "-I$common -std=c++17 -DSCENIC_REPO=\\\"$root\\\"" \
            "$pkg" $(rtl_modules) $(bench_sources "$dir") "$dir/tb.sv" \
            "$dir/main.cpp" --top-module tb -o tb >"$log" 2>&1
    else
        verilator --binary --timing -j 2 -Wall -Wno-fatal --Mdir "$obj" -I"$hw/rtl" -I"$dir" \
            -I"$common" "$pkg" $(rtl_modules) $(bench_sources "$dir") "$dir/tb.sv" \
            --top-module tb -o tb >"$log" 2>&1
    fi
    bin=$obj/tb
    if [ ! -x "$bin" ]; then
        fail "bench $name: did not build"
        tail -40 "$log" | sed 's/^/    /'
        return
    fi
    local out status lines
    out=$(cd "$obj" && timeout 600 ./tb 2>&1)
    status=$?
    lines=$(printf '%s\n' "$out" | grep -E '^(PASS|FAIL) ' || true)
    printf '%s\n' "$out" | grep -vE '^(PASS|FAIL) ' | sed 's/^/    /' | tail -20
    while IFS= read -r l; do
        [ -z "$l" ] && continue
        case "$l" in
            PASS\ *) pass "$name: ${l#PASS }" ;;
            FAIL\ *) fail "$name: ${l#FAIL }" ;;
        esac
    done <<<"$lines"
    if [ "$status" != 0 ] && ! printf '%s\n' "$lines" | grep -q '^FAIL '; then
        fail "bench $name: exited $status without a FAIL line"
    fi
}

ensure_tools
mkdir -p "$build"
echo "==> lint (verilator $(verilator --version | awk '{print $2}') --lint-only -Wall)"
while read -r f; do lint_file "$f"; done < <(rtl_modules)
lint_generated
if [ "$lint_only" = 0 ]; then
    echo "==> test benches"
    for d in "$hw"/tb/*/; do
        [ -f "$d/tb.sv" ] && run_bench "${d%/}"
    done
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
