"""The watcher: ``added``, ``changed``, ``removed`` events as the files
change, the catalogue with them, ``close()`` (from another thread too),
``with`` blocks and ``watch_async``. Every wait has a timeout."""

from __future__ import annotations

import asyncio
import json
import os
import queue
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

import pytest

import skillpipe
from cases import CLI, clean_env
from conftest import Tree, skill_text, write, write_skill

#: Seconds an expected event may take to come.
WAIT_S = 10.0


def roots(tree: Tree) -> Path:
    return tree.home / ".claude" / "skills"


@pytest.fixture
def watched(tree: Tree) -> Tree:
    write_skill(roots(tree), "base", "The skill that is there from the start.")
    return tree


def add_skill(root: Path, name: str, description: str) -> Path:
    """A new skill folder, appearing at once (made aside, then renamed in)."""
    aside = root.parent / f".new-{name}"
    write(aside / "SKILL.md", skill_text(name, description))
    os.rename(aside, root / name)
    return root / name / "SKILL.md"


def next_matching(w: skillpipe.Watcher, pred: Callable[[skillpipe.Event], bool], what: str) -> skillpipe.Event:
    """The first event ``pred`` holds for, within ``WAIT_S`` seconds."""
    deadline = time.monotonic() + WAIT_S
    seen: List[str] = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            pytest.fail(f"no event with {what} in {WAIT_S} s; saw {seen}")
        e = w.next_event(timeout=left)
        if e is None:
            continue
        assert isinstance(e, skillpipe.Event)
        if pred(e):
            return e
        seen.append(repr(e))


def names(skills: List[skillpipe.Skill]) -> List[str]:
    return [s.name for s in skills]


def test_added_changed_removed(watched: Tree) -> None:
    sp = watched.host()
    root = roots(watched)
    with sp.watch(debounce=0.05) as w:
        assert w.closed is False
        assert isinstance(w, skillpipe.Watcher)
        first_catalog = w.catalog
        assert first_catalog == sp.discover().catalog()
        assert names(w.current().skills) == ["base"]
        assert w.next_event(timeout=0.2) is None  # nothing changed yet

        path = add_skill(root, "fresh", "A fresh skill, added while watching.")
        e = next_matching(w, lambda e: "fresh" in names(e.added), "fresh added")
        (s,) = [s for s in e.added if s.name == "fresh"]
        assert s.file_path == str(path) and s.description == "A fresh skill, added while watching."
        assert e.catalog is not None and "A fresh skill, added while watching." in e.catalog
        assert e.catalog != first_catalog
        assert e.catalog == w.catalog == sp.discover().catalog()
        update = e.catalog_update
        assert update is not None and update["added"] == ["fresh"]
        assert "fresh" in names(w.current().skills)
        assert isinstance(e.diagnostics, list)
        d = e.to_dict()
        assert [x["name"] for x in d["added"]] == names(e.added)
        assert d["catalog"] == e.catalog
        assert repr(e).startswith("Event(added=[") and "fresh" in repr(e) and "catalog changed" in repr(e)

        write(path, skill_text("fresh", "A new description of fresh."))
        e = next_matching(w, lambda e: "fresh" in names(e.changed), "fresh changed")
        (s,) = [s for s in e.changed if s.name == "fresh"]
        assert s.description == "A new description of fresh."
        assert e.catalog is not None and "A new description of fresh." in e.catalog
        assert "A fresh skill, added while watching." not in e.catalog
        assert e.catalog_update is not None and e.catalog_update["changed"] == ["fresh"]

        shutil.rmtree(path.parent)
        e = next_matching(w, lambda e: "fresh" in names(e.removed), "fresh removed")
        (s,) = [s for s in e.removed if s.name == "fresh"]
        assert s.file_path == str(path)
        assert e.catalog is not None and "fresh" not in e.catalog
        assert e.catalog_update is not None and e.catalog_update["removed"] == ["fresh"]
        assert names(w.current().skills) == ["base"]
        assert w.reload().to_dict() == sp.discover().to_dict()
    assert w.closed is True


