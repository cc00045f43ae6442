"""Errors services raise. Each carries a message fit to show a user as it is."""


class EngramError(Exception):
    """Base class: the CLI prints ``str(err)`` on one line and exits non-zero."""


class NotFound(EngramError):
    pass


class InvalidInput(EngramError):
    pass


class ModelUnavailable(EngramError):
    """No embedding model could be loaded: keyword search still works."""


class StoreUnavailable(EngramError):
    pass
