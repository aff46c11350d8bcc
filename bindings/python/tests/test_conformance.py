"""Every ``pi-``, ``musepi-`` and ``runtime-`` case of the shared corpus,
run by the CLI (as run.py runs it) and through the binding, run by run
(a port of the Node binding's ``test/conformance.test.mjs``):

- ``discover()`` equals ``list --json`` under the run's flags (every run);
- ``discover_all()`` equals ``list --all --json``, and ``explain(name)``
  equals ``explain NAME --json`` (the first loaded name, the first name
  that did not load, and a name nobody claims);
- ``prompt``, ``expand``, ``resolve`` (bytes, ``--json``, errors),
  ``context``, ``commands`` and ``validate`` equal the CLI's output;
- a settings error (exit 2) is a ``SettingsError`` with the CLI's message.

pi's ``loadSkills``/``formatSkillsForPrompt`` drop-ins are Node-only.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any, Dict, Iterator, List, Optional, Set, Tuple

import pytest

import skillpipe
from cases import CASES_DIR, CLI, TOML, Case, CliResult, Run, list_cases, open_case, parse_run

CASES = list_cases(["pi-", "musepi-", "runtime-"])

if TOML is None:
    pytestmark = pytest.mark.skip(reason="case.toml needs tomllib (Python 3.11+) or tomli")
else:
    pytestmark = pytest.mark.skipif(
        not CASES, reason=f"no shared conformance cases at {CASES_DIR} (set SKILLPIPE_SHARED)"
    )

#: A name no case claims.
UNCLAIMED = "no-such-skill-anywhere-xyzzy"


@pytest.fixture
def case(request: pytest.FixtureRequest) -> Iterator[Case]:
    c = open_case(str(request.param))
    try:
        yield c
    finally:
        c.dispose()


def test_the_cli_to_compare_with_is_built() -> None:
    assert CLI.is_file() and os.access(CLI, os.X_OK), (
        f"{CLI} is missing: cargo build --release -p skillpipe-cli (or set SKILLPIPE_BIN)"
    )


def _json(r: CliResult) -> Any:
    try:
        return json.loads(r.stdout)
    except ValueError:
        raise AssertionError(f"the CLI printed no JSON (exit {r.status}): {r.stderr}") from None


def _cli_error(r: CliResult) -> Tuple[Optional[str], str]:
    """The CLI's error: with ``--json``, ``{"error": {code, message}}`` on
    stderr, else ``error: ...`` text (code unknown)."""
    try:
        err = json.loads(r.stderr)["error"]
        return str(err["code"]), str(err["message"])
    except (ValueError, KeyError, TypeError):
        return None, r.stderr


class Runner:
    """Checks the runs of one case, caching the CLI's documents per set of
    global flags (many runs of a case share them)."""

    def __init__(self, c: Case) -> None:
        self.c = c
        self.lists: Dict[Tuple[str, ...], CliResult] = {}
        self.extras_done: Set[Tuple[str, ...]] = set()
        self.explains: Dict[Tuple[str, ...], Any] = {}

    def host(self, run: Run) -> skillpipe.Skillpipe:
        c = self.c
        return skillpipe.Skillpipe(
            c.profile,
            home=c.home,
            cwd=c.cwd,
            env=c.env,
            set=run.set,
            config=[os.path.join(c.run_cwd, p) for p in run.config],
            # Made absolute as the CLI makes them (against the directory it
            # runs in); relative ones are test_api's subject.
            skill_paths=[p if p.startswith("~") else os.path.join(c.run_cwd, p) for p in run.skill_paths],
            no_skills=run.no_skills,
        )

    def list_doc(self, run: Run, out: CliResult) -> Any:
        key = tuple(run.global_args())
        if run.command == "list" and "--json" in run.flags and "--all" not in run.flags:
            # A list run is compared with its own output.
            self.lists[key] = out
        elif key not in self.lists:
            self.lists[key] = self.c.cli([*run.global_args(), "list", "--json"])
        return _json(self.lists[key])

    def check(self, args: List[str]) -> None:
        c = self.c
        run = parse_run(args)
        out = c.cli(args)

        if run.command == "validate":
            self.check_validate(run, out)
            return

        if out.status == 2:
            code, cli_message = _cli_error(out)
            with pytest.raises(skillpipe.SettingsError) as info:
                self.host(run)
            e = info.value
            assert e.code == "settings"
            if code is not None:
                assert code == "settings", out.stderr
            assert e.message, "a SettingsError without a message"
            assert e.message in cli_message, f"CLI stderr {out.stderr!r} lacks {e.message!r}"
            assert str(e) == e.message
            return

        sp = self.host(run)
        d = sp.discover()
        doc = self.list_doc(run, out)
        assert d.to_dict() == doc
        assert d.profile == doc["profile"] == c.profile
        assert len(d) == len(doc["skills"])
        assert [s.name for s in d.skills] == [s["name"] for s in doc["skills"]]
        self.check_extras(run, sp, d)
        if d.skills:
            # explain of each run's first name (the CLI's document cached per flags).
            name = d.skills[0].name
            assert d.explain(name) == self.explain_doc(run, name), f"explain {name!r}"

        text = out.stdout
        cmd = run.command
        if cmd == "list":
            if "--deny-warnings" in run.flags:
                assert out.status == (1 if d.diagnostics else 0)
            else:
                assert out.status == 0, out.stderr
        elif cmd == "prompt":
            assert out.status == 0, out.stderr
            read_tool = "--no-read-tool" not in run.flags
            assert d.catalog(read_tool=read_tool) == out.text
        elif cmd == "expand":
            assert out.status == 0, out.stderr
            streaming = "--streaming" in run.flags
            follow_up = "--follow-up" in run.flags
            delivery = "prompt" if not streaming else "follow-up" if follow_up else "steer"
            expansion = d.expand(run.operands[0], delivery=delivery)
            if "--json" in run.flags:
                assert expansion == json.loads(text)
            else:
                assert expansion["text"] == out.text
        elif cmd == "resolve":
            self.check_resolve(run, out, d)
        elif cmd == "context":
            assert out.status == 0, out.stderr
            files = json.loads(text)["files"]
            assert sp.context_files() == files
        elif cmd == "commands":
            assert out.status == 0, out.stderr
            assert d.commands() == json.loads(text)["commands"]
        elif cmd == "providers":
            # Not part of the binding's API: discover() under the same flags is compared above.
            assert out.status == 0, out.stderr
        else:
            pytest.fail(f"a run of a command this test does not know: {cmd}")

    def check_extras(self, run: Run, sp: skillpipe.Skillpipe, d: skillpipe.Discovered) -> None:
        """``discover_all()`` and ``explain``, once per set of global flags."""
        key = tuple(run.global_args())
        if key in self.extras_done:
            return
        self.extras_done.add(key)
        g = run.global_args()
        all_doc = _json(self.c.cli([*g, "list", "--all", "--json"]))
        found_all = sp.discover_all()
        assert found_all.to_dict() == all_doc
        assert [s.name for s in found_all.skills] == [s["name"] for s in all_doc["skills"]]
        names: List[str] = []
        if all_doc["skills"]:
            names.append(all_doc["skills"][0]["name"])
        for row in all_doc["removed"]:
            if row["name"] not in names:
                names.append(row["name"])
                break
        for name in names:
            want = self.explain_doc(run, name)
            assert d.explain(name) == want, f"explain {name!r} (discover())"
            assert found_all.explain(name) == want, f"explain {name!r} (discover_all())"
        r = self.c.cli([*g, "explain", UNCLAIMED, "--json"])
        assert r.status == 1, r.stderr
        assert d.explain(UNCLAIMED) is None
        assert found_all.explain(UNCLAIMED) is None

    def explain_doc(self, run: Run, name: str) -> Any:
        key = (*run.global_args(), "\0", name)
        if key not in self.explains:
            r = self.c.cli([*run.global_args(), "explain", "--json", "--", name])
            assert r.status == 0, r.stderr
            self.explains[key] = _json(r)
        return self.explains[key]

    def check_resolve(self, run: Run, out: CliResult, d: skillpipe.Discovered) -> None:
        url = run.operands[0]
        as_json = "--json" in run.flags
        if out.status == 0:
            r = d.resolve(url)
            if as_json:
                got = {"path": os.fspath(r.path), "content_type": r.content_type, "is_dir": r.is_dir}
                assert got == json.loads(out.stdout)
            else:
                assert isinstance(r.content, bytes)
                assert r.content == out.stdout, "the bytes differ from the CLI's"
            return
        assert out.status == 1, out.stderr
        with pytest.raises(skillpipe.ResolveError) as info:
            d.resolve(url)
        e = info.value
        assert isinstance(e, skillpipe.SkillpipeError)
        # The CLI may add a "Did you mean" line of its own after the error,
        # and with --json prints {"error": {code, message}}.
        code, cli_message = _cli_error(out)
        if code is None:
            cli_message = re.sub(r"Did you mean: [^\n]*\n$", "", out.stderr)
            code, _ = _cli_error(self.c.cli([*run.global_args(), "resolve", url, "--json"]))
        else:
            cli_message = re.sub(r"\nDid you mean: [^\n]*$", "", cli_message) + "\n"
        assert cli_message.endswith(f"{e.message}\n"), f"CLI stderr {out.stderr!r} vs {e.message!r}"
        assert code is not None
        assert e.code == code
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", e.code), e.code
        if e.message.startswith("Unknown skill:"):
            assert e.code == "unknown-skill"
        if e.message.startswith("Path traversal"):
            assert e.code == "path-traversal"
        if e.message.startswith("File not found"):
            assert e.code == "not-found"

    def check_validate(self, run: Run, out: CliResult) -> None:
        r = self.c.cli(["validate", *run.operands, "--json"])
        doc = _json(r)
        assert "summary" not in doc, "an operand that is a folder of skills: not one validate() call"
        before = os.getcwd()
        os.chdir(self.c.run_cwd)
        try:
            got = []
            for op in run.operands:
                v = skillpipe.validate(op)
                assert isinstance(v, skillpipe.Validation)
                assert v.valid == (not v.errors)
                got.append({"path": v.path, "valid": v.valid, "errors": v.errors})
        finally:
            os.chdir(before)
        assert got == doc["results"]
        assert doc["valid"] == all(g["valid"] for g in got)
        assert out.status == (0 if doc["valid"] else 1)


@pytest.mark.parametrize("case", CASES, indirect=True)
def test_case(case: Case) -> None:
    runner = Runner(case)
    failures: List[str] = []
    for i, args in enumerate(case.runs, start=1):
        try:
            runner.check(args)
        except AssertionError as e:
            failures.append(f"run {i} [{' '.join(args)}]: {e}")
    assert not failures, "\n\n".join(failures)
