"""skillpipe: Agent Skills for Python agents, in process.

Discovery of ``SKILL.md`` skills as coding agents do it (Claude Code's,
Codex's, ``.agents/``, opencode's, ``.github/skills``, pi's, managed skills,
custom directories, plugins), the right copy when names collide, the
system-prompt catalogue, ``/skill:<name> args`` expansion and
``skill://<name>/<file>`` reads that never leave the skill's folder::

    import skillpipe

    sp = skillpipe.Skillpipe()              # this process's home and cwd
    found = sp.discover()
    for skill in found.skills:
        print(skill.name, "-", skill.description)
    for d in found.diagnostics:
        print(d.severity, d.code, d.path, d.line, d.message)
    system_prompt = found.catalog()
    message = found.expand("/skill:pdf extract page 3")
    reference = found.resolve("skill://pdf/reference.md").text

Every call that touches the disk releases the GIL; ``discover_async`` and
``watch_async`` are the ``asyncio`` forms.
"""

from __future__ import annotations

import asyncio
import errno
import json
import os
import stat
from dataclasses import dataclass
from typing import (
    TYPE_CHECKING,
    Any,
    AsyncGenerator,
    Dict,
    Iterable,
    List,
    Mapping,
    NamedTuple,
    Optional,
    Union,
)

from . import _native
from ._errors import PluginError, ResolveError, SettingsError, SkillpipeError
from ._native import Copy, Diagnostic, Discovered, Event, Resource, Skill, Watcher

if TYPE_CHECKING:
    StrPath = Union[str, "os.PathLike[str]"]

__version__: str = _native.__version__

__all__ = [
    "Copy",
    "Diagnostic",
    "Discovered",
    "Event",
    "PluginError",
    "Resource",
    "ResolveError",
    "SettingsError",
    "SettingsWarning",
    "Skill",
    "Skillpipe",
    "SkillpipeError",
    "Validation",
    "Watcher",
    "builtin_providers",
    "validate",
    "__version__",
]

PROFILES = ("musepi", "pi")


class SettingsWarning(NamedTuple):
    """A setting that was read but not applied (``untrusted-setting``, ...)."""

    code: str
    message: str


@dataclass(frozen=True)
class Validation:
    """The Agent Skills check of one skill (``skillpipe validate``)."""

    path: str
    """The skill folder checked, as ``skills-ref`` prints it."""
    errors: List[str]
    """The errors, in ``skills-ref``'s order and words; empty when valid."""

    @property
    def valid(self) -> bool:
        """Whether the skill passed."""
        return not self.errors


def _path(what: str, value: object) -> str:
    """A path argument as text: ``str`` or ``os.PathLike[str]``, no NUL."""
    if isinstance(value, bytes) or not isinstance(value, (str, os.PathLike)):
        raise TypeError(f"{what} must be a str or os.PathLike path, not {type(value).__name__}")
    text = os.fspath(value)
    if not isinstance(text, str):
        raise TypeError(f"{what} must be a str path, not {type(text).__name__}")
    if not text:
        raise ValueError(f"{what} must not be empty")
    if "\0" in text:
        raise ValueError(f"{what} must not contain a NUL character: {text!r}")
    return text


def _dir(what: str, value: object) -> str:
    """``home`` or ``cwd``: an existing directory, as the CLI's flags must
    be (``FileNotFoundError``, ``NotADirectoryError``, or the ``OSError``
    of a path the system refuses, such as one too long)."""
    path = _path(what, value)
    st = os.stat(path)  # raises FileNotFoundError and the like, naming the path
    if not stat.S_ISDIR(st.st_mode):
        raise NotADirectoryError(errno.ENOTDIR, f"{what}: not a directory", path)
    return path


def _paths(what: str, values: object) -> List[str]:
    """A list of paths: any iterable of them, but not one path on its own."""
    if isinstance(values, (str, bytes, os.PathLike)):
        raise TypeError(f"{what} takes a list of paths, not one path: use [{values!r}]")
    if not isinstance(values, Iterable):
        raise TypeError(f"{what} must be a list of paths, not {type(values).__name__}")
    return [_path(f"{what}[{i}]", v) for i, v in enumerate(values)]


