"""Writing a file whole or not at all: a temporary file beside it, renamed over it.

`os.replace` is atomic on one file system, so a reader (or another pdcc of the same `make -j`) sees the old
file or the new one, never a part, and a failure at any point leaves the old file as it was.
"""

from __future__ import annotations

import os
import tempfile


def _new_file_mode() -> int:
    """The mode open() would give a new file; mkstemp's 0600 would hide reports from CI users."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_atomically(path: str, data: bytes) -> None:
    """Writes a temp file beside `path` and renames it over, so a failure at any point (a full disk)
    leaves an existing file untouched; the file keeps the mode it had, or gets open()'s default."""
    try:
        mode = os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        mode = _new_file_mode()
    fd, temp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)), prefix=".pdcc-")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        os.unlink(temp)
        raise
