"""Every public function and attribute of the ``skillpipe`` package, on
small trees built here; each answer is checked against what was written
into the tree or against the CLI on the same tree."""

from __future__ import annotations

import ast
import asyncio
import dataclasses
import json
import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

import skillpipe
from cases import CLI
from conftest import SOURCE_PACKAGE, Tree, run_cli, skill_text, write, write_skill


@dataclasses.dataclass
class World:
    """The tree of most tests here (see ``world``)."""

    tree: Tree
    alpha_user: Path
    alpha_project: Path
    beta: Path
    quiet: Path
    tool: Path
    broken: Path
    agents_md: Path

    @property
    def home(self) -> Path:
        return self.tree.home

    @property
    def project(self) -> Path:
        return self.tree.project

    def host(self, **kw: Any) -> skillpipe.Skillpipe:
        return self.tree.host(**kw)

    def cli(self, *args: str, status: Optional[int] = 0) -> "subprocess.CompletedProcess[bytes]":
        r = self.tree.cli(args)
        if status is not None:
            assert r.returncode == status, r.stderr.decode()
        return r

    def cli_json(self, *args: str) -> Any:
        return json.loads(self.cli(*args).stdout)


#: Line 4 of broken's SKILL.md holds the unclosed bracket.
BROKEN = "---\nname: broken\nmetadata:\n  x: [oops\n---\nbody\n"


@pytest.fixture
def world(tree: Tree) -> World:
    claude = tree.home / ".claude" / "skills"
    agents = tree.project / ".agents" / "skills"
    alpha_user = write_skill(claude, "alpha", "Alpha, the user's copy.", body="Alpha user body.")
    quiet = write_skill(claude, "quiet", "Quiet, kept from the model.", "disable-model-invocation: true\n")
    tool = write_skill(
        claude,
        "tool",
        "A tool the model calls.",
        "allowed-tools: Read, Grep\nuser-invocable: false\nmetadata:\n  n: 3\n  list: [1, 2.5, true, null]\n",
        body="Run $ARGUMENTS",
    )
    alpha_project = write_skill(agents, "alpha", "Alpha, the project's copy.")
    beta = write_skill(agents, "beta", "Beta converts PDF files to text.", body="See refs/notes.txt.")
    write(beta.parent / "refs" / "notes.txt", "notes\nline 2\n")
    write(beta.parent / "refs" / "data.json", '{"a": 1}\n')
    (beta.parent / "refs" / "empty").mkdir()
    (beta.parent / "refs" / "latin.bin").write_bytes(b"caf\xe9\n")
    broken = write(agents / "broken" / "SKILL.md", BROKEN)
    agents_md = write(tree.project / "AGENTS.md", "# Project rules\n")
    return World(tree, alpha_user, alpha_project, beta, quiet, tool, broken, agents_md)


# --------------------------------------------------------------------------
# The package


def test_imported_from_the_installed_wheel() -> None:
    where = Path(skillpipe.__file__).resolve()
    assert SOURCE_PACKAGE.resolve() not in where.parents
    site = Path(sysconfig.get_paths()["purelib"]).resolve()
    platlib = Path(sysconfig.get_paths()["platlib"]).resolve()
    assert site in where.parents or platlib in where.parents, where


def test_exports() -> None:
    for name in skillpipe.__all__:
        assert hasattr(skillpipe, name), name
    for cls in (skillpipe.SettingsError, skillpipe.PluginError, skillpipe.ResolveError):
        assert issubclass(cls, skillpipe.SkillpipeError)
    assert issubclass(skillpipe.SkillpipeError, Exception)


def test_version_is_the_cli_s() -> None:
    if not CLI.is_file():
        pytest.skip(f"no CLI at {CLI}")
    out = subprocess.run([str(CLI), "--version"], capture_output=True, timeout=20, check=True)
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*", skillpipe.__version__)
    assert out.stdout.decode().split() == ["skillpipe", skillpipe.__version__]


def test_builtin_providers_are_the_cli_s(world: World) -> None:
    ids = skillpipe.builtin_providers()
    assert isinstance(ids, list) and all(isinstance(i, str) for i in ids)
    assert len(ids) == len(set(ids))
    musepi = [p["id"] for p in world.cli_json("providers", "--json")["providers"]]
    pi = [p["id"] for p in json.loads(world.tree.cli(["providers", "--json"], profile="pi").stdout)["providers"]]
    assert set(ids) == set(musepi) | set(pi)


