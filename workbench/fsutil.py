"""Derived state on disk: files appear whole or not at all (atomic writes, build folders swapped
in), and what does not load is set aside and rebuilt, never fatal; the build folders of killed
processes are removed on the next start. Every recovery says so in one line naming the file
(logger "workbench.recovery"; the CLI prints it on stderr)."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import logging
import os
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from workbench.errors import WorkbenchError

log = logging.getLogger("workbench.recovery")

# fresh_temp_dir names build folders ".<target>.<pid>.<random>.building", atomic_write_bytes its temp
# files ".<name>.<pid>.<random>.tmp", atomic_replace_dir the index it swaps out ".<name>.old-<pid>":
# the pid lets the next start remove what a killed process left (remove_dead_builds, remove_leftovers)
_BUILDING = re.compile(r"^\..+\.(\d+)\.[^.]+\.building$")
_TEMP_FILE = re.compile(r"^\..+\.(\d+)\.[^.]+\.tmp$")
_OLD_DIR = re.compile(r"^\..+\.(?:old|removed)-(\d+)$")  # removed-: a query-set version being removed
# a temp file of an older release (no pid in its name) is stale once no write can still be running
STALE_TEMP_S = 24 * 3600


def _umask() -> int:
    # os.umask can only be read by setting it; set it straight back (process-wide, so keep it short).
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write_bytes(path: Path, data: bytes) -> None:
    if path.exists() and not path.is_file() and not path.is_dir():
        # A device or a pipe the user named (`--out /dev/null`, /dev/stdout): a rename would replace
        # the device itself with a regular file, so write into it; there is nothing half-written to leave.
        with open(path, "wb") as fh:
            fh.write(data)
        return
    guard_state_path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp")
    try:
        # mkstemp creates 0600; a file the user asked for gets the mode any other program would give it.
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        if exc.filename is None:  # a write or fsync names no file: the message must name the one being written
            raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from exc
        raise
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def fresh_temp_dir(beside: Path) -> Path:
    """A new empty directory next to ``beside`` (same filesystem, so rename is atomic)."""
    guard_state_path(beside)
    beside.parent.mkdir(parents=True, exist_ok=True)
    # the pid in the name lets the next start remove the folders of killed builds (remove_dead_builds)
    return Path(tempfile.mkdtemp(dir=beside.parent, prefix=f".{beside.name}.{os.getpid()}.", suffix=".building"))


def atomic_replace_dir(built: Path, target: Path) -> None:
    """Swap a fully built directory into place; the old one stays usable until the swap."""
    guard_state_path(target)
    old = None
    if target.exists():
        old = target.with_name(f".{target.name}.old-{os.getpid()}")
        os.replace(target, old)
    os.replace(built, target)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


_PLAIN_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]{0,79}")
MAX_NAME_STEM = 60


def safe_name(name: str) -> str:
    """A tier, system or query ID as one file name, injectively and at most ~72 characters.

    A plain name (letters, digits, `_ . -`, not starting with a dot, ≤ 80 characters) is kept as is;
    any other gets a readable stem plus `~` and a hash of the whole name ("base:finance" →
    "base_finance~1b2c3d4e5f"). `~` never occurs in a kept name, so two names never share a file.
    """
    if _PLAIN_NAME.fullmatch(name):
        return name
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).lstrip(".")[:MAX_NAME_STEM]
    return f"{stem}~{sha256_bytes(name.encode('utf-8'))[:10]}"


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


# ---------------------------------------------------------------- recovery


def set_aside(path: Path, why: str) -> Path:
    """Move a damaged file out of the way (kept as <name>.damaged for a post-mortem); never through a
    symlinked folder (a file outside the project named like a run is not ours to move)."""
    guard_state_path(path)
    dest = path.with_name(path.name + ".damaged")
    try:
        os.replace(path, dest)
    except OSError:
        path.unlink(missing_ok=True)
    log.warning("%s: %s; set aside as %s, rebuilding", path, why, dest.name)
    return dest


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's live process
    return True


def _dead_leftover(p: Path) -> bool:
    """A build folder, swapped-out index copy or temp file whose process is gone (kill -9)."""
    name = p.name
    if not name.startswith("."):
        return False
    for pattern in (_BUILDING, _OLD_DIR, _TEMP_FILE):
        if m := pattern.match(name):
            return not pid_alive(int(m.group(1)))
    if name.endswith(".tmp") and re.fullmatch(r"\..+\.[a-z0-9_]{8}\.tmp", name):  # an older release's, no pid
        with contextlib.suppress(OSError):
            return time.time() - p.lstat().st_mtime > STALE_TEMP_S
    return False


def _remove(p: Path) -> None:
    if p.is_dir() and not p.is_symlink():
        shutil.rmtree(p, ignore_errors=True)
    else:
        p.unlink(missing_ok=True)


def remove_dead_builds(folder: Path) -> list[Path]:
    """Remove what killed processes left in ``folder``: `.<name>.<pid>.*.building` folders,
    `.<name>.old-<pid>` index copies and `.<name>.<pid>.*.tmp` files (kill -9 mid-build)."""
    removed: list[Path] = []
    if not folder.is_dir():
        return removed
    for p in folder.iterdir():
        if _dead_leftover(p):
            _remove(p)
            removed.append(p)
    if removed:
        log.info("removed %d leftover(s) of killed processes in %s", len(removed), folder)
    return removed


# The project's folders of user-facing files (reports, exports, query-set versions): written by
# temp + rename like the state, so a killed write leaves its temp file there; and a symlink in
# their place would carry every write out of the project.
PROJECT_OUTPUT_DIRS = ("reports", "exports", "query_sets")


def remove_leftovers(root: Path, state_dir: str = ".workbench") -> list[Path]:
    """On a project's start: remove the leftovers of killed processes in the project folder, its
    output folders (a report killed mid-write) and anywhere below its state folder (symlinks are
    not followed)."""
    removed = remove_dead_builds(root)
    for name in PROJECT_OUTPUT_DIRS:
        if not (root / name).is_symlink():
            removed += remove_dead_builds(root / name)
    state = root / state_dir
    if state.is_dir() and not state.is_symlink():
        for folder, dirs, _files in os.walk(state):
            removed += remove_dead_builds(Path(folder))
            dirs[:] = [d for d in dirs if not d.startswith(".")]  # never descend into what was just removed
    return removed


# ---------------------------------------------------------------- writes inside the project


class UnsafePath(WorkbenchError):
    """A write would leave the project: a symlink, or a path that resolves outside it."""

    title = "Refused to write outside the project"
    hint = "Remove the symlink (or move the file back into the project folder) and rerun."


STATE_DIR = ".workbench"


def guard_state_path(path: Path, root: Path | None = None) -> Path:
    """``path`` if no folder on its way below the project root is a symlink; else UnsafePath.

    The one check of every folder the product writes into: a symlinked ``imports/``, ``tuned/`` or
    ``runs/TIER/llm`` would carry every write below it out of the project. With no ``root``, a path
    below a ``.workbench`` folder is checked from the project (that folder's parent) down: every
    atomic write and build folder goes through here, so every derived write is covered."""
    path = Path(path)
    if root is None:
        parts = path.parts[:-1]
        if STATE_DIR not in parts:
            return _guard_output_dir(path)
        root = Path(*parts[: len(parts) - 1 - parts[::-1].index(STATE_DIR)])
    root = Path(root)
    if not path.is_relative_to(root):
        return path
    here = root
    for part in path.relative_to(root).parts[:-1]:
        here = here / part
        if here.is_symlink():
            raise UnsafePath(f"{here}: is a symbolic link (to {os.readlink(here)}); writing {path} would land "
                             "outside the project")
    return path


def _guard_output_dir(path: Path) -> Path:
    """``path`` unless it is written into a project's output folder (reports/, exports/: beside
    the project's workbench.toml) that is a symlink: UnsafePath (the rename would land outside)."""
    folder = path.parent
    if folder.name in PROJECT_OUTPUT_DIRS and folder.is_symlink() and (folder.parent / "workbench.toml").is_file():
        raise UnsafePath(f"{folder}: is a symbolic link (to {os.readlink(folder)}); writing {path} would land outside the "
                         f"project {folder.parent}",
                         hint="Remove the symlink and rerun; to write a report elsewhere, name its file: "
                              "`workbench report PROJECT -o PATH`.")
    return path


def checked_path(path: Path, root: Path) -> Path:
    """``path`` if writing it stays inside the project ``root``: neither it nor a folder on its way
    below the root is a symlink and, resolved, it lies below the resolved root; else UnsafePath.
    Every append and every database open goes through here; atomic writes check the folders."""
    path = Path(path)
    guard_state_path(path, root)
    if path.is_symlink():
        raise UnsafePath(f"{path}: is a symbolic link (to {os.readlink(path)}); a write would follow it out")
    real_root = Path(root).resolve()
    real = path.resolve()
    if real != real_root and real_root not in real.parents:
        raise UnsafePath(f"{path}: resolves to {real}, outside the project {real_root}")
    return path


def _ends_torn(fd: int) -> bool:
    end = os.lseek(fd, 0, os.SEEK_END)
    return end > 0 and os.pread(fd, 1, end - 1) != b"\n"


def append_record(path: Path, root: Path, line: bytes) -> None:
    """Append one record line to an append-only log inside the project, durably.

    O_APPEND (never interleaved with another writer's line) and O_NOFOLLOW (a symlink swapped in
    after the check is refused too); a torn last line (an interrupted write) gets a newline first,
    so it never swallows this record."""
    checked_path(path, root)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o666)
    except OSError as exc:
        if exc.errno == 40:  # ELOOP: a symlink appeared between the check and the open
            raise UnsafePath(f"{path}: is a symbolic link; a write would follow it out") from None
        raise
    try:
        with _file_lock(fd):
            os.write(fd, (b"\n" if _ends_torn(fd) else b"") + line.rstrip(b"\n") + b"\n")
            os.fsync(fd)
    finally:
        os.close(fd)


