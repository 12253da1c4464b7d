"""docs/python.md's paper example runs as written: its first ```python block, executed in a
directory holding `out/xor_cipher`, against an emulated device ($SCENIC_DEVICE)."""

import contextlib
import io
import os
import re

from conftest import REPO


def paper_example() -> str:
    text = (REPO / "docs" / "python.md").read_text()
    section = text.split("## The paper's example", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "docs/python.md: no ```python block under `The paper's example`"
    return match.group(1)


def test_paper_example_in_the_docs_runs_verbatim(emu, packages, tmp_path, monkeypatch):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "xor_cipher").symlink_to(packages("xor_cipher"))
    monkeypatch.chdir(tmp_path)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(paper_example(), "docs/python.md", "exec"), {})
    # The key reads back (offset 0 is `key`, bit<64>); no input reached slot 2 (PKT_SEQ resets to 0).
    assert printed.getvalue() == "True 0\n"
    assert os.environ["SCENIC_DEVICE"] == emu.device