# --------------------------------------------------------------------------
# Skillpipe(...)


def test_skillpipe_attributes_and_repr(world: World) -> None:
    sp = world.host()
    assert sp.profile == "musepi"
    assert sp.home == str(world.home) and isinstance(sp.home, str)
    assert sp.cwd == str(world.project)
    assert sp.warnings == []
    assert repr(sp) == f"Skillpipe(profile='musepi', home={str(world.home)!r}, cwd={str(world.project)!r})"
    pi = world.host(profile="pi")
    assert pi.profile == "pi"
    assert pi.discover().profile == "pi"


def test_the_servers_of_mcp_servers_are_read(tree: Tree) -> None:
    """The extension has the ``mcp`` provider: a server named in
    ``mcp.servers`` (a small stdlib-only MCP server, ``tests/fixtures``)
    gives its skill, verified and cached under the home."""
    served = tree.root / "served"
    write_skill(served, "tiny", "A served skill.", body="Read notes/a.md.\n")
    write(served / "tiny" / "notes" / "a.md", "note\n")
    server = Path(__file__).resolve().parents[3] / "tests" / "fixtures" / "tiny_mcp_server.py"
    servers = {"tiny": {"command": sys.executable, "args": [str(server), str(served)]}}
    sp = skillpipe.Skillpipe(
        home=tree.home,
        cwd=tree.project,
        env={"HOME": str(tree.home)},
        set={"mcp.servers": servers},
    )
    found = sp.discover()
    assert [d.to_dict() for d in found.diagnostics] == []
    assert [(s.name, s.description, s.provider) for s in found.skills] == [("tiny", "A served skill.", "mcp-tiny")]
    assert Path(found.skills[0].file_path).is_relative_to(tree.home / ".cache")
    assert found.resolve("skill://tiny/notes/a.md").content == b"note\n"


def test_paths_may_be_pathlike(world: World) -> None:
    a = skillpipe.Skillpipe(home=world.home, cwd=world.project, env={"HOME": str(world.home)})
    b = skillpipe.Skillpipe(home=str(world.home), cwd=str(world.project), env={"HOME": str(world.home)})
    assert a.discover().to_dict() == b.discover().to_dict()


