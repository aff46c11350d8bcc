// The shared acceptance cases, built and run the way
// ../shared/conformance/run.py builds and runs them, so that the binding
// can be compared with the CLI (`target/release/skillpipe`) run by run.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
/** The workspace root. */
export const root = path.resolve(here, "../../..");
/** `../shared/conformance/cases` beside the checkout (`SKILLPIPE_SHARED` moves `../shared`). */
export const casesDir = path.join(process.env.SKILLPIPE_SHARED ?? path.resolve(root, "../shared"), "conformance/cases");
/** The CLI the binding is compared with (`SKILLPIPE_BIN` overrides). */
export const cli = process.env.SKILLPIPE_BIN ?? path.join(root, "target/release/skillpipe");

const TREE = "$TREE";
const SCRUBBED_PREFIXES = ["SKILLPIPE_", "PI_", "MUSEPI_"];
const SCRUBBED_NAMES = ["CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_CONFIG_HOME"];

/** Leaves this process's environment as run.py leaves the CLI's: nothing that moves a root. */
export function scrubProcessEnv() {
	for (const k of Object.keys(process.env)) {
		if (SCRUBBED_PREFIXES.some(p => k.startsWith(p)) || SCRUBBED_NAMES.includes(k)) delete process.env[k];
	}
}

/** The case folders whose names start with one of `prefixes`, sorted. */
export function listCases(prefixes) {
	if (!fs.existsSync(casesDir)) return [];
	return fs
		.readdirSync(casesDir)
		.filter(n => prefixes.some(p => n.startsWith(p)) && fs.existsSync(path.join(casesDir, n, "case.toml")))
		.sort();
}

/** case.toml as an object (Python's tomllib reads it, as run.py does). */
function readToml(file) {
	const r = spawnSync(
		"python3",
		["-c", "import json, sys, tomllib; print(json.dumps(tomllib.load(open(sys.argv[1], 'rb'))))", file],
		{ encoding: "utf8" },
	);
	if (r.status !== 0) throw new Error(`cannot read ${file}: ${r.stderr || r.error}`);
	return JSON.parse(r.stdout);
}

function inside(rootDir, rel) {
	if (typeof rel !== "string" || rel === "" || path.isAbsolute(rel) || rel.split("/").includes("..")) {
		throw new Error(`not a relative path inside the tree: ${rel}`);
	}
	return path.join(rootDir, rel);
}

/** Builds a case's tree in a fresh temporary directory (run.py's build_tree). */
function buildTree(caseDir, spec, rootDir) {
	const tree = path.join(caseDir, "tree");
	if (fs.existsSync(tree)) fs.cpSync(tree, rootDir, { recursive: true, verbatimSymlinks: true });
	for (const [rel, source] of Object.entries(spec.copy ?? {})) {
		const src = fs.realpathSync(path.join(caseDir, source));
		const dest = inside(rootDir, rel);
		fs.mkdirSync(path.dirname(dest), { recursive: true });
		fs.cpSync(src, dest, { recursive: true, verbatimSymlinks: true });
	}
	for (const [rel, content] of Object.entries(spec.files ?? {})) {
		const file = inside(rootDir, rel);
		fs.mkdirSync(path.dirname(file), { recursive: true });
		fs.rmSync(file, { force: true });
		fs.writeFileSync(file, Buffer.from(content.replaceAll(TREE, rootDir), "utf8"));
	}
	for (const [rel, content] of Object.entries(spec.files_base64 ?? {})) {
		const file = inside(rootDir, rel);
		fs.mkdirSync(path.dirname(file), { recursive: true });
		fs.writeFileSync(file, Buffer.from(String(content), "base64"));
	}
	for (const [rel, target] of Object.entries(spec.symlinks ?? {})) {
		const link = inside(rootDir, rel);
		fs.mkdirSync(path.dirname(link), { recursive: true });
		fs.symlinkSync(target, link);
	}
	for (const rel of spec.dirs ?? []) fs.mkdirSync(inside(rootDir, rel), { recursive: true });
}

/**
 * A built case: its tree, the CLI's base flags and environment, and a
 * `cli(args)` that runs the CLI as run.py does. `dispose()` removes the tree.
 */
