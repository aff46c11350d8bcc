// A skills server written with the official TypeScript MCP SDK
// (`@modelcontextprotocol/sdk`'s `Server` over `StdioServerTransport`): a
// second implementation of SEP-2640's wire format, for skillpipe's `mcp`
// provider to read (`node provider.mjs`, in `cargo xtask ci --step mcp`).
//
//     node server.mjs DIR [--page N] [--tamper NAME]
//
// It serves every `DIR/<name>/SKILL.md` folder: `skills/list` in pages of
// N (default 50) with `nextCursor`, each entry with its frontmatter (the
// `key: value` lines of the test skills) and every file's `sha256:` digest
// and size; `resources/read` as text or base64 blob; `resources/list`.
// `--tamper NAME` serves other bytes than its digest for NAME's SKILL.md.

import { createHash } from "node:crypto";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";

import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  ListResourcesRequestSchema,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { page: { type: "string", default: "50" }, tamper: { type: "string" } },
});
const root = positionals[0];
const pageSize = Number(values.page);

function filesOf(dir, prefix = "") {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory()
        ? filesOf(path, `${prefix}${name}/`)
        : [{ rel: `${prefix}${name}`, path }];
    });
}

function frontmatter(text) {
  const [, head = ""] = text.split(/^---$/m);
  const map = {};
  for (const line of head.split("\n")) {
    const at = line.indexOf(": ");
    if (at > 0) map[line.slice(0, at)] = line.slice(at + 2).trim();
  }
  return map;
}

const digest = (bytes) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;

const skills = readdirSync(root)
  .sort()
  .filter((name) => {
    try {
      return statSync(join(root, name, "SKILL.md")).isFile();
    } catch {
      return false;
    }
  })
  .map((name) => {
    const files = filesOf(join(root, name)).map((f) => ({ ...f, uri: `skill://${name}/${f.rel}` }));
    return {
      name,
      files,
      entry: {
        uri: `skill://${name}/SKILL.md`,
        frontmatter: frontmatter(readFileSync(join(root, name, "SKILL.md"), "utf8")),
        resources: files.map((f) => {
          const bytes = readFileSync(f.path);
          return { uri: f.uri, digest: digest(bytes), size: bytes.length };
        }),
      },
    };
  });

const server = new Server(
  { name: "ts-skills", version: "1.0.0" },
  {
    capabilities: {
      resources: {},
      extensions: { "io.modelcontextprotocol/skills": { directoryRead: false } },
    },
  },
);

const SkillsListRequestSchema = z.object({
  method: z.literal("skills/list"),
  params: z.optional(z.object({ cursor: z.optional(z.string()) }).passthrough()),
});

server.setRequestHandler(SkillsListRequestSchema, (request) => {
  const start = Number((request.params?.cursor ?? "at-0").slice(3));
  const page = skills.slice(start, start + pageSize).map((s) => s.entry);
  const next = start + pageSize < skills.length ? { nextCursor: `at-${start + pageSize}` } : {};
  return { skills: page, ...next };
});

server.setRequestHandler(ListResourcesRequestSchema, () => ({
  resources: skills.map((s) => ({ uri: s.entry.uri, name: s.name, mimeType: "text/markdown" })),
}));

server.setRequestHandler(ReadResourceRequestSchema, (request) => {
  const uri = request.params.uri;
  const file = skills.flatMap((s) => s.files).find((f) => f.uri === uri);
  if (!file) throw new Error(`no such resource: ${uri}`);
  let bytes = readFileSync(file.path);
  if (values.tamper && uri === `skill://${values.tamper}/SKILL.md`) {
    bytes = Buffer.from(bytes.toString("utf8").toUpperCase());
  }
  const text = new TextDecoder("utf-8", { fatal: true });
  try {
    return { contents: [{ uri, mimeType: "text/markdown", text: text.decode(bytes) }] };
  } catch {
    return { contents: [{ uri, mimeType: "application/octet-stream", blob: bytes.toString("base64") }] };
  }
});

await server.connect(new StdioServerTransport());
