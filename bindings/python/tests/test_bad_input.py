"""Bad input from Python raises a Python exception; nothing crashes the
interpreter.

One child interpreter (this file run as a script) makes every bad call,
printing a ``PLAN`` line for each before it starts and a ``CALL`` line per
call as it ends; the test asserts that the child exited 0, that every
planned call has its line (a segfault or an abort leaves them missing) and
that none had an outcome it should not have (``BAD``). A hang fails on the
timeout, naming the call that was running.
"""

from __future__ import annotations

import math
import os
import pickle
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any, Callable, List, Optional, Tuple, Type

#: Seconds one call may take before it counts as a hang.
CALL_TIMEOUT_S = 10
#: Seconds the child may take in all.
CHILD_TIMEOUT_S = 150

HUGE = 10 * 1024 * 1024


# --------------------------------------------------------------------------
# The child


class Plan:
    """The calls, each with what it may do: ``raise`` one of the accepted
    exceptions, ``return`` normally, or ``either``."""

    def __init__(self) -> None:
        self.calls: List[Tuple[str, Callable[[], object], str, Tuple[Type[BaseException], ...]]] = []

    def add(
        self,
        label: str,
        fn: Callable[[], object],
        expect: str = "raise",
        also: Tuple[Type[BaseException], ...] = (),
    ) -> None:
        """``also``: exceptions accepted for this call beyond the usual ones."""
        assert expect in ("raise", "return", "either")
        assert "\n" not in label and all(label != c[0] for c in self.calls), label
        self.calls.append((label, fn, expect, also))


def _accepted() -> Tuple[Type[BaseException], ...]:
    import skillpipe

    # OverflowError: an int out of a usize's range (a negative budget or limit).
    return (TypeError, ValueError, OverflowError, skillpipe.SkillpipeError)


def _touch(found: Any) -> int:
    """Reads everything a discovery offers: every attribute of every skill,
    diagnostic and copy, the catalogue, commands, explain, resolve."""
    import skillpipe

    n = 0
    for s in found.skills:
        for attr in (
            "name", "description", "file_path", "base_dir", "provider", "level", "root",
            "hidden", "user_invocable", "frontmatter", "invocation", "visibility",
        ):
            getattr(s, attr)
        s.to_dict()
        repr(s)
        try:
            found.resolve(f"skill://{s.name}")
        except skillpipe.ResolveError:
            pass
        found.explain(s.name)
        found.expand(f"/skill:{s.name} x")
        n += 1
    for d in found.diagnostics:
        (d.severity, d.code, d.message, d.path, d.line, d.column)
        d.to_dict()
        repr(d)
    for c in [*found.shadowed, *found.removed]:
        (c.skill, c.fate)
        c.to_dict()
        repr(c)
    found.catalog()
    found.catalog(read_tool=False, budget=100)
    found.commands(all=True)
    found.search("x y z")
    found.to_dict()
    repr(found)
    return n


