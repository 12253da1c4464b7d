"""The paper's vocabulary (§7.3, pyCoyote's names) against the emulated NIC, on xor_cipher.sn,
whose `key` is CSR offset 0 (`set_csr(0x9f3c7a2b6e41d8c5, 0)`, the example in its header)."""

import pytest

from scenic import ScenicError, ScenicReconfig, ScenicThread

KEY = 0x9F3C7A2B6E41D8C5


def test_paper_example_verbatim(emu, packages):
    path = packages("xor_cipher")
    ScenicReconfig().reconfigure_app(2, path)
    scenic_thread = ScenicThread(2)
    scenic_thread.set_csr(KEY, 0)
    assert scenic_thread.get_csr(0) == KEY
    # No traffic reached the slot: device.md §3.2 PKT_SEQ resets to 0.
    assert scenic_thread.get_completed("remote_write") == 0


def test_reconfigure_a_running_slot_is_a_swap_that_carries_the_key(emu, packages):
    path = packages("xor_cipher")
    first = ScenicReconfig().reconfigure_app(2, path)
    assert first["bank"] == 0 and first["active"]
    ScenicThread(2).set_csr(KEY, 0)
    report = ScenicReconfig().reconfigure_app(2, path)
    # The same program again: every CSR carries (runtime.md, swap), now in the other bank.
    assert report["bank"] == 1
    assert "csr key" in report["carried"]
    thread = ScenicThread(2)
    assert thread.get_csr(0) == KEY
    # device.md §3.4: every ACTIVATE updates SWITCH_COUNT: the load's and the swap's.
    assert thread.get_completed("switch_count") == 2


def test_set_csr_refusals_carry_the_runtime_message(emu, packages):
    ScenicReconfig().reconfigure_app(1, packages("xor_cipher"))
    thread = ScenicThread(1)
    # words_ciphered (offset 2) is readonly; offset 4 is past the unit's four CSRs.
    with pytest.raises(ScenicError, match="readonly"):
        thread.set_csr(1, 2)
    assert thread.get_csr(2) == 0
    with pytest.raises(ScenicError, match="offset 4"):
        thread.get_csr(4)
    with pytest.raises(ScenicError, match="no slot register"):
        thread.get_completed("teleport")


def test_a_thread_follows_a_reconfiguration_by_another_object(emu, packages):
    ScenicReconfig().reconfigure_app(0, packages("xor_cipher"))
    thread = ScenicThread(0)
    thread.set_csr(7, 1)
    ScenicReconfig().reconfigure_app(0, packages("xor_cipher"))
    # The thread re-attaches to the new bank: next_key was carried.
    assert thread.get_csr(1) == 7
    thread.set_csr(8, 1)
    assert thread.get_csr(1) == 8


def test_nothing_loaded_is_an_error(emu):
    with pytest.raises(ScenicError, match="nothing was loaded"):
        ScenicThread(3).get_csr(0)
