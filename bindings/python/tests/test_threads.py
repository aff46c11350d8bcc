"""Every blocking call releases the GIL: discovery runs in threads (and
from ``asyncio``) while a Python loop keeps running.

The check: the main thread counts loop iterations and notes when it runs,
while workers make the calls, each noting when its call began and ended.
A call that held the GIL would keep the loop from running for all but
microseconds of the call; one that releases it lets the loop run during
it, unless the operating system did not schedule the loop (this machine
may be loaded). So: the loop must have run in the middle half of most
calls (with a held GIL, of none). A positive control (a C call that holds
the GIL) shows that the measure sees a held GIL. The longest gap and the
50 ms slices without progress are reported.
"""

from __future__ import annotations

import asyncio
import bisect
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, List, Sequence, Tuple

import pytest

import skillpipe
from conftest import write

#: Skills in the big tree.
SKILLS = 2000
#: Seconds the workers keep calling.
DURATION_S = 0.6
#: The main loop's time slices (reported).
SLICE_S = 0.05
#: The share of calls the loop must have run in the middle of.
MOST = 0.5


@dataclass
class BigTree:
    home: Path
    project: Path

    def host(self) -> skillpipe.Skillpipe:
        return skillpipe.Skillpipe(home=self.home, cwd=self.project, env={"HOME": str(self.home)})


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BigTree]:
    """2000 skills, seen through nine roots (symlinks to one store): a
    discovery that takes long enough to see a held GIL."""
    root = Path(os.path.realpath(tmp_path_factory.mktemp("big")))
    home, project = root / "home", root / "project"
    (project / ".git").mkdir(parents=True)
    store = home / ".claude" / "skills"
    for i in range(SKILLS):
        write(
            store / f"skill-{i:04d}" / "SKILL.md",
            f"---\nname: skill-{i:04d}\ndescription: Skill number {i} works on files and data {i % 7}.\n"
            f"metadata:\n  n: {i}\n---\n# Skill {i}\n\nBody {i}.\n",
        )
    for rel in (
        "home/.agents/skills", "home/.codex/skills", "home/.config/opencode/skills",
        "project/.claude/skills", "project/.agents/skills", "project/.codex/skills",
        "project/.opencode/skills", "project/.github/skills",
    ):
        link = root / rel
        link.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(store, link)
    yield BigTree(home, project)


@dataclass
class Loop:
    """What the main loop saw while the workers ran."""

    iterations: int = 0
    max_gap: float = 0.0
    slices: int = 0
    empty_slices: int = 0
    #: When the loop ran: at most one mark a millisecond.
    marks: List[float] = field(default_factory=list)
    #: Each call's (start, end).
    calls: List[Tuple[float, float]] = field(default_factory=list)

    def ran_between(self, lo: float, hi: float) -> bool:
        i = bisect.bisect_left(self.marks, lo)
        return i < len(self.marks) and self.marks[i] <= hi

    def ran_mid_call(self, lo: float = 0.25, hi: float = 0.75) -> float:
        """The share of calls in whose middle (``lo`` to ``hi`` of the
        call's time) the loop ran."""
        hits = sum(1 for t0, t1 in self.calls if self.ran_between(t0 + lo * (t1 - t0), t0 + hi * (t1 - t0)))
        return hits / len(self.calls)

    def __str__(self) -> str:
        took = sorted(t1 - t0 for t0, t1 in self.calls)
        return (
            f"{self.iterations} iterations, longest gap {self.max_gap * 1000:.0f} ms, "
            f"{self.empty_slices}/{self.slices} slices of {SLICE_S * 1000:.0f} ms without progress, "
            f"{len(self.calls)} calls of {took[0] * 1000:.0f}-{took[-1] * 1000:.0f} ms, "
            f"loop ran mid-call in {self.ran_mid_call():.0%} of them"
        )


def loop_while(
    call: Callable[[], object], threads: int = 4, duration: float = DURATION_S, calls: int = 1
) -> Loop:
    """Runs ``call`` repeatedly in ``threads`` threads (each at least
    ``calls`` times, and until ``duration`` seconds have passed) while this
    thread counts."""
    seen = Loop()
    lock = threading.Lock()
    errors: List[BaseException] = []
    start = time.perf_counter()
    deadline = start + duration

    def work() -> None:
        try:
            n = 0
            while True:
                t0 = time.perf_counter()
                call()
                t1 = time.perf_counter()
                n += 1
                with lock:
                    seen.calls.append((t0, t1))
                if t1 >= deadline and n >= calls:
                    return
        except BaseException as e:  # reported by the test
            errors.append(e)

    workers = [threading.Thread(target=work, daemon=True) for _ in range(threads)]
    for w in workers:
        w.start()
    counts: List[int] = []
    last = marked = start
    while True:
        now = time.perf_counter()
        gap = now - last
        if gap > seen.max_gap:
            seen.max_gap = gap
        if now - marked >= 0.001:
            seen.marks.append(now)
            marked = now
        last = now
        seen.iterations += 1
        s = int((now - start) / SLICE_S)
        while len(counts) <= s:
            counts.append(0)
        counts[s] += 1
        if seen.iterations % 64 == 0 and not any(w.is_alive() for w in workers):
            break
        if now - start > 60:
            pytest.fail("the workers did not finish in 60 s")
    for w in workers:
        w.join()
    if errors:
        raise errors[0]
    # The last slice is cut short; the others are whole.
    whole = counts[:-1] or counts
    seen.slices = len(whole)
    seen.empty_slices = sum(1 for c in whole if c == 0)
    return seen


