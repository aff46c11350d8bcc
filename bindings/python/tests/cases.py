"""The shared acceptance cases, built and run the way
``../shared/conformance/run.py`` builds and runs them, so that the binding
can be compared with the CLI (``target/release/skillpipe``) run by run.

A port of the Node binding's ``bindings/node/test/cases.mjs``.
"""

from __future__ import annotations

import base64
import importlib
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence



def _toml_module() -> Any:
    """``tomllib`` (Python 3.11+), else ``tomli``, else None."""
    for name in ("tomllib", "tomli"):
        try:
            return importlib.import_module(name)
        except ImportError:
            pass
    return None


#: What reads case.toml (None: neither tomllib nor tomli: the cases skip).
TOML: Any = _toml_module()

HERE = Path(__file__).resolve().parent
#: The workspace root (``bindings/python/tests`` is three levels down).
ROOT = HERE.parents[2]

# Read before any scrubbing: these two name where the cases and the CLI are.
_SHARED_ENV = os.environ.get("SKILLPIPE_SHARED")
_BIN_ENV = os.environ.get("SKILLPIPE_BIN")

#: ``../shared`` beside the checkout (``SKILLPIPE_SHARED`` moves it).
SHARED = Path(_SHARED_ENV) if _SHARED_ENV else (ROOT / ".." / "shared").resolve()
#: The shared case folders.
CASES_DIR = SHARED / "conformance" / "cases"
#: The CLI the binding is compared with (``SKILLPIPE_BIN`` overrides).
CLI = Path(_BIN_ENV) if _BIN_ENV else ROOT / "target" / "release" / "skillpipe"

#: Seconds a CLI run may take (run.py's timeout).
CLI_TIMEOUT_S = 20

TREE = "$TREE"
SCRUBBED_PREFIXES = ("SKILLPIPE_", "PI_", "MUSEPI_")
SCRUBBED_NAMES = ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_CONFIG_HOME")


def scrubbed(name: str) -> bool:
    """Whether a variable of the calling environment would move a root."""
    return name.startswith(SCRUBBED_PREFIXES) or name in SCRUBBED_NAMES


def clean_env(extra: Optional[Mapping[str, str]] = None) -> Dict[str, str]:
    """This process's environment without what moves a root, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not scrubbed(k)}
    if extra:
        env.update(extra)
    return env


def list_cases(prefixes: Sequence[str]) -> List[str]:
    """The case folders whose names start with one of ``prefixes``, sorted."""
    if not CASES_DIR.is_dir():
        return []
    return sorted(
        p.name
        for p in CASES_DIR.iterdir()
        if p.name.startswith(tuple(prefixes)) and (p / "case.toml").is_file()
    )


def _inside(root: Path, rel: object) -> Path:
    if not isinstance(rel, str) or rel == "" or os.path.isabs(rel) or ".." in rel.split("/"):
        raise ValueError(f"not a relative path inside the tree: {rel!r}")
    return root / rel


def build_tree(case_dir: Path, spec: Mapping[str, Any], root: Path) -> None:
    """Builds a case's tree in ``root`` (run.py's ``build_tree``)."""
    tree = case_dir / "tree"
    if tree.is_dir():
        shutil.copytree(tree, root, symlinks=True, dirs_exist_ok=True)
    for rel, source in dict(spec.get("copy", {})).items():
        src = (case_dir / str(source)).resolve()
        dest = _inside(root, rel)
        dest.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, dest, symlinks=True, dirs_exist_ok=True)
        else:
            shutil.copyfile(src, dest)
    for rel, content in dict(spec.get("files", {})).items():
        path = _inside(root, rel)
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_symlink() or path.exists():
            path.unlink()
        path.write_bytes(str(content).replace(TREE, str(root)).encode("utf-8"))
    for rel, content in dict(spec.get("files_base64", {})).items():
        path = _inside(root, rel)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(str(content), validate=True))
    for rel, target in dict(spec.get("symlinks", {})).items():
        link = _inside(root, rel)
        link.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(str(target), link)
    for rel in list(spec.get("dirs", [])):
        _inside(root, rel).mkdir(parents=True, exist_ok=True)


@dataclass
class CliResult:
    """One CLI run: stdout as bytes, stderr as text, the exit status."""

    stdout: bytes
    stderr: str
    status: int

    @property
    def text(self) -> str:
        return self.stdout.decode("utf-8")


@dataclass
class Case:
    """A built case: its tree, the CLI's base flags and environment."""

    name: str
    spec: Dict[str, Any]
    tree: Path
    home: Path
    cwd: Path
    run_cwd: Path
    profile: str
    #: The variables the case sets, plus HOME: the binding's environment.
    env: Dict[str, str]
    #: Each run's arguments, ``$TREE`` replaced.
    runs: List[List[str]]
    #: The CLI's flags before a run's own.
    base: List[str]
    #: The CLI's whole environment.
    cli_env: Dict[str, str]

    def cli(self, args: Sequence[str]) -> CliResult:
        """Runs the CLI as run.py does (a hang fails after 20 s)."""
        r = subprocess.run(
            [str(CLI), *self.base, *args],
            cwd=self.run_cwd,
            env=self.cli_env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=CLI_TIMEOUT_S,
        )
        return CliResult(r.stdout, r.stderr.decode("utf-8", "replace"), r.returncode)

    def dispose(self) -> None:
        shutil.rmtree(self.tree, ignore_errors=True)


