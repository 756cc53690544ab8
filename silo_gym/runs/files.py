"""Reading the files of a run directory: regular files only, each up to a bound.

A run directory is evidence that anyone may have handed over, so its files are not trusted to be
files: a FIFO in place of ``trace.jsonl`` would block its reader forever, and a link to
``/dev/zero`` (or any endless file) would be read until memory runs out. :func:`read_run_file`
refuses both with an ``OSError`` whose ``strerror`` says what the path is, so every reader that
names an unreadable file (``read_run``: the ``run_invalid`` error; ``view``: the row of the run)
says why.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from ..errors import SiloGymError

__all__ = ["MAX_RUN_FILE_BYTES", "RUN_FILES", "NotARegularFile", "RunFileTooLarge", "read_run_file"]

#: The files of a run directory (silo-format §6.1), in the order a run writes them: the trace as the
#: episode goes, then ``state-diff.json`` and ``result.json`` when it ends, ``run.json`` last. A
#: directory holding any of them is a run. The one list of them: readers, the viewer, replay's
#: refusals and the Ray backend's copies all use it.
RUN_FILES: tuple[str, ...] = ("trace.jsonl", "state-diff.json", "result.json", "run.json")

#: The most bytes read of one run file (256 MiB): far above any run's trace (a 100-call trace of a
#: large world is a few MB), far below what exhausts a machine's memory.
MAX_RUN_FILE_BYTES = 256 * 2**20

_CHUNK = 1 << 20

_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class NotARegularFile(OSError, SiloGymError):
    """The path is a FIFO, a device or a socket (``strerror`` says which)."""


class RunFileTooLarge(OSError, SiloGymError):
    """The file holds more than :data:`MAX_RUN_FILE_BYTES`."""


def _kind(mode: int) -> str:
    return next((words for test, words in _KINDS if test(mode)), "not a regular file")


def _check_regular(mode: int, path: Path) -> None:
    if stat.S_ISDIR(mode):  # what open() itself says of one
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    if not stat.S_ISREG(mode):
        raise NotARegularFile(errno.EINVAL, f"it is {_kind(mode)}, not a regular file", str(path))


def read_run_file(path: str | os.PathLike[str]) -> bytes:
    """The bytes of the regular file at ``path`` (a symbolic link is followed), read up to
    :data:`MAX_RUN_FILE_BYTES` whatever size the file claims.

    Raises:
        FileNotFoundError: nothing is there.
        IsADirectoryError: a directory is there.
        NotARegularFile: a FIFO, a device or a socket is there; it is never opened for reading in
            a way that blocks (``O_NONBLOCK``).
        RunFileTooLarge: the file holds more than the bound.
        OSError: any other error reading it (permissions).
    """
    path = Path(path)
    limit = MAX_RUN_FILE_BYTES
    _check_regular(os.stat(path).st_mode, path)  # a FIFO or a device is not even opened
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    try:
        _check_regular(os.fstat(fd).st_mode, path)  # it was swapped between the two looks
        chunks: list[bytes] = []
        total = 0
        while True:
            chunk = os.read(fd, min(_CHUNK, limit + 1 - total))
            if not chunk:
                return b"".join(chunks)
            total += len(chunk)
            if total > limit:
                raise RunFileTooLarge(errno.EFBIG, f"it holds more than {limit} bytes, the most silo_gym reads of "
                                                   "a run file", str(path))
            chunks.append(chunk)
    finally:
        os.close(fd)
