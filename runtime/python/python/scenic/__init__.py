"""The SCENIC runtime for Python.

A thin layer over the Rust crate ``scenic-runtime``: every check (names from the package's
manifest, value widths, actions, the hot-swap rules) is the runtime's, and its refusals arrive
as :class:`ScenicError` with the runtime's message. Two vocabularies:

* the paper's (pyCoyote's): ``ScenicReconfig().reconfigure_app(slot, path)``,
  ``ScenicThread(slot).set_csr(value, offset)``, ``get_csr(offset)``, ``get_completed(op)``;
* by name: ``Device(name).slot(k)`` with ``load``, ``swap``, ``csr[...]``, ``tables[...]``,
  ``counters[...]``, ``maps[...]`` and ``notifications(timeout=...)``.

See docs/python.md.
"""

from __future__ import annotations

import os
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

from scenic._native import Device as _NativeDevice
from scenic._native import Emulator, Notification, ScenicError
from scenic._native import Slot as _NativeSlot

__all__ = [
    "Device",
    "Slot",
    "Emulator",
    "Notification",
    "ScenicError",
    "ScenicReconfig",
    "ScenicThread",
    "default_device",
]

Value = Union[int, str]


def default_device() -> str:
    """The device the paper's classes open when given none: ``$SCENIC_DEVICE``, else ``emu:emu0``."""
    return os.environ.get("SCENIC_DEVICE", "emu:emu0")


def _text(value: Value) -> str:
    # The runtime parses keys and arguments in the STF `add` syntax; an int is its decimal text.
    if isinstance(value, bool):
        raise ScenicError(f"{value!r}: a key or argument is an int or a string, not a bool")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return value
    raise ScenicError(f"{value!r}: a key or argument is an int or a string (STF syntax)")


def _numpy() -> Any:
    try:
        import numpy
    except ImportError:
        return None
    return numpy


class Csrs:
    """``slot.csr``: the running unit's CSRs by name (``slot.csr["dropped"]``) or word offset."""

    def __init__(self, slot: "_NativeSlot") -> None:
        self._slot = slot

    def __getitem__(self, key: Union[str, int]) -> int:
        if isinstance(key, int):
            return self._slot.csr_get_offset(key)
        return self._slot.csr_get(key)

    def __setitem__(self, key: Union[str, int], value: int) -> None:
        if isinstance(key, int):
            self._slot.csr_set_offset(key, value)
        else:
            self._slot.csr_set(key, value)

    def __iter__(self) -> Iterator[str]:
        return iter([name for name, _, _, _ in self._slot.csr_list()])

    def __len__(self) -> int:
        return len(self._slot.csr_list())

    def items(self) -> List[Tuple[str, int]]:
        """Every CSR's name and value, in offset order."""
        return [(name, self._slot.csr_get(name)) for name, _, _, _ in self._slot.csr_list()]


class Table:
    """One match-action table of the running unit (``slot.tables["acl"]``)."""

    def __init__(self, slot: "_NativeSlot", name: str) -> None:
        self._slot = slot
        self.name = name

    @property
    def keys(self) -> List[str]:
        """The table's key names (``ip.src``, ...), in key order."""
        return self._slot.table_keys(self.name)

    def _key_texts(self, keys: Union[Mapping[str, Value], Sequence[Value]]) -> List[str]:
        if isinstance(keys, Mapping):
            names = self.keys
            unknown = [k for k in keys if k not in names]
            if unknown:
                raise ScenicError(
                    f"table `{self.name}` has no key {', '.join(map(repr, unknown))} "
                    f"(keys: {', '.join(names)}); nothing was sent to the device"
                )
            # A key left out matches anything, as `_` does (refused for an exact key).
            return [_text(keys.get(n, "_")) for n in names]
        return [_text(k) for k in keys]

    def add(
        self,
        keys: Union[Mapping[str, Value], Sequence[Value]],
        action: str,
        *args: Value,
        priority: Optional[int] = None,
    ) -> int:
        """Adds an entry; the handle. ``keys``: a dict by key name (a missing key is ``_``) or a
        list in key order, each an int or STF text (``"10.0.0.0/8"``, ``"7000..=7099"``, ``"_"``)."""
        return self._slot.table_add(
            self.name, self._key_texts(keys), action, [_text(a) for a in args], priority
        )

    def modify(self, handle: int, action: str, *args: Value) -> None:
        """Replaces entry ``handle``'s action and arguments in one step."""
        self._slot.table_modify(self.name, handle, action, [_text(a) for a in args])

    def remove(self, handle: int) -> None:
        """Removes entry ``handle``."""
        self._slot.table_remove(self.name, handle)

    def clear(self) -> None:
        """Removes every run-time entry."""
        self._slot.table_clear(self.name)

    def set_default(self, action: str, *args: Value) -> None:
        """Sets the table's default action."""
        self._slot.table_set_default(self.name, action, [_text(a) for a in args])


