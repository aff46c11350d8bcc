// Every `pi-`, `musepi-` and `runtime-` case of the shared corpus, run by
// the CLI (as run.py runs it) and through the binding, run by run:
// - `discover` equals `list --json` under the run's flags (every run);
// - pi cases: `loadSkills` equals that document in pi's shapes, and
//   `formatSkillsForPrompt` of its skills equals `prompt`;
// - `prompt`, `expand`, `resolve` (bytes, `--json`, errors), `context`,
//   `commands` and `validate` equal the CLI's output;
// - a settings error (exit 2) is an Error with code SETTINGS and the CLI's message.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { test } from "node:test";

import { cli, listCases, openCase, parseRun, piSettingsEntries, piShapes, scrubProcessEnv } from "./cases.mjs";

const require = createRequire(import.meta.url);
const sp = require("../index.js");

scrubProcessEnv();
const cases = listCases(["pi-", "musepi-", "runtime-"]);
const skip = cases.length === 0 ? "no ../shared/conformance beside the checkout" : false;

test("the CLI to compare with is built", { skip }, () => {
	assert.ok(fs.existsSync(cli), `${cli} is missing: cargo build --release -p skillpipe-cli`);
});

const plain = d => ({ profile: d.profile, skills: d.skills, diagnostics: d.diagnostics });

/** The global flags of a run, as CLI arguments. */
function globalArgs(run) {
	return [
		...run.set.flatMap(s => ["--set", s]),
		...run.config.flatMap(c => ["--config", c]),
		...run.skillPaths.flatMap(s => ["--skill", s]),
		...(run.noSkills ? ["--no-skills"] : []),
	];
}

function expandTilde(p, home) {
	if (p === "~") return home;
	if (p.startsWith("~/")) return path.join(home, p.slice(2));
	if (p.startsWith("~")) return path.join(home, p.slice(1));
	return p;
}

function checkRun(c, args) {
	const run = parseRun(args);
	const options = {
		profile: c.profile,
		home: c.home,
		cwd: c.cwd,
		env: c.env,
		set: run.set,
		config: run.config.map(p => `${c.runCwd}/${p}`),
		skillPaths: run.skillPaths,
		noSkills: run.noSkills,
	};
	const agentDir = expandTilde(c.env.PI_CODING_AGENT_DIR ?? path.join(c.home, ".pi/agent"), c.home);
	const piOptions = {
		cwd: c.cwd,
		agentDir: c.env.PI_CODING_AGENT_DIR ?? agentDir,
		skillPaths: run.skillPaths,
		includeDefaults: !run.noSkills,
		home: c.home,
		env: c.env,
		set: run.set,
		config: options.config,
	};
	const out = c.cli(args);

	if (run.command === "validate") {
		const json = c.cli(["validate", ...run.operands, "--json"]);
		const before = process.cwd();
		process.chdir(c.runCwd);
		try {
			assert.deepEqual(sp.validate(run.operands), JSON.parse(json.stdout));
		} finally {
			process.chdir(before);
		}
		assert.equal(out.status, JSON.parse(json.stdout).valid ? 0 : 1);
		return;
	}

	if (out.status === 2) {
		// With --json the CLI prints its error as {"error": {code, message}} on stderr.
		const cliError = (() => {
			try {
				return JSON.parse(out.stderr).error.message;
			} catch {
				return out.stderr;
			}
		})();
		const settingsError = e => {
			assert.equal(e.code, "SETTINGS");
			assert.ok(cliError.includes(e.message), `CLI stderr ${JSON.stringify(out.stderr)} lacks ${JSON.stringify(e.message)}`);
			return true;
		};
		assert.throws(() => sp.discover(options), settingsError);
		if (c.profile === "pi") assert.throws(() => sp.loadSkills(piOptions), settingsError);
		return;
	}

	const d = sp.discover(options);
	const list = run.command === "list" ? out : c.cli([...globalArgs(run), "list", "--json"]);
	const doc = JSON.parse(list.stdout);
	assert.deepEqual(plain(d), doc);

	let pi;
	if (c.profile === "pi") {
		pi = sp.loadSkills(piOptions);
		const want = piShapes(doc, {
			includeDefaults: piOptions.includeDefaults,
			userDir: path.join(agentDir, "skills"),
			projectDir: path.join(c.cwd, ".pi/skills"),
			entries: piSettingsEntries({ agentDir: piOptions.agentDir, cwd: c.cwd, home: c.home }),
		});
		assert.deepEqual(pi, want);
	}

	const text = out.stdout.toString("utf8");
	switch (run.command) {
		case "list":
			if (run.flags.has("--deny-warnings")) assert.equal(out.status, d.diagnostics.length > 0 ? 1 : 0);
			else assert.equal(out.status, 0);
			break;
		case "prompt": {
			const readTool = !run.flags.has("--no-read-tool");
			assert.equal(d.catalog({ readTool }), text);
			if (pi && readTool) assert.equal(sp.formatSkillsForPrompt(pi.skills), text);
			break;
		}
		case "expand": {
			const e = d.expand(run.operands[0], {
				streaming: run.flags.has("--streaming"),
				followUp: run.flags.has("--follow-up"),
			});
			if (run.flags.has("--json")) assert.deepEqual(e, JSON.parse(text));
			else assert.equal(e.text, text);
			break;
		}
		case "resolve": {
			const url = run.operands[0];
			if (out.status === 0) {
				const r = d.resolve(url);
				if (run.flags.has("--json")) {
					assert.deepEqual({ path: r.path, content_type: r.content_type, is_dir: r.is_dir }, JSON.parse(text));
				} else {
					assert.ok(Buffer.isBuffer(r.content));
					assert.ok(r.content.equals(out.stdout), "the bytes differ from the CLI's");
				}
			} else {
				assert.equal(out.status, 1);
				assert.throws(
					() => d.resolve(url),
					e => {
						// The CLI may add a "Did you mean" line of its own after the
						// error, and with --json prints {"error": {code, message}}.
						let cliError = out.stderr.replace(/Did you mean: [^\n]*\n$/, "");
						try {
							cliError = `${JSON.parse(out.stderr).error.message}\n`;
						} catch {}
						assert.ok(cliError.endsWith(`${e.message}\n`), `CLI stderr ${JSON.stringify(out.stderr)} vs ${JSON.stringify(e.message)}`);
						assert.match(e.code, /^[A-Z_]+$/);
						if (e.message.startsWith("Unknown skill:")) assert.equal(e.code, "UNKNOWN_SKILL");
						if (e.message.startsWith("Path traversal")) assert.equal(e.code, "PATH_TRAVERSAL");
						if (e.message.startsWith("File not found")) assert.equal(e.code, "NOT_FOUND");
						return true;
					},
				);
			}
			break;
		}
		case "context": {
			const files = JSON.parse(text).files;
			assert.deepEqual(sp.contextFiles(options), files);
			assert.deepEqual(d.contextFiles(), files);
			break;
		}
		case "commands":
			assert.deepEqual(d.commands(), JSON.parse(text).commands);
			break;
		case "providers":
			// Not part of the binding's API: `discover` under the same flags is compared above.
			assert.equal(out.status, 0);
			break;
		default:
			assert.fail(`a run of a command this test does not know: ${run.command}`);
	}
}

for (const name of cases) {
	test(name, { skip }, async t => {
		const c = openCase(name);
		t.after(() => c.dispose());
		for (const [i, args] of c.runs.entries()) {
			await t.test(`run ${i + 1} [${args.join(" ")}]`, () => checkRun(c, args));
		}
	});
}
