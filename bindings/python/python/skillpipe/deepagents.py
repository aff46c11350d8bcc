"""skillpipe's skills for LangChain deepagents agents.

``SkillpipeBackend`` is a read-only deepagents backend that holds the skills
skillpipe discovered, one folder per name (the copy skillpipe chose when
names collide), ``/<name>/SKILL.md`` and the files beside it; every read
goes through skillpipe's confined resolver (``skill://<name>/<file>``), so
no path, link or ``..`` leaves the skill's folder. Route it under a prefix
and give that prefix to ``create_deep_agent(skills=...)``: deepagents'
``SkillsMiddleware`` then lists skillpipe's skills in the system prompt and
the agent's ``read_file``/``ls`` read them::

    import skillpipe
    from deepagents import create_deep_agent
    from skillpipe.deepagents import SKILLS_ROUTE, skills_backend

    sp = skillpipe.Skillpipe()
    agent = create_deep_agent(
        model,
        skills=[SKILLS_ROUTE],
        backend=skills_backend(sp),       # /skills/ -> skillpipe, the rest in state
    )

Hidden skills (``disable-model-invocation: true``, ``skills.visibility``)
are not listed, as skillpipe leaves them out of its catalogue, but can
still be read. Needs the ``deepagents`` package (``pip install
deepagents``).
"""

from __future__ import annotations

import base64
import os
from pathlib import PurePosixPath
from typing import List, Optional, Tuple, Union

from deepagents.backends.composite import CompositeBackend
from deepagents.backends.protocol import (
    FILE_NOT_FOUND,
    INVALID_PATH,
    IS_DIRECTORY,
    PERMISSION_DENIED,
    BackendProtocol,
    EditResult,
    FileDownloadResponse,
    FileInfo,
    FileUploadResponse,
    GlobResult,
    GrepResult,
    LsResult,
    ReadResult,
    WriteResult,
)
from deepagents.backends.state import StateBackend
from deepagents.backends.utils import create_file_data, slice_read_response

from . import Discovered, Resource, ResolveError, Skill, Skillpipe

__all__ = ["SKILLS_ROUTE", "SkillpipeBackend", "skills_backend"]

SKILLS_ROUTE = "/skills/"
"""Where ``skills_backend`` mounts the skills."""

_READ_ONLY = "skills are read-only here: skillpipe serves them from their own folders"

# skillpipe's resolver codes as deepagents' download errors.
_DOWNLOAD_ERRORS = {
    "not-found": FILE_NOT_FOUND,
    "unknown-skill": FILE_NOT_FOUND,
    "path-traversal": PERMISSION_DENIED,
    "absolute-path": PERMISSION_DENIED,
    "invalid-segment": INVALID_PATH,
    "empty-name": INVALID_PATH,
    "not-skill-url": INVALID_PATH,
}


