"""docs/notebooks/firewall.ipynb, every code cell in order in one namespace, then its results
checked against what examples/firewall.sn says it does:

- every IPv4 packet is counted in `by_pod` at its source's second octet (the pod), packets and
  bytes (`packet.len`: the whole frame, here 14 + 20 + 8 + 64 = 106 bytes);
- a UDP packet to port 5000 matches no constant ACL entry, falls into class 0 (10 Gb/s, 256 KiB
  burst: far more than these bursts), and goes to the host unchanged;
- a `deny` entry drops the packet and counts it in `dropped`; removing it restores delivery.
"""

import json
import os
from pathlib import Path

import pytest

from conftest import REPO, _scenicc

NOTEBOOK = REPO / "docs" / "notebooks" / "firewall.ipynb"
FRAME_BYTES = 14 + 20 + 8 + 64


def run_notebook(tmp_path: Path, monkeypatch) -> dict:
    cells = json.loads(NOTEBOOK.read_text())["cells"]
    code = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    assert len(code) >= 8, "the walkthrough lost its cells"
    monkeypatch.setenv("SCENICC", _scenicc())
    monkeypatch.setenv("SCENIC_REPO", str(REPO))
    monkeypatch.setenv("SCENIC_NOTEBOOK_OUT", str(tmp_path))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.chdir(NOTEBOOK.parent)
    namespace: dict = {"__name__": "__notebook__"}
    for i, source in enumerate(code):
        try:
            exec(compile(source, f"{NOTEBOOK.name} code cell {i}", "exec"), namespace)
        except Exception as e:  # noqa: BLE001 - name the cell that failed
            pytest.fail(f"code cell {i} failed: {e!r}\n{source}")
    return namespace


def test_the_walkthrough_runs_and_its_numbers_are_the_firewalls(tmp_path, monkeypatch):
    pytest.importorskip("pandas")
    pytest.importorskip("matplotlib")
    ns = run_notebook(tmp_path, monkeypatch)
    first, second = ns["first"], ns["second"]

    assert len(ns["delivered"]) == sum(first.values()), "the first burst reaches the host whole"
    pods = ns["pods"]
    assert {int(p): int(n) for p, n in pods.packets.items()} == first
    assert {int(p): int(b) for p, b in pods.bytes.items()} == {
        p: n * FRAME_BYTES for p, n in first.items()
    }

    assert ns["culprit"] == 3, "pod 3 sent half of the first burst"
    denied = second[3]
    assert len(ns["delivered_after"]) == sum(second.values()) - denied
    assert all(f[27] != 3 for f in ns["delivered_after"]), "no frame of pod 3 got through"
    assert ns["dropped"] == denied
    assert {int(p): int(n) for p, n in ns["phase2"].items()} == second, "by_pod counts drops too"

    assert len(ns["restored"]) == 10, "removing the entry restores the pod's traffic"
    plot = Path(ns["plot_path"])
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