def test_a_diagnostic_event(watched: Tree) -> None:
    with watched.host().watch(debounce=0.05) as w:
        bad = write(roots(watched) / "broken" / "SKILL.md", "---\nname: broken\ndescription: [oops\n---\n")
        e = next_matching(w, lambda e: any(d.path == str(bad) for d in e.diagnostics), "a diagnostic for broken")
        assert "broken" not in names(e.added)
        (d,) = [d for d in e.diagnostics if d.path == str(bad)]
        assert d.severity == "error" and d.line == 3


def test_a_project_root_that_appears(watched: Tree) -> None:
    """A root that did not exist when the watch began is watched once made."""
    with watched.host().watch(debounce=0.05) as w:
        add_skill_at = watched.project / ".agents" / "skills"
        add_skill_at.mkdir(parents=True)
        add_skill(add_skill_at, "late", "A project skill made late.")
        e = next_matching(w, lambda e: "late" in names(e.added), "late added")
        (s,) = [s for s in e.added if s.name == "late"]
        assert s.level == "project"


def test_read_tool_false(watched: Tree) -> None:
    sp = watched.host()
    with sp.watch(debounce=0.05, read_tool=False) as w:
        assert w.catalog == sp.discover().catalog(read_tool=False)
        add_skill(roots(watched), "fresh", "Fresh.")
        e = next_matching(w, lambda e: "fresh" in names(e.added), "fresh added")
        if e.catalog is not None:
            assert e.catalog == sp.discover().catalog(read_tool=False)


def test_close_from_another_thread_ends_iteration(watched: Tree) -> None:
    w = watched.host().watch(debounce=0.05)
    got: "queue.Queue[List[skillpipe.Event]]" = queue.Queue()
    t = threading.Thread(target=lambda: got.put(list(w)), daemon=True)
    t.start()
    time.sleep(0.2)
    assert t.is_alive(), "iteration ended before close()"
    w.close()
    t.join(5)
    assert not t.is_alive(), "list(watcher) did not return after close()"
    assert got.get_nowait() == []
    assert w.closed is True
    assert w.next_event(timeout=0.1) is None
    assert list(w) == []
    w.close()  # twice is fine
    with pytest.raises(ValueError):
        w.current()
    with pytest.raises(ValueError):
        w.reload()
    with pytest.raises(ValueError):
        w.catalog  # noqa: B018


def test_iterating_yields_events(watched: Tree) -> None:
    w = watched.host().watch(debounce=0.05)
    events: "queue.Queue[skillpipe.Event]" = queue.Queue()

    def consume() -> None:
        for e in w:
            events.put(e)

    t = threading.Thread(target=consume, daemon=True)
    t.start()
    try:
        add_skill(roots(watched), "iterated", "Seen by a for loop.")
        deadline = time.monotonic() + WAIT_S
        while True:
            left = deadline - time.monotonic()
            assert left > 0, "no event through iteration"
            try:
                e = events.get(timeout=left)
            except queue.Empty:
                continue
            if "iterated" in names(e.added):
                break
    finally:
        w.close()
        t.join(5)
    assert not t.is_alive()


def test_leaving_with_closes_even_on_error(watched: Tree) -> None:
    sp = watched.host()
    kept: Optional[skillpipe.Watcher] = None
    with pytest.raises(KeyError):
        with sp.watch() as w:
            kept = w
            raise KeyError("boom")
    assert kept is not None and kept.closed is True