def append_whole(path: Path, root: Path, data: bytes) -> None:
    """Lines appended to a data file (queries.jsonl) whole or not at all: written and fsynced, or, on
    any failure (a full disk, a short write), the file cut back to its size before. Appending, unlike
    a rewrite, costs what is added, and keeps the lines before byte for byte (a reader that parsed
    them reads only what follows: project/load.py)."""
    checked_path(path, root)
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_NOFOLLOW)
    try:
        with _file_lock(fd):
            size = os.lseek(fd, 0, os.SEEK_END)
            out = (b"\n" if _ends_torn(fd) else b"") + data
            try:
                done = 0
                while done < len(out):
                    done += os.write(fd, out[done:])
                os.fsync(fd)
            except OSError:
                os.ftruncate(fd, size)
                os.fsync(fd)
                raise
    finally:
        os.close(fd)


@contextlib.contextmanager
def _file_lock(fd: int) -> Iterator[None]:
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)


def checked_database(path: Path, root: Path) -> Path:
    """``path`` of a database (and its -wal / -shm / -journal files) if opening it stays inside the project."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        checked_path(path.with_name(path.name + suffix), root)
    return path


LOCK_FILE = "project.lock"
LOCK_TIMEOUT_ENV = "NEARMISS_LOCK_TIMEOUT_S"
DEFAULT_LOCK_TIMEOUT_S = 600.0
_LOCK_POLL_S = 0.1
_held: dict[str, tuple[threading.RLock, list]] = {}
_held_guard = threading.Lock()


# `workbench --lock-timeout SECONDS`, set by the command line for the command it runs (None: not given).
lock_timeout_option: float | None = None


class ProjectLocked(WorkbenchError):
    """Another process held the project lock for longer than the wait allowed."""

    title = "The project is busy"
    hint = (f"Wait for the other command to finish (or stop it) and rerun; `workbench --lock-timeout SECONDS` "
            f"(or {LOCK_TIMEOUT_ENV}=SECONDS) sets how long to wait.")


def lock_timeout_s() -> float:
    """How long to wait for the project lock: ``--lock-timeout``, else ${NEARMISS_LOCK_TIMEOUT_S},
    else 600 s."""
    if lock_timeout_option is not None:
        return lock_timeout_option
    raw = os.environ.get(LOCK_TIMEOUT_ENV, "").strip()
    if not raw:
        return DEFAULT_LOCK_TIMEOUT_S
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not (value >= 0):  # NaN and negatives
        raise WorkbenchError(f"{LOCK_TIMEOUT_ENV}={raw!r}: not a number of seconds ≥ 0", title="Bad input")
    return value


def _holder(fd: int) -> str:
    """The pid the holder wrote into the lock file (best effort: an older release wrote none)."""
    with contextlib.suppress(OSError, ValueError):
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
        if text.isdigit():
            return f"pid {int(text)}" + ("" if pid_alive(int(text)) else ", no longer running")
    return "an unknown process"


def _acquire(fd: int, path: Path, timeout_s: float) -> None:
    """flock ``fd``; when another process holds it, say so once (naming its pid) and give up after
    ``timeout_s`` with ProjectLocked, never wait silently or for ever."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return
    except BlockingIOError:
        pass
    who = _holder(fd)
    log.warning("waiting for the project lock %s, held by %s (up to %g s; --lock-timeout sets it)", path, who, timeout_s)
    ends = time.monotonic() + timeout_s
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= ends:
                raise ProjectLocked(f"{path}: held by {who} for more than {timeout_s:g} s") from None
            time.sleep(_LOCK_POLL_S)  # flock has no timed wait; poll


