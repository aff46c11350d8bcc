"""The exceptions skillpipe raises (all are importable from ``skillpipe``)."""

from __future__ import annotations

from typing import Optional

__all__ = ["SkillpipeError", "SettingsError", "PluginError", "ResolveError"]


class SkillpipeError(Exception):
    """Anything skillpipe refuses; ``code`` says what, in a stable word.

    Discovery itself never raises: what it meets in the files is reported
    as diagnostics. This is raised by configuration (``Skillpipe(...)``),
    ``resolve`` and the watcher.
    """

    code: str
    """A stable code: ``settings``, ``plugin``, ``no-home``, ``path-traversal``, ..."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


class SettingsError(SkillpipeError):
    """A setting is wrong; the message names the key and where it came from.

    ``key`` is the dotted setting (``skills.catalogBudget``) and ``origin``
    the file, environment variable or flag it came from, where the error is
    about one value; a settings file that does not parse has ``origin`` set
    to its path and no ``key``.
    """

    def __init__(
        self,
        message: str,
        code: str = "settings",
        key: Optional[str] = None,
        origin: Optional[str] = None,
    ) -> None:
        super().__init__(message, code)
        self.key = key
        self.origin = origin


class PluginError(SkillpipeError):
    """A provider plugin library named in ``plugins=`` could not be loaded."""


class ResolveError(SkillpipeError):
    """A ``skill://`` URL did not resolve.

    ``code`` is the library's: ``unknown-skill``, ``path-traversal``,
    ``not-found``, ``not-regular-file``, ``too-large``, ...
    """