class SkillpipeBackend(BackendProtocol):
    """The skills of a discovery as a read-only deepagents backend.

    Give it a ``skillpipe.Skillpipe`` (it discovers now, and again on
    ``refresh()``) or a ``skillpipe.Discovered``. Paths are the backend's
    own: ``/`` lists one folder per skill, ``/<name>/SKILL.md`` is the
    skill file, ``/<name>/<file>`` a file beside it.
    """

    def __init__(self, skills: Union[Skillpipe, Discovered]) -> None:
        self._host: Optional[Skillpipe] = skills if isinstance(skills, Skillpipe) else None
        self._found = skills.discover() if isinstance(skills, Skillpipe) else skills

    @property
    def discovered(self) -> Discovered:
        """The discovery served."""
        return self._found

    def refresh(self) -> Discovered:
        """Discovers again (a backend made from a ``Skillpipe`` only)."""
        if self._host is None:
            raise ValueError("this backend was made from a Discovered: make a new one instead")
        self._found = self._host.discover()
        return self._found

    # -- paths ---------------------------------------------------------

    @staticmethod
    def _split(path: str) -> Tuple[str, str]:
        """``/pdf/scripts/a.py`` as ``("pdf", "scripts/a.py")``; ``("", "")``
        for the root. ``..`` is left in: the resolver refuses it."""
        parts = [p for p in PurePosixPath("/" + path.replace("\\", "/")).parts[1:] if p != "."]
        if not parts:
            return "", ""
        return parts[0], "/".join(parts[1:])

    def _read(self, path: str) -> Resource:
        name, rest = self._split(path)
        if not name:
            raise IsADirectoryError(path)
        return self._found.resolve(f"skill://{name}/{rest or 'SKILL.md'}")

    def _listed(self) -> List[Skill]:
        return [s for s in self._found.skills if not s.hidden]

    # -- reads ---------------------------------------------------------

    def ls(self, path: str) -> LsResult:
        name, rest = self._split(path)
        if not name:
            entries: List[FileInfo] = [{"path": f"/{s.name}/", "is_dir": True} for s in self._listed()]
            return LsResult(entries=entries)
        skill = self._found.get(name)
        if skill is None:
            return LsResult(error=f"no skill named {name!r}")
        if rest:
            try:
                listing = self._found.resolve(f"skill://{name}/{rest}")
            except ResolveError as e:
                return LsResult(error=str(e))
            if not listing.is_dir:
                return LsResult(error=f"{path} is a file")
            names = [] if listing.text == "(empty directory)" else listing.text.split("\n")
        else:
            names = _root_listing(os.fspath(skill.base_dir))
        base = f"/{name}/{rest + '/' if rest else ''}"
        return LsResult(
            entries=[
                {"path": base + n, "is_dir": n.endswith("/")}
                for n in names
                if n
            ]
        )

    def read(self, file_path: str, offset: int = 0, limit: int = 2000) -> ReadResult:
        try:
            r = self._read(file_path)
        except IsADirectoryError:
            return ReadResult(error=f"{file_path} is a directory")
        except ResolveError as e:
            return ReadResult(error=str(e))
        if r.is_dir:
            return ReadResult(error=f"{file_path} is a directory: use ls")
        try:
            text = r.text
        except UnicodeDecodeError:
            data = create_file_data(base64.b64encode(r.content).decode("ascii"), encoding="base64")
            return ReadResult(file_data=data)
        return slice_read_response(create_file_data(text), offset, limit)

    def download_files(self, paths: List[str]) -> List[FileDownloadResponse]:
        out = []
        for p in paths:
            try:
                r = self._read(p)
            except IsADirectoryError:
                out.append(FileDownloadResponse(path=p, error=IS_DIRECTORY))
                continue
            except ResolveError as e:
                out.append(FileDownloadResponse(path=p, error=_DOWNLOAD_ERRORS.get(e.code, str(e))))
                continue
            if r.is_dir:
                out.append(FileDownloadResponse(path=p, error=IS_DIRECTORY))
            else:
                out.append(FileDownloadResponse(path=p, content=r.content))
        return out

    def glob(self, pattern: str, path: Optional[str] = None) -> GlobResult:
        return GlobResult(error="glob is not offered over skills: use ls and read_file")

    def grep(
        self,
        pattern: str,
        path: Optional[str] = None,
        glob: Optional[str] = None,
        *,
        max_count: Optional[int] = None,
    ) -> GrepResult:
        return GrepResult(error="grep is not offered over skills: use ls and read_file")

    # -- writes: refused -------------------------------------------------

    def write(self, file_path: str, content: str) -> WriteResult:
        return WriteResult(error=_READ_ONLY)

    def edit(
        self,
        file_path: str,
        old_string: str,
        new_string: str,
        replace_all: bool = False,
    ) -> EditResult:
        return EditResult(error=_READ_ONLY)

    def upload_files(self, files: List[Tuple[str, bytes]]) -> List[FileUploadResponse]:
        return [FileUploadResponse(path=p, error=PERMISSION_DENIED) for p, _ in files]


def _root_listing(base_dir: str) -> List[str]:
    """A skill folder's entries as skillpipe lists a directory: folders
    first as ``name/``, then files, each group in byte order."""
    dirs, files = [], []
    try:
        with os.scandir(base_dir) as it:
            for e in it:
                try:
                    if e.is_dir():
                        dirs.append(e.name + "/")
                    elif e.is_file():  # dangling links are left out
                        files.append(e.name)
                except OSError:
                    continue
    except OSError:
        return []
    return sorted(dirs, key=_bytes) + sorted(files, key=_bytes)


def _bytes(name: str) -> bytes:
    return os.fsencode(name)


def skills_backend(
    skills: Union[Skillpipe, Discovered],
    default: Optional[BackendProtocol] = None,
    route: str = SKILLS_ROUTE,
) -> CompositeBackend:
    """A deepagents backend with skillpipe's skills under ``route`` and
    everything else in ``default`` (the agent's state when ``None``)."""
    return CompositeBackend(
        default=default if default is not None else StateBackend(),
        routes={route: SkillpipeBackend(skills)},
    )
