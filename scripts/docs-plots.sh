#!/usr/bin/env bash
# Regenerates the plots that docs/cc-sim.md shows (docs/img/cc-sim/*.svg) from the shipped
# examples and scenarios. The SVGs are deterministic for one seed: run this after changing the
# simulator, a shipped controller or scenario, or the plots, and commit the result.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
dest=docs/img/cc-sim
mkdir -p "$dest"
cargo build --release -q -p scenicc
scenicc=target/release/scenicc
run() { # NAME PROGRAM SCENARIO [extra args]
    local name=$1 program=$2 scenario=$3
    shift 3
    "$scenicc" -q cc-sim "examples/$program.sn" --scenario "examples/scenarios/$scenario.toml" \
        --out "$out/$name" "$@" >/dev/null
    for plot in rates queue fct_slowdown; do
        if [ -e "$out/$name/$plot.svg" ]; then
            cp "$out/$name/$plot.svg" "$dest/${name}_$plot.svg"
        fi
    done
}
run two dcqcn dcqcn_two_flows
run hpcc8 hpcc hpcc_incast8
run websearch dcqcn websearch_mix
run swap dcqcn swap_to_timely --swap 10ms=examples/timely.sn
echo "wrote $(ls "$dest" | wc -l) plots into $dest"