def holds_the_gil(seconds: float) -> Callable[[], object]:
    """A C call that holds the GIL for about ``seconds`` (``sum`` over a range)."""
    n = 200_000
    while True:
        t0 = time.perf_counter()
        sum(range(n))
        took = time.perf_counter() - t0
        if took > 0.02:
            break
        n *= 4
    size = max(1, int(n * seconds / took))
    return lambda: sum(range(size))


def solo_duration(call: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    call()
    return time.perf_counter() - t0


def assert_released(call: Callable[[], object], what: str, threads: int = 4, calls: int = 1) -> Loop:
    seen = loop_while(call, threads=threads, calls=calls)
    assert len(seen.calls) >= threads * calls, seen
    assert seen.ran_mid_call() >= MOST, f"{what} kept the loop from running: {seen}"
    return seen


def test_the_measure_sees_a_held_gil(big: BigTree) -> None:
    """The positive control: a call that holds the GIL (as long as a
    discovery takes) keeps the loop from running in the middle of it.

    One worker: with two, a worker's time includes its wait for the GIL
    while the other's call holds it, and the loop can run in that wait
    (it did, once, on a loaded machine), which says nothing of a call."""
    solo = solo_duration(big.host().discover)
    held = loop_while(holds_the_gil(max(solo, 0.1)), threads=1, duration=0.6, calls=3)
    assert held.ran_mid_call() < MOST, f"the control did not stop the loop: {held}"


def test_discover_in_threads_releases_the_gil(big: BigTree) -> None:
    sp = big.host()
    found: List[int] = []
    lock = threading.Lock()

    def discover() -> None:
        d = sp.discover()
        with lock:
            found.append(len(d))

    seen = assert_released(discover, "discover()")
    assert found and set(found) == {SKILLS}
    assert seen.iterations > 1000


def test_discover_all_and_explain_release_the_gil(big: BigTree) -> None:
    sp = big.host()
    assert_released(sp.discover_all, "discover_all()", threads=2)
    d = sp.discover()
    # explain on a discover() runs a whole discover_all() for the claims.
    assert_released(lambda: d.explain("skill-0001"), "explain()", threads=2)


def test_building_a_skillpipe_releases_the_gil(big: BigTree, tmp_path: Path) -> None:
    """Skillpipe(...) reads settings files: a big one takes a while."""
    settings = tmp_path / "big.json"
    settings.write_text(
        '{"skills": {"ignoredSkills": [' + ",".join(f'"nope-{i}-*"' for i in range(200_000)) + "]}}"
    )

    def build() -> None:
        skillpipe.Skillpipe(home=big.home, cwd=big.project, env={"HOME": str(big.home)}, config=[settings])

    assert_released(build, "Skillpipe(config=[...])", threads=2)


def test_skillpipe_objects_are_shared_by_threads(big: BigTree) -> None:
    """One Skillpipe and one Discovered used from several threads at once
    give the same answers as from one."""
    sp = big.host()
    d = sp.discover()

    def answers() -> Tuple[object, ...]:
        return (d.catalog(), d.expand("/skill:skill-0042 go"), d.resolve("skill://skill-0042").content, d.search("data 3", 5))

    want = answers()
    got: List[object] = []
    lock = threading.Lock()

    def use() -> None:
        mine = answers()
        again = len(sp.discover())
        with lock:
            got.append((mine, again))

    seen = loop_while(use, threads=3, duration=0.3)
    assert got and all(g == (want, SKILLS) for g in got), seen


def test_watch_next_event_releases_the_gil(tmp_path: Path) -> None:
    """Waiting in next_event lets the loop run. The wait is made of 100 ms
    slices (then a look at signals): the loop must run inside the first
    slice of most waits, not only between slices."""
    home = tmp_path / "home"
    write(home / ".claude" / "skills" / "one" / "SKILL.md", "---\nname: one\ndescription: d\n---\n")
    sp = skillpipe.Skillpipe(home=home, cwd=tmp_path, env={"HOME": str(home)})
    with sp.watch(debounce=0.05) as w:
        seen = loop_while(lambda: w.next_event(timeout=0.12), threads=2, duration=0.0, calls=6)
    first_slice = sum(1 for t0, _ in seen.calls if seen.ran_between(t0 + 0.02, t0 + 0.08)) / len(seen.calls)
    assert first_slice >= MOST, str(seen)


def _ran_mid(ticks: Sequence[float], calls: Sequence[Tuple[float, float]]) -> float:
    hits = sum(1 for t0, t1 in calls if any(t0 + 0.25 * (t1 - t0) <= t <= t0 + 0.75 * (t1 - t0) for t in ticks))
    return hits / len(calls)


def test_discover_async_lets_the_event_loop_run(big: BigTree) -> None:
    sp = big.host()

    async def main() -> Tuple[List[float], List[Tuple[float, float]], List[int]]:
        ticks: List[float] = []
        stop = asyncio.Event()

        async def ticker() -> None:
            while not stop.is_set():
                ticks.append(time.perf_counter())
                await asyncio.sleep(0.002)

        task = asyncio.ensure_future(ticker())
        await asyncio.sleep(0.01)
        sizes: List[int] = []
        awaits: List[Tuple[float, float]] = []
        t_end = time.perf_counter() + DURATION_S
        while time.perf_counter() < t_end or len(awaits) < 2:
            t0 = time.perf_counter()
            one, every = await asyncio.gather(sp.discover_async(), sp.discover_all_async())
            awaits.append((t0, time.perf_counter()))
            sizes += [len(one), len(every)]
        stop.set()
        await task
        return ticks, awaits, sizes

    ticks, awaits, sizes = asyncio.run(main())
    assert set(sizes) == {SKILLS}
    share = _ran_mid(ticks, awaits)
    assert share >= MOST, f"the event loop ticked in the middle of {share:.0%} of {len(awaits)} awaits"
