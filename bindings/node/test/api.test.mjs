// The binding's own behaviour: errors with codes for bad arguments (never
// a crash), the async variants, and pi's own functions on trees where the
// two must agree (no deliberate difference of SPEC §14 applies).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";

import { cli } from "./cases.mjs";

const require = createRequire(import.meta.url);
const sp = require("../index.js");
const here = path.dirname(fileURLToPath(import.meta.url));

let tmp;
let home;
let project;

function write(file, text) {
	fs.mkdirSync(path.dirname(file), { recursive: true });
	fs.writeFileSync(file, text);
}

function skill(dir, name, extra = "") {
	write(path.join(dir, name, "SKILL.md"), `---\nname: ${name}\ndescription: Use ${name} for things & <stuff>.\n${extra}---\n# ${name}\n\nBody of ${name}.\n`);
}

before(() => {
	tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "skillpipe-node-api-")));
	home = path.join(tmp, "home");
	project = path.join(tmp, "project");
	skill(path.join(home, ".pi/agent/skills"), "alpha");
	skill(path.join(home, ".pi/agent/skills"), "quiet", "disable-model-invocation: true\n");
	skill(path.join(home, ".pi/agent/skills/group"), "nested");
	skill(path.join(project, ".pi/skills"), "beta");
	// Loses to the user's: a collision (different bytes; identical copies are quiet).
	skill(path.join(project, ".pi/skills"), "alpha", "metadata:\n  copy: project\n");
	skill(path.join(project, "extra"), "gamma");
	write(path.join(project, "extra/bad/SKILL.md"), "---\nname: bad\n---\nno description\n");
	write(path.join(project, "notes/tip.md"), "---\ndescription: a tip\n---\nTip.\n");
	skill(path.join(project, ".musepi/skills"), "delta");
});

after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const piOptions = () => ({
	cwd: project,
	agentDir: path.join(home, ".pi/agent"),
	skillPaths: ["extra", "notes/tip.md", "missing"],
	includeDefaults: true,
	home,
});

/** Without skillpipe's extra diagnostic keys: what pi's own function returns. */
function piKeys(result) {
	return {
		skills: result.skills,
		diagnostics: result.diagnostics.map(({ type, message, path: p, collision }) => ({
			type,
			message,
			path: p,
			...(collision ? { collision } : {}),
		})),
	};
}

/** pi 0.73.1's own skills functions, in a child process with HOME set (pi reads `os.homedir()`). */
function piOwn(fn, args) {
	const script = `
		const pi = await import("@mariozechner/pi-coding-agent");
		const args = JSON.parse(process.argv[1]);
		const r = pi[args.fn](args.options);
		const out = typeof r === "string" ? r : { skills: r.skills, diagnostics: r.diagnostics };
		process.stdout.write(JSON.stringify(out));`;
	const r = spawnSync(process.execPath, ["--input-type=module", "-e", script, JSON.stringify({ fn, options: args })], {
		cwd: here,
		env: { PATH: process.env.PATH, HOME: home },
		encoding: "utf8",
	});
	assert.equal(r.status, 0, r.stderr);
	return JSON.parse(r.stdout);
}

