"""Authenticated entries in a private folder of the user's cache directory.

gpulint's caches (results of whole runs, parsed rule and catalogue files) live outside the
repository under review, which may hold anything, links included. The folder is
``$GPULINT_CACHE_DIR``, else ``$XDG_CACHE_HOME/gpulint``, else ``~/.cache/gpulint``
(``GPULINT_NO_CACHE=1`` turns caching off). Every folder below the one the user's environment
names is created and opened without following links and must be a directory owned by this user
that nobody else can write to; files are only ever opened relative to that opened folder.

An entry is ``HMAC-SHA256(secret, folder, key, payload)`` in hex, a newline, then the payload.
The secret (32 random bytes) is created once per cache root, mode 0600, never replaced. An entry
that is missing, too large, unauthenticated or unreadable is a miss; a cache that cannot be used
costs speed, never correctness, and never raises.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import hmac
import os
import re
import stat
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import BinaryIO

from linter.atomic_file import TEMPORARY_SUFFIX, pieces_of, replace_file, temporary_name
from linter.load.reader import Refusal, open_bounded_at, read_bounded_at
from linter.records import datarecord

SECRET_NAME = "secret"
SECRET_BYTES = 32
_KEY = re.compile(r"^[0-9a-f]{64}$")
_ENTRY = re.compile(r"^entry-[0-9a-f]{64}\.bin$")
_TEMPORARY = re.compile(r"^\..+\.[0-9a-f]{16}" + re.escape(TEMPORARY_SUFFIX) + "$")
_STALE_TEMPORARY_SECONDS = 3600
_MAC_LENGTH = 64  # hex digits
_PIECE = 1024 * 1024  # what open_payload reads at a time
# Everything the checks below need: descriptor-relative calls, O_NOFOLLOW, user ids.
SUPPORTED = (
    os.open in os.supports_dir_fd
    and os.mkdir in os.supports_dir_fd
    and os.link in os.supports_dir_fd
    and hasattr(os, "O_NOFOLLOW")
    and hasattr(os, "O_DIRECTORY")
    and hasattr(os, "geteuid")
)
_DIRECTORY = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


@datarecord
class CacheRoot:
    """Where caches go: ``base`` as the user's environment names it (trusted, links followed),
    then ``parts`` created below it without following links."""

    base: Path
    parts: tuple[str, ...]


def user_cache_root() -> CacheRoot | None:
    """The cache root for this user's environment; None when caching is off or unsupported.
    Worked out once per value of the variables it reads: a run asks for it once per start-up
    cache entry (some 60), and building it each time was a 32 us ``Path.home()`` and path."""
    environ = os.environ
    return _cache_root(
        environ.get("GPULINT_NO_CACHE"),
        environ.get("GPULINT_CACHE_DIR"),
        environ.get("XDG_CACHE_HOME", ""),
        environ.get("HOME"),  # what Path.home() reads first
    )


@functools.lru_cache(maxsize=8)
def _cache_root(
    no_cache: str | None, configured: str | None, xdg_cache_home: str, home: str | None
) -> CacheRoot | None:
    """The root for these values (``home`` only keys the cache: ``Path.home()`` reads it)."""
    if no_cache or not SUPPORTED:
        return None
    if configured:
        return CacheRoot(Path(configured), ())
    base = xdg_cache_home
    if not os.path.isabs(base):  # the XDG spec: a relative value is invalid, ignore it
        try:
            base = str(Path.home() / ".cache")
        except RuntimeError:  # no home directory
            return None
    return CacheRoot(Path(base), ("gpulint",))


def _private(descriptor: int) -> bool:
    """A directory owned by this user that no one else may write to."""
    status = os.fstat(descriptor)
    return (
        stat.S_ISDIR(status.st_mode)
        and status.st_uid == os.geteuid()
        and not status.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    )


def _open_child(parent: int, name: str, create: bool) -> int:
    if create:
        with contextlib.suppress(FileExistsError):
            os.mkdir(name, 0o700, dir_fd=parent)
    return os.open(name, _DIRECTORY | _NOFOLLOW, dir_fd=parent)


class CacheStore:
    """Entries under ``key`` (64 hex digits) in one private folder below the cache root."""

    def __init__(
        self,
        root: CacheRoot,
        folder: Sequence[str],
        max_bytes: int,
        keep: int,
        prune_every: int = 1,
    ) -> None:
        self.root = root
        self.folder = tuple(folder)
        self.max_bytes = max_bytes
        self.keep = keep
        #: The folder is pruned at the first write and then at every ``prune_every``-th: a
        #: store written many times in one process (the parsed files after an upgrade) lists
        #: its folder once, not once an entry, and holds at most ``prune_every - 1`` more.
        self.prune_every = prune_every
        self._writes = 0
        self._secret: bytes | None = None
        self._mac_prefix: hmac.HMAC | None = None  # keyed with the secret, the folder hashed

    @classmethod
    def for_user(cls, folder: Sequence[str], max_bytes: int, keep: int) -> CacheStore | None:
        root = user_cache_root()
        return None if root is None else cls(root, folder, max_bytes, keep)

    def get(self, key: str) -> memoryview | None:
        """The payload stored under ``key``, if it is there and authentic (a view of the bytes
        read: an entry can be tens of megabytes, and is not copied)."""
        _check_key(key)
        try:
            with self._opened(create=False) as folder:
                content = read_bounded_at(
                    folder, _entry_name(key), self.max_bytes + 1 + _MAC_LENGTH
                )
        except OSError:
            return None
        if isinstance(content, Refusal) or content[_MAC_LENGTH : _MAC_LENGTH + 1] != b"\n":
            return None
        payload = memoryview(content)[_MAC_LENGTH + 1 :]
        assert self._secret is not None
        if not hmac.compare_digest(content[:_MAC_LENGTH], self._mac(key, payload)):
            return None
        return payload

    def open_payload(
        self, key: str, limit: int, inspect: Callable[[bytes], object] | None = None
    ) -> BinaryIO | None:
        """The payload stored under ``key`` (at most ``limit`` bytes) as an open file at its
        first byte, once all of it has been read in pieces and found authentic and ``inspect``
        (called on each piece) raised no ValueError; None on a miss. For entries too large to
        hold: memory stays flat however large it is. The caller reads it and closes it; gpulint
        never writes an entry in place, so the open file keeps the bytes checked."""
        _check_key(key)
        try:
            with self._opened(create=False) as folder:
                stream = open_bounded_at(folder, _entry_name(key), limit + 1 + _MAC_LENGTH)
        except OSError:
            return None
        if isinstance(stream, Refusal):
            return None
        try:
            if self._authentic_stream(key, stream, limit, inspect):
                stream.seek(_MAC_LENGTH + 1)
                return stream
        except (OSError, ValueError):
            pass
        stream.close()
        return None

    def _authentic_stream(
        self, key: str, stream: BinaryIO, limit: int, inspect: Callable[[bytes], object] | None
    ) -> bool:
        head = stream.read(_MAC_LENGTH + 1)
        if len(head) != _MAC_LENGTH + 1 or head[_MAC_LENGTH:] != b"\n":
            return False
        mac, remaining = self._new_mac(key), limit + 1
        while piece := stream.read(min(_PIECE, remaining)):
            remaining -= len(piece)
            if remaining == 0:  # the file grew past the limit after it was opened
                return False
            mac.update(piece)
            if inspect is not None:
                inspect(piece)
        return hmac.compare_digest(head[:_MAC_LENGTH], mac.hexdigest().encode())

    def put(self, key: str, payload: bytes | Sequence[bytes], limit: int | None = None) -> None:
        """Store ``payload`` (bytes, or its pieces in order: a large one is never joined) under
        ``key`` and drop the oldest entries beyond ``keep`` (see ``prune_every``); an entry
        above ``limit`` (``max_bytes`` unless given) or a folder that cannot be used is skipped
        silently."""
        _check_key(key)
        pieces = tuple(pieces_of(payload))
        if sum(map(len, pieces)) > (self.max_bytes if limit is None else limit):
            return
        with contextlib.suppress(OSError), self._opened(create=True) as folder:
            mac = self._new_mac(key)
            for piece in pieces:
                mac.update(piece)
            entry = (mac.hexdigest().encode(), b"\n", *pieces)
            replace_file(_entry_name(key), entry, dir_fd=folder, mode=0o600)
            if self._writes % self.prune_every == 0:
                self._prune(folder)
            self._writes += 1

    def _mac(self, key: str, payload: bytes | memoryview) -> bytes:
        mac = self._new_mac(key)
        mac.update(payload)
        return mac.hexdigest().encode()

    def _new_mac(self, key: str) -> hmac.HMAC:
        """The MAC of an entry under ``key`` before its payload (the folder and key are in it:
        an entry copied to another key or store does not authenticate)."""
        if self._mac_prefix is None:
            assert self._secret is not None
            folder = "/".join(self.folder).encode() + b"\0"
            self._mac_prefix = hmac.new(self._secret, folder, hashlib.sha256)
        mac = self._mac_prefix.copy()
        mac.update(key.encode() + b"\0")
        return mac

    @contextlib.contextmanager
    def _opened(self, create: bool) -> Iterator[int]:
        """The store's folder, opened and checked link by link; raises OSError when unusable."""
        if create:
            os.makedirs(self.root.base, mode=0o700, exist_ok=True)
        descriptor = os.open(self.root.base, _DIRECTORY)
        try:
            for part in self.root.parts:
                descriptor = _replace(descriptor, _open_child(descriptor, part, create))
            if not _private(descriptor):
                raise PermissionError("the cache root is not a private directory")
            if self._secret is None:
                self._secret = _secret(descriptor, create)
            for part in self.folder:
                descriptor = _replace(descriptor, _open_child(descriptor, part, create))
                if not _private(descriptor):
                    raise PermissionError("a cache folder is not a private directory")
            yield descriptor
        finally:
            os.close(descriptor)

    def _prune(self, folder: int) -> None:
        """Remove entries beyond ``keep`` (oldest first) and temporaries left by a crash; only
        names this store writes are ever touched."""
        entries: list[tuple[float, str]] = []
        now = time.time()
        for name in os.listdir(folder):
            if not (_ENTRY.match(name) or _TEMPORARY.match(name)):
                continue
            with contextlib.suppress(FileNotFoundError):
                status = os.stat(name, dir_fd=folder, follow_symlinks=False)
                if _ENTRY.match(name):
                    entries.append((status.st_mtime, name))
                elif now - status.st_mtime > _STALE_TEMPORARY_SECONDS:
                    os.unlink(name, dir_fd=folder)
        for _, name in sorted(entries, reverse=True)[self.keep :]:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(name, dir_fd=folder)