@contextlib.contextmanager
def project_lock(root: Path, state_dir: str = ".workbench", timeout_s: float | None = None) -> Iterator[None]:
    """Exclusive across processes (flock on <state>/project.lock) and threads, re-entrant in one
    thread: hold it around every read-modify-write of the user's files (documents.jsonl,
    queries.jsonl, versions). A wait is announced with the holder's pid and bounded (lock_timeout_s)."""
    state = Path(root) / state_dir
    key = str(Path(root).resolve())
    with _held_guard:
        rlock, holders = _held.setdefault(key, (threading.RLock(), []))
    with rlock:
        if holders:  # this thread holds it already
            holders.append(None)
            try:
                yield
            finally:
                holders.pop()
            return
        state.mkdir(parents=True, exist_ok=True)
        path = checked_path(state / LOCK_FILE, root)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o666)
        try:
            _acquire(fd, path, lock_timeout_s() if timeout_s is None else timeout_s)
            try:
                with contextlib.suppress(OSError):  # who holds it, for whoever waits
                    os.ftruncate(fd, 0)
                    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
                holders.append(None)
                try:
                    yield
                finally:
                    holders.pop()
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)


def file_identity(path: Path) -> tuple[int, int, int, int]:
    """(size, mtime_ns, ctime_ns, inode): the integrity record of a reused derived file that is too
    big to hash on every use. Weights rewritten in place at the same size move mtime; with mtime
    put back (touch -r), ctime still moves, which no user tool can set."""
    st = path.stat()
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def folder_fingerprint(path: Path) -> str:
    """Identity of a model folder without reading its weights: its small files' bytes and every
    file's name and integrity record (file_identity), so weights changed in place at the same
    size are a new identity: the indexes and score caches keyed by it are rebuilt, never reused."""
    h = hashlib.sha256()
    for p in sorted(q for q in path.rglob("*") if q.is_file()):
        rel = str(p.relative_to(path)).encode()
        ident = file_identity(p)
        h.update(rel + b"\0" + ",".join(map(str, ident)).encode() + b"\0")
        if ident[0] < 64_000:
            h.update(p.read_bytes())
    return h.hexdigest()[:16]