describe("the pi drop-in", () => {
	test("a settings file's skills entry takes that file's scope, as pi's app reports it", () => {
		const t = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "skillpipe-node-scope-")));
		try {
			const h = path.join(t, "home");
			const p = path.join(t, "project");
			fs.mkdirSync(path.join(p, ".git"), { recursive: true });
			skill(path.join(t, "mine"), "from-user");
			skill(path.join(p, "team"), "from-project");
			write(path.join(h, ".pi/agent/settings.json"), JSON.stringify({ skills: ["../../../mine"] }));
			write(path.join(p, ".pi/settings.json"), JSON.stringify({ skills: ["../team"] }));
			const r = sp.loadSkills({ cwd: p, agentDir: path.join(h, ".pi/agent"), home: h, includeDefaults: true });
			const scope = Object.fromEntries(r.skills.map(s => [s.name, s.sourceInfo.scope]));
			assert.deepEqual(scope, { "from-project": "project", "from-user": "user" });
			for (const s of r.skills) assert.equal(s.sourceInfo.source, "local");
		} finally {
			fs.rmSync(t, { recursive: true, force: true });
		}
	});

	test("loadSkills returns pi's shapes, skills and diagnostics", () => {
		const r = sp.loadSkills(piOptions());
		assert.deepEqual(
			r.skills.map(s => s.name),
			// A file given as a path is named after its folder (SPEC §2.1).
			["alpha", "nested", "quiet", "beta", "gamma", "notes"],
		);
		const alpha = r.skills[0];
		assert.deepEqual(alpha, {
			name: "alpha",
			description: "Use alpha for things & <stuff>.",
			filePath: path.join(home, ".pi/agent/skills/alpha/SKILL.md"),
			baseDir: path.join(home, ".pi/agent/skills/alpha"),
			sourceInfo: {
				path: path.join(home, ".pi/agent/skills/alpha/SKILL.md"),
				source: "local",
				scope: "user",
				origin: "top-level",
				baseDir: path.join(home, ".pi/agent/skills/alpha"),
			},
			disableModelInvocation: false,
		});
		assert.equal(r.skills[2].disableModelInvocation, true);
		assert.equal(r.skills[3].sourceInfo.scope, "project");
		assert.equal(r.skills[4].sourceInfo.scope, "temporary");
		const codes = r.diagnostics.map(d => [d.type, d.code]);
		assert.deepEqual(codes, [
			["warning", "description-required"],
			["warning", "path-not-found"],
			["collision", "collision"],
		]);
		assert.deepEqual(r.diagnostics[2].collision, {
			resourceType: "skill",
			name: "alpha",
			winnerPath: path.join(home, ".pi/agent/skills/alpha/SKILL.md"),
			loserPath: path.join(project, ".pi/skills/alpha/SKILL.md"),
		});
	});

	test("on a tree no deliberate difference touches, loadSkills equals pi's own, field by field", () => {
		// No root .md file and no description-less skill: §14 rows do not apply.
		const options = { cwd: project, agentDir: path.join(home, ".pi/agent"), skillPaths: ["extra/gamma", "missing"], includeDefaults: true };
		const ours = piKeys(sp.loadSkills({ ...options, home }));
		assert.deepEqual(ours, piOwn("loadSkills", options));
		const none = { ...options, includeDefaults: false, skillPaths: [path.join(home, ".pi/agent/skills/alpha")] };
		assert.deepEqual(piKeys(sp.loadSkills({ ...none, home })), piOwn("loadSkills", none));
	});

	test("text beyond ASCII and the BMP crosses intact, as pi's own reads it", () => {
		// The add-on hands the strings over as one text and where each ends,
		// in UTF-16 units: a two-byte letter and a four-byte emoji (two
		// units) in a description and in the paths move every end after them.
		const t = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "skillpipe-node-utf16-")));
		try {
			const p = path.join(t, "pröject-🚀");
			fs.mkdirSync(path.join(p, ".git"), { recursive: true });
			const dir = path.join(p, "töols-🎯");
			write(path.join(dir, "omega/SKILL.md"), "---\nname: omega\ndescription: Déjà vu 🚀 twice 🚀, then ☃.\n---\nBody.\n");
			write(path.join(dir, "zeta/SKILL.md"), "---\nname: zeta\ndescription: After the emoji.\ndisable-model-invocation: true\n---\nBody.\n");
			skill(path.join(p, ".pi/skills"), "plain");
			const options = { cwd: p, agentDir: path.join(t, "agent"), skillPaths: [dir], includeDefaults: true };
			const ours = sp.loadSkills({ ...options, home: t });
			assert.equal(ours.skills.length, 3);
			assert.equal(ours.skills.find(s => s.name === "omega").description, "Déjà vu 🚀 twice 🚀, then ☃.");
			assert.deepEqual(piKeys(ours), piOwn("loadSkills", options));
			for (const source of ["user", "npm:pkg-🚀"]) {
				assert.deepEqual(piKeys(sp.loadSkillsFromDir({ dir, source })), piOwn("loadSkillsFromDir", { dir, source }), source);
			}
		} finally {
			fs.rmSync(t, { recursive: true, force: true });
		}
	});

	test("loadSkillsFromDir scans one directory as pi does, labelled with its source", () => {
		const dir = path.join(home, ".pi/agent/skills");
		for (const source of ["user", "path", "npm:some-package"]) {
			const ours = sp.loadSkillsFromDir({ dir, source });
			assert.deepEqual(piKeys(ours), piOwn("loadSkillsFromDir", { dir, source }), source);
		}
		assert.deepEqual(sp.loadSkillsFromDir({ dir: path.join(tmp, "nothing-here"), source: "user" }), { skills: [], diagnostics: [] });
	});

	test("formatSkillsForPrompt gives pi's text, also for pi's own Skill objects", () => {
		const options = { cwd: project, agentDir: path.join(home, ".pi/agent"), skillPaths: [], includeDefaults: true };
		const piSkills = piOwn("loadSkills", options).skills;
		const text = piOwn("formatSkillsForPrompt", piSkills);
		assert.ok(text.includes("<available_skills>") && text.includes("&amp; &lt;stuff&gt;"), text);
		assert.equal(sp.formatSkillsForPrompt(piSkills), text);
		assert.equal(sp.formatSkillsForPrompt(sp.loadSkills({ ...options, home }).skills), text);
		assert.equal(sp.formatSkillsForPrompt([]), "");
	});

	test("loadSkillsAsync runs on the thread pool and returns what loadSkills does", async () => {
		const many = path.join(tmp, "many");
		for (let i = 0; i < 1500; i++) skill(many, `s${i}`);
		const options = { ...piOptions(), skillPaths: [many] };
		let turns = 0;
		const spin = setInterval(() => turns++, 0);
		let immediate = false;
		const pending = sp.loadSkillsAsync(options);
		setImmediate(() => {
			immediate = true;
		});
		const r = await pending;
		clearInterval(spin);
		assert.ok(immediate, "the event loop went on while the skills loaded");
		assert.deepEqual(r, sp.loadSkills(options));
		assert.equal(r.skills.length, 1500 + 4); // with alpha, nested, quiet and beta
		fs.rmSync(many, { recursive: true });
	});
});