export function openCase(name) {
	const caseDir = path.join(casesDir, name);
	const spec = readToml(path.join(caseDir, "case.toml"));
	const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "skillpipe-node-case-")));
	buildTree(caseDir, spec, tmp);
	const home = spec.home ? path.join(tmp, spec.home) : tmp;
	const cwd = spec.cwd ? path.join(tmp, spec.cwd) : tmp;
	const caseEnv = Object.fromEntries(Object.entries(spec.env ?? {}).map(([k, v]) => [k, String(v).replaceAll(TREE, tmp)]));
	const env = {};
	for (const [k, v] of Object.entries(process.env)) {
		if (!SCRUBBED_PREFIXES.some(p => k.startsWith(p)) && !SCRUBBED_NAMES.includes(k)) env[k] = v;
	}
	Object.assign(env, { HOME: home, USERPROFILE: home }, caseEnv);
	const base = [];
	if (spec.profile) base.push("--profile", spec.profile);
	if (spec.home) base.push("--home", home);
	if (spec.cwd) base.push("--cwd", cwd);
	const runCwd = fs.existsSync(cwd) ? cwd : tmp;
	return {
		name,
		spec,
		tree: tmp,
		home,
		cwd,
		runCwd,
		profile: spec.profile ?? "musepi",
		/** The variables the case sets, plus HOME: what the binding gets as its environment. */
		env: { HOME: home, ...caseEnv },
		runs: (spec.run ?? []).map(r => (r.args ?? []).map(a => String(a).replaceAll(TREE, tmp))),
		cli(args) {
			const r = spawnSync(cli, [...base, ...args], { cwd: runCwd, env, timeout: 20000 });
			if (r.error) throw r.error;
			return { stdout: r.stdout, stderr: r.stderr.toString("utf8"), status: r.status };
		},
		dispose() {
			fs.rmSync(tmp, { recursive: true, force: true });
		},
	};
}

/**
 * A run's arguments split as the CLI reads them: the global flags the
 * binding takes as options, the command and its own flags and operands.
 */
export function parseRun(args) {
	const out = { set: [], config: [], skillPaths: [], noSkills: false, command: null, flags: new Set(), operands: [] };
	for (let i = 0; i < args.length; i++) {
		const a = args[i];
		if (a === "--set") out.set.push(args[++i]);
		else if (a === "--config") out.config.push(args[++i]);
		else if (a === "--skill") out.skillPaths.push(args[++i]);
		else if (a === "--no-skills") out.noSkills = true;
		else if (a.startsWith("--")) out.flags.add(a);
		else if (out.command === null) out.command = a;
		else out.operands.push(a);
	}
	return out;
}

/**
 * The paths that pi's two settings files' `skills` entries name, each
 * with the scope pi's app gives it: `user` for `<agentDir>/settings.json`
 * (entries relative to agentDir), `project` for `<cwd>/.pi/settings.json`
 * (relative to `<cwd>/.pi`); `~` is the home directory.
 */
export function piSettingsEntries({ agentDir, cwd, home }) {
	const tilde = e => (e.startsWith("~") ? path.join(home, e.replace(/^~\/?/, "")) : e);
	agentDir = path.resolve(cwd, tilde(agentDir));
	const out = [];
	const files = [
		[path.join(agentDir, "settings.json"), agentDir, "user"],
		[path.join(cwd, ".pi", "settings.json"), path.join(cwd, ".pi"), "project"],
	];
	for (const [file, base, scope] of files) {
		let skills;
		try {
			skills = JSON.parse(fs.readFileSync(file, "utf8").replace(/^\uFEFF/, "")).skills;
		} catch {
			continue;
		}
		if (!Array.isArray(skills)) continue;
		for (const e of skills.filter(e => typeof e === "string")) {
			out.push([path.resolve(base, tilde(e)), scope]);
		}
	}
	return out;
}

/**
 * The CLI's `list --json` document (pi profile) in pi's shapes, as pi's
 * `loadSkills` fills them: what the binding's `loadSkills` must return.
 * Written here apart from the binding's own mapping (src/pi.rs), so each
 * checks the other.
 */
export function piShapes(doc, { includeDefaults, userDir, projectDir, entries = [] }) {
	const under = (p, dir) => p === dir || p.startsWith(`${dir}/`);
	const scopeOf = s => {
		if (s.source.level === "user" || s.source.level === "project") return s.source.level;
		const at = s.source.root ?? s.file_path;
		const entry = entries.find(([p]) => p === at);
		if (entry) return entry[1];
		if (!includeDefaults) {
			if (under(at, userDir)) return "user";
			if (under(at, projectDir)) return "project";
		}
		return "temporary";
	};
	const nameOf = new Map(doc.skills.map(s => [s.file_path, s.name]));
	return {
		skills: doc.skills.map(s => ({
			name: s.name,
			description: s.description,
			filePath: s.file_path,
			baseDir: s.base_dir,
			sourceInfo: { path: s.file_path, source: "local", scope: scopeOf(s), origin: "top-level", baseDir: s.base_dir },
			disableModelInvocation: s.hidden,
		})),
		diagnostics: doc.diagnostics.map(d => {
			const out = { type: d.code === "collision" ? "collision" : "warning", message: d.message, path: d.path, code: d.code, severity: d.severity };
			if (d.line !== undefined) out.line = d.line;
			if (d.column !== undefined) out.column = d.column;
			if (d.code === "collision") {
				out.collision = {
					resourceType: "skill",
					name: nameOf.get(d.winner_path) ?? /^name "(.*)" collision$/.exec(d.message)?.[1],
					winnerPath: d.winner_path,
					loserPath: d.path,
				};
			}
			return out;
		}),
	};
}