class Map:
    """One map of the running unit (``slot.maps["subnets"]``): iterates ``(key, value)`` ints."""

    def __init__(self, slot: "_NativeSlot", name: str) -> None:
        self._slot = slot
        self.name = name

    def items(self) -> List[Tuple[int, int]]:
        """Every entry, read from the device now."""
        return self._slot.map_entries(self.name)

    def __iter__(self) -> Iterator[Tuple[int, int]]:
        return iter(self.items())

    def __len__(self) -> int:
        return len(self.items())

    def __getitem__(self, key: int) -> int:
        value = self._slot.map_get(self.name, key)
        if value is None:
            raise KeyError(key)
        return value

    def get(self, key: int, default: Optional[int] = None) -> Optional[int]:
        value = self._slot.map_get(self.name, key)
        return default if value is None else value

    def __contains__(self, key: object) -> bool:
        return isinstance(key, int) and self._slot.map_get(self.name, key) is not None

    def __setitem__(self, key: int, value: int) -> None:
        self._slot.map_insert(self.name, key, value)

    def __delitem__(self, key: int) -> None:
        if not self._slot.map_remove(self.name, key):
            raise KeyError(key)

    def to_pandas(self) -> Any:
        """The entries as a pandas DataFrame with columns ``key`` and ``value`` (needs pandas)."""
        import pandas

        return pandas.DataFrame(self.items(), columns=["key", "value"])


class _Named:
    def __init__(self, slot: "_NativeSlot", which: int, kind: str) -> None:
        self._slot = slot
        self._which = which
        self._kind = kind

    def _names(self) -> List[str]:
        return self._slot.names()[self._which]

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())

    def __contains__(self, name: object) -> bool:
        return name in self._names()


class Tables(_Named):
    """``slot.tables``: the unit's tables by name."""

    def __init__(self, slot: "_NativeSlot") -> None:
        super().__init__(slot, 0, "table")

    def __getitem__(self, name: str) -> Table:
        self._slot.table_keys(name)  # the runtime's error for an unknown name, now
        return Table(self._slot, name)


class Counters(_Named):
    """``slot.counters``: ``slot.counters["by_pod"]`` is every cell as ``(packets, bytes)``: a
    NumPy ``uint64`` array of shape ``(size, 2)`` when NumPy is importable, else a list."""

    def __init__(self, slot: "_NativeSlot") -> None:
        super().__init__(slot, 1, "counter")

    def __getitem__(self, name: str) -> Any:
        cells = self._slot.counter_read_all(name)
        np = _numpy()
        if np is None:
            return cells
        return np.array(cells, dtype=np.uint64).reshape(len(cells), 2)

    def reset(self, name: str, index: Optional[int] = None) -> None:
        """Zeroes cell ``index`` of counter ``name``, or every cell."""
        self._slot.counter_reset(name, index)


class Maps(_Named):
    """``slot.maps``: the unit's maps by name."""

    def __init__(self, slot: "_NativeSlot") -> None:
        super().__init__(slot, 2, "map")

    def __getitem__(self, name: str) -> Map:
        if name not in self._names():
            self._slot.map_entries(name)  # raises the runtime's error naming the maps
        return Map(self._slot, name)