describe("the full API", () => {
	test("discover returns list --json's document with the runtime calls on it", () => {
		const d = sp.discover({ profile: "musepi", home, cwd: project, env: {} });
		assert.equal(d.profile, "musepi");
		assert.deepEqual(
			d.skills.map(s => [s.name, s.source.provider, s.source.level]),
			[["delta", "native", "project"]],
		);
		assert.deepEqual(Object.keys(d), ["profile", "skills", "diagnostics"]);
		assert.equal(d.catalog(), "# Skills & Rules\nMatching skill → MUST read `skill://<name>` first.\n<skills>\n- delta: Use delta for things & ‹stuff›.\n</skills>");
		assert.equal(d.catalog({ readTool: false }), "");
		const e = d.expand("/skill:delta now", { streaming: true });
		assert.equal(e.expanded, true);
		assert.equal(e.delivery, "steer");
		assert.ok(e.text.endsWith("User: now"), e.text);
		const r = d.resolve("skill://delta");
		assert.equal(r.content_type, "text/markdown");
		assert.ok(r.content.toString().startsWith("---\nname: delta"));
		assert.deepEqual(d.commands().map(c => c.name), ["skill:delta"]);
		assert.deepEqual(d.warnings(), []);
	});

	test("the servers of mcp.servers are read: the add-on has the mcp provider", () => {
		// A small stdlib-only MCP server (tests/fixtures) serving one skill.
		const served = path.join(tmp, "mcp-served");
		write(path.join(served, "tiny/SKILL.md"), "---\nname: tiny\ndescription: A served skill.\n---\nRead notes/a.md.\n");
		write(path.join(served, "tiny/notes/a.md"), "note\n");
		const mcpHome = path.join(tmp, "mcp-home");
		fs.mkdirSync(path.join(mcpHome, "project/.git"), { recursive: true });
		const server = path.resolve(here, "../../../tests/fixtures/tiny_mcp_server.py");
		const servers = { tiny: { command: "python3", args: [server, served] } };
		const d = sp.discover({
			profile: "musepi",
			home: mcpHome,
			cwd: path.join(mcpHome, "project"),
			env: { HOME: mcpHome },
			set: [`mcp.servers=${JSON.stringify(servers)}`],
		});
		assert.deepEqual(d.diagnostics, []);
		assert.deepEqual(d.skills.map(s => [s.name, s.description, s.source.provider]), [["tiny", "A served skill.", "mcp-tiny"]]);
		assert.equal(d.resolve("skill://tiny/notes/a.md").content.toString(), "note\n");
	});

	test("discoverAsync equals discover", async () => {
		const options = { profile: "pi", home, cwd: project, env: {}, skillPaths: ["extra"] };
		const [a, b] = [await sp.discoverAsync(options), sp.discover(options)];
		assert.deepEqual({ ...a }, { ...b });
		assert.equal(a.catalog(), b.catalog());
	});

	test("resolve fails with the CLI's message and a code", () => {
		const d = sp.discover({ profile: "musepi", home, cwd: project, env: {} });
		const cases = [
			["skill://nope", "UNKNOWN_SKILL", "Unknown skill: nope\nAvailable: delta"],
			["skill://delta/../x", "PATH_TRAVERSAL", "Path traversal (..) is not allowed in skill:// URLs"],
			["skill://delta//etc/passwd", "ABSOLUTE_PATH", "Absolute paths are not allowed in skill:// URLs"],
			["skill://", "EMPTY_NAME", "skill:// URL requires a skill name: skill://<name>"],
			["skill://delta/missing.md", "NOT_FOUND", `File not found: ${path.join(project, ".musepi/skills/delta/missing.md")}`],
			["https://x", "NOT_SKILL_URL", "Not a skill:// URL: https://x"],
		];
		for (const [url, code, message] of cases) {
			assert.throws(() => d.resolve(url), e => e instanceof Error && e.code === code && e.message === message, url);
		}
	});

	test("settings errors are SETTINGS errors naming the key", async () => {
		const options = { profile: "musepi", home, cwd: project, env: {}, set: ["skills.ignoredSkills=7"] };
		const bad = e => e.code === "SETTINGS" && e.message.includes("skills.ignoredSkills");
		assert.throws(() => sp.discover(options), bad);
		await assert.rejects(sp.discoverAsync(options), bad);
		await assert.rejects(sp.loadSkillsAsync({ ...piOptions(), set: ["scan.max_depth=deep"] }), e => e.code === "SETTINGS");
		assert.throws(() => sp.discover({ profile: "nope", home, cwd: project }), e => e.code === "SETTINGS" && /unknown profile/.test(e.message));
	});

	test("search and catalogUpdate answer as the CLI's search --json and the watcher", () => {
		const t = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "skillpipe-node-search-")));
		try {
			const h = path.join(t, "home");
			const mk = (name, description) =>
				write(path.join(h, ".pi/agent/skills", name, "SKILL.md"), `---\nname: ${name}\ndescription: ${description}\n---\nbody\n`);
			mk("pdf-forms", "Fill and read PDF forms.");
			mk("deploy", "Deploy the service with terraform.");
			mk("review", "Review a pull request.");
			for (const profile of ["pi", "musepi"]) {
				const options = { profile, home: h, cwd: h, env: {}, skillPaths: [path.join(h, ".pi/agent/skills")] };
				const before = sp.discover(options);
				const hits = before.search("fill in a PDF form", { limit: 2 });
				assert.equal(hits[0].name, "pdf-forms", profile);
				assert.ok(hits[0].score > 0);
				assert.deepEqual(Object.keys(hits[0]).slice(0, 3), ["name", "description", "file_path"]);
				assert.deepEqual(before.search("pdf-forms").map(h => h.name)[0], "pdf-forms");
				assert.deepEqual(before.search("zebra"), []);
				// The CLI's search --json gives the same results.
				assert.ok(fs.existsSync(cli), `${cli} is missing: cargo build --release -p skillpipe-cli`);
				const args = ["--profile", profile, "--home", h, "--cwd", h, "--skill", path.join(h, ".pi/agent/skills")];
				const r = spawnSync(cli, [...args, "search", "--json", "--limit", "2", "fill in a PDF form"], { env: { HOME: h }, encoding: "utf8" });
				assert.equal(r.status, 0, r.stderr);
				assert.deepEqual(JSON.parse(r.stdout).results, hits);
				assert.equal(before.catalogUpdate(before).message, "");
				mk("docx", "Write Word documents.");
				const after = sp.discover(options);
				const u = after.catalogUpdate(before);
				assert.deepEqual([u.added, u.changed, u.removed], [["docx"], [], []], profile);
				assert.ok(u.message.includes("Write Word documents."), u.message);
				assert.equal(u.rerender, undefined);
				fs.rmSync(path.join(h, ".pi/agent/skills/docx"), { recursive: true });
			}
			const d = sp.discover({ profile: "pi", home: h, cwd: h, env: {} });
			const invalid = e => e instanceof TypeError && e.code === "INVALID_ARG";
			assert.throws(() => d.search(3), invalid);
			assert.throws(() => d.search("x", { limit: 0 }), invalid);
			assert.throws(() => d.search("x", { limit: 1.5 }), invalid);
			assert.throws(() => d.catalogUpdate({}), invalid);
		} finally {
			fs.rmSync(t, { recursive: true, force: true });
		}
	});

	test("invocation fields, visibility fates and Claude-style arguments equal the CLI's", () => {
		const world = path.join(tmp, "invocation");
		const h = path.join(world, "home");
		const p = path.join(world, "project");
		const skills = path.join(h, ".musepi/agent/skills");
		write(path.join(skills, "deploy/SKILL.md"), "---\nname: deploy\ndescription: Deploy.\nallowed-tools: Bash(git push *) Read\nuser-invocable: false\nwhen_to_use: When shipping.\neffort: extreme\n---\nDeploy.\n");
		write(path.join(skills, "greet/SKILL.md"), "---\nname: greet\ndescription: Greet.\narguments: [who]\nmetadata:\n  requires: [missing]\n---\nHello $who ($1).\n");
		write(path.join(skills, "lint/SKILL.md"), "---\nname: lint\ndescription: Lint.\n---\nLint.\n");
		write(path.join(skills, "secret/SKILL.md"), "---\nname: secret\ndescription: Secret.\n---\nSecret.\n");
		write(path.join(h, ".musepi/agent/settings.json"), JSON.stringify({ skills: { visibility: { secret: "off", lint: "name-only" } } }));
		write(path.join(p, ".musepi/settings.json"), JSON.stringify({ skills: { visibility: { secret: "on", greet: "user-only" } } }));
		const set = ["skills.arguments=claude"];
		const run = args => {
			const r = spawnSync(cli, ["--profile", "musepi", "--home", h, "--cwd", p, ...set.flatMap(s => ["--set", s]), ...args], {
				env: { PATH: process.env.PATH, HOME: h },
				encoding: "utf8",
			});
			assert.equal(r.status, 0, r.stderr);
			return JSON.parse(r.stdout);
		};
		const d = sp.discover({ profile: "musepi", home: h, cwd: p, env: {}, set, all: true });
		assert.deepEqual({ profile: d.profile, skills: d.skills, removed: d.removed, diagnostics: d.diagnostics }, run(["list", "--all", "--json"]));
		assert.deepEqual(d.skills.find(s => s.name === "deploy").invocation, {
			allowed_tools: ["Bash(git push *)", "Read"],
			user_invocable: false,
			when_to_use: "When shipping.",
			listing_description: "Deploy. - When shipping.",
		});
		assert.deepEqual(d.skills.map(s => [s.name, s.visibility ?? "on", s.hidden]), [["deploy", "on", false], ["greet", "user-only", true], ["lint", "name-only", false]]);
		assert.deepEqual(d.removed.map(r => [r.name, r.fate, r.setting, r.pattern, r.layer]), [["secret", "removed", "skills.visibility", '"secret": "off"', path.join(h, ".musepi/agent/settings.json")]]);
		assert.deepEqual(d.diagnostics.map(x => [x.code, x.line ?? null]), [["field-ignored", 7], ["missing-dependency", null]]);
		const plain = sp.discover({ profile: "musepi", home: h, cwd: p, env: {}, set });
		assert.equal(plain.removed, undefined);
		const e = plain.expand("/skill:greet ann");
		assert.deepEqual(e, run(["expand", "/skill:greet ann", "--json"]));
		assert.deepEqual(e.placeholders, { filled: ["$who"], unfilled: ["$1"], appended: false });
		assert.ok(e.text.startsWith("Hello ann ($1)."), e.text);
		assert.deepEqual(plain.commands().map(c => c.name), ["skill:greet", "skill:lint"]);
		assert.equal(plain.catalog(), "# Skills & Rules\nMatching skill → MUST read `skill://<name>` first.\n<skills>\n- deploy: Deploy.\n- lint:\n</skills>");
	});

	test("contextFiles and validate", () => {
		write(path.join(project, "AGENTS.md"), "Be nice.\n");
		assert.deepEqual(sp.contextFiles({ home, cwd: project, env: {} }), [{ path: path.join(project, "AGENTS.md"), depth: 0 }]);
		const v = sp.validate([path.join(project, ".musepi/skills/delta"), path.join(project, "extra/bad")]);
		assert.equal(v.valid, false);
		assert.deepEqual(v.results.map(r => r.valid), [true, false]);
	});
});

