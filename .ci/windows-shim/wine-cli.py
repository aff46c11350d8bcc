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
"""

import json
import os
import re
import subprocess
import sys

EXE = os.environ["SKILLPIPE_WINE_EXE"]
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


def main() -> int:
    args = sys.argv[1:]
    tree = find_tree()
    env = dict(os.environ)
    if tree:
        args = [a.replace(tree, "Z:" + tree) for a in args]
        for key, value in env.items():
            if tree in value and key != "SKILLPIPE_WINE_EXE":
                env[key] = value.replace(tree, "Z:" + tree)
    proc = subprocess.run(["wine", EXE, *args], env=env, stdin=sys.stdin,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
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
