"""The overhead of a Python `set_csr` over the Rust call (issue 15): the same CSR write
(xor_cipher's `key`, offset 0: window write, fence, SLOT_ERROR read) N times from Rust
(`scenic._native.rust_csr_loop`, the runtime's `Scu::csr_set_offset` in a loop), through the
native slot, and through `ScenicThread.set_csr`, against an in-process emulated NIC. The fence
waits for the device's next poll, so the same three for `get_csr` (a window read, no fence) give
the binding's own cost without that wait.

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
            t = {"set rust": _native.rust_csr_loop(native, KEY, 0, n)}
            t0 = time.perf_counter()
            for _ in range(n):
                native.csr_set_offset(0, KEY)
            t["set native"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            for _ in range(n):
                thread.set_csr(KEY, 0)
            t["set thread"] = time.perf_counter() - t0
            t["get rust"] = _native.rust_csr_loop(native, 0, 0, n, get=True)
            t0 = time.perf_counter()
            for _ in range(n):
                native.csr_get_offset(0)
            t["get native"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            for _ in range(n):
                thread.get_csr(0)
            t["get thread"] = time.perf_counter() - t0
            for name, secs in t.items():
                rows[name] = min(rows.get(name, float("inf")), per_call_us(secs, n))
        assert thread.get_csr(0) == KEY
    print(f"CSR access x {n} (best of 3), microseconds per call:")
    for op in ("set", "get"):
        rust = rows[f"{op} rust"]
        print(f"  {op}_csr  Rust {rust:8.3f}   native Slot {rows[f'{op} native']:8.3f} "
              f"(+{rows[f'{op} native'] - rust:.3f})   ScenicThread {rows[f'{op} thread']:8.3f} "
              f"(+{rows[f'{op} thread'] - rust:.3f})")
    print("figures: " + json.dumps(dict({k: round(v, 3) for k, v in rows.items()}, n=n)))


if __name__ == "__main__":
    main()