describe("bad arguments are errors with a code, never a crash", () => {
	const invalid = e => e instanceof TypeError && e.code === "INVALID_ARG";
	test("wrong types and missing fields", () => {
		const calls = [
			() => sp.loadSkills(),
			() => sp.loadSkills(null),
			() => sp.loadSkills({}),
			() => sp.loadSkills({ cwd: 3 }),
			() => sp.loadSkills({ cwd: project, skillPaths: "extra" }),
			() => sp.loadSkills({ cwd: project, skillPaths: [1] }),
			() => sp.loadSkills({ cwd: project, includeDefaults: "yes" }),
			() => sp.loadSkills({ cwd: project, env: { A: 1 } }),
			() => sp.loadSkillsFromDir({ dir: project }),
			() => sp.formatSkillsForPrompt("x"),
			() => sp.formatSkillsForPrompt([{ name: "a" }]),
			() => sp.discover("musepi"),
			() => sp.discover({ home: {} }),
			() => sp.discover({ set: "a=b" }),
			() => sp.discover({ noSkills: 1 }),
			() => sp.contextFiles({ cwd: [] }),
			() => sp.validate("x"),
			() => sp.validate([null]),
		];
		for (const call of calls) assert.throws(call, invalid, call.toString());
		const d = sp.discover({ home, cwd: project, env: {} });
		assert.throws(() => d.expand(5), invalid);
		assert.throws(() => d.expand("/skill:delta", { streaming: "yes" }), invalid);
		assert.throws(() => d.resolve(null), invalid);
		assert.throws(() => d.catalog({ readTool: 1 }), invalid);
	});

	test("paths that are not well-formed Unicode or hold a NUL", async () => {
		assert.throws(() => sp.loadSkills({ cwd: "/tmp/\ud800x" }), e => invalid(e) && /well-formed/.test(e.message));
		assert.throws(() => sp.discover({ home, cwd: project, skillPaths: ["a\udc00"] }), invalid);
		assert.throws(() => sp.discover({ home, cwd: `${project}\0x` }), e => invalid(e) && /NUL/.test(e.message));
		assert.throws(() => sp.loadSkills({ cwd: project, skillPaths: ["a\0b"], home }), e => invalid(e) && /NUL/.test(e.message));
		await assert.rejects(sp.loadSkillsAsync({ cwd: project, agentDir: "\0", home }), invalid);
		assert.throws(() => sp.validate([""]), invalid);
	});

	test("the add-on called directly, with anything, throws", () => {
		const native = require("../skillpipe.node");
		// "[]" is a valid (empty) list for two of them: not junk there.
		const junk = [undefined, null, 3, {}, [], "", "{", '{"cwd": "/x"}', "null", '["\\ud800"]'];
		assert.equal(native.formatSkillsForPrompt("[]"), "");
		assert.equal(native.validate("[]"), '{"valid":true,"results":[]}');
		for (const j of junk) {
			for (const fn of ["loadSkills", "loadSkillsFromDir", "formatSkillsForPrompt", "contextFiles", "validate"]) {
				assert.throws(() => native[fn](j), Error, `${fn}(${JSON.stringify(j)})`);
			}
			assert.throws(() => native.Session.open(j), Error);
		}
	});

	test("a process making every bad call exits normally", () => {
		const script = `
			const sp = require(${JSON.stringify(path.join(here, "../index.js"))});
			const native = require(${JSON.stringify(path.join(here, "../skillpipe.node"))});
			let n = 0;
			const bad = [() => sp.loadSkills(), () => sp.discover({ cwd: "\\ud800" }), () => native.loadSkills(1),
				() => native.Session.open("{"), () => native.validate("[1]"), () => sp.formatSkillsForPrompt([null])];
			for (const f of bad) { try { f(); } catch (e) { if (typeof e.code === "string") n++; } }
			const settle = f => { try { return f(); } catch (e) { return Promise.reject(e); } };
			Promise.allSettled([settle(() => native.loadSkillsAsync("{")), settle(() => native.discoverAsync(7))])
				.then(r => { n += r.filter(x => x.status === "rejected").length; console.log(n); });`;
		const r = spawnSync(process.execPath, ["-e", script], { encoding: "utf8" });
		assert.equal(r.signal, null, r.stderr);
		assert.equal(r.status, 0, r.stderr);
		assert.equal(r.stdout.trim(), "8");
	});
});

test("the types: tsc --noEmit accepts the binding's results as pi's own types", { timeout: 120000 }, () => {
	const tsc = path.join(here, "../node_modules/typescript/bin/tsc");
	assert.ok(fs.existsSync(tsc), "typescript is not installed: npm install in bindings/node");
	// The declarations themselves (the other project skips library checks:
	// pi's dependencies do not all type-check), then the assignments.
	for (const project of ["tsconfig.dts.json", "tsconfig.json"]) {
		const r = spawnSync(process.execPath, [tsc, "--noEmit", "-p", path.join(here, project)], { encoding: "utf8" });
		assert.equal(r.status, 0, `${project}: ${r.stdout}${r.stderr}`);
	}
});