def _replace(old: int, new: int) -> int:
    os.close(old)
    return new


def _check_key(key: str) -> None:
    if not _KEY.match(key):
        raise ValueError(f"cache keys are 64 hex digits, not {key!r}")


def _entry_name(key: str) -> str:
    return f"entry-{key}.bin"


def _secret(root: int, create: bool) -> bytes:
    """The per-user secret in the cache root, created on first use (written in full to a
    temporary, then linked into place: a second process sees all of it or none)."""
    try:
        return _read_secret(root)
    except FileNotFoundError:
        if not create:
            raise
    temporary = temporary_name(SECRET_NAME)
    descriptor = os.open(
        temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600, dir_fd=root
    )
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(os.urandom(SECRET_BYTES))
        with contextlib.suppress(FileExistsError):  # another process was first: use its secret
            os.link(temporary, SECRET_NAME, src_dir_fd=root, dst_dir_fd=root, follow_symlinks=False)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temporary, dir_fd=root)
    return _read_secret(root)


def _read_secret(root: int) -> bytes:
    descriptor = os.open(SECRET_NAME, os.O_RDONLY | _NOFOLLOW | os.O_NONBLOCK, dir_fd=root)
    try:
        status = os.fstat(descriptor)
        if (
            not stat.S_ISREG(status.st_mode)
            or status.st_uid != os.geteuid()
            or status.st_mode & 0o077
            or status.st_size != SECRET_BYTES
        ):
            raise PermissionError("the cache secret is not a private file of the right size")
        secret = os.read(descriptor, SECRET_BYTES)
    finally:
        os.close(descriptor)
    if len(secret) != SECRET_BYTES:
        raise PermissionError("the cache secret is short")
    return secret