def _build_weird_trees(work: Path) -> List[Tuple[str, Path, Path]]:
    """Trees with a binary SKILL.md, a FIFO, symlink loops, an unreadable
    folder, a 20 MB SKILL.md and a non-UTF-8 folder name: (label, home, project)."""
    out: List[Tuple[str, Path, Path]] = []

    def new(label: str) -> Tuple[Path, Path, Path, Path]:
        home = work / label / "home"
        project = work / label / "project"
        (project / ".git").mkdir(parents=True)
        home.mkdir(parents=True)
        claude = home / ".claude" / "skills"
        agents = project / ".agents" / "skills"
        pi = home / ".pi" / "agent" / "skills"
        for d in (claude, agents, pi):
            d.mkdir(parents=True)
            (d / "fine").mkdir()
            (d / "fine" / "SKILL.md").write_text("---\nname: fine\ndescription: A fine skill.\n---\nok\n")
        out.append((label, home, project))
        return home, project, claude, pi

    _, _, claude, pi = new("binary")
    for root in (claude, pi):
        (root / "bin").mkdir()
        (root / "bin" / "SKILL.md").write_bytes(bytes(range(256)) * 64 + b"\x00\xff---\n")

    _, _, claude, pi = new("fifo")
    for root in (claude, pi):
        (root / "pipe").mkdir()
        os.mkfifo(root / "pipe" / "SKILL.md")
        os.mkfifo(root / "pipe" / "notes.md")

    _, _, claude, pi = new("symlink-loop")
    for root in (claude, pi):
        os.symlink("b", root / "a")
        os.symlink("a", root / "b")
        os.symlink(".", root / "self")
        (root / "deep").mkdir()
        os.symlink("..", root / "deep" / "up")
        os.symlink("SKILL.md", root / "deep" / "SKILL.md")

    _, _, claude, pi = new("unreadable")
    for root in (claude, pi):
        locked = root / "locked"
        locked.mkdir()
        (locked / "SKILL.md").write_text("---\nname: locked\ndescription: d\n---\n")
        os.chmod(locked, 0)
        (root / "nofile").mkdir()
        (root / "nofile" / "SKILL.md").write_text("---\nname: nofile\ndescription: d\n---\n")
        os.chmod(root / "nofile" / "SKILL.md", 0)

    _, _, claude, pi = new("huge-file")
    for root in (claude, pi):
        (root / "huge").mkdir()
        with open(root / "huge" / "SKILL.md", "wb") as fh:
            fh.write(b"---\nname: huge\ndescription: " + b"x" * (20 * 1024 * 1024) + b"\n---\nbody\n")

    _, _, claude, pi = new("non-utf8-name")
    for root in (claude, pi):
        odd = os.fsencode(root) + b"/caf\xe9-\xff"
        os.mkdir(odd)
        with open(odd + b"/SKILL.md", "wb") as fh:
            fh.write(b"---\nname: cafe\ndescription: caf\xe9 \xff\n---\nbody \xfe\n")
    return out


