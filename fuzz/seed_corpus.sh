#!/usr/bin/env bash
# Copies the example programs into the corpus of the `check` fuzz target, as seeds. The corpus is not
# committed (fuzz/.gitignore); run this once before the first `cargo fuzz run check`.
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p corpus/check
cp ../examples/*.sn corpus/check/
echo "seeded corpus/check with $(ls ../examples/*.sn | wc -l) examples"
