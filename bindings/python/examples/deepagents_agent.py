"""A deepagents agent with the skills skillpipe finds for this project.

    pip install skillpipe deepagents
    python deepagents_agent.py                      # what the agent would see
    python deepagents_agent.py anthropic:claude-sonnet-4-6 "make a PDF of notes.md"

skillpipe discovers the skills as a coding agent does (Claude Code's,
Codex's, .agents/, opencode's, .github/skills, ...), keeps one copy per
name, and serves them read-only under /skills/; deepagents lists them in
the system prompt and its read_file reads them through skillpipe's
confined resolver.
"""

import sys

import skillpipe
from skillpipe.deepagents import SKILLS_ROUTE, SkillpipeBackend, skills_backend

sp = skillpipe.Skillpipe()  # this process's home and working directory
found = sp.discover()
for d in found.diagnostics:
    print(f"{d.path}:{d.line or 0}: {d.severity} [{d.code}] {d.message}", file=sys.stderr)

if len(sys.argv) < 3:
    listing = SkillpipeBackend(found).ls("/").entries or []
    print(f"{len(listing)} skills under {SKILLS_ROUTE}:")
    for skill in found.skills:
        if not skill.hidden:
            print(f"  {SKILLS_ROUTE}{skill.name}/SKILL.md  {skill.description[:70]}")
    sys.exit(0)

from deepagents import create_deep_agent  # noqa: E402

agent = create_deep_agent(sys.argv[1], skills=[SKILLS_ROUTE], backend=skills_backend(found))
result = agent.invoke({"messages": [{"role": "user", "content": sys.argv[2]}]})
print(result["messages"][-1].content)