def child(work: Path) -> int:
    # Typed as Any: every call here is wrong on purpose.
    import skillpipe as typed
    from skillpipe import _native as typed_native

    skillpipe: Any = typed
    _native: Any = typed_native

    print(f"INFO skillpipe from {skillpipe.__file__}; euid {os.geteuid()}", flush=True)
    home = work / "home"
    project = work / "project"
    (project / ".git").mkdir(parents=True)
    (home / ".claude" / "skills" / "ok").mkdir(parents=True)
    (home / ".claude" / "skills" / "ok" / "SKILL.md").write_text("---\nname: ok\ndescription: Fine.\n---\nbody\n")
    env = {"HOME": str(home)}
    huge = "a" * HUGE
    huge_path = "/" + "d/" * (HUGE // 2)

    def host(**kw: Any) -> Any:
        kw.setdefault("home", home)
        kw.setdefault("cwd", project)
        kw.setdefault("env", env)
        return skillpipe.Skillpipe(**kw)

    sp = host()
    found = sp.discover()
    p = Plan()

    # Skillpipe(...): each argument of the wrong kind.
    p.add("profile int", lambda: skillpipe.Skillpipe(42))
    p.add("profile None", lambda: skillpipe.Skillpipe(None))
    p.add("profile unknown", lambda: host(profile="claude"))
    p.add("profile empty", lambda: host(profile=""))
    p.add("profile huge", lambda: host(profile=huge))
    p.add("profile NUL", lambda: host(profile="pi\0"))
    p.add("home int", lambda: host(home=7))
    p.add("home bytes", lambda: host(home=os.fsencode(home)))
    p.add("home empty", lambda: host(home=""))
    p.add("home NUL", lambda: host(home=f"{home}\0x"))
    # home and cwd must be directories, as the CLI's --home and --cwd:
    # the OSError of os.stat (FileNotFoundError, NotADirectoryError,
    # ENAMETOOLONG), raised before any work.
    p.add("home huge", lambda: host(home=huge_path).discover(), also=(OSError,))
    p.add("home missing", lambda: host(home=work / "no-such-home"), also=(FileNotFoundError,))
    p.add("home is a file", lambda: host(home=home / ".claude" / "skills" / "ok" / "SKILL.md"), also=(NotADirectoryError,))
    p.add("cwd int", lambda: host(cwd=3.5))
    p.add("cwd bytes", lambda: host(cwd=b"/tmp"))
    p.add("cwd NUL", lambda: host(cwd="/tmp\0"))
    p.add("cwd missing", lambda: host(cwd=work / "no-such-dir"), also=(FileNotFoundError,))
    p.add("app_dir int", lambda: host(app_dir=1))
    p.add("app_dir path", lambda: host(app_dir="../../etc"), "either")
    p.add("app_dir NUL", lambda: host(app_dir=".x\0"))
    p.add("app_dir huge", lambda: host(app_dir=huge), "either")
    p.add("config str", lambda: host(config="settings.json"))
    p.add("config bytes item", lambda: host(config=[b"settings.json"]))
    p.add("config None item", lambda: host(config=[None]))
    p.add("config int", lambda: host(config=5))
    p.add("config NUL", lambda: host(config=["a\0.json"]))
    p.add("config missing file", lambda: host(config=[work / "missing.json"]), "either")
    p.add("config huge path", lambda: host(config=[huge_path]), "either")
    p.add("config is a dir", lambda: host(config=[work]), "either")
    p.add("set str", lambda: host(set="skills.catalogBudget=3"))
    p.add("set non-JSON value", lambda: host(set={"skills.catalogBudget": object()}))
    p.add("set non-JSON nan", lambda: host(set={"skills.catalogBudget": float("nan")}), "either")
    p.add("set int key", lambda: host(set={1: 2}))
    p.add("set item without =", lambda: host(set=["skills.catalogBudget"]))
    p.add("set int item", lambda: host(set=[1]))
    p.add("set NUL", lambda: host(set=["skills.catalogBudget=\0"]))
    p.add("set bad JSON text", lambda: host(set=["skills.ignoredSkills=[oops"]), "either")
    p.add("set wrong type", lambda: host(set=["skills.catalogBudget=-5"]))
    p.add("set huge value", lambda: host(set=["skills.ignoredSkills=" + huge]), "either")
    p.add("set huge key", lambda: host(set=[huge + "=1"]), "either")
    p.add("set deep JSON", lambda: host(set=["skills.ignoredSkills=" + "[" * 100_000 + "]" * 100_000]), "either")
    p.add("env list", lambda: host(env=["HOME"]))
    p.add("env int value", lambda: host(env={"HOME": 1}))
    p.add("env None value", lambda: host(env={"HOME": None}))
    p.add("env bytes key", lambda: host(env={b"HOME": "x"}))
    p.add("env NUL value", lambda: host(env={"HOME": "a\0b"}))
    p.add("env huge value", lambda: _touch(host(env={"HOME": str(home), "SKILLPIPE_X": huge}).discover()), "either")
    p.add("env bad settings var", lambda: host(env={"HOME": str(home), "SKILLPIPE_SKILLS__CATALOGBUDGET": "lots"}), "either")
    p.add("skill_paths None item", lambda: host(skill_paths=[None]))
    p.add("skill_paths str", lambda: host(skill_paths="extra"))
    p.add("skill_paths bytes item", lambda: host(skill_paths=[b"extra"]))
    p.add("skill_paths int", lambda: host(skill_paths=9))
    p.add("skill_paths NUL", lambda: host(skill_paths=["ex\0tra"]))
    p.add("skill_paths huge", lambda: _touch(host(skill_paths=[huge_path]).discover()), "either")
    p.add("skill_paths many", lambda: _touch(host(skill_paths=[f"/nope/{i}" for i in range(5000)]).discover()), "return")
    p.add("no_skills str", lambda: host(no_skills="yes"))
    p.add("no_skills None", lambda: host(no_skills=None))
    p.add("plugins str", lambda: host(plugins="lib.so"))
    p.add("plugins missing", lambda: host(plugins=[work / "libnope.so"]))
    p.add("plugins not a library", lambda: host(plugins=[home / ".claude" / "skills" / "ok" / "SKILL.md"]))
    p.add("plugins a directory", lambda: host(plugins=[work]))
    p.add("unknown keyword", lambda: host(colour="red"))
    p.add("positional home", lambda: skillpipe.Skillpipe("musepi", str(home)))

    # The private layer under the package's checks.
    def native_host(**over: Any) -> Any:
        args: dict[str, Any] = dict(
            profile="musepi", home=str(home), cwd=str(project), app_dir=None, config=[], set=[],
            env=env, skill_paths=[], no_skills=False, plugins=[],
        )
        args.update(over)
        return _native.Host(*args.values())

    p.add("native home NUL", lambda: _touch(native_host(home="/tmp\0x").discover(False)), "either")
    p.add("native cwd NUL", lambda: _touch(native_host(cwd="/tmp\0x").discover(False)), "either")
    p.add("native skill path NUL", lambda: _touch(native_host(skill_paths=["a\0b"]).discover(True)), "either")
    p.add("native config NUL", lambda: native_host(config=["a\0b.json"]), "either")
    p.add("native plugin NUL", lambda: native_host(plugins=["lib\0.so"]), "either")
    p.add("native env NUL", lambda: _touch(native_host(env={"HOME": "a\0b"}).discover(False)), "either")
    p.add("native set NUL", lambda: native_host(set=["skills.catalogBudget=1\0"]), "either")
    p.add("native set without =", lambda: native_host(set=["nothing"]), "either")
    p.add("native wrong arity", lambda: _native.Host("musepi"))
    p.add("native validate NUL", lambda: _native.validate("a\0b"), "either")
    p.add("native validate int", lambda: _native.validate(5))
    p.add("native watch negative", lambda: native_host().watch(-1.0, True))
    p.add("native watch nan", lambda: native_host().watch(float("nan"), True))
    p.add("native watch inf", lambda: native_host().watch(float("inf"), True))

    # A deleted working directory.
    def deleted_cwd(call: Callable[[], object]) -> Callable[[], object]:
        def run() -> object:
            before = os.getcwd()
            gone = Path(tempfile.mkdtemp(dir=work))
            os.chdir(gone)
            os.rmdir(gone)
            try:
                return call()
            finally:
                os.chdir(before)

        return run

    p.add("deleted cwd Skillpipe()", deleted_cwd(lambda: skillpipe.Skillpipe(home=home, env=env)))
    p.add("deleted cwd, cwd=None, home=None", deleted_cwd(lambda: skillpipe.Skillpipe(env=env)))
    p.add("deleted cwd with cwd=", deleted_cwd(lambda: _touch(host().discover())), "return")
    p.add("deleted cwd relative skill path", deleted_cwd(lambda: _touch(host(skill_paths=["rel"]).discover())), "either")
    p.add("deleted cwd relative config", deleted_cwd(lambda: host(config=["rel.json"])), "either")
    p.add("deleted cwd validate relative", deleted_cwd(lambda: skillpipe.validate("rel")), "either")
    p.add("deleted cwd context_files", deleted_cwd(lambda: host().context_files()), "return")

    # Discovered's methods.
    p.add("catalog_update int", lambda: found.catalog_update(42))
    p.add("catalog_update None", lambda: found.catalog_update(None))
    p.add("catalog_update Skill", lambda: found.catalog_update(found.skills[0]))
    p.add("catalog_update other profile", lambda: found.catalog_update(host(profile="pi").discover()), "return")
    p.add("catalog read_tool str", lambda: found.catalog(read_tool="no"))
    p.add("catalog budget negative", lambda: found.catalog(budget=-1))
    p.add("catalog budget huge int", lambda: found.catalog(budget=2**80))
    p.add("catalog budget float", lambda: found.catalog(budget=1.5))
    p.add("expand None", lambda: found.expand(None))
    p.add("expand bytes", lambda: found.expand(b"/skill:ok"))
    p.add("expand delivery bogus", lambda: found.expand("/skill:ok", delivery="bogus"))
    p.add("expand delivery None", lambda: found.expand("/skill:ok", delivery=None))
    p.add("expand huge text", lambda: found.expand(huge), "return")
    p.add("expand huge command", lambda: found.expand("/skill:" + huge), "return")
    p.add("expand huge args", lambda: found.expand("/skill:ok " + huge), "return")
    p.add("expand NUL", lambda: found.expand("/skill:ok \0"), "either")
    p.add("expand lone surrogate", lambda: found.expand("/skill:ok \udc80"))
    p.add("resolve None", lambda: found.resolve(None))
    p.add("resolve huge url", lambda: found.resolve("skill://" + huge))
    p.add("resolve huge path", lambda: found.resolve("skill://ok/" + huge))
    p.add("resolve NUL", lambda: found.resolve("skill://ok/a\0b"))
    p.add("resolve %00", lambda: found.resolve("skill://ok/a%00b"))
    p.add("resolve bad escape", lambda: found.resolve("skill://ok/%zz%"))
    p.add("resolve not a url", lambda: found.resolve("http://x"))
    p.add("resolve empty", lambda: found.resolve(""))
    p.add("resolve deep", lambda: found.resolve("skill://ok/" + "a/" * 100_000))
    p.add("explain None", lambda: found.explain(None))
    p.add("explain huge name", lambda: found.explain(huge), "return")
    p.add("explain NUL", lambda: found.explain("ok\0"), "return")
    p.add("search None", lambda: found.search(None))
    p.add("search limit negative", lambda: found.search("x", limit=-1))
    p.add("search limit huge", lambda: found.search("x", limit=2**64 - 1), "either")
    p.add("search huge query", lambda: found.search(huge), "return")
    p.add("search many words", lambda: found.search("w " * 1_000_000), "return")
    p.add("get int", lambda: found.get(3))
    p.add("commands all str", lambda: found.commands(all="yes"))
    p.add("contains int", lambda: 3 in found, "either")
    p.add("pickle Discovered", lambda: pickle.dumps(found))
    p.add("new Skill()", lambda: skillpipe.Skill())
    p.add("new Discovered()", lambda: skillpipe.Discovered())
    p.add("new Event()", lambda: skillpipe.Event())
    p.add("new Watcher()", lambda: skillpipe.Watcher())
    p.add("set attribute", lambda: setattr(found.skills[0], "name", "x"), also=(AttributeError,))

    # validate
    p.add("validate None", lambda: skillpipe.validate(None))
    p.add("validate bytes", lambda: skillpipe.validate(b"/tmp"))
    p.add("validate NUL", lambda: skillpipe.validate("a\0b"))
    p.add("validate huge", lambda: skillpipe.validate(huge_path), "return")
    p.add("validate missing", lambda: skillpipe.validate(work / "missing"), "return")

    # watch
    p.add("watch debounce -1", lambda: sp.watch(debounce=-1))
    p.add("watch debounce nan", lambda: sp.watch(debounce=float("nan")))
    p.add("watch debounce inf", lambda: sp.watch(debounce=math.inf))
    p.add("watch debounce str", lambda: sp.watch(debounce="0.1"))
    p.add("watch debounce bool", lambda: sp.watch(debounce=True))
    p.add("watch debounce huge", lambda: sp.watch(debounce=1e300))
    w = sp.watch(debounce=0.05)
    p.add("next_event timeout -1", lambda: w.next_event(timeout=-1))
    p.add("next_event timeout nan", lambda: w.next_event(timeout=float("nan")))
    p.add("next_event timeout inf", lambda: w.next_event(timeout=math.inf))
    p.add("next_event timeout str", lambda: w.next_event(timeout="1"))
    p.add("next_event timeout 0", lambda: w.next_event(timeout=0), "return")
    p.add("next_event timeout tiny", lambda: w.next_event(timeout=1e-300), "return")
    p.add("watcher close twice", lambda: (w.close(), w.close()), "return")
    p.add("closed next_event", lambda: w.next_event(timeout=5), "return")
    p.add("closed iteration", lambda: list(w), "return")
    p.add("closed current", lambda: w.current())
    p.add("closed reload", lambda: w.reload())
    p.add("closed catalog", lambda: w.catalog)
    p.add("closed with", lambda: w.__enter__().__exit__(None, None, None), "return")

    def close_while_waiting() -> object:
        w2 = sp.watch(debounce=0.05)
        t = threading.Timer(0.2, w2.close)
        t.start()
        got = w2.next_event(timeout=30)
        t.join()
        return got

    p.add("close while another thread waits", close_while_waiting, "return")

    # Discovery over trees that are not what a skill folder should be.
    for label, h, proj in _build_weird_trees(work / "weird"):
        for profile in ("musepi", "pi"):
            def discover(h: Path = h, proj: Path = proj, profile: str = profile) -> object:
                s = skillpipe.Skillpipe(profile, home=h, cwd=proj, env={"HOME": str(h)})
                found = s.discover()
                # Discovery went on past the odd entry.
                assert "fine" in found, [x.name for x in found.skills]
                return (_touch(found), _touch(s.discover_all()), s.context_files())

            p.add(f"tree {label} {profile}", discover, "return")

        def watch_it(h: Path = h, proj: Path = proj) -> object:
            s = skillpipe.Skillpipe(home=h, cwd=proj, env={"HOME": str(h)})
            with s.watch(debounce=0.05) as w:
                w.next_event(timeout=0.1)
                return (w.catalog, _touch(w.current()), _touch(w.reload()))

        def validate_all(h: Path = h) -> object:
            return [skillpipe.validate(d) for d in sorted((h / ".claude" / "skills").iterdir())]

        p.add(f"tree {label} watch", watch_it, "return")
        p.add(f"tree {label} validate", validate_all, "return")

    # Last: a call that may hang keeps a core busy for the calls after it.
    p.add("cwd huge", lambda: host(cwd=huge_path), also=(OSError,))

    for label, *_ in p.calls:
        print(f"PLAN {label}", flush=True)
    hung = False
    for label, fn, expect, also in p.calls:
        print(f"START {label}", flush=True)
        outcome = _call(fn, expect, also)
        hung = hung or outcome.startswith("BAD hung")
        print(f"CALL {label} -> {outcome}", flush=True)
    print("END", flush=True)
    if hung:
        # A call still runs in its thread: leave without waiting for it.
        sys.stdout.flush()
        os._exit(0)
    return 0


def _call(fn: Callable[[], object], expect: str, also: Tuple[Type[BaseException], ...]) -> str:
    """Runs ``fn`` in a thread (a hang is reported, not waited for):
    ``ok ...`` or ``BAD ...`` with what it did."""
    accepted = _accepted() + also
    done: List[str] = []

    def run() -> None:
        try:
            result = fn()
        except accepted as e:
            ok = expect in ("raise", "either")
            done.append(f"{'ok' if ok else 'BAD'} raised {type(e).__name__}: {str(e)[:120]!r}")
        except BaseException as e:  # a PanicException, a RuntimeError (internal error), ...
            done.append(f"BAD raised unaccepted {type(e).__module__}.{type(e).__name__}: {str(e)[:200]!r}")
        else:
            ok = expect in ("return", "either")
            done.append(f"{'ok' if ok else 'BAD'} returned {type(result).__name__}")

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(CALL_TIMEOUT_S)
    if t.is_alive():
        return f"BAD hung (still running after {CALL_TIMEOUT_S} s)"
    return done[0]


# --------------------------------------------------------------------------
# The test


def test_every_bad_call_raises_and_nothing_crashes(tmp_path: Path) -> None:
    work = Path(os.path.realpath(tmp_path))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SKILLPIPE_", "PI_", "MUSEPI_"))}
    env["HOME"] = str(work)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    try:
        r = subprocess.run(
            [sys.executable, "-X", "faulthandler", __file__, str(work)],
            cwd=work,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=CHILD_TIMEOUT_S,
        )
        out, err, code = r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace"), r.returncode
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode("utf-8", "replace")
        err = (e.stderr or b"").decode("utf-8", "replace")
        starts = [line for line in out.splitlines() if line.startswith("START ")]
        raise AssertionError(f"the child hung in {starts[-1] if starts else 'its setup'}\n{err[-2000:]}") from None
    finally:
        _unlock(work)
    lines = out.splitlines()
    planned = [line[5:] for line in lines if line.startswith("PLAN ")]
    done = {line[5:].split(" -> ", 1)[0]: line.split(" -> ", 1)[1] for line in lines if line.startswith("CALL ")}
    missing = [label for label in planned if label not in done]
    last = [line for line in lines if line.startswith("START ")]
    assert code == 0, (
        f"the child exited {code} (a crash?) during {last[-1] if last else 'setup'}; "
        f"{len(missing)} calls never ended\nstderr:\n{err[-3000:]}"
    )
    assert len(planned) > 150, out[-2000:]
    assert not missing, f"calls without an outcome: {missing}"
    assert lines[-1] == "END"
    bad = [f"{label} -> {what}" for label, what in done.items() if what.startswith("BAD")]
    assert not bad, "calls that did not raise an accepted exception as they should:\n" + "\n".join(bad)


def _unlock(root: Path) -> None:
    """Makes the folders chmod 000'd by the child removable again."""
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in [*dirnames, *filenames]:
            path = os.path.join(dirpath, name)
            try:
                if not os.path.islink(path):
                    os.chmod(path, stat.S_IRWXU)
            except OSError:
                pass
        # os.walk could not enter a folder it could not read before the chmod.
        for name in dirnames:
            path = os.path.join(dirpath, name)
            if not os.path.islink(path) and not os.access(path, os.R_OK | os.X_OK):
                os.chmod(path, stat.S_IRWXU)


def _main(argv: List[str]) -> int:
    work = Path(argv[1])
    try:
        return child(work)
    finally:
        _unlock(work)
        shutil.rmtree(work / "weird", ignore_errors=True)


if __name__ == "__main__":
    sys.exit(_main(sys.argv))
