#!/usr/bin/env bash
# The C and C++ runtime's checks (runtime/capi; scripts/test.sh calls this):
#   1. libscenic_c (cargo build -p scenic-capi) and scenicc built
#   2. include/scenic.h compiles as C11 (gcc -fsyntax-only -Wall -Wextra -Werror)
#   3. examples/paper.cpp built with g++ -std=c++17 against include/ and libscenic_c.so, and run
#      against an emulated device in its own process with examples/xor_cipher.sn's package:
#      it exits 0 only when every check it prints holds
#   4. examples/firewall.cpp likewise, by name, against a wired emulated device (frames on an
#      in-process wire) with examples/firewall.sn's package
# Set-up: gcc and g++ (Debian's build-essential). The header's agreement with the library's
# exports is `cargo test -p scenic-capi` (tests/header.rs), part of the workspace's tests.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
target=${CARGO_TARGET_DIR:-$root/target}

step() {
    printf '\n==> %s\n' "$*"
}

step "cargo build -p scenic-capi -p scenicc"
cargo build -q -p scenic-capi -p scenicc

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
step "gcc -std=c11 -fsyntax-only runtime/capi/include/scenic.h"
printf '#include <scenic.h>\n_Static_assert(sizeof(ScenicNotification) == 32, "layout");\nint main(void) { return scenic_last_error() == 0; }\n' >"$work/header.c"
gcc -std=c11 -Wall -Wextra -Werror -fsyntax-only -I runtime/capi/include "$work/header.c"

# Builds examples/$2.sn into a package and runtime/capi/examples/$1.cpp against the library, then
# runs the program with a fresh map path and the package.
run_example() {
    local program=$1 example=$2
    step "g++ runtime/capi/examples/$program.cpp, run against the emulated device"
    "$target/debug/scenicc" build "examples/$example.sn" -o "$work/$example" >/dev/null
    g++ -std=c++17 -Wall -Wextra -Werror -I runtime/capi/include \
        "runtime/capi/examples/$program.cpp" \
        -L "$target/debug" -lscenic_c -Wl,-rpath,"$target/debug" -o "$work/bin-$program"
    "$work/bin-$program" "$work/scenic-$program-$$" "$work/$example"
    echo "$program.cpp: every check held"
}

run_example paper xor_cipher
run_example firewall firewall