def test_the_event_is_the_cli_s(watched: Tree) -> None:
    """One change, seen by the binding and by ``skillpipe watch --json`` on
    the same tree: the same event."""
    if not CLI.is_file():
        pytest.skip(f"no CLI at {CLI}")
    sp = watched.host()
    proc = subprocess.Popen(
        [str(CLI), "--home", str(watched.home), "--cwd", str(watched.project), "watch", "--json"],
        cwd=watched.project,
        env=clean_env({"HOME": str(watched.home)}),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    lines: "queue.Queue[bytes]" = queue.Queue()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        initial: Dict[str, Any] = json.loads(lines.get(timeout=WAIT_S))
        assert initial["initial"] is True
        assert initial["added"] == sp.discover().to_dict()["skills"]
        with sp.watch() as w:  # the CLI's debounce
            assert initial["catalog"] == w.catalog
            add_skill(roots(watched), "fresh", "Seen by both.")
            e = next_matching(w, lambda e: "fresh" in names(e.added), "fresh added")
            cli_event = json.loads(lines.get(timeout=WAIT_S))
        assert e.to_dict() == cli_event
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
        reader.join(5)
        if proc.stdout is not None:
            proc.stdout.close()


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> List[skillpipe.Watcher]:
    """Every watcher ``Skillpipe.watch`` makes (``watch_async`` uses it)."""
    out: List[skillpipe.Watcher] = []
    real = skillpipe.Skillpipe.watch

    def spy(self: skillpipe.Skillpipe, **kw: Any) -> skillpipe.Watcher:
        w = real(self, **kw)
        out.append(w)
        return w

    monkeypatch.setattr(skillpipe.Skillpipe, "watch", spy)
    return out


async def _until_closed(w: skillpipe.Watcher) -> None:
    deadline = time.monotonic() + WAIT_S
    while not w.closed:
        assert time.monotonic() < deadline, "the watcher was not closed"
        await asyncio.sleep(0.02)


def test_watch_async_break_closes(watched: Tree, made: List[skillpipe.Watcher]) -> None:
    """``async for`` over ``watch_async`` gets the added event while the
    event loop keeps running; leaving the loop (``break``) closes the
    watcher."""
    sp = watched.host()

    async def main() -> List[str]:
        got: List[str] = []
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0.01)

        tick_task = asyncio.ensure_future(ticker())

        async def watch() -> None:
            async for e in sp.watch_async(debounce=0.05):
                assert isinstance(e, skillpipe.Event)
                if "fresh" in names(e.added):
                    got.append("fresh")
                    break

        async def change() -> None:
            while not made:
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.2)
            add_skill(roots(watched), "fresh", "Added under asyncio.")

        await asyncio.wait_for(asyncio.gather(watch(), change()), timeout=WAIT_S)
        (w,) = made
        await _until_closed(w)
        tick_task.cancel()
        assert ticks > 10, "the event loop did not run while watching"
        return got

    assert asyncio.run(main()) == ["fresh"]
    (w,) = made
    assert w.closed is True


def test_watch_async_aclose_closes(watched: Tree, made: List[skillpipe.Watcher]) -> None:
    """``aclose()`` on the generator closes the watcher before it returns."""
    sp = watched.host()

    async def main() -> None:
        agen = sp.watch_async(debounce=0.05)
        task = asyncio.ensure_future(agen.__anext__())
        while not made:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.2)
        add_skill(roots(watched), "fresh", "Added under asyncio.")
        e = await asyncio.wait_for(task, timeout=WAIT_S)
        assert "fresh" in names(e.added)
        await asyncio.wait_for(agen.aclose(), timeout=WAIT_S)
        assert made[0].closed is True

    asyncio.run(main())


def test_watch_async_cancelled_closes(watched: Tree, made: List[skillpipe.Watcher]) -> None:
    """A task cancelled while it waits for an event closes its watcher."""
    sp = watched.host()

    async def main() -> None:
        async def forever() -> None:
            async for _ in sp.watch_async(debounce=0.05):
                pass

        task = asyncio.ensure_future(forever())
        await asyncio.sleep(0.5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, timeout=WAIT_S)
        await _until_closed(made[0])

    asyncio.run(main())
    (w,) = made
    assert w.closed is True
