"""Types of the extension module ``skillpipe._native`` (written in Rust).

``Host`` is private (``skillpipe.Skillpipe`` wraps it); every other class
here is public, exported by ``skillpipe``.
"""

from typing import Any, Dict, Iterator, List, Optional, Tuple, final

__version__: str

@final
class Host:
    def __init__(
        self,
        profile: str,
        home: Optional[str],
        cwd: Optional[str],
        app_dir: Optional[str],
        config: List[str],
        set: List[str],
        env: Optional[Dict[str, str]],
        skill_paths: List[str],
        no_skills: bool,
        plugins: List[str],
    ) -> None: ...
    @property
    def profile(self) -> str: ...
    @property
    def home(self) -> str: ...
    @property
    def cwd(self) -> str: ...
    @property
    def warnings(self) -> List[Tuple[str, str]]: ...
    def discover(self, all: bool) -> "Discovered": ...
    def context_files(self) -> List[Dict[str, Any]]: ...
    def watch(self, debounce: float, read_tool: bool) -> "Watcher": ...

@final
class Skill:
    """One loaded skill (or the skill of a copy that did not load)."""

    @property
    def name(self) -> str:
        """The skill name (frontmatter ``name``, else the folder or file stem)."""
    @property
    def description(self) -> str:
        """The description (``""`` where the root does not require one)."""
    @property
    def file_path(self) -> str:
        """The skill file as found (absolute, not canonicalised)."""
    @property
    def base_dir(self) -> str:
        """The directory relative references resolve against."""
    @property
    def provider(self) -> str:
        """The provider that found it: ``claude``, ``codex``, ``custom``, ``path``, ..."""
    @property
    def level(self) -> str:
        """``user``, ``project`` or ``path``."""
    @property
    def root(self) -> Optional[str]:
        """The root directory scanned; ``None`` for a file named as a path."""
    @property
    def hidden(self) -> bool:
        """``True`` keeps it out of the catalogue (it still expands and resolves)."""
    @property
    def user_invocable(self) -> bool:
        """Whether the user may call it as ``/skill:<name>``."""
    @property
    def frontmatter(self) -> Dict[str, Any]:
        """The frontmatter mapping, keys as written."""
    @property
    def invocation(self) -> Optional[Dict[str, Any]]:
        """Claude Code's invocation fields (``allowed-tools``, ``arguments``, ...), or ``None``."""
    @property
    def visibility(self) -> str:
        """How the settings show it: ``on``, ``name-only`` or ``user-only``."""
    def to_dict(self) -> Dict[str, Any]:
        """The skill as ``skillpipe list --json`` writes it."""

@final
class Diagnostic:
    """A finding about a file: why it is not a skill, or what is odd in it."""

    @property
    def severity(self) -> str:
        """``error`` (the file did not become a skill) or ``warning``."""
    @property
    def code(self) -> str:
        """A stable code: ``yaml-error``, ``collision``, ``missing-description``, ..."""
    @property
    def message(self) -> str: ...
    @property
    def path(self) -> str:
        """The file or directory it is about."""
    @property
    def line(self) -> Optional[int]:
        """The 1-based line, where known."""
    @property
    def column(self) -> Optional[int]:
        """The 1-based column, where known."""
    def to_dict(self) -> Dict[str, Any]:
        """The diagnostic as ``skillpipe list --json`` writes it."""

@final
class Copy:
    """A copy of a skill that did not load, and why."""

    @property
    def skill(self) -> Skill: ...
    @property
    def fate(self) -> Dict[str, Any]:
        """``{"fate": "shadowed", "by": ...}``, ``{"fate": "removed", "setting": ..., "reason": ...}``."""
    def to_dict(self) -> Dict[str, Any]:
        """The row of ``removed`` in ``skillpipe list --all --json``."""

