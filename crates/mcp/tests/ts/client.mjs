// `skillpipe mcp` against the official TypeScript MCP SDK
// (`@modelcontextprotocol/sdk` on npm, pinned in package.json and
// package-lock.json).
//
// A client nobody here wrote speaks to the server: the SDK's `Client` with
// its `StdioClientTransport` spawns `skillpipe --home H --cwd P mcp` on a
// generated home (and, with `--http`, its `StreamableHTTPClientTransport`
// talks to `skillpipe mcp --http 127.0.0.1:0` on the same home). The SDK
// has no types for SEP-2640, so `skills/list` (every page, following
// `nextCursor`), `skills/get` and `resources/directory/read` go through the
// client's generic `request` with the SDK's open `ResultSchema`; every
// digest and size of every listed file is checked by reading the file with
// `readResource` and hashing it with node:crypto. Hostile requests must
// come back as JSON-RPC errors on a server that keeps answering.
//
//     npm ci && node client.mjs --bin ../../../../target/release/skillpipe [--http]
//
// Ends with `N passed, M failed` and exits 1 when anything failed.

import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  McpError,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResultSchema,
} from "@modelcontextprotocol/sdk/types.js";

const SKILLS_EXTENSION = "io.modelcontextprotocol/skills";
const INVALID_PARAMS = -32602;
const METHOD_NOT_FOUND = -32601;
const RESOURCE_NOT_FOUND = -32002;
/// Loaded skills past one `skills/list` page (250), so cursors are followed.
const BULK = 260;
/// Every request's bound: a hang fails the run instead of stalling it.
const TIMEOUT_MS = 30_000;

let passed = 0;
let failed = 0;

function check(name, ok, detail = "") {
  if (ok) {
    passed += 1;
    console.log(`ok    ${name}`);
  } else {
    failed += 1;
    const shown = typeof detail === "string" ? detail : JSON.stringify(detail);
    console.log(`FAIL  ${name}: ${shown.slice(0, 2000)}`);
  }
}

function write(root, rel, data) {
  const path = join(root, rel);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, data);
}

function makeWorld(root) {
  const home = join(root, "home");
  const project = join(root, "project");
  mkdirSync(join(project, ".git"), { recursive: true });
  const claude = ".claude/skills";
  write(
    home,
    `${claude}/pdf/SKILL.md`,
    "---\nname: pdf\ndescription: Fill and read PDF forms.\nlicense: MIT\n" +
      'metadata:\n  version: "1.2"\n---\nRead forms.md, then run scripts/fill.py.\n',
  );
  write(home, `${claude}/pdf/forms.md`, "# Forms\nField names.\n");
  write(home, `${claude}/pdf/scripts/fill.py`, "print('filled')\n");
  write(
    home,
    `${claude}/pdf/assets/logo.png`,
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0xff, 0xfe]),
  );
  write(home, `${claude}/pdf/templates/regional/eu invoice.md`, "Rechnung — facture\n");
  write(home, `${claude}/pdf/.env`, "SECRET=never-served\n");
  write(
    home,
    `${claude}/review/SKILL.md`,
    "---\nname: review\ndescription: Review by Claude's rules.\n---\nReview $ARGUMENTS.\n",
  );
  write(
    home,
    ".agents/skills/review/SKILL.md",
    "---\nname: review\ndescription: Review by the team's rules.\n---\nThe team's review.\n",
  );
  write(home, ".agents/skills/review/checklist.md", "- tests\n- docs\n");
  write(
    home,
    `${claude}/quiet/SKILL.md`,
    "---\nname: quiet\ndescription: Only on request.\ndisable-model-invocation: true\n---\nShh.\n",
  );
  for (let i = 0; i < BULK; i++) {
    const name = `bulk-${String(i).padStart(3, "0")}`;
    write(
      home,
      `${claude}/${name}/SKILL.md`,
      `---\nname: ${name}\ndescription: Bulk skill number ${i}.\n---\nBody ${i}.\n`,
    );
  }
  return { home, project };
}

