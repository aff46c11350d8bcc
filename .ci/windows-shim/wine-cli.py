#!/usr/bin/env python3
"""The shared corpus's binary under Wine: `wine skillpipe.exe ARGS`, with the
case's paths given and read back as a Windows user would see them.

run.py builds each case in a Unix directory (`/tmp/skillpipe-case-XXXX`,
the tree) and passes its paths in the arguments and the environment; it
then expects them back, with `/`, in the output. Wine maps `/` to drive
`Z:`, so the Windows form of the tree is `Z:/tmp/skillpipe-case-XXXX`, and
skillpipe.exe prints the paths it builds with `\\` (and, where it
canonicalised one, in the verbatim form `\\\\?\\Z:\\...`). This wrapper:

- passes every argument and environment value that holds the tree with the
  tree as `Z:/tmp/...` (forward slashes, which Windows takes as well, so
  that a JSON value given to `--set` stays valid JSON);
- writes the output back in run.py's form: the drive (and any `\\\\?\\`)
  before the tree dropped, and every `\\` made `/`. That is exact for the
  shared corpus, whose expected outputs hold no backslash (the only ones
  skillpipe.exe prints there are Windows' separators; a case that ever
  expects one fails here, visibly). Output that is JSON (stdout whole, or
  a line of stderr) is parsed and each string translated, so that JSON's
  own escapes stay escapes; run.py compares JSON by value, not layout.

The exit code is the program's.

A run that ends with a non-zero exit and prints nothing at all, on stdout
or stderr, is Wine's failure, not skillpipe's: skillpipe.exe explains
every failure on stderr. CI saw it once in about 160 runs (`resolve`, exit
1, no output, passing on every rerun). Such a run is repeated, at most
twice, with Wine's error channel on (`WINEDEBUG=-all,err+all`); each repeat is
written to stderr and appended to $WINE_CLI_LOG (when set), which
`.ci/windows` prints at its end, so a repeat is never silent.
"""

import json
import os
import re
import subprocess
import sys

EXE = os.environ["WINE_CLI_EXE"]
MARK = "skillpipe-case-"


def find_tree() -> str | None:
    """The case's tree: the ancestor of $HOME named skillpipe-case-*."""
    home = os.environ.get("HOME", "")
    parts = home.split("/")
    for i in range(len(parts), 0, -1):
        if parts[i - 1].startswith(MARK):
            return "/".join(parts[:i])
    return None


def translate(text: str, tree: str) -> str:
    """`text` with Windows' forms of the paths under `tree` in Unix form."""
    win = tree.replace("/", "\\")
    drive = r"(?:\\\\\?\\)?[A-Za-z]:(?=" + re.escape(win) + "|" + re.escape(tree) + ")"
    return re.sub(drive, "", text).replace("\\", "/")


def translate_json_or_text(text: str, tree: str, indent: int | None) -> str:
    if "\\" not in text:
        return text
    try:
        value = json.loads(text)
    except ValueError:
        return translate(text, tree)
    end = "\n" if text.endswith("\n") else ""
    return json.dumps(walk(value, tree), ensure_ascii=False, indent=indent) + end


def walk(value, tree: str):
    if isinstance(value, str):
        return translate(value, tree)
    if isinstance(value, list):
        return [walk(v, tree) for v in value]
    if isinstance(value, dict):
        return {translate(k, tree): walk(v, tree) for k, v in value.items()}
    return value


SILENT_RETRIES = 2
WINE_LINE = re.compile(rb"^[0-9a-f]{4}:(err|fixme|warn|trace):")


def run_wine(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    """`wine skillpipe.exe ARGS`, repeated when it fails without a word
    (run.py's stdin is /dev/null, so a repeat gets the same input)."""
    proc = subprocess.run(["wine", EXE, *args], env=env, stdin=sys.stdin,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    for attempt in range(1, SILENT_RETRIES + 1):
        if proc.returncode == 0 or proc.stdout or proc.stderr:
            break
        note = (f"wine-cli: `skillpipe {' '.join(args)}` exited {proc.returncode} "
                f"with no output (a Wine failure); repeat {attempt} of {SILENT_RETRIES}, WINEDEBUG=-all,err+all")
        debug = dict(env, WINEDEBUG="-all,err+all")
        proc = subprocess.run(["wine", EXE, *args], env=debug, stdin=sys.stdin,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        # Wine's own lines (`0024:err:module:...`) go to the log, not to
        # the program's stderr that run.py checks.
        lines = proc.stderr.splitlines(keepends=True)
        wine = [l for l in lines if WINE_LINE.match(l)]
        proc.stderr = b"".join(l for l in lines if not WINE_LINE.match(l))
        said = b"".join(wine).decode("utf-8", "replace").strip()[:2000] or "(nothing)"
        log = os.environ.get("WINE_CLI_LOG")
        if log:
            with open(log, "a", encoding="utf-8") as fh:
                fh.write(f"{note}: exit {proc.returncode}; Wine said: {said}\n")
        sys.stderr.write(note + "\n")
    return proc


def main() -> int:
    args = sys.argv[1:]
    tree = find_tree()
    # The shim's own variables are not the program's (and not named
    # SKILLPIPE_*, which skillpipe reads as settings).
    env = {k: v for k, v in os.environ.items() if not k.startswith("WINE_CLI_")}
    if tree:
        args = [a.replace(tree, "Z:" + tree) for a in args]
        for key, value in env.items():
            if tree in value:
                env[key] = value.replace(tree, "Z:" + tree)
    proc = run_wine(args, env)
    out = proc.stdout.decode("utf-8", "surrogateescape")
    err = proc.stderr.decode("utf-8", "surrogateescape")
    if tree:
        out = translate_json_or_text(out, tree, 2)
        err = "".join(translate_json_or_text(line, tree, None) for line in err.splitlines(keepends=True))
    sys.stdout.buffer.write(out.encode("utf-8", "surrogateescape"))
    sys.stderr.buffer.write(err.encode("utf-8", "surrogateescape"))
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
