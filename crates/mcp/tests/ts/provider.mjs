// skillpipe's `mcp` provider reading a server written with the official
// TypeScript MCP SDK (`server.mjs`): a second implementation of SEP-2640's
// wire format, not ours. A directory of skills (more than a page of them,
// text and binary files, nested folders) is served by `server.mjs`, and
// `skillpipe --set mcp.servers=… list --json` and `resolve` in an empty
// home must give exactly its skills, descriptions and bytes; a server that
// serves other bytes than its digests say loses that skill, with an
// `mcp-integrity` warning, and keeps the others.
//
//     npm ci && node provider.mjs --bin ../../../../target/release/skillpipe
//
// Ends with `N passed, M failed` and exits 1 when anything failed.

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { bin: { type: "string" } } });
const here = dirname(fileURLToPath(import.meta.url));
let passed = 0;
let failed = 0;

function check(name, ok, detail = "") {
  if (ok) {
    passed += 1;
    console.log(`ok    ${name}`);
  } else {
    failed += 1;
    console.log(`FAIL  ${name}${detail ? `: ${detail}` : ""}`);
  }
}

function write(path, bytes) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, bytes);
}

const dir = mkdtempSync(join(tmpdir(), "skillpipe-ts-server-"));
try {
  const served = join(dir, "served");
  const skills = new Map();
  const add = (name, description) => {
    skills.set(name, description);
    write(join(served, name, "SKILL.md"), `---\nname: ${name}\ndescription: ${description}\n---\nBody of ${name}.\n`);
  };
  add("alpha", "The first skill, with files.");
  write(join(served, "alpha", "notes", "deep", "a.md"), "# Deep notes\n");
  write(join(served, "alpha", "bin.dat"), Buffer.from([0, 1, 2, 0xff, 0xfe, 0x80]));
  for (let i = 0; i < 120; i += 1) add(`bulk-${String(i).padStart(3, "0")}`, `Bulk skill number ${i}.`);
  const home = join(dir, "home");
  const project = join(dir, "project");
  mkdirSync(join(project, ".git"), { recursive: true });
  mkdirSync(home, { recursive: true });

  const env = { ...process.env };
  delete env.XDG_CACHE_HOME;
  const run = (servers, args, at = home) =>
    spawnSync(
      values.bin,
      ["--home", at, "--cwd", project, "--set", `mcp.servers=${JSON.stringify(servers)}`, ...args],
      { env, encoding: "buffer", timeout: 60_000 },
    );
  const server = (...extra) => ({
    command: process.execPath,
    args: [join(here, "server.mjs"), served, ...extra],
  });

  const list = run({ ts: server() }, ["list", "--json"]);
  check("list --json exits 0", list.status === 0, list.stderr.toString());
  const doc = JSON.parse(list.stdout.toString() || "{}");
  const got = new Map((doc.skills ?? []).map((s) => [s.name, s]));
  check("every served skill loads, across pages", got.size === skills.size, `${got.size} of ${skills.size}`);
  check(
    "each with its description and provider mcp-ts",
    [...skills].every(([n, d]) => got.get(n)?.description === d && got.get(n)?.source?.provider === "mcp-ts"),
  );
  check("no diagnostics", (doc.diagnostics ?? []).length === 0, JSON.stringify(doc.diagnostics));
  for (const rel of ["SKILL.md", "notes/deep/a.md", "bin.dat"]) {
    const out = run({ ts: server() }, ["resolve", `skill://alpha/${rel}`]);
    const want = readFileSync(join(served, "alpha", rel));
    check(`resolve skill://alpha/${rel} gives the served bytes`, out.status === 0 && Buffer.compare(out.stdout, want) === 0, out.stderr.toString());
  }

  // A fresh home: in the first one, the verified copy is in the cache and
  // nothing is read again.
  const fresh = join(dir, "fresh-home");
  mkdirSync(fresh);
  const tampered = run({ ts: server("--tamper", "bulk-007") }, ["list", "--json"], fresh);
  const tdoc = JSON.parse(tampered.stdout.toString() || "{}");
  const names = new Set((tdoc.skills ?? []).map((s) => s.name));
  check("a skill whose bytes differ from its digest is not served", !names.has("bulk-007"));
  check("the others still are", names.size === skills.size - 1, `${names.size}`);
  check(
    "with an mcp-integrity warning naming it",
    (tdoc.diagnostics ?? []).some((d) => d.code === "mcp-integrity" && d.message.includes("skill://bulk-007/SKILL.md")),
    JSON.stringify(tdoc.diagnostics),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