function sha256(bytes) {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

/// The bytes of a `resources/read` result's one content.
function contentBytes(result) {
  const [content] = result.contents;
  if (typeof content.text === "string") {
    return Buffer.from(content.text, "utf8");
  }
  return Buffer.from(content.blob, "base64");
}

async function errorOf(promise) {
  try {
    await promise;
  } catch (e) {
    if (e instanceof McpError) {
      return e;
    }
    throw e;
  }
  return null;
}

const options = { timeout: TIMEOUT_MS };

function request(client, method, params) {
  return client.request({ method, params }, ResultSchema, options);
}

/// Every entry of every `skills/list` page, and the pages' count.
async function allSkills(client) {
  const skills = [];
  const seen = new Set();
  let cursor;
  let pages = 0;
  for (;;) {
    const page = await request(client, "skills/list", cursor === undefined ? {} : { cursor });
    pages += 1;
    skills.push(...page.skills);
    if (page.nextCursor === undefined) {
      return { skills, pages };
    }
    if (seen.has(page.nextCursor) || pages > 100) {
      throw new Error(`skills/list paginates forever: ${page.nextCursor}`);
    }
    seen.add(page.nextCursor);
    cursor = page.nextCursor;
  }
}

/// Counts the notifications of `schema` the client gets.
function counter(client, schema) {
  const seen = { count: 0 };
  client.setNotificationHandler(schema, () => {
    seen.count += 1;
  });
  return seen;
}

/// Waits until `test()` holds, within the bound.
async function until(what, test) {
  const start = Date.now();
  for (;;) {
    if (await test()) return true;
    if (Date.now() - start > TIMEOUT_MS) {
      check(what, false, "timed out");
      return false;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/// Live: a skill added under the served home is announced, then listed
/// with the digest of its bytes; removed, it is announced and gone.
async function live(client, mode, home) {
  const label = (what) => `${mode}: ${what}`;
  const resources = counter(client, ResourceListChangedNotificationSchema);
  const prompts = counter(client, PromptListChangedNotificationSchema);
  const name = `fresh-${mode}`;
  const dir = join(home, ".claude/skills", name);
  const text = `---\nname: ${name}\ndescription: Added while serving.\n---\nNew.\n`;
  write(home, `.claude/skills/${name}/SKILL.md`, text);
  if (await until(label("an added skill is announced"), () => resources.count > 0 && prompts.count > 0)) {
    check(label("an added skill: resources and prompts list_changed"), true);
  }
  let entry;
  await until(label("an added skill is listed"), async () => {
    const { skills } = await allSkills(client);
    entry = skills.find((s) => s.uri === `skill://${name}/SKILL.md`);
    return entry !== undefined;
  });
  check(
    label("an added skill: listed with the digest of its bytes"),
    entry?.resources?.[0]?.digest === sha256(Buffer.from(text)),
    entry,
  );
  const before = resources.count;
  rmSync(dir, { recursive: true, force: true });
  await until(label("a removed skill is announced"), () => resources.count > before);
  const gone = await until(label("a removed skill is no longer listed"), async () => {
    const { skills } = await allSkills(client);
    return !skills.some((s) => s.uri === `skill://${name}/SKILL.md`);
  });
  check(label("a removed skill: announced and gone"), gone);
}

/// The checks, on a connected client.
async function suite(client, mode, home) {
  const label = (what) => `${mode}: ${what}`;
  const caps = client.getServerCapabilities() ?? {};
  check(
    label("initialize: the skills extension with directoryRead"),
    caps.extensions?.[SKILLS_EXTENSION]?.directoryRead === true,
    caps,
  );
  check(
    label("initialize: resources and prompts listChanged"),
    caps.resources?.listChanged === true && caps.prompts?.listChanged === true,
    caps,
  );
  check(
    label("initialize: instructions carry the catalogue and skill:// URIs"),
    (client.getInstructions() ?? "").includes("- pdf: Fill and read PDF forms.") &&
      (client.getInstructions() ?? "").includes("skill://<name>/SKILL.md"),
    (client.getInstructions() ?? "").slice(0, 500),
  );

  // skills/list, every page.
  const { skills, pages } = await allSkills(client);
  const uris = skills.map((s) => s.uri);
  check(label("skills/list: more than one page, cursors followed"), pages >= 2, pages);
  check(
    label("skills/list: every loaded skill once"),
    uris.length === BULK + 3 && new Set(uris).size === uris.length,
    uris.length,
  );
  for (const name of ["pdf", "review", "quiet", "bulk-000", `bulk-${BULK - 1}`]) {
    check(label(`skills/list: ${name}`), uris.includes(`skill://${name}/SKILL.md`), uris.slice(0, 5));
  }
  const pdf = skills.find((s) => s.uri === "skill://pdf/SKILL.md");
  check(
    label("skills/list: the frontmatter as written"),
    pdf?.frontmatter?.name === "pdf" &&
      pdf.frontmatter.license === "MIT" &&
      pdf.frontmatter.metadata?.version === "1.2",
    pdf?.frontmatter,
  );
  const pdfFiles = (pdf?.resources ?? []).map((r) => r.uri);
  check(
    label("skills/list: every file of pdf, SKILL.md first, .env left out"),
    JSON.stringify(pdfFiles) ===
      JSON.stringify([
        "skill://pdf/SKILL.md",
        "skill://pdf/assets/logo.png",
        "skill://pdf/forms.md",
        "skill://pdf/scripts/fill.py",
        "skill://pdf/templates/regional/eu%20invoice.md",
      ]),
    pdfFiles,
  );

  // Every digest and size, by reading and hashing each file.
  let files = 0;
  let bad = [];
  for (const skill of skills) {
    for (const file of skill.resources) {
      files += 1;
      const bytes = contentBytes(await client.readResource({ uri: file.uri }, options));
      if (sha256(bytes) !== file.digest || bytes.length !== file.size) {
        bad.push(file.uri);
      }
    }
  }
  check(label(`resources/read: all ${files} files match their digest and size`), bad.length === 0, bad);
  const forms = contentBytes(await client.readResource({ uri: "skill://pdf/forms.md" }, options));
  check(
    label("resources/read: the bytes on disk"),
    forms.equals(readFileSync(join(home, ".claude/skills/pdf/forms.md"))),
    forms.toString(),
  );
  const logo = await client.readResource({ uri: "skill://pdf/assets/logo.png" }, options);
  check(
    label("resources/read: a binary file is a base64 blob of image/png"),
    typeof logo.contents[0].blob === "string" && logo.contents[0].mimeType === "image/png",
    logo,
  );

  // skills/get, a shadowed copy's too.
  const got = await request(client, "skills/get", { uri: "skill://pdf/SKILL.md" });
  check(label("skills/get: the listed entry"), JSON.stringify(got.skill) === JSON.stringify(pdf), got);
  const shadowed = await request(client, "skills/get", { uri: "skill://agents/user/review/SKILL.md" });
  const checklist = shadowed.skill?.resources?.find((r) => r.uri.endsWith("/checklist.md"));
  check(
    label("skills/get: the shadowed copy under its provider and level"),
    shadowed.skill?.frontmatter?.description === "Review by the team's rules." && checklist !== undefined,
    shadowed,
  );
  if (checklist !== undefined) {
    const bytes = contentBytes(await client.readResource({ uri: checklist.uri }, options));
    check(label("skills/get: the shadowed copy's file matches its digest"), sha256(bytes) === checklist.digest, checklist);
  }
  const noSkill = await errorOf(request(client, "skills/get", { uri: "skill://nope/SKILL.md" }));
  check(label("skills/get: no such skill is -32602"), noSkill?.code === INVALID_PARAMS, noSkill);

  // resources/directory/read.
  const root = await request(client, "resources/directory/read", { uri: "skill://pdf" });
  const entries = Object.fromEntries(root.resources.map((r) => [r.name, r.mimeType]));
  check(
    label("resources/directory/read: the skill's folder, folders as inode/directory"),
    entries["SKILL.md"] === "text/markdown" &&
      entries.scripts === "inode/directory" &&
      entries.templates === "inode/directory" &&
      !(".env" in entries),
    root,
  );
  const nested = await request(client, "resources/directory/read", { uri: "skill://pdf/templates/regional" });
  check(
    label("resources/directory/read: a nested folder"),
    nested.resources.length === 1 && nested.resources[0].uri === "skill://pdf/templates/regional/eu%20invoice.md",
    nested,
  );

  // resources/list: every SKILL.md, so a client without the extension sees them.
  let listed = [];
  let cursor;
  for (let i = 0; i < 100; i++) {
    const page = await client.listResources(cursor === undefined ? {} : { cursor }, options);
    listed.push(...page.resources.map((r) => r.uri));
    cursor = page.nextCursor;
    if (cursor === undefined) break;
  }
  check(label("resources/list: every SKILL.md"), listed.length === uris.length, listed.length);

  // Hostile requests: errors, and a server that goes on answering.
  for (const [uri, code] of [
    ["skill://pdf/../review/SKILL.md", INVALID_PARAMS],
    ["skill://pdf/%2e%2e/%2e%2e/%2e%2e/etc/passwd", INVALID_PARAMS],
    ["skill://pdf/.env", INVALID_PARAMS],
    ["file:///etc/passwd", INVALID_PARAMS],
    ["skill://pdf/missing.md", RESOURCE_NOT_FOUND],
    [`skill://pdf/${"a".repeat(100_000)}`, null],
  ]) {
    const e = await errorOf(client.readResource({ uri }, options));
    check(
      label(`resources/read ${uri.slice(0, 60)}: a JSON-RPC error`),
      e !== null && (code === null || e.code === code),
      e,
    );
  }
  const cursorBad = await errorOf(request(client, "skills/list", { cursor: "skills:999999999999999999999" }));
  check(label("skills/list: a forged cursor is -32602"), cursorBad?.code === INVALID_PARAMS, cursorBad);
  const unknown = await errorOf(request(client, "skills/nope", {}));
  check(label("an unknown method is -32601"), unknown?.code === METHOD_NOT_FOUND, unknown);
  const shape = await errorOf(request(client, "skills/get", { uri: 42 }));
  check(label("skills/get with a number for uri is -32602"), shape?.code === INVALID_PARAMS, shape);
  const searched = await client.callTool({ name: "search_skills", arguments: { query: "pdf forms", limit: 3 } }, undefined, options);
  check(
    label("tools/call search_skills: the best match first"),
    searched.structuredContent?.results?.[0]?.uri === "skill://pdf/SKILL.md",
    searched,
  );
  const still = await request(client, "skills/get", { uri: "skill://review/SKILL.md" });
  check(label("the server still answers"), still.skill?.frontmatter?.name === "review", still);
}

/// `skillpipe mcp --http 127.0.0.1:0` on `world`: its URL, from the line
/// it writes on stderr, and the child.
async function startHttp(bin, world) {
  const child = spawn(bin, [...world, "mcp", "--http", "127.0.0.1:0"], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no address on stderr: ${stderr}`)), TIMEOUT_MS);
    child.stderr.on("data", (chunk) => {
      stderr += chunk.toString();
      const m = stderr.match(/(http:\/\/127\.0\.0\.1:\d+\/mcp)/);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.on("exit", (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
  });
  return { url, child };
}

async function main() {
  const { values } = parseArgs({
    options: { bin: { type: "string" }, http: { type: "boolean", default: false } },
  });
  if (!values.bin) {
    console.error("usage: node client.mjs --bin PATH/TO/skillpipe [--http]");
    process.exit(2);
  }
  const root = mkdtempSync(join(tmpdir(), "skillpipe-mcp-ts-"));
  try {
    const { home, project } = makeWorld(root);
    const world = ["--home", home, "--cwd", project, "-q"];
    const env = { ...process.env };
    delete env.SKILLPIPE_PROFILE;
    delete env.SKILLPIPE_LOG;

    const stdio = new Client({ name: "skillpipe-ts-tests", version: "1" });
    await stdio.connect(
      new StdioClientTransport({ command: values.bin, args: [...world, "mcp"], env, stderr: "inherit" }),
    );
    try {
      await suite(stdio, "stdio", home);
      await live(stdio, "stdio", home);
    } finally {
      await stdio.close();
    }

    if (values.http) {
      const { url, child } = await startHttp(values.bin, world);
      const http = new Client({ name: "skillpipe-ts-tests", version: "1" });
      try {
        await http.connect(new StreamableHTTPClientTransport(new URL(url)));
        await suite(http, "http", home);
        await live(http, "http", home);
        await http.close();
      } finally {
        child.kill("SIGTERM");
      }
    }
  } catch (e) {
    check("the run completes", false, e?.stack ?? String(e));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed === 0 && passed > 0 ? 0 : 1);
}

await main();
