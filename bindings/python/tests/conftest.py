"""Shared fixtures and helpers of skillpipe's Python tests.

The tests run against the INSTALLED wheel, never the source tree::

    cd /tmp && /work/pyenv/bin/pytest /work/main/bindings/python/tests -q

(``-p no:cacheprovider`` keeps pytest from writing ``.pytest_cache``
into the checkout). ``SKILLPIPE_SHARED`` moves ``../shared`` (the
conformance cases), ``SKILLPIPE_BIN`` the CLI compared with.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterator, List, Mapping, Optional, Sequence

import pytest

HERE = Path(__file__).resolve().parent
# `import cases` in every import mode (importlib mode adds nothing to sys.path).
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import skillpipe  # noqa: E402

from cases import CLI, clean_env, scrubbed  # noqa: E402

#: The package's source, which must NOT be what is imported.
SOURCE_PACKAGE = HERE.parent / "python"


def _installed_check() -> Optional[str]:
    where = Path(skillpipe.__file__).resolve()
    try:
        where.relative_to(SOURCE_PACKAGE.resolve())
    except ValueError:
        return None
    return (
        f"skillpipe was imported from the source tree ({where}), not the installed wheel: "
        "run pytest from outside bindings/python (cd /tmp) without bindings/python/python on sys.path"
    )


def pytest_configure(config: pytest.Config) -> None:
    problem = _installed_check()
    if problem is not None:
        raise pytest.UsageError(problem)


def pytest_report_header(config: pytest.Config) -> List[str]:
    return [f"skillpipe {skillpipe.__version__} from {skillpipe.__file__}", f"skillpipe CLI: {CLI}"]


@pytest.fixture(autouse=True)
def _scrub_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No variable of the calling environment moves a root (as run.py)."""
    for k in list(os.environ):
        if scrubbed(k):
            monkeypatch.delenv(k)


def write(path: Path, text: str) -> Path:
    """Writes ``text`` (bytes as given, no newline translation), making the folders."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    return path


def skill_text(name: str, description: Optional[str] = None, extra: str = "", body: str = "") -> str:
    """A SKILL.md with ``name``, ``description`` and ``extra`` frontmatter lines."""
    desc = f"Use {name} for things & <stuff>." if description is None else description
    return f"---\nname: {name}\ndescription: {desc}\n{extra}---\n# {name}\n\n{body or f'Body of {name}.'}\n"


def write_skill(
    parent: Path, name: str, description: Optional[str] = None, extra: str = "", body: str = ""
) -> Path:
    """``parent/<name>/SKILL.md``; returns the SKILL.md path."""
    return write(parent / name / "SKILL.md", skill_text(name, description, extra, body))


@dataclass
class Tree:
    """A small home and project (see the ``tree`` fixture)."""

    root: Path
    home: Path
    project: Path

    def host(self, profile: str = "musepi", **kw: object) -> skillpipe.Skillpipe:
        """A ``Skillpipe`` over this tree, with only ``HOME`` in its environment."""
        env: Dict[str, str] = {"HOME": str(self.home)}
        extra_env = kw.pop("env", None)
        if isinstance(extra_env, Mapping):
            env.update({str(k): str(v) for k, v in extra_env.items()})
        return skillpipe.Skillpipe(profile, home=self.home, cwd=self.project, env=env, **kw)  # type: ignore[arg-type]

    def cli(self, args: Sequence[str], profile: str = "musepi", cwd: Optional[Path] = None) -> "subprocess.CompletedProcess[bytes]":
        """The CLI on this tree (``--home``, ``--cwd``, ``HOME``), 20 s at most."""
        return run_cli(
            ["--profile", profile, "--home", str(self.home), "--cwd", str(self.project), *args],
            cwd=cwd or self.project,
            home=self.home,
        )


def run_cli(args: Sequence[str], cwd: Path, home: Path) -> "subprocess.CompletedProcess[bytes]":
    if not CLI.is_file():
        pytest.skip(f"no skillpipe CLI at {CLI} (set SKILLPIPE_BIN)")
    return subprocess.run(
        [str(CLI), *args],
        cwd=cwd,
        env=clean_env({"HOME": str(home), "USERPROFILE": str(home)}),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=20,
    )


@pytest.fixture
def tree(tmp_path: Path) -> Iterator[Tree]:
    """``home/`` and ``project/`` (a git repository) under a real (symlink-free) tmp path."""
    root = Path(os.path.realpath(tmp_path))
    home = root / "home"
    project = root / "project"
    home.mkdir()
    (project / ".git").mkdir(parents=True)
    yield Tree(root, home, project)
