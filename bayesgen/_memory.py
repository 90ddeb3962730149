"""Would an allocation fit? Checked before allocating, so a too-large request is named.

Without a check, a request such as ``sample(10**12)`` ends inside JAX or NumPy with an
out-of-memory error from deep inside the computation (or, on Linux, with the process
killed), after minutes of work. Callers estimate the bytes a request needs and call
`check_fits` first.
"""

from __future__ import annotations

import os


def available_bytes() -> int | None:
    """The memory this machine can give a process now, in bytes, or None if unknown.

    Linux's ``MemAvailable`` (free memory plus caches that can be dropped); elsewhere the
    free physical pages.
    """
    try:
        with open("/proc/meminfo", encoding="ascii") as stream:
            for line in stream:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, OSError, ValueError):
        return None


def format_bytes(n_bytes: float) -> str:
    """``n_bytes`` in words: ``"1.5 GiB"``, ``"8.0 TiB"``."""
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n_bytes < 1024 or unit == "PiB":
            return f"{n_bytes:.0f} {unit}" if unit == "bytes" else f"{n_bytes:.1f} {unit}"
        n_bytes /= 1024
    raise AssertionError("unreachable")


def check_fits(n_bytes: float, what: str, *, alternative: str = "") -> None:
    """Raise ``MemoryError`` if ``n_bytes`` exceeds the memory available now.

    Parameters
    ----------
    n_bytes : float
        The estimated size of the request, in bytes.
    what : str
        The request, as the message names it (``"sample(n_samples=10**12)"``).
    alternative : str, optional
        What the user can do instead, appended to the message.

    Raises
    ------
    MemoryError
        Naming the request, the bytes it needs and the bytes available.
    """
    available = available_bytes()
    if available is None or n_bytes <= available:
        return
    message = (
        f"{what} would need about {format_bytes(n_bytes)} of memory; "
        f"{format_bytes(available)} is available"
    )
    raise MemoryError(f"{message}; {alternative}" if alternative else f"{message}.")