def read_spec(name: str) -> Dict[str, Any]:
    with (CASES_DIR / name / "case.toml").open("rb") as fh:
        spec: Dict[str, Any] = TOML.load(fh)
    return spec


def open_case(name: str) -> Case:
    """Builds case ``name`` in a fresh temporary directory; ``dispose()`` removes it."""
    case_dir = CASES_DIR / name
    spec = read_spec(name)
    tmp = Path(os.path.realpath(tempfile.mkdtemp(prefix="skillpipe-py-case-")))
    try:
        build_tree(case_dir, spec, tmp)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    home = tmp / spec["home"] if spec.get("home") else tmp
    cwd = tmp / spec["cwd"] if spec.get("cwd") else tmp
    case_env = {str(k): str(v).replace(TREE, str(tmp)) for k, v in dict(spec.get("env", {})).items()}
    cli_env = clean_env({"HOME": str(home), "USERPROFILE": str(home)})
    cli_env.update(case_env)
    base: List[str] = []
    if spec.get("profile"):
        base += ["--profile", str(spec["profile"])]
    if spec.get("home"):
        base += ["--home", str(home)]
    if spec.get("cwd"):
        base += ["--cwd", str(cwd)]
    runs = [[str(a).replace(TREE, str(tmp)) for a in r.get("args", [])] for r in spec.get("run", [])]
    return Case(
        name=name,
        spec=spec,
        tree=tmp,
        home=home,
        cwd=cwd,
        run_cwd=cwd if cwd.is_dir() else tmp,
        profile=str(spec.get("profile") or "musepi"),
        env={"HOME": str(home), **case_env},
        runs=runs,
        base=base,
        cli_env=cli_env,
    )


@dataclass
class Run:
    """A run's arguments split as the CLI reads them: the global flags the
    binding takes as options, the command and its own flags and operands."""

    set: List[str] = field(default_factory=list)
    config: List[str] = field(default_factory=list)
    skill_paths: List[str] = field(default_factory=list)
    no_skills: bool = False
    command: Optional[str] = None
    flags: List[str] = field(default_factory=list)
    operands: List[str] = field(default_factory=list)

    def global_args(self) -> List[str]:
        """The global flags, as CLI arguments."""
        out: List[str] = []
        for s in self.set:
            out += ["--set", s]
        for c in self.config:
            out += ["--config", c]
        for p in self.skill_paths:
            out += ["--skill", p]
        if self.no_skills:
            out.append("--no-skills")
        return out


def parse_run(args: Sequence[str]) -> Run:
    out = Run()
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--set":
            i += 1
            out.set.append(args[i])
        elif a == "--config":
            i += 1
            out.config.append(args[i])
        elif a == "--skill":
            i += 1
            out.skill_paths.append(args[i])
        elif a == "--no-skills":
            out.no_skills = True
        elif a.startswith("--"):
            out.flags.append(a)
        elif out.command is None:
            out.command = a
        else:
            out.operands.append(a)
        i += 1
    return out
