"""skillpipe's skills in a real deepagents agent (PyPI ``deepagents``), with
a scripted chat model in place of a real one: the agent's system prompt
lists the copies skillpipe chose, ``read_file`` reads them through
skillpipe's resolver, and a link out of a skill's folder stays shut."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterator, List, Optional, Sequence

import pytest

import skillpipe

deepagents = pytest.importorskip("deepagents")

from deepagents import create_deep_agent  # noqa: E402
from langchain_core.callbacks import CallbackManagerForLLMRun  # noqa: E402
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel  # noqa: E402
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage  # noqa: E402
from langchain_core.outputs import ChatResult  # noqa: E402
from pydantic import Field  # noqa: E402

from skillpipe.deepagents import SKILLS_ROUTE, SkillpipeBackend, skills_backend  # noqa: E402


class ScriptedModel(GenericFakeChatModel):
    """Answers from a script and keeps every request it was sent."""

    requests: List[List[BaseMessage]] = Field(default_factory=list)

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> "ScriptedModel":
        return self

    def _generate(
        self,
        messages: List[BaseMessage],
        stop: Optional[List[str]] = None,
        run_manager: Optional[CallbackManagerForLLMRun] = None,
        **kwargs: Any,
    ) -> ChatResult:
        self.requests.append(list(messages))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


def write_skill(folder: Path, name: str, description: str, body: str, extra: str = "") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\n{extra}---\n{body}\n", encoding="utf-8"
    )


@pytest.fixture
def world(tmp_path: Path) -> Iterator[skillpipe.Skillpipe]:
    home, project = tmp_path / "home", tmp_path / "project"
    # The same name twice: skillpipe decides which copy the agent gets.
    write_skill(home / ".claude/skills/pdf", "pdf", "PDF tools (user copy)", "USER PDF BODY")
    write_skill(project / ".claude/skills/pdf", "pdf", "PDF tools (project copy)", "PROJECT PDF BODY")
    write_skill(home / ".claude/skills/notes", "notes", "Take notes", "NOTES BODY")
    (home / ".claude/skills/notes/reference.md").write_text("NOTES REFERENCE", encoding="utf-8")
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET", encoding="utf-8")
    os.symlink(secret, home / ".claude/skills/notes/leak.md")
    write_skill(
        home / ".claude/skills/quiet", "quiet", "Only on request", "QUIET BODY",
        extra="disable-model-invocation: true\n",
    )
    (project / ".git").mkdir()
    yield skillpipe.Skillpipe(home=home, cwd=project, env={"HOME": str(home)})


def read_call(path: str, call_id: str) -> AIMessage:
    return AIMessage(
        content="",
        tool_calls=[{"name": "read_file", "args": {"file_path": path}, "id": call_id, "type": "tool_call"}],
    )


def test_a_deep_agent_lists_and_reads_skillpipe_s_skills(world: skillpipe.Skillpipe) -> None:
    found = world.discover()
    pdf = found.get("pdf")
    assert pdf is not None
    winner_body = "PROJECT PDF BODY" if "project" in Path(pdf.file_path).parts else "USER PDF BODY"

    model = ScriptedModel(
        messages=iter(
            [
                read_call(f"{SKILLS_ROUTE}pdf/SKILL.md", "c1"),
                read_call(f"{SKILLS_ROUTE}notes/reference.md", "c2"),
                read_call(f"{SKILLS_ROUTE}notes/leak.md", "c3"),
                read_call(f"{SKILLS_ROUTE}notes/../pdf/SKILL.md", "c4"),
                AIMessage(content="done"),
            ]
        )
    )
    agent = create_deep_agent(model=model, skills=[SKILLS_ROUTE], backend=skills_backend(world))
    result = agent.invoke({"messages": [HumanMessage(content="make a PDF")]})

    # The system prompt of the first request lists skillpipe's skills:
    # the winning copy's description, not the other's; no hidden skill.
    system = str(model.requests[0][0].content)
    assert f"**pdf**: {pdf.description}" in system
    loser = "PDF tools (user copy)" if pdf.description.endswith("(project copy)") else "PDF tools (project copy)"
    assert loser not in system
    assert "**notes**: Take notes" in system
    assert "quiet" not in system
    assert f"{SKILLS_ROUTE}pdf/SKILL.md" in system

    tools = {m.tool_call_id: str(m.content) for m in result["messages"] if isinstance(m, ToolMessage)}
    assert winner_body in tools["c1"]
    assert "NOTES REFERENCE" in tools["c2"]
    # The link leaves the skill's folder: skillpipe's resolver refuses it.
    assert "TOP SECRET" not in tools["c3"]
    assert "TOP SECRET" not in str(result["messages"])
    assert "PDF BODY" not in tools["c4"]
    assert result["messages"][-1].content == "done"


def test_the_backend_answers_as_skillpipe_resolves(world: skillpipe.Skillpipe) -> None:
    found = world.discover()
    backend = SkillpipeBackend(found)
    root = backend.ls("/")
    assert root.entries is not None
    listed = sorted(e["path"] for e in root.entries)
    assert listed == sorted(f"/{s.name}/" for s in found.skills if not s.hidden)

    notes = backend.ls("/notes/")
    assert notes.entries is not None
    assert [e["path"] for e in notes.entries] == ["/notes/SKILL.md", "/notes/leak.md", "/notes/reference.md"]

    [got] = backend.download_files(["/notes/reference.md"])
    assert got.content == found.resolve("skill://notes/reference.md").content
    [leak, missing, up, hidden] = backend.download_files(
        ["/notes/leak.md", "/notes/nope.md", "/notes/../../secret.txt", "/quiet/SKILL.md"]
    )
    assert leak.content is None and leak.error is not None
    assert missing.error == "file_not_found"
    assert up.error == "permission_denied"
    assert hidden.content is not None and b"QUIET BODY" in hidden.content

    window = backend.read("/pdf/SKILL.md", offset=1, limit=2)
    assert window.file_data is not None
    text = found.resolve("skill://pdf/SKILL.md").text
    assert window.file_data["content"] == "".join(text.splitlines(keepends=True)[1:3])
    assert backend.write("/pdf/SKILL.md", "x").error is not None
    assert backend.edit("/pdf/SKILL.md", "a", "b").error is not None


def test_refresh_sees_a_new_skill(world: skillpipe.Skillpipe) -> None:
    backend = SkillpipeBackend(world)
    before = {s.name for s in backend.discovered.skills}
    write_skill(Path(world.home) / ".claude/skills/fresh", "fresh", "New", "FRESH")
    backend.refresh()
    assert {s.name for s in backend.discovered.skills} == before | {"fresh"}
    with pytest.raises(ValueError):
        SkillpipeBackend(world.discover()).refresh()
