"""The overhead of a Python `set_csr` over the Rust call (issue 15): the same CSR write
(xor_cipher's `key`, offset 0: window write, fence, SLOT_ERROR read) N times from Rust
(`scenic._native.rust_set_csr_loop`, the runtime's `Scu::csr_set_offset` in a loop), through the
native slot, and through `ScenicThread.set_csr`, against an in-process emulated NIC.

    SCENICC=target/debug/scenicc python bench/set_csr.py [N]

Prints the per-call figures and one `figures: {json}` line. Timing, not a test.
"""

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import scenic
from scenic import _native

REPO = Path(__file__).resolve().parents[3]
KEY = 0x9F3C7A2B6E41D8C5


def per_call_us(seconds: float, n: int) -> float:
    return seconds / n * 1e6


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    scenicc = os.environ.get("SCENICC", "scenicc")
    with tempfile.TemporaryDirectory() as out, scenic.Emulator() as emu:
        pkg = Path(out) / "xor_cipher"
        subprocess.run([scenicc, "build", str(REPO / "examples/xor_cipher.sn"), "-o", str(pkg)], check=True)
        os.environ["SCENIC_DEVICE"] = emu.device
        scenic.ScenicReconfig().reconfigure_app(0, pkg)
        thread = scenic.ScenicThread(0)
        native = thread.slot._native
        thread.set_csr(KEY, 0)  # attach once, outside the timings
        rows = {}
        for _ in range(3):  # best of three of each, interleaved
            rust = _native.rust_set_csr_loop(native, KEY, 0, n)
            t0 = time.perf_counter()
            for _ in range(n):
                native.csr_set_offset(0, KEY)
            t1 = time.perf_counter()
            for _ in range(n):
                thread.set_csr(KEY, 0)
            t2 = time.perf_counter()
            for name, secs in (("rust", rust), ("native", t1 - t0), ("thread", t2 - t1)):
                rows[name] = min(rows.get(name, float("inf")), per_call_us(secs, n))
        assert thread.get_csr(0) == KEY
    print(f"set_csr x {n} (best of 3), per call:")
    print(f"  Rust Scu::csr_set_offset        {rows['rust']:8.2f} us")
    print(f"  Python native Slot.csr_set_offset {rows['native']:6.2f} us  (+{rows['native'] - rows['rust']:.2f} us)")
    print(f"  Python ScenicThread.set_csr     {rows['thread']:8.2f} us  (+{rows['thread'] - rows['rust']:.2f} us)")
    print("figures: " + json.dumps({k: round(v, 3) for k, v in rows.items()} | {"n": n}))


if __name__ == "__main__":
    main()