@final
class Resource:
    """A ``skill://`` read."""

    @property
    def path(self) -> str: ...
    @property
    def content_type(self) -> str:
        """``text/markdown``, ``application/json``, ``text/plain``, ..."""
    @property
    def is_dir(self) -> bool:
        """A directory: ``content`` is its listing."""
    @property
    def content(self) -> bytes: ...
    @property
    def text(self) -> str:
        """The bytes as UTF-8 text (``UnicodeDecodeError`` where they are not)."""

@final
class Discovered:
    """A discovery: the skills that loaded, the diagnostics, and the
    runtime calls on them."""

    @property
    def skills(self) -> List[Skill]:
        """The skills that loaded, in pipeline order."""
    @property
    def diagnostics(self) -> List[Diagnostic]:
        """Every diagnostic, in the order the pipeline met the files."""
    @property
    def shadowed(self) -> List[Copy]:
        """The copies that lost a name collision."""
    @property
    def removed(self) -> List[Copy]:
        """The copies settings removed (``discover_all()`` only)."""
    @property
    def profile(self) -> str: ...
    def __len__(self) -> int: ...
    def __contains__(self, name: object) -> bool: ...
    def get(self, name: str) -> Optional[Skill]:
        """The skill that loaded under ``name``, or ``None``."""
    def catalog(self, read_tool: bool = True, budget: Optional[int] = None) -> str:
        """The system-prompt catalogue in the profile's format, for a model
        that can read files (``read_tool``) or not, within ``budget``
        characters (``None``: the ``skills.catalogBudget`` setting)."""
    def expand(self, text: str, delivery: str = "prompt") -> Dict[str, Any]:
        """``/skill:<name> args`` expanded, as ``skillpipe expand --json``;
        ``delivery`` is ``prompt``, ``steer`` or ``follow-up``."""
    def resolve(self, url: str) -> Resource:
        """A ``skill://<name>/<file>`` read, confined to the skill's folder;
        raises ``skillpipe.ResolveError`` (with a ``code``)."""
    def commands(self, all: bool = False) -> List[Dict[str, Any]]:
        """The slash commands (``all``: with those hidden from the menu)."""
    def search(self, query: str, limit: int = 10) -> List[Dict[str, Any]]:
        """At most ``limit`` skills ranked by relevance to ``query``."""
    def catalog_update(self, previous: "Discovered") -> Dict[str, Any]:
        """What changed in the catalogue since ``previous``."""
    def explain(self, name: str) -> Optional[Dict[str, Any]]:
        """Every file that claims ``name`` and what became of it, as
        ``skillpipe explain NAME --json``; ``None`` when none does."""
    def to_dict(self) -> Dict[str, Any]:
        """The ``skillpipe list --json`` document."""

@final
class Event:
    """What one burst of file changes changed."""

    @property
    def added(self) -> List[Skill]: ...
    @property
    def changed(self) -> List[Skill]: ...
    @property
    def removed(self) -> List[Skill]: ...
    @property
    def diagnostics(self) -> List[Diagnostic]: ...
    @property
    def catalog(self) -> Optional[str]:
        """The new catalogue when it changed, else ``None``."""
    @property
    def catalog_update(self) -> Optional[Dict[str, Any]]: ...
    def to_dict(self) -> Dict[str, Any]: ...

@final
class Watcher:
    """Keeps a discovery current; iterate it for events."""

    def next_event(self, timeout: Optional[float] = None) -> Optional[Event]:
        """The next event, waiting at most ``timeout`` seconds; ``None`` on
        timeout or once closed."""
    def __iter__(self) -> Iterator[Event]: ...
    def __next__(self) -> Event: ...
    def close(self) -> None:
        """Stops watching; iteration ends."""
    @property
    def closed(self) -> bool: ...
    def __enter__(self) -> "Watcher": ...
    def __exit__(self, *exc: object) -> bool: ...
    def current(self) -> Discovered:
        """The current discovery (no disk access)."""
    def reload(self) -> Discovered:
        """Reads everything again now."""
    @property
    def catalog(self) -> str: ...

def validate(path: str) -> Tuple[str, List[str]]: ...
def builtin_providers() -> List[str]: ...
