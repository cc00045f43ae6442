"""API keys through the OS keyring (``keyring``), never in a file.

A missing or locked keyring is normal on Linux servers and fresh desktops (Vorta #235, #606;
keyring #280): nothing here raises for it. ``status()`` says which backend is in use and what
is wrong; ``get`` returns None; ``set``/``delete`` return ``(ok, message)``.
"""

from __future__ import annotations

import logging

log = logging.getLogger(__name__)

LLM_API_KEY = "llm-api-key"  # the name the LLM provider's key is stored under


def _backend_name(backend) -> str:
    cls = type(backend)
    name = getattr(backend, "name", None)
    if isinstance(name, str) and name:
        return name
    return f"{cls.__module__}.{cls.__name__}"


def _is_fail_backend(backend) -> bool:
    cls = type(backend)
    return cls.__module__.startswith("keyring.backends.fail") or (
        getattr(backend, "priority", 1) == 0
        and cls.__name__ == "Keyring"
        and "fail" in cls.__module__
    )


NO_BACKEND = (
    "no OS keyring is available, so API keys cannot be stored. Install and unlock a "
    "keyring (GNOME Keyring / KWallet / macOS Keychain / Windows Credential Manager) "
    "or run without an LLM provider."
)
LOCKED = "the OS keyring is locked; unlock it (log in to your desktop keyring) and try again."


class SecretsStore:
    def __init__(self, service: str = "engram"):
        self.service = service
        self.last_error: str | None = None

    def _keyring(self):
        import keyring

        return keyring, keyring.get_keyring()

    def _explain(self, exc: Exception) -> str:
        from keyring.errors import KeyringLocked, NoKeyringError

        if isinstance(exc, NoKeyringError):
            return NO_BACKEND
        if isinstance(exc, KeyringLocked):
            return LOCKED
        return f"the OS keyring failed: {exc}"

    def status(self) -> tuple[bool, str, str]:
        try:
            keyring, backend = self._keyring()
        except Exception as exc:  # keyring's own init can fail on broken D-Bus setups
            return False, "none", f"the OS keyring could not be opened: {exc}"
        name = _backend_name(backend)
        if _is_fail_backend(backend):
            return False, name, NO_BACKEND
        try:
            # A read tells a locked keyring apart from a working one without storing anything.
            backend.get_password(self.service, "__engram_probe__")
        except Exception as exc:
            return False, name, self._explain(exc)
        return True, name, f"API keys are stored in {name}."

    def get(self, name: str) -> str | None:
        try:
            keyring, _ = self._keyring()
            value = keyring.get_password(self.service, name)
        except Exception as exc:
            self.last_error = self._explain(exc)
            log.warning("keyring read of %s failed: %s", name, self.last_error)
            return None
        self.last_error = None
        return value or None

    def set(self, name: str, value: str) -> tuple[bool, str]:
        if not value:
            return self.delete(name)
        try:
            keyring, _ = self._keyring()
            keyring.set_password(self.service, name, value)
        except Exception as exc:
            self.last_error = self._explain(exc)
            return False, self.last_error
        self.last_error = None
        return True, f"{name} saved in the OS keyring."

    def delete(self, name: str) -> tuple[bool, str]:
        try:
            keyring, _ = self._keyring()
            from keyring.errors import PasswordDeleteError

            try:
                keyring.delete_password(self.service, name)
            except PasswordDeleteError:
                return True, f"{name} was not stored."
        except Exception as exc:
            self.last_error = self._explain(exc)
            return False, self.last_error
        self.last_error = None
        return True, f"{name} removed from the OS keyring."