def test_defaults_are_the_process_s(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(world.project)
    monkeypatch.setenv("HOME", str(world.home))
    sp = skillpipe.Skillpipe()
    assert sp.cwd == str(world.project)
    assert sp.home == str(world.home)
    assert sp.discover().to_dict() == world.cli_json("list", "--json")
    # env= without home=: the home is the given environment's HOME.
    other = world.tree.root / "other-home"
    write_skill(other / ".claude" / "skills", "elsewhere")
    sp = skillpipe.Skillpipe(env={"HOME": str(other)})
    assert sp.home == str(other)
    assert "elsewhere" in sp.discover()


def test_relative_skill_paths_are_the_cli_s(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    """A relative skill path means what the CLI's ``--skill`` means when run
    from the same directory."""
    write_skill(world.tree.root / "extra", "gamma")
    for where in (world.tree.root, world.project):
        monkeypatch.chdir(where)
        sp = world.host(skill_paths=["extra"], no_skills=True)
        r = run_cli(
            ["--home", str(world.home), "--cwd", str(world.project), "--skill", "extra", "--no-skills", "list", "--json"],
            cwd=where,
            home=world.home,
        )
        assert sp.discover().to_dict() == json.loads(r.stdout)


def test_skill_paths_and_no_skills(world: World) -> None:
    extra = world.tree.root / "extra"
    gamma = write_skill(extra, "gamma")
    d = world.host(skill_paths=[extra], no_skills=True).discover()
    assert [s.name for s in d.skills] == ["gamma"]
    assert d.skills[0].file_path == str(gamma)
    assert d.to_dict() == world.cli_json("--skill", str(extra), "--no-skills", "list", "--json")
    both = world.host(skill_paths=[str(extra)]).discover()
    assert {"alpha", "beta", "gamma"} <= {s.name for s in both.skills}


def test_app_dir(world: World) -> None:
    omp = write_skill(world.home / ".omp" / "agent" / "skills", "from-omp", "An .omp skill.")
    d = world.host(app_dir=".omp").discover()
    got = d.get("from-omp")
    assert got is not None and got.file_path == str(omp)
    assert d.to_dict() == world.cli_json("--app-dir", ".omp", "list", "--json")
    assert "from-omp" not in world.host().discover()


def test_pi_profile_equals_cli(world: World) -> None:
    write_skill(world.home / ".pi" / "agent" / "skills", "pi-user", "A pi user skill.")
    write_skill(world.home / ".pi" / "agent" / "skills" / "group", "pi-nested", "Nested.")
    write(world.project / ".pi" / "skills" / "tip.md", "---\ndescription: A root file.\n---\nTip.\n")
    d = world.host(profile="pi").discover()
    assert d.to_dict() == json.loads(world.tree.cli(["list", "--json"], profile="pi").stdout)
    assert {"pi-user", "pi-nested"} <= {s.name for s in d.skills}
    assert d.catalog() == world.tree.cli(["prompt"], profile="pi").stdout.decode()
    assert d.expand("/skill:pi-user go") == json.loads(
        world.tree.cli(["expand", "/skill:pi-user go", "--json"], profile="pi").stdout
    )


# --------------------------------------------------------------------------
# discover()


def test_discover_equals_list_json(world: World) -> None:
    d = world.host().discover()
    doc = world.cli_json("list", "--json")
    assert d.to_dict() == doc
    assert list(d.to_dict()) == ["profile", "skills", "diagnostics"]
    assert d.profile == "musepi"
    assert len(d) == len(doc["skills"]) == len(d.skills)
    for skill, row in zip(d.skills, doc["skills"]):
        assert skill.to_dict() == row
        assert skill.name == row["name"]
        assert skill.description == row["description"]
        assert isinstance(skill.file_path, str) and skill.file_path == row["file_path"]
        assert isinstance(skill.base_dir, str) and skill.base_dir == row["base_dir"]
        assert skill.provider == row["source"]["provider"]
        assert skill.level == row["source"]["level"]
        assert skill.root == row["source"]["root"]
        assert skill.hidden is row["hidden"]
        assert skill.frontmatter == row["frontmatter"]
        assert skill.invocation == row.get("invocation")
        assert skill.visibility == row.get("visibility", "on")
    for diag, row in zip(d.diagnostics, doc["diagnostics"]):
        assert diag.to_dict() == row
        assert diag.severity == row["severity"]
        assert diag.code == row["code"]
        assert diag.message == row["message"]
        assert isinstance(diag.path, str) and diag.path == row["path"]
        assert diag.line == row.get("line")
        assert diag.column == row.get("column")


def test_skills_are_what_the_tree_holds(world: World) -> None:
    d = world.host().discover()
    alpha = d.get("alpha")
    assert alpha is not None
    assert alpha.file_path == str(world.alpha_user)
    assert alpha.base_dir == str(world.alpha_user.parent)
    assert alpha.root == str(world.home / ".claude" / "skills")
    assert (alpha.provider, alpha.level) == ("claude", "user")
    assert alpha.description == "Alpha, the user's copy."
    assert alpha.frontmatter == {"name": "alpha", "description": "Alpha, the user's copy."}
    beta = d.get("beta")
    assert beta is not None
    assert (beta.provider, beta.level, beta.file_path) == ("agents", "project", str(world.beta))
    tool = d.get("tool")
    assert tool is not None
    fm = tool.frontmatter
    assert isinstance(fm, dict)
    assert fm == {
        "name": "tool",
        "description": "A tool the model calls.",
        "allowed-tools": "Read, Grep",
        "user-invocable": False,
        "metadata": {"n": 3, "list": [1, 2.5, True, None]},
    }
    assert list(fm) == ["name", "description", "allowed-tools", "user-invocable", "metadata"]
    assert tool.user_invocable is False
    assert alpha.user_invocable is True
    inv = tool.invocation
    assert isinstance(inv, dict)
    assert inv.get("allowed_tools") == ["Read", "Grep"]
    assert alpha.invocation is None
    assert d.get("nope") is None
    assert "alpha" in d and "broken" not in d
    # Each read of a list is a fresh list of handles onto the same discovery.
    assert [s.name for s in d.skills] == [s.name for s in d.skills]


def test_paths_are_os_fsdecode_s(world: World) -> None:
    """Paths are str as os.fsdecode makes them: a folder whose name is not
    UTF-8 still names the file (os.fsencode gives its bytes back), and the
    ``to_dict()`` documents are the CLI's (lossy, as JSON must be)."""
    raw = os.fsencode(world.home / ".claude" / "skills") + b"/caf\xe9"
    os.mkdir(raw)
    with open(raw + b"/SKILL.md", "wb") as fh:
        fh.write(b"---\nname: cafe\ndescription: Caf\xc3\xa9.\n---\nbody\n")
    d = world.host().discover()
    cafe = d.get("cafe")
    assert cafe is not None
    assert isinstance(cafe.file_path, str)
    assert os.fsencode(cafe.file_path) == raw + b"/SKILL.md"
    assert os.fsencode(cafe.base_dir) == raw
    assert os.path.isfile(cafe.file_path)
    assert cafe.file_path == os.fsdecode(raw + b"/SKILL.md")
    assert cafe.to_dict()["file_path"] == (raw + b"/SKILL.md").decode("utf-8", "replace")
    assert d.to_dict() == world.cli_json("list", "--json")
    assert os.fsencode(d.resolve("skill://cafe").path) == raw + b"/SKILL.md"
    for x in d.diagnostics:
        if os.fsencode(x.path).startswith(raw):
            assert x.to_dict()["path"] == os.fsencode(x.path).decode("utf-8", "replace")


def test_contains_takes_any_object(world: World) -> None:
    """The stub types ``__contains__(name: object)``: a non-str is not a name."""
    d = world.host().discover()
    assert 42 not in d
    assert None not in d


def test_collision_shadowed_copy(world: World) -> None:
    d = world.host().discover()
    assert [s.name for s in d.skills].count("alpha") == 1
    (copy,) = d.shadowed
    assert isinstance(copy, skillpipe.Copy)
    assert copy.skill.name == "alpha"
    assert copy.skill.file_path == str(world.alpha_project)
    assert copy.skill.description == "Alpha, the project's copy."
    fate = copy.fate
    assert fate["fate"] == "shadowed"
    assert fate["by"]["file_path"] == str(world.alpha_user)
    row = copy.to_dict()
    assert row["name"] == "alpha" and row["fate"] == "shadowed"
    assert {k: v for k, v in row.items() if k not in fate} == copy.skill.to_dict()
    (collision,) = [x for x in d.diagnostics if x.code == "collision"]
    assert collision.path == str(world.alpha_project)
    assert collision.to_dict()["winner_path"] == str(world.alpha_user)
    assert d.removed == []


def test_malformed_yaml_is_a_diagnostic_with_a_line(world: World) -> None:
    d = world.host().discover()
    (diag,) = [x for x in d.diagnostics if x.path == str(world.broken)]
    assert diag.severity == "error"
    assert diag.code == "yaml-error"
    assert diag.line == 4  # the line of "  x: [oops" in BROKEN
    assert isinstance(diag.column, int) and diag.column >= 1
    assert "broken" not in d


def test_hidden_skill(world: World) -> None:
    d = world.host().discover()
    quiet = d.get("quiet")
    assert quiet is not None and quiet.hidden is True
    assert not any(s.hidden for s in d.skills if s.name != "quiet")
    catalog = d.catalog()
    assert "Alpha, the user's copy." in catalog and "beta" in catalog
    assert "quiet" not in catalog
    assert d.expand("/skill:quiet now")["expanded"] is True
    assert d.resolve("skill://quiet").content == world.quiet.read_bytes()
    assert all(hit["name"] != "quiet" for hit in d.search("quiet kept model"))


def test_discover_all(world: World) -> None:
    sp = world.host(set={"skills.visibility": {"beta": "off"}})
    d = sp.discover()
    assert "beta" not in d and d.removed == []
    a = sp.discover_all()
    assert a.to_dict() == json.loads(
        world.tree.cli(["--set", 'skills.visibility={"beta": "off"}', "list", "--all", "--json"]).stdout
    )
    assert list(a.to_dict()) == ["profile", "skills", "removed", "diagnostics"]
    (removed,) = a.removed
    assert removed.skill.name == "beta" and removed.skill.file_path == str(world.beta)
    assert removed.fate["fate"] == "removed"
    assert removed.fate["setting"] == "skills.visibility"
    assert [c.skill.name for c in a.shadowed] == ["alpha"]
    rows = a.to_dict()["removed"]
    assert removed.to_dict() in rows
    assert [s.name for s in a.skills] == [s.name for s in d.skills]


def test_visibility_by_settings(world: World) -> None:
    vis = {"beta": "name-only", "alpha": "user-only"}
    as_map = world.host(set={"skills.visibility": vis}).discover()
    as_str = world.host(set=["skills.visibility=" + json.dumps(vis)]).discover()
    assert as_map.to_dict() == as_str.to_dict()
    flag = ["--set", "skills.visibility=" + json.dumps(vis)]
    assert as_map.to_dict() == json.loads(world.tree.cli([*flag, "list", "--json"]).stdout)
    got = {s.name: s.visibility for s in as_map.skills}
    assert got["beta"] == "name-only" and got["alpha"] == "user-only" and got["quiet"] == "on"
    catalog = as_map.catalog()
    assert catalog == world.tree.cli([*flag, "prompt"]).stdout.decode()
    assert "Beta converts" not in catalog and "beta" in catalog
    assert "Alpha, the user's copy." not in catalog


# --------------------------------------------------------------------------
# The catalogue


def test_catalog_equals_prompt(world: World) -> None:
    d = world.host().discover()
    assert d.catalog() == world.cli("prompt").stdout.decode()
    assert d.catalog(read_tool=True) == d.catalog()
    assert d.catalog(read_tool=False) == world.cli("prompt", "--no-read-tool").stdout.decode()


def test_catalog_budget(world: World) -> None:
    for i in range(6):
        write_skill(world.home / ".claude" / "skills", f"extra-{i}", f"Extra skill number {i}, " + "words " * 8)
    d = world.host().discover()
    full = d.catalog()
    assert d.catalog(budget=0) == full
    assert d.catalog(budget=10**6) == full
    n = len(full)
    for budget in (1, 40, n // 2, n - 1, n):
        cut = d.catalog(budget=budget)
        assert cut == world.cli("prompt", "--budget", str(budget)).stdout.decode(), budget
        assert len(cut) <= budget
    assert d.catalog(budget=n - 1) != full
    # The setting is the default budget.
    small = world.host(set={"skills.catalogBudget": n // 2}).discover()
    assert small.catalog() == d.catalog(budget=n // 2)
    assert small.catalog(budget=0) == full


def test_catalog_update_between_discoveries(world: World) -> None:
    for name in ("d1", "d2", "d3", "d4", "d5"):
        write_skill(world.home / ".claude" / "skills", name)
    before = world.host().discover()
    assert before.catalog_update(before) == {"message": "", "added": [], "changed": [], "removed": []}
    write_skill(world.home / ".claude" / "skills", "fresh", "A fresh skill.")
    write_skill(world.home / ".claude" / "skills", "d2", "A new description of d2.")
    (world.home / ".claude" / "skills" / "d3" / "SKILL.md").unlink()
    after = world.host().discover()
    update = after.catalog_update(before)
    assert update["added"] == ["fresh"]
    assert update["changed"] == ["d2"]
    assert update["removed"] == ["d3"]
    assert "fresh" in update["message"] and "A fresh skill." in update["message"]
    assert "d3" in update["message"]
    back = before.catalog_update(after)
    assert (back["added"], back["removed"]) == (["d3"], ["fresh"])


# --------------------------------------------------------------------------
# expand, resolve, commands, search, explain


def test_expand_equals_cli(world: World) -> None:
    d = world.host().discover()
    texts = ["/skill:beta convert page 3", "/skill:alpha", "plain text", "/skill:nope x", "/skill:tool x", "/skill:quiet"]
    for text in texts:
        assert d.expand(text) == world.cli_json("expand", text, "--json"), text
        assert d.expand(text, delivery="prompt") == d.expand(text)
        assert d.expand(text)["text"] == world.cli("expand", text).stdout.decode()
        assert d.expand(text, delivery="steer") == world.cli_json("expand", text, "--streaming", "--json")
        assert d.expand(text, delivery="follow-up") == world.cli_json(
            "expand", text, "--streaming", "--follow-up", "--json"
        )
    e = d.expand("/skill:beta convert page 3")
    assert e["expanded"] is True and e["skill"] == "beta" and e["delivery"] == "prompt"
    assert "See refs/notes.txt." in e["text"] and "convert page 3" in e["text"]
    assert d.expand("plain text") == {"expanded": False, "text": "plain text", "skill": None, "delivery": None}
    # tool is user-invocable: false.
    assert d.expand("/skill:tool x")["expanded"] is False
    assert d.expand("/skill:alpha", delivery="follow_up") == d.expand("/skill:alpha", delivery="follow-up")


def test_resolve_files(world: World) -> None:
    d = world.host().discover()
    skill_md = d.resolve("skill://beta")
    assert isinstance(skill_md, skillpipe.Resource)
    assert skill_md.content == world.beta.read_bytes()
    assert skill_md.path == str(world.beta) and isinstance(skill_md.path, str)
    assert skill_md.is_dir is False
    assert skill_md.content_type == "text/markdown"
    notes = d.resolve("skill://beta/refs/notes.txt")
    assert notes.content == b"notes\nline 2\n" and notes.text == "notes\nline 2\n"
    assert notes.content_type == "text/plain"
    data = d.resolve("skill://beta/refs/data.json")
    assert data.content_type == "application/json"
    assert json.loads(data.text) == {"a": 1}
    for url in ("skill://beta", "skill://beta/refs/notes.txt", "skill://beta/refs/data.json", "skill://alpha/SKILL.md"):
        r = d.resolve(url)
        assert r.content == world.cli("resolve", url).stdout, url
        assert {"path": r.path, "content_type": r.content_type, "is_dir": r.is_dir} == world.cli_json(
            "resolve", url, "--json"
        )


def test_resolve_text_of_bytes_that_are_not_utf8(world: World) -> None:
    """``Resource.text`` raises UnicodeDecodeError (as its stub says) where
    the bytes are not UTF-8, as ``bytes.decode`` would."""
    latin = world.host().discover().resolve("skill://beta/refs/latin.bin")
    assert latin.content == b"caf\xe9\n"
    with pytest.raises(UnicodeDecodeError):
        latin.text  # noqa: B018


def test_resolve_directory_listing(world: World) -> None:
    d = world.host().discover()
    listing = d.resolve("skill://beta/refs")
    assert listing.is_dir is True
    assert listing.path == str(world.beta.parent / "refs")
    names = set(re.split(r"\s+", listing.text.strip()))
    assert {n.rstrip("/") for n in names} == {"notes.txt", "data.json", "empty", "latin.bin"}
    assert listing.content == world.cli("resolve", "skill://beta/refs").stdout
    empty = d.resolve("skill://beta/refs/empty")
    assert empty.is_dir and empty.content == world.cli("resolve", "skill://beta/refs/empty").stdout


@pytest.mark.parametrize(
    "url, code",
    [
        ("skill://beta/../alpha/SKILL.md", "path-traversal"),
        ("skill://beta/refs/%2e%2e/%2e%2e/alpha/SKILL.md", "path-traversal"),
        ("skill://beta/refs/nope.md", "not-found"),
        ("skill://nope", "unknown-skill"),
    ],
)
def test_resolve_refused(world: World, url: str, code: str) -> None:
    d = world.host().discover()
    with pytest.raises(skillpipe.ResolveError) as info:
        d.resolve(url)
    e = info.value
    assert e.code == code
    assert str(e) == e.message
    err = json.loads(world.cli("resolve", url, "--json", status=1).stderr)["error"]
    assert err["code"] == code
    # The CLI adds a "Did you mean" line of its own to an unknown name.
    assert re.sub(r"\nDid you mean: [^\n]*$", "", err["message"]) == e.message


def test_resolve_symlink_out_of_the_folder_is_refused(world: World) -> None:
    secret = write(world.tree.root / "secret.txt", "secret\n")
    os.symlink(secret, world.beta.parent / "refs" / "leak.txt")
    d = world.host().discover()
    with pytest.raises(skillpipe.ResolveError) as info:
        d.resolve("skill://beta/refs/leak.txt")
    r = world.cli("resolve", "skill://beta/refs/leak.txt", "--json", status=1)
    assert info.value.code == json.loads(r.stderr)["error"]["code"]


def test_commands(world: World) -> None:
    d = world.host().discover()
    assert d.commands() == world.cli_json("commands", "--json")["commands"]
    assert d.commands(all=False) == d.commands()
    every = d.commands(all=True)
    assert every == world.cli_json("commands", "--all", "--json")["commands"]
    names = [c["name"] for c in d.commands()]
    assert "skill:alpha" in names and "skill:beta" in names
    shadowed = [c for c in every if c.get("shadowed")]
    assert [c["skill"] for c in shadowed] == ["alpha"]
    assert len(every) == len(d.commands()) + 1


def test_search(world: World) -> None:
    d = world.host().discover()
    for query, limit in (("convert pdf files", 10), ("alpha", 10), ("alpha beta", 1), ("zzz", 10)):
        hits = d.search(query, limit=limit)
        want = world.cli_json("search", query, "--limit", str(limit), "--json")["results"]
        assert hits == want, query
        assert len(hits) <= limit
    top = d.search("convert pdf files")
    assert top and top[0]["name"] == "beta"
    assert d.search("alpha beta", 1) == d.search("alpha beta")[:1]
    assert d.search("zzz") == []


def test_explain_a_shadowed_name(world: World) -> None:
    d = world.host().discover()
    doc = d.explain("alpha")
    assert doc == world.cli_json("explain", "alpha", "--json")
    assert doc is not None
    claims = doc["claims"]
    assert [c["file_path"] for c in claims] == [str(world.alpha_user), str(world.alpha_project)]
    assert [c["fate"] for c in claims] == ["loaded", "shadowed"]
    assert world.host().discover_all().explain("alpha") == doc
    assert d.explain("no-such-name") is None
    world.cli("explain", "no-such-name", "--json", status=1)
    broken = d.explain("broken")
    assert broken == world.cli_json("explain", "broken", "--json")


# --------------------------------------------------------------------------
# context_files, validate


def test_context_files(world: World) -> None:
    nested = world.project / "pkg" / "app"
    write(world.project / "pkg" / "AGENTS.md", "# pkg\n")
    nested.mkdir(parents=True)
    files = world.host().context_files()
    assert files == world.cli_json("context", "--json")["files"]
    assert files[0]["path"] == str(world.agents_md)
    deep = skillpipe.Skillpipe(home=world.home, cwd=nested, env={"HOME": str(world.home)}).context_files()
    r = run_cli(["--home", str(world.home), "--cwd", str(nested), "context", "--json"], cwd=nested, home=world.home)
    assert deep == json.loads(r.stdout)["files"]
    paths = [f["path"] for f in deep]
    assert paths.index(str(world.project / "pkg" / "AGENTS.md")) < paths.index(str(world.agents_md))


def test_validate(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    good = world.beta.parent
    bad = world.tree.root / "skills" / "Bad_Name"
    write(bad / "SKILL.md", "---\nname: Bad_Name\nsize: 3\n---\nbody\n")
    v = skillpipe.validate(good)
    assert isinstance(v, skillpipe.Validation)
    assert (v.path, v.errors, v.valid) == (str(good), [], True)
    assert skillpipe.validate(str(good)) == v
    w = skillpipe.validate(bad)
    assert w.valid is False
    # skills-ref's words.
    assert "Skill name 'Bad_Name' must be lowercase" in w.errors
    assert "Missing required field in frontmatter: description" in w.errors
    assert any(e.startswith("Unexpected fields in frontmatter: size.") for e in w.errors)
    monkeypatch.chdir(world.tree.root)
    for target in (good, bad, bad / "SKILL.md", Path("skills/Bad_Name"), world.broken.parent, world.tree.root / "missing"):
        got = skillpipe.validate(target)
        doc = json.loads(run_cli(["validate", str(target), "--json"], cwd=world.tree.root, home=world.home).stdout)
        assert [{"path": got.path, "valid": got.valid, "errors": got.errors}] == doc["results"], target
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.path = "x"  # type: ignore[misc]
    assert repr(v) == f"Validation(path={str(good)!r}, errors=[])"


# --------------------------------------------------------------------------
# Settings: warnings, errors, plugins


def test_warnings(world: World) -> None:
    sp = world.host(set=["skils.catalogBudget=4"])
    (w,) = sp.warnings
    assert isinstance(w, skillpipe.SettingsWarning) and isinstance(w, tuple)
    assert w.code == "unknown-setting"
    assert "skils.catalogBudget" in w.message
    assert w == (w.code, w.message)
    assert repr(w) == f"SettingsWarning(code='unknown-setting', message={w.message!r})"
    r = world.cli("--set", "skils.catalogBudget=4", "list")
    assert w.message in r.stderr.decode()


def test_settings_error_from_set(world: World) -> None:
    with pytest.raises(skillpipe.SettingsError) as info:
        world.host(set={"skills.catalogBudget": "many"})
    e = info.value
    assert isinstance(e, skillpipe.SkillpipeError)
    assert repr(e) == f"SettingsError({e.message!r})"
    assert e.code == "settings"
    assert e.key == "skills.catalogBudget"
    assert e.origin is not None and "--set" in e.origin and "skills.catalogBudget" in e.origin
    r = world.cli("--set", 'skills.catalogBudget="many"', "list", "--json", status=2)
    err = json.loads(r.stderr)["error"]
    assert err["code"] == "settings"
    assert e.message in err["message"]


def test_settings_error_from_a_file(world: World) -> None:
    wrong = write(world.tree.root / "wrong.json", json.dumps({"skills": {"ignoredSkills": 7}}))
    with pytest.raises(skillpipe.SettingsError) as info:
        world.host(config=[wrong])
    e = info.value
    assert e.key == "skills.ignoredSkills"
    assert e.origin is not None and str(wrong) in e.origin
    err = json.loads(world.cli("--config", str(wrong), "list", "--json", status=2).stderr)["error"]
    assert e.message in err["message"]

    unparsable = write(world.tree.root / "bad.toml", "this is = = not toml\n")
    with pytest.raises(skillpipe.SettingsError) as info:
        world.host(config=[unparsable])
    e = info.value
    assert e.key is None
    assert e.origin == str(unparsable)
    err = json.loads(world.cli("--config", str(unparsable), "list", "--json", status=2).stderr)["error"]
    assert e.message in err["message"]


def test_unknown_profile_is_a_settings_error() -> None:
    with pytest.raises(skillpipe.SkillpipeError) as info:
        skillpipe.Skillpipe("claude-code")
    assert "claude-code" in info.value.message


def test_plugin_error(world: World) -> None:
    lib = world.tree.root / "no-such-plugin.so"
    with pytest.raises(skillpipe.PluginError) as info:
        world.host(plugins=[lib])
    e = info.value
    assert isinstance(e, skillpipe.SkillpipeError)
    assert e.code == "plugin"
    assert str(lib) in e.message
    err = json.loads(world.cli("--plugin", str(lib), "list", "--json", status=2).stderr)["error"]
    assert e.message in err["message"]
    # A file that is not a library.
    junk = write(world.tree.root / "junk.so", "not an ELF file\n")
    with pytest.raises(skillpipe.PluginError):
        world.host(plugins=[junk])


# --------------------------------------------------------------------------
# asyncio


def test_discover_async(world: World) -> None:
    sp = world.host(set={"skills.visibility": {"beta": "off"}})

    async def both() -> List[Dict[str, Any]]:
        one, every = await asyncio.gather(sp.discover_async(), sp.discover_all_async())
        assert isinstance(one, skillpipe.Discovered) and isinstance(every, skillpipe.Discovered)
        return [one.to_dict(), every.to_dict()]

    one, every = asyncio.run(both())
    assert one == sp.discover().to_dict()
    assert every == sp.discover_all().to_dict()
    assert "removed" in every and "removed" not in one


# --------------------------------------------------------------------------
# repr


def _fields(text: str, cls: str) -> Dict[str, Any]:
    """``Cls(a='x', b='y')`` as ``{"a": "x", "b": "y"}`` (literals evaluated)."""
    assert text.startswith(cls + "(") and text.endswith(")"), text
    call = ast.parse(text, mode="eval").body
    assert isinstance(call, ast.Call)
    return {kw.arg: ast.literal_eval(kw.value) for kw in call.keywords if kw.arg}


def test_reprs(world: World) -> None:
    # A quote and a backslash in a path: the repr still reads back.
    odd = world.home / ".claude" / "skills" / "it's\\odd"
    write(odd / "SKILL.md", skill_text("odd-one"))
    d = world.host().discover()
    assert repr(d) == f"Discovered(profile='musepi', {len(d.skills)} skills, {len(d.diagnostics)} diagnostics)"
    for s in d.skills:
        f = _fields(repr(s), "Skill")
        assert f == {"name": s.name, "provider": s.provider, "level": s.level, "file_path": str(s.file_path)}
    odd_skill = d.get("odd-one")
    assert odd_skill is not None and _fields(repr(odd_skill), "Skill")["file_path"] == str(odd / "SKILL.md") == odd_skill.file_path
    broken = next(x for x in d.diagnostics if x.code == "yaml-error")
    text = repr(broken)
    assert text.startswith(f"Diagnostic(error [yaml-error] {world.broken}:{broken.line}:{broken.column}: ")
    assert ast.literal_eval(text[text.index(": ", len("Diagnostic(")) + 2 : -1]) == broken.message
    for x in d.diagnostics:
        assert x.code in repr(x) and str(x.path) in repr(x)
    (copy,) = d.shadowed
    assert _fields(repr(copy), "Copy") == {"name": "alpha", "fate": "shadowed", "file_path": str(world.alpha_project)}
    r = d.resolve("skill://beta/refs/notes.txt")
    assert repr(r) == (
        f"Resource(path={str(r.path)!r}, content_type='text/plain', is_dir=False, {len(r.content)} bytes)"
    )
    listing = d.resolve("skill://beta/refs")
    assert "is_dir=True" in repr(listing)