class Slot:
    """A slot of a device, driven by the names of the package loaded into it."""

    def __init__(self, native: "_NativeSlot") -> None:
        self._native = native
        self.csr = Csrs(native)
        self.tables = Tables(native)
        self.counters = Counters(native)
        self.maps = Maps(native)

    @property
    def index(self) -> int:
        """The slot's index."""
        return self._native.index

    @property
    def unit(self) -> str:
        """The running unit's name."""
        return self._native.unit

    def load(self, path: Union[str, "os.PathLike[str]"], unit: Optional[str] = None) -> Dict[str, Any]:
        """Loads the package directory ``path`` (``scenicc build`` output) and activates it."""
        return self._native.load(os.fspath(path), unit)

    def swap(
        self,
        path: Union[str, "os.PathLike[str]"],
        unit: Optional[str] = None,
        carry: bool = True,
        warm_up: float = 0.0,
    ) -> Dict[str, Any]:
        """Hitless replacement of the running unit, carrying state where the layouts agree."""
        return self._native.swap(os.fspath(path), unit, carry, warm_up)

    def notifications(self, timeout: float = 0.0, max: int = 64) -> List[Notification]:
        """The notifications raised since the last read, waiting up to ``timeout`` s for one."""
        return self._native.notifications(timeout, max)

    def register(self, name: str) -> int:
        """A slot register of device.md §3.2 by name (``PKT_SEQ``, ``DROP_PROGRAM``, ...)."""
        return self._native.register(name)

    def __repr__(self) -> str:
        return f"scenic.Slot({self.index})"


class Device:
    """An open SCENIC device: ``Device("emu:emu0")`` (``scenic nic up emu0``), a map path, or
    ``Emulator().device``."""

    def __init__(self, name: Optional[str] = None) -> None:
        self._native = _NativeDevice(default_device() if name is None else name)

    @property
    def name(self) -> str:
        return self._native.name

    @property
    def scu_slots(self) -> int:
        """The number of SCU slots."""
        return self._native.scu_slots

    @property
    def version(self) -> Tuple[int, int]:
        """The device interface version, ``(major, minor)``."""
        return self._native.version

    @property
    def slow_path_slot(self) -> Optional[int]:
        """The slot the slow path goes through (device.md §2.3), ``None``: straight to the host.
        Setting it is fenced; a slot that is not an SCU slot is refused and the old value kept."""
        return self._native.slow_path_slot

    @slow_path_slot.setter
    def slow_path_slot(self, slot: Optional[int]) -> None:
        self._native.slow_path_slot = slot

    def slot(self, k: int) -> Slot:
        """Slot ``k``."""
        return Slot(self._native.slot(k))

    def fence(self) -> int:
        """Waits until every earlier write reached the device."""
        return self._native.fence()

    def __repr__(self) -> str:
        return f"scenic.Device({self.name!r})"


class ScenicReconfig:
    """The paper's reconfiguration object (pyCoyote's ``CoyoteReconfig``)."""

    def __init__(self, device: Optional[str] = None) -> None:
        self._device = Device(device)

    def reconfigure_app(self, slot: int, path: Union[str, "os.PathLike[str]"]) -> Dict[str, Any]:
        """Puts the package at ``path`` into ``slot``: a hitless swap (state carried where the
        layouts agree) when a unit runs there, else a load."""
        return self._device.slot(slot)._native.reconfigure(os.fspath(path))


class ScenicThread:
    """The paper's per-slot handle (pyCoyote's ``CoyoteThread``): CSRs by word offset."""

    def __init__(self, slot: int, device: Optional[str] = None) -> None:
        self._slot = Device(device).slot(slot)
        self._native = self._slot._native

    @property
    def slot(self) -> Slot:
        """The same slot with the named API."""
        return self._slot

    def set_csr(self, value: int, offset: int) -> None:
        """Writes ``value`` to the CSR at word ``offset`` (refused when readonly or too wide)."""
        self._native.csr_set_offset(offset, value)

    def get_csr(self, offset: int) -> int:
        """Reads the CSR at word ``offset``."""
        return self._native.csr_get_offset(offset)

    def get_completed(self, op: str) -> int:
        """How many ``op`` the slot completed: ``"remote_write"``, ``"remote_read"`` or
        ``"remote_send"`` (inputs the slot took, ``PKT_SEQ``), or any slot register of
        device.md §3.2 by name (``"out_host_pkts"``, ``"drop_program"``, ...)."""
        return self._native.completed(op)
