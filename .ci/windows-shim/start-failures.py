#!/usr/bin/env python3
"""The tests of one libtest log that failed only because Wine could not
start a process: `usage: start-failures.py LOG`, their names one a line.

Wine's CreateProcess now and then refuses a start with ERROR_INTERNAL_ERROR
(1359, `Os { code: 1359, kind: Uncategorized, message: "Internal error." }`
in the test's panic), under the many starts of the CLI's tests: CI saw it
twice, in two different tests (trust's, then hostile_text's), whose checks
never ran; real Windows does not do it. .ci/windows runs such tests once
more, by exact name, and prints which.

Nothing is printed (so nothing is run again) when any failed test failed
otherwise, or when more than three failed: that is not the flake.
"""

import re
import sys

MARK = "Os { code: 1359,"
MOST = 3


def start_failures(log: str) -> list[str]:
    failed = re.findall(r"^test (\S+) \.\.\. FAILED$", log, re.M)
    # Each failure's output, from its `---- NAME stdout ----` line to the
    # next one or to the closing `failures:` list.
    sections = dict(
        re.findall(r"^---- (\S+) stdout ----\n(.*?)(?=^---- |^failures:$)", log, re.M | re.S)
    )
    if not failed or len(failed) > MOST:
        return []
    if all(MARK in sections.get(name, "") for name in failed):
        return failed
    return []


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
        names = start_failures(f.read())
    if names:
        print("\n".join(names))
