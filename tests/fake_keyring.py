"""A fake of the OS keyring (outside the product): passwords in a dict, behind keyring's own
backend interface, so Engram's keyring code runs unchanged. ``in_memory_keyring`` puts one
in place for a test and the real backend back after it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import keyring
from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError


class MemoryKeyring(KeyringBackend):
    priority = 1

    def __init__(self) -> None:
        super().__init__()
        self.items: dict[tuple[str, str], str] = {}

    def get_password(self, service, username):
        return self.items.get((service, username))

    def set_password(self, service, username, password):
        self.items[(service, username)] = password

    def delete_password(self, service, username):
        if (service, username) not in self.items:
            raise PasswordDeleteError("not found")  # as the real backends say it
        del self.items[(service, username)]


@contextmanager
def in_memory_keyring(backend: KeyringBackend | None = None) -> Iterator[KeyringBackend]:
    """BACKEND (a new MemoryKeyring) as the keyring while the block runs."""
    previous = keyring.get_keyring()
    backend = backend or MemoryKeyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(previous)
