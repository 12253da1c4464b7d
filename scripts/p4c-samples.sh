#!/usr/bin/env bash
# Measures the P4 reader against p4c's own v1model STF samples (issue 18). A manual command, not
# part of CI: p4c's files are never committed. Usage:
#   scripts/p4c-samples.sh P4C_DIR [OUT_TSV]
# P4C_DIR is a checkout (or `git archive`) of https://github.com/p4lang/p4c holding
# testdata/p4_16_samples/. Takes every sample that has an .stf, includes v1model.p4 and has at
# most 150 lines (the issue's selection), runs `scenicc test X.p4 X.stf` (debug build, 60 s each)
# and classifies it:
#   pass     every STF check passed
#   refused  scenicc refused the program with a P4 E-code (outside the subset); the first code
#            and message are kept
#   wrong    the program was accepted but an STF check failed (a wrong result: a bug)
#   crash    a panic, a timeout or any exit other than 0/1
# Prints one line per sample and the totals; writes a TSV (sample, class, first error) to OUT_TSV.
set -uo pipefail
cd "$(dirname "$0")/.."
p4c=${1:?usage: scripts/p4c-samples.sh P4C_DIR [OUT_TSV]}
out=${2:-target/p4c-samples.tsv}
samples=$p4c/testdata/p4_16_samples
[ -d "$samples" ] || { echo "error: $samples is not a directory" >&2; exit 2; }
cargo build -q -p scenicc || exit 1
scenicc=$(realpath "${CARGO_TARGET_DIR:-target}/debug/scenicc")
: >"$out"
declare -A total=()
log=$(mktemp)
for stf in "$samples"/*.stf; do
    p4=${stf%.stf}.p4
    [ -f "$p4" ] || continue
    grep -q 'v1model.p4' "$p4" || continue
    [ "$(wc -l <"$p4")" -le 150 ] || continue
    name=$(basename "$p4" .p4)
    (cd "$samples" && timeout 60 "$scenicc" test --color never "$(basename "$p4")" "$(basename "$stf")") >"$log" 2>&1
    rc=$?
    first=$(grep -m1 -E '^(error|FAIL|thread .* panicked)' "$log" | cut -c1-160)
    if [ $rc = 0 ]; then
        class=pass
    elif [ $rc = 1 ] && grep -qE '^error\[E07' "$log"; then
        class=refused
    elif [ $rc = 1 ] && ! grep -q 'panicked' "$log"; then
        class=wrong
    else
        class=crash
        [ -n "$first" ] || first="exit $rc"
    fi
    total[$class]=$(( ${total[$class]:-0} + 1 ))
    printf '%s\t%s\t%s\n' "$name" "$class" "$first" >>"$out"
    printf '%-48s %-8s %s\n' "$name" "$class" "$first"
done
rm -f "$log"
all=0
for c in "${!total[@]}"; do all=$((all + total[$c])); done
echo "$all samples: pass ${total[pass]:-0}, refused ${total[refused]:-0}, wrong ${total[wrong]:-0}, crash ${total[crash]:-0} (details in $out)"