def _text(what: str, value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, not {type(value).__name__}")
    if "\0" in value:
        raise ValueError(f"{what} must not contain a NUL character")
    return value


def _assignments(values: object) -> List[str]:
    """``set=``: a mapping of dotted keys to values (written as JSON), or
    ``"key=value"`` strings as the CLI's ``--set``."""
    if values is None:
        return []
    if isinstance(values, Mapping):
        out = []
        for key, value in values.items():
            key = _text("set key", key)
            try:
                out.append(f"{key}={json.dumps(value)}")
            except (TypeError, ValueError) as e:
                raise TypeError(f"set[{key!r}]: the value is not JSON: {e}") from None
        return out
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise TypeError(
            "set must be a mapping of settings ({'skills.catalogBudget': 4000}) "
            f"or a list of 'key=value' strings, not {type(values).__name__}"
        )
    out = []
    for i, a in enumerate(values):
        a = _text(f"set[{i}]", a)
        if "=" not in a:
            raise ValueError(f"set[{i}] must be 'key=value', not {a!r}")
        out.append(a)
    return out


def _env(values: object) -> Optional[Dict[str, str]]:
    if values is None:
        return None
    if not isinstance(values, Mapping):
        raise TypeError(f"env must be a mapping of str to str, not {type(values).__name__}")
    return {_text("env key", k): _text(f"env[{k!r}]", v) for k, v in values.items()}


class Skillpipe:
    """The settings, plugins and provider pipeline of one agent, ready to
    discover its skills.

    ``profile`` is ``"musepi"`` (the provider pipeline; the default) or
    ``"pi"`` (pi's recursive scan with ignore files). ``None`` for
    ``home``, ``cwd`` or ``env`` means this process's own, as for the Rust
    builder. ``config`` adds settings files, ``set`` single settings (a
    mapping, ``{"skills.enableCodex": False}``, or ``"key=value"``
    strings) that win over every other layer, ``skill_paths`` skill
    directories (or pi ``.md`` files) that load even with ``no_skills``,
    and ``plugins`` provider libraries to load.

    ``home`` and ``cwd`` must be existing directories (as the CLI's
    ``--home`` and ``--cwd``); relative ``skill_paths`` and ``config``
    files are taken against this process's working directory, as the
    CLI's flags are.

    Raises ``SettingsError`` (naming the key and its source) for a wrong
    setting, ``PluginError`` for a plugin that does not load,
    ``SkillpipeError`` when there is no home or working directory,
    ``FileNotFoundError``/``NotADirectoryError`` for a ``home`` or ``cwd``
    that is not a directory, and ``TypeError``/``ValueError`` for
    arguments of the wrong kind.
    """

    def __init__(
        self,
        profile: str = "musepi",
        *,
        home: Optional[StrPath] = None,
        cwd: Optional[StrPath] = None,
        app_dir: Optional[str] = None,
        config: Iterable[StrPath] = (),
        set: Union[Mapping[str, Any], Iterable[str], None] = None,
        env: Optional[Mapping[str, str]] = None,
        skill_paths: Iterable[StrPath] = (),
        no_skills: bool = False,
        plugins: Iterable[StrPath] = (),
    ) -> None:
        profile = _text("profile", profile)
        if not isinstance(no_skills, bool):
            raise TypeError(f"no_skills must be a bool, not {type(no_skills).__name__}")
        self._host = _native.Host(
            profile,
            None if home is None else _dir("home", home),
            None if cwd is None else _dir("cwd", cwd),
            None if app_dir is None else _text("app_dir", app_dir),
            _paths("config", config),
            _assignments(set),
            _env(env),
            _paths("skill_paths", skill_paths),
            no_skills,
            _paths("plugins", plugins),
        )

    @property
    def profile(self) -> str:
        """``"musepi"`` or ``"pi"``."""
        return self._host.profile

    @property
    def home(self) -> str:
        """The home directory the settings were read with."""
        return os.fspath(self._host.home)

    @property
    def cwd(self) -> str:
        """The project directory."""
        return os.fspath(self._host.cwd)

    @property
    def warnings(self) -> List[SettingsWarning]:
        """Settings that were read but not applied, with why."""
        return [SettingsWarning(code, message) for code, message in self._host.warnings]

    def discover(self) -> Discovered:
        """The skills that load and the diagnostics (never raises)."""
        return self._host.discover(False)

    def discover_all(self) -> Discovered:
        """``discover()``, keeping every copy that did not load, with its
        fate (``removed`` in ``to_dict()``, as ``skillpipe list --all``)."""
        return self._host.discover(True)

    async def discover_async(self) -> Discovered:
        """``discover()`` on a worker thread, for ``asyncio`` hosts."""
        return await asyncio.to_thread(self.discover)

    async def discover_all_async(self) -> Discovered:
        """``discover_all()`` on a worker thread."""
        return await asyncio.to_thread(self.discover_all)

    def context_files(self) -> List[Dict[str, Any]]:
        """The AGENTS.md (and CLAUDE.md) files for the project, nearest
        first, as ``skillpipe context --json``."""
        files: List[Dict[str, Any]] = self._host.context_files()
        return files

    def watch(self, *, debounce: float = 0.1, read_tool: bool = True) -> Watcher:
        """A watcher: iterate it for change events (``added``, ``changed``,
        ``removed``, ``diagnostics``, ``catalog``); it stops on
        ``close()`` or at the end of a ``with`` block. ``debounce`` is the
        quiet time, in seconds, that ends a burst of file events."""
        if isinstance(debounce, bool) or not isinstance(debounce, (int, float)):
            raise TypeError(f"debounce must be a number of seconds, not {type(debounce).__name__}")
        return self._host.watch(float(debounce), bool(read_tool))

    async def watch_async(
        self, *, debounce: float = 0.1, read_tool: bool = True
    ) -> AsyncGenerator[Event, None]:
        """``watch()`` for ``asyncio``: ``async for event in
        sp.watch_async()``; the watcher closes when the loop is left."""
        watcher = await asyncio.to_thread(self.watch, debounce=debounce, read_tool=read_tool)
        try:
            while not watcher.closed:
                event = await asyncio.to_thread(watcher.next_event, 0.25)
                if event is not None:
                    yield event
        finally:
            await asyncio.to_thread(watcher.close)

    def __repr__(self) -> str:
        return f"Skillpipe(profile={self.profile!r}, home={self.home!r}, cwd={self.cwd!r})"


def validate(path: StrPath) -> Validation:
    """The Agent Skills check of one skill folder (or its ``SKILL.md``),
    with the rules and words of the reference validator ``skills-ref``."""
    checked, errors = _native.validate(_path("path", path))
    return Validation(os.fspath(checked), list(errors))


def builtin_providers() -> List[str]:
    """The ids of the built-in providers, sorted."""
    return list(_native.builtin_providers())
