"""The Python binding on a generated tree, in one Python process, run by
``cargo xtask bench-python`` (and after ``cargo xtask bench``).

Three ways a Python host gets the skills of the same roots, alternated
round by round so that a neighbour slowing the machine slows them alike:

- ``binding``: ``Skillpipe(...).discover()`` and every skill's name,
  description and path read from Python (the whole hand-over);
  each way's result is freed after its timing, as the Rust bench's is;
- ``cli``: ``skillpipe list --json`` as a subprocess, its JSON parsed;
- ``deepagents``: deepagents' own loader (``SkillsMiddleware``'s
  ``_list_skills`` over a ``FilesystemBackend``) on every root, the way a
  deepagents agent lists them today (one level of skill folders a root).

Prints one JSON document: each way's median and min in milliseconds, the
skills it found, and the ratios.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import time
from typing import Any, Callable, Dict, List, Tuple

import skillpipe


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--tree", required=True, help="the generated tree (home/ and project/ inside)")
    ap.add_argument("--cli", required=True, help="the release skillpipe binary")
    ap.add_argument("--root", action="append", default=[], help="every root of the tree (repeat)")
    ap.add_argument("--skill", action="append", default=[], help="musepi's --skill roots (repeat)")
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--loader-reps", type=int, default=3)
    a = ap.parse_args()
    home, cwd = f"{a.tree}/home", f"{a.tree}/project"

    def binding() -> Tuple[int, Any]:
        found = skillpipe.Skillpipe(
            "musepi", home=home, cwd=cwd, env={"HOME": home}, skill_paths=a.skill
        ).discover()
        seen = [(s.name, s.description, s.file_path) for s in found.skills]
        return len(seen), (found, seen)

    cli_args = [a.cli, "--home", home, "--cwd", cwd]
    for s in a.skill:
        cli_args += ["--skill", s]
    cli_args += ["list", "--json"]

    def cli() -> Tuple[int, Any]:
        out = subprocess.run(cli_args, capture_output=True, check=True, env={"HOME": home}).stdout
        doc = json.loads(out)
        return len(doc["skills"]), doc

    def loader() -> Tuple[int, Any]:
        from deepagents.backends.filesystem import FilesystemBackend
        from deepagents.middleware.skills import _list_skills

        backend = FilesystemBackend(root_dir="/", virtual_mode=False)
        found = [s for root in a.root for s in _list_skills(backend, root)]
        return len({s["name"] for s in found}), found

    runs: Dict[str, List[float]] = {"binding": [], "cli": [], "deepagents": []}
    found: Dict[str, int] = {}
    ways: List[Tuple[str, Callable[[], Tuple[int, Any]], int]] = [
        ("binding", binding, a.reps),
        ("cli", cli, a.reps),
        ("deepagents", loader, a.loader_reps),
    ]
    for _, run, _ in ways:  # warm-up: page cache, imports
        run()
    for i in range(max(a.reps, a.loader_reps)):
        for name, run, reps in ways:
            if i >= reps:
                continue
            t = time.perf_counter()
            found[name], kept = run()
            runs[name].append((time.perf_counter() - t) * 1000)
            del kept  # freed outside the timing, as the Rust bench drops its result

    doc: Dict[str, Any] = {
        k: {"median_ms": statistics.median(v), "min_ms": min(v), "runs": len(v), "skills": found[k]}
        for k, v in runs.items()
    }
    doc["cli_over_binding"] = doc["cli"]["median_ms"] / doc["binding"]["median_ms"]
    doc["deepagents_over_binding"] = doc["deepagents"]["median_ms"] / doc["binding"]["median_ms"]
    print(json.dumps(doc))


if __name__ == "__main__":
    main()
