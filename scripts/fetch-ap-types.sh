#!/usr/bin/env bash
# Fetches AMD's Apache-2.0 arbitrary-precision headers (ap_int.h, ap_fixed.h, ...) for HLS
# C-simulation and prints the directory that holds them (use it as AP_TYPES).
#
# They come from the PyPI wheel hls4ml==1.3.0 (hls4ml/templates/vivado/ap_types/), downloaded with
# `pip download --no-deps` and unpacked into a cache directory; they are never committed. Only the
# ap_* headers and etc/ are kept: scenicc's own hls_stream.h and ap_axi_sdata.h shims are used
# instead of the wheel's hls_stream.h (backend-hls/shims/).
#
# Cache: $SCENIC_CACHE (default ~/.cache/scenicc); a second run reuses what the first fetched.
# Needs python3 with pip and unzip (Debian: python3-pip, unzip).
set -euo pipefail

cache=${SCENIC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/scenicc}
dest=$cache/ap_types-hls4ml-1.3.0
if [ -f "$dest/ap_int.h" ] && [ -f "$dest/etc/ap_private.h" ]; then
    echo "$dest"
    exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m pip download --quiet --no-deps --only-binary=:all: --dest "$work" 'hls4ml==1.3.0' >&2
wheel=$(ls "$work"/hls4ml-1.3.0-*.whl)
unzip -q "$wheel" 'hls4ml/templates/vivado/ap_types/*' -d "$work/unpacked"
src=$work/unpacked/hls4ml/templates/vivado/ap_types
mkdir -p "$dest.tmp/etc"
cp "$src"/ap_*.h "$dest.tmp/"
cp "$src"/etc/*.h "$dest.tmp/etc/"
rm -f "$dest.tmp/ap_shift_reg.h" "$dest.tmp/ap_float.h"
rm -rf "$dest"
mv "$dest.tmp" "$dest"
echo "$dest"
