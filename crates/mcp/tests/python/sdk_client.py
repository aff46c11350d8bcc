"""`skillpipe mcp` against the official MCP Python SDK (PyPI `mcp`).

A client nobody here wrote speaks to the server over stdio: the SDK's
`stdio_client` spawns `skillpipe --home H --cwd P mcp` on a generated home,
its `ClientSession` runs the handshake, resources/list, resources/read,
prompts/list, prompts/get and tools/call, and sends SEP-2640's skills/list,
skills/get and resources/directory/read as raw requests (the SDK has no
types for them: `send_request` with request models of our own, results as
plain JSON). Every digest of every listed file is checked by reading the
file through resources/read and hashing it with hashlib; prompts and reads
are compared with the CLI's own `expand`, `commands --json` and the files
on disk. Hostile requests must come back as JSON-RPC errors on a server
that keeps answering.

    python3 crates/mcp/tests/python/sdk_client.py --bin target/release/skillpipe

Ends with `N passed, N failed` and exits 1 when anything failed.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Any, Literal

import anyio
import mcp.types as types
from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client
from mcp.client.stdio import get_default_environment
from pydantic import TypeAdapter

SKILLS_EXTENSION = "io.modelcontextprotocol/skills"
INVALID_PARAMS = -32602
METHOD_NOT_FOUND = -32601
RESOURCE_NOT_FOUND = -32002
JSON = TypeAdapter(dict[str, Any])


class SkillsListRequest(types.Request[types.PaginatedRequestParams | None, Literal["skills/list"]]):
    method: Literal["skills/list"] = "skills/list"
    params: types.PaginatedRequestParams | None = None


class UriParams(types.RequestParams):
    uri: str
    cursor: str | None = None


class SkillsGetRequest(types.Request[UriParams, Literal["skills/get"]]):
    method: Literal["skills/get"] = "skills/get"


class DirectoryReadRequest(types.Request[UriParams, Literal["resources/directory/read"]]):
    method: Literal["resources/directory/read"] = "resources/directory/read"


class AnyRequest(types.Request[dict[str, Any] | None, str]):
    """A request of any method, for the hostile ones."""


def write(root: Path, rel: str, data: str | bytes) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)


def make_world(root: Path) -> tuple[Path, Path]:
    home, project = root / "home", root / "project"
    (project / ".git").mkdir(parents=True)
    claude = ".claude/skills"
    write(
        home,
        f"{claude}/pdf/SKILL.md",
        "---\nname: pdf\ndescription: Fill and read PDF forms.\nlicense: MIT\n"
        "metadata:\n  version: \"1.2\"\n---\nRead forms.md, then run scripts/fill.py.\n",
    )
    write(home, f"{claude}/pdf/forms.md", "# Forms\nField names.\n")
    write(home, f"{claude}/pdf/scripts/fill.py", "print('filled')\n")
    write(home, f"{claude}/pdf/assets/logo.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe")
    write(home, f"{claude}/pdf/templates/regional/eu invoice.md", "Rechnung — facture\n")
    write(home, f"{claude}/pdf/.env", "SECRET=never-served\n")
    write(
        home,
        f"{claude}/review/SKILL.md",
        "---\nname: review\ndescription: Review by Claude's rules.\nargument-hint: <pr>\n---\n"
        "Review $ARGUMENTS carefully.\n",
    )
    write(
        home,
        ".agents/skills/review/SKILL.md",
        "---\nname: review\ndescription: Review by the team's rules.\n---\nThe team's review.\n",
    )
    write(home, ".agents/skills/review/checklist.md", "- tests\n- docs\n")
    write(
        home,
        f"{claude}/quiet/SKILL.md",
        "---\nname: quiet\ndescription: Only on request.\ndisable-model-invocation: true\n---\nShh.\n",
    )
    write(
        project,
        ".claude/skills/deploy/SKILL.md",
        "---\nname: deploy\ndescription: Deploy with terraform.\n---\nterraform apply\n",
    )
    return home, project


class Checks:
    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0

    def check(self, name: str, ok: bool, detail: Any = "") -> None:
        if ok:
            self.passed += 1
            print(f"ok    {name}")
        else:
            self.failed += 1
            print(f"FAIL  {name}: {detail}")


def content_bytes(result: types.ReadResourceResult) -> bytes:
    (content,) = result.contents
    if isinstance(content, types.TextResourceContents):
        return content.text.encode("utf-8")
    return base64.b64decode(content.blob)


async def error_of(awaitable) -> MCPError | None:
    try:
        await awaitable
    except MCPError as e:
        return e
    return None


async def run(binary: str, checks: Checks) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        home, project = make_world(root)
        world = ["--home", str(home), "--cwd", str(project)]

        def cli(*args: str) -> str:
            # The environment the SDK gives the server, so that both see
            # the same world (no CLAUDE_CONFIG_DIR, XDG_CONFIG_HOME, …).
            env = get_default_environment()
            return subprocess.run(
                [binary, *world, *args], check=True, capture_output=True, text=True, env=env
            ).stdout

        server = StdioServerParameters(command=binary, args=[*world, "mcp"])
        async with stdio_client(server) as (read, write_stream):
            async with ClientSession(read, write_stream, read_timeout_seconds=30) as session:
                await session_checks(session, checks, cli, home)


async def session_checks(session: ClientSession, checks: Checks, cli, home: Path) -> None:
    init = await session.initialize()
    caps = init.capabilities
    checks.check("initialize: resources declared", caps.resources is not None, caps)
    ext = (caps.extensions or {}).get(SKILLS_EXTENSION)
    checks.check(
        "initialize: the skills extension with directoryRead",
        ext == {"directoryRead": True},
        caps.extensions,
    )
    checks.check("initialize: prompts and tools declared", caps.prompts is not None and caps.tools is not None)
    instructions = init.instructions or ""
    checks.check(
        "initialize: instructions carry the catalogue and skill:// URIs",
        "- pdf: Fill and read PDF forms." in instructions and "skill://<name>/SKILL.md" in instructions,
        instructions,
    )
    checks.check("initialize: a hidden skill stays out of the catalogue", "quiet" not in instructions)

    # resources/list: every SKILL.md.
    listed: list[types.Resource] = []
    cursor = None
    while True:
        page = await session.list_resources(params=types.PaginatedRequestParams(cursor=cursor))
        listed.extend(page.resources)
        cursor = page.next_cursor
        if not cursor:
            break
    uris = sorted(r.uri for r in listed)
    expected = sorted(f"skill://{n}/SKILL.md" for n in ["deploy", "pdf", "quiet", "review"])
    checks.check("resources/list: every loaded skill's SKILL.md", uris == expected, uris)
    checks.check(
        "resources/list: SKILL.md is text/markdown with the description",
        all(r.mime_type == "text/markdown" and r.description for r in listed),
        listed,
    )

    # resources/read of SKILL.md: the file on disk, byte for byte.
    pdf_md = await session.read_resource("skill://pdf/SKILL.md")
    on_disk = (home / ".claude/skills/pdf/SKILL.md").read_bytes()
    checks.check("resources/read: SKILL.md's bytes", content_bytes(pdf_md) == on_disk)
    checks.check(
        "resources/read: SKILL.md as text/markdown",
        isinstance(pdf_md.contents[0], types.TextResourceContents)
        and pdf_md.contents[0].mime_type == "text/markdown",
        pdf_md,
    )
    logo = await session.read_resource("skill://pdf/assets/logo.png")
    checks.check(
        "resources/read: a binary file as a base64 blob, image/png",
        isinstance(logo.contents[0], types.BlobResourceContents)
        and logo.contents[0].mime_type == "image/png"
        and content_bytes(logo) == (home / ".claude/skills/pdf/assets/logo.png").read_bytes(),
        logo,
    )

    # skills/list, raw: every page, every file verified by reading and hashing it.
    skills: list[dict[str, Any]] = []
    cursor = None
    while True:
        page = await session.send_request(
            SkillsListRequest(params=types.PaginatedRequestParams(cursor=cursor)), JSON
        )
        skills.extend(page["skills"])
        cursor = page.get("nextCursor")
        if not cursor:
            break
    by_uri = {s["uri"]: s for s in skills}
    checks.check(
        "skills/list: one entry per loaded skill, hidden ones included",
        sorted(by_uri) == expected,
        sorted(by_uri),
    )
    pdf = by_uri.get("skill://pdf/SKILL.md", {})
    checks.check(
        "skills/list: the frontmatter as written",
        pdf.get("frontmatter")
        == {"name": "pdf", "description": "Fill and read PDF forms.", "license": "MIT", "metadata": {"version": "1.2"}},
        pdf.get("frontmatter"),
    )
    checks.check(
        "skills/list: a hidden skill's frontmatter is there for the host to decide",
        by_uri.get("skill://quiet/SKILL.md", {}).get("frontmatter", {}).get("disable-model-invocation") is True,
    )
    pdf_files = [r["uri"] for r in pdf.get("resources", [])]
    checks.check(
        "skills/list: every file of the skill, SKILL.md first, hidden files left out",
        pdf_files
        == [
            "skill://pdf/SKILL.md",
            "skill://pdf/assets/logo.png",
            "skill://pdf/forms.md",
            "skill://pdf/scripts/fill.py",
            "skill://pdf/templates/regional/eu%20invoice.md",
        ],
        pdf_files,
    )
    verified = 0
    bad = []
    for skill in skills:
        for resource in skill["resources"]:
            data = content_bytes(await session.read_resource(resource["uri"]))
            digest = "sha256:" + hashlib.sha256(data).hexdigest()
            if len(data) != resource["size"] or digest != resource["digest"]:
                bad.append((resource, len(data), digest))
            verified += 1
    checks.check(f"skills/list: all {verified} digests and sizes match the bytes read", not bad and verified == 8, bad)
    disk = (home / ".claude/skills/pdf/templates/regional/eu invoice.md").read_bytes()
    read_back = content_bytes(await session.read_resource("skill://pdf/templates/regional/eu%20invoice.md"))
    checks.check("resources/read: an encoded name reads the file it names", read_back == disk)

    # skills/get: a loaded skill, and the shadowed copy under its provider and level.
    got = await session.send_request(SkillsGetRequest(params=UriParams(uri="skill://pdf/SKILL.md")), JSON)
    checks.check("skills/get: the listing's entry", got.get("skill") == pdf, got)
    shadowed_uri = "skill://agents/user/review/SKILL.md"
    shadowed = await session.send_request(SkillsGetRequest(params=UriParams(uri=shadowed_uri)), JSON)
    entry = shadowed.get("skill", {})
    checks.check(
        "skills/get: a shadowed copy at skill://<provider>/<level>/<name>/SKILL.md",
        entry.get("uri") == shadowed_uri
        and entry.get("frontmatter", {}).get("description") == "Review by the team's rules."
        and [r["uri"] for r in entry.get("resources", [])]
        == [shadowed_uri, "skill://agents/user/review/checklist.md"],
        entry,
    )
    for resource in entry.get("resources", []):
        data = content_bytes(await session.read_resource(resource["uri"]))
        checks.check(
            f"skills/get: the shadowed copy's {resource['uri'].rsplit('/', 1)[-1]} matches its digest",
            "sha256:" + hashlib.sha256(data).hexdigest() == resource["digest"] and len(data) == resource["size"],
        )
    e = await error_of(session.send_request(SkillsGetRequest(params=UriParams(uri="skill://nope/SKILL.md")), JSON))
    checks.check("skills/get: an unknown skill is -32602", e is not None and e.code == INVALID_PARAMS, e)

    # resources/directory/read: a skill's folders.
    root_dir = await session.send_request(DirectoryReadRequest(params=UriParams(uri="skill://pdf")), JSON)
    children = [(r["name"], r.get("mimeType")) for r in root_dir["resources"]]
    checks.check(
        "resources/directory/read: the skill's root, folders as inode/directory",
        children
        == [
            ("SKILL.md", "text/markdown"),
            ("assets", "inode/directory"),
            ("forms.md", "text/markdown"),
            ("scripts", "inode/directory"),
            ("templates", "inode/directory"),
        ],
        children,
    )
    sub = await session.send_request(
        DirectoryReadRequest(params=UriParams(uri="skill://pdf/templates/regional")), JSON
    )
    checks.check(
        "resources/directory/read: a nested folder",
        [r["uri"] for r in sub["resources"]] == ["skill://pdf/templates/regional/eu%20invoice.md"],
        sub,
    )
    e = await error_of(session.send_request(DirectoryReadRequest(params=UriParams(uri="skill://pdf/forms.md")), JSON))
    checks.check("resources/directory/read: a file is -32602", e is not None and e.code == INVALID_PARAMS, e)

    # prompts: the CLI's commands, and its expansion.
    prompts = await session.list_prompts()
    names = [p.name for p in prompts.prompts]
    commands = [c["name"] for c in json.loads(cli("commands", "--json"))["commands"]]
    checks.check("prompts/list: one prompt per `skillpipe commands`", names == commands, (names, commands))
    review = next((p for p in prompts.prompts if p.name == "skill:review"), None)
    checks.check(
        "prompts/list: an optional args argument",
        review is not None
        and [(a.name, a.required) for a in review.arguments or []] == [("args", False)],
        review,
    )
    got_prompt = await session.get_prompt("skill:review", {"args": "PR 42"})
    expanded = cli("expand", "/skill:review PR 42")
    message = got_prompt.messages[0]
    checks.check(
        "prompts/get: the message is `skillpipe expand '/skill:review PR 42'`",
        len(got_prompt.messages) == 1
        and message.role == "user"
        and isinstance(message.content, types.TextContent)
        and message.content.text == expanded,
        (got_prompt, expanded),
    )
    e = await error_of(session.get_prompt("skill:nope"))
    checks.check("prompts/get: an unknown prompt is -32602", e is not None and e.code == INVALID_PARAMS, e)

    # tools: read_skill and search_skills.
    tools = await session.list_tools()
    checks.check(
        "tools/list: read_skill, search_skills",
        [t.name for t in tools.tools] == ["read_skill", "search_skills"],
        tools,
    )
    searched = await session.call_tool("search_skills", {"query": "pdf forms", "limit": 3})
    results = (searched.structured_content or {}).get("results", [])
    checks.check(
        "tools/call search_skills: the best match first, with its URI",
        not searched.is_error and results[:1] and results[0]["uri"] == "skill://pdf/SKILL.md",
        searched,
    )
    e = await error_of(session.call_tool("search_skills", {"query": "pdf", "limit": 10**9}))
    checks.check("tools/call search_skills: a limit past 50 is -32602", e is not None and e.code == INVALID_PARAMS, e)
    called = await session.call_tool("read_skill", {"uri": "skill://pdf/forms.md"})
    checks.check(
        "tools/call read_skill: the file's text",
        not called.is_error
        and isinstance(called.content[0], types.TextContent)
        and called.content[0].text == (home / ".claude/skills/pdf/forms.md").read_text(),
        called,
    )
    refused = await session.call_tool("read_skill", {"uri": "skill://pdf/../../../etc/passwd"})
    checks.check("tools/call read_skill: a URI that climbs is a tool error", refused.is_error is True, refused)

    # Hostile requests: errors, and a server that goes on answering.
    for uri, code in [
        ("skill://pdf/../review/SKILL.md", INVALID_PARAMS),
        ("skill://pdf/%2e%2e/%2e%2e/%2e%2e/etc/passwd", INVALID_PARAMS),
        ("skill://pdf/.env", INVALID_PARAMS),
        ("skill://pdf/SKILL.md?x", INVALID_PARAMS),
        ("file:///etc/passwd", INVALID_PARAMS),
        ("skill://pdf/missing.md", RESOURCE_NOT_FOUND),
        ("skill://nope/SKILL.md", RESOURCE_NOT_FOUND),
    ]:
        e = await error_of(session.read_resource(uri))
        checks.check(f"resources/read {uri}: error {code}", e is not None and e.code == code, e)
    e = await error_of(session.send_request(SkillsListRequest(params=types.PaginatedRequestParams(cursor="forged")), JSON))
    checks.check("skills/list: a forged cursor is -32602", e is not None and e.code == INVALID_PARAMS, e)
    e = await error_of(session.send_request(AnyRequest(method="skills/nope", params={}), JSON))
    checks.check("an unknown method is -32601", e is not None and e.code == METHOD_NOT_FOUND, e)
    huge = "skill://pdf/" + "a/" * 2_000_000
    e = await error_of(session.read_resource(huge))
    checks.check(
        "resources/read of a 4 MB URI: -32602, with a bounded message",
        e is not None and e.code == INVALID_PARAMS and len(e.message) < 1000,
        e and len(e.message),
    )
    e = await error_of(session.send_request(AnyRequest(method="skills/get", params={"uri": 42}), JSON))
    checks.check("skills/get with a number for uri is -32602", e is not None and e.code == INVALID_PARAMS, e)
    again = await session.send_request(SkillsListRequest(), JSON)
    checks.check("the server still answers after all of that", len(again.get("skills", [])) == 4, again)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="the skillpipe binary")
    args = parser.parse_args()
    checks = Checks()
    try:
        anyio.run(run, str(Path(args.bin).resolve()), checks)
    except BaseException:  # noqa: BLE001 - a crash is one failure, reported
        traceback.print_exc()
        checks.failed += 1
    print(f"{checks.passed} passed, {checks.failed} failed")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
