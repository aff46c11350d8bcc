// skillpipe for Node: the loader of the native add-on (skillpipe.node).
//
// It checks every argument (a wrong type, a missing field or a string that
// is not well-formed Unicode is an Error with code INVALID_ARG, never a
// crash), hands the options to the add-on as JSON, and turns what comes
// back into objects, and failures into Errors with a `code`.
// Types: index.d.ts. Build the add-on first: `npm run build`.
"use strict";

const os = require("node:os");
const path = require("node:path");

/** The npm package holding this platform's add-on (napi-rs's names). */
function platformPackage() {
	const { platform, arch } = process;
	if (platform === "linux") {
		const glibc = process.report?.getReport?.().header?.glibcVersionRuntime;
		return `skillpipe-linux-${arch}-${glibc ? "gnu" : "musl"}`;
	}
	if (platform === "win32") return `skillpipe-win32-${arch}-msvc`;
	return `skillpipe-${platform}-${arch}`;
}

// The add-on built in this checkout (`npm run build`) first, then the one
// an install brought as an optional dependency.
function loadAddon() {
	const file = path.join(__dirname, "skillpipe.node");
	let local;
	try {
		return require(file);
	} catch (cause) {
		local = cause;
	}
	const pkg = platformPackage();
	try {
		return require(pkg);
	} catch (cause) {
		const err = new Error(
			`cannot load the skillpipe add-on: neither ${file} (${local.message}) nor the package ${pkg} (${cause.message}); ` +
				`build it with \`npm run build\` in ${__dirname}, or install skillpipe on a platform it ships for`,
		);
		err.code = "ADDON_NOT_BUILT";
		err.cause = cause;
		throw err;
	}
}

const native = loadAddon();

// ---------------------------------------------------------------------------
// Errors

function codedError(code, message, Kind = Error) {
	const err = new Kind(message);
	err.code = code;
	return err;
}

function invalid(message) {
	return codedError("INVALID_ARG", message, TypeError);
}

/** The add-on throws `{"code", "message"}` as its error's message. */
function rethrow(err) {
	if (err && typeof err.message === "string" && err.message.startsWith("{")) {
		try {
			const f = JSON.parse(err.message);
			if (typeof f.code === "string" && typeof f.message === "string") {
				return codedError(f.code, f.message, f.code === "INVALID_ARG" ? TypeError : Error);
			}
		} catch {
			// not ours: fall through
		}
	}
	// napi's own conversion errors: an argument of the wrong type.
	const wrapped = codedError("INVALID_ARG", String(err && err.message), TypeError);
	wrapped.cause = err;
	return wrapped;
}

function call(fn, ...args) {
	try {
		return fn(...args);
	} catch (err) {
		throw rethrow(err);
	}
}

// ---------------------------------------------------------------------------
// Arguments

const isWellFormed =
	typeof String.prototype.isWellFormed === "function"
		? s => s.isWellFormed()
		: s => !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:^|[^\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);

function describe(v) {
	if (v === null) return "null";
	if (Array.isArray(v)) return "an array";
	return typeof v === "object" ? "an object" : `${typeof v} ${String(v).slice(0, 40)}`;
}

function checkString(v, what) {
	if (typeof v !== "string") throw invalid(`${what} must be a string, got ${describe(v)}`);
	if (!isWellFormed(v)) {
		throw invalid(`${what} is not well-formed Unicode (a lone surrogate): a path must be valid UTF-8`);
	}
	return v;
}

function checkOptions(v, what) {
	if (v === null || typeof v !== "object" || Array.isArray(v)) {
		throw invalid(`${what} must be an object, got ${describe(v)}`);
	}
	return v;
}

function optString(o, key, what) {
	return o[key] === undefined ? undefined : checkString(o[key], `${what}.${key}`);
}

function optBool(o, key, what, fallback) {
	if (o[key] === undefined) return fallback;
	if (typeof o[key] !== "boolean") throw invalid(`${what}.${key} must be a boolean, got ${describe(o[key])}`);
	return o[key];
}

function optStrings(o, key, what) {
	const v = o[key];
	if (v === undefined) return [];
	if (!Array.isArray(v)) throw invalid(`${what}.${key} must be an array of strings, got ${describe(v)}`);
	return v.map((s, i) => checkString(s, `${what}.${key}[${i}]`));
}

function optEnv(o, key, what) {
	const v = o[key];
	if (v === undefined) return undefined;
	checkOptions(v, `${what}.${key}`);
	const env = {};
	for (const [k, x] of Object.entries(v)) {
		if (x === undefined) continue;
		env[checkString(k, `${what}.${key} name`)] = checkString(x, `${what}.${key}.${k}`);
	}
	return env;
}

/** The process environment, without variables that are not well-formed (as the CLI skips non-UTF-8 ones). */
function processEnv() {
	const env = {};
	for (const [k, v] of Object.entries(process.env)) {
		if (typeof v === "string" && isWellFormed(k) && isWellFormed(v)) env[k] = v;
	}
	return env;
}

// Relative paths are joined to the process's working directory as the CLI
// joins them (not normalised: a message names the path as it was given).
const absolute = p => (path.isAbsolute(p) ? p : `${process.cwd()}${path.sep}${p}`);

// ---------------------------------------------------------------------------
// pi's skills module: loadSkills, loadSkillsFromDir, formatSkillsForPrompt

function loadSkillsArgs(options) {
	const what = "loadSkills options";
	checkOptions(options, what);
	const cwd = checkString(options.cwd, `${what}.cwd`);
	// pi joins a relative agentDir to the process's cwd; without one it
	// takes $PI_CODING_AGENT_DIR (`~` expanded), else ~/.pi/agent.
	let agentDir = optString(options, "agentDir", what);
	if (agentDir !== undefined && agentDir.trim() !== "" && !agentDir.startsWith("~")) agentDir = absolute(agentDir);
	agentDir ??= process.env.PI_CODING_AGENT_DIR;
	const env = optEnv(options, "env", what) ?? {};
	return JSON.stringify({
		cwd: absolute(cwd),
		agentDir,
		skillPaths: optStrings(options, "skillPaths", what),
		// pi: `if (includeDefaults)`, so leaving it out loads only skillPaths.
		includeDefaults: optBool(options, "includeDefaults", what, false),
		home: absolute(optString(options, "home", what) ?? os.homedir()),
		env,
		config: optStrings(options, "config", what).map(absolute),
		set: optStrings(options, "set", what),
	});
}

// pi's `sourceInfo.scope` by its number in the add-on's flags (pi.rs SCOPES).
const SCOPES = ["user", "project", "temporary"];

/**
 * pi's `{skills, diagnostics}` from the add-on's answer: each skill's four
 * strings are slices of one text (what V8 makes cheaply, where parsing a
 * JSON text of the same size took most of the time), its other fields
 * from its flags; the diagnostics, few, as JSON. The objects are those
 * JSON.parse would make, key for key.
 */
function piResult(r) {
	if (r.json !== undefined && r.json !== null) return JSON.parse(r.json);
	const { text, ends, flags, label } = r;
	const skills = [];
	let at = 0;
	for (let i = 0, k = 0; i < flags.length; i++, k += 4) {
		const name = text.slice(at, ends[k]);
		const description = text.slice(ends[k], ends[k + 1]);
		const filePath = text.slice(ends[k + 1], ends[k + 2]);
		const baseDir = text.slice(ends[k + 2], ends[k + 3]);
		at = ends[k + 3];
		const f = flags[i];
		skills.push({
			name,
			description,
			filePath,
			baseDir,
			sourceInfo: {
				path: filePath,
				source: f & 8 ? label : "local",
				scope: SCOPES[(f >> 1) & 3],
				origin: "top-level",
				baseDir,
			},
			disableModelInvocation: (f & 1) === 1,
		});
	}
	return { skills, diagnostics: JSON.parse(r.diagnostics) };
}

function loadSkills(options) {
	return piResult(call(native.loadSkills, loadSkillsArgs(options)));
}

async function loadSkillsAsync(options) {
	const args = loadSkillsArgs(options);
	let r;
	try {
		r = await native.loadSkillsAsync(args);
	} catch (err) {
		throw rethrow(err);
	}
	return piResult(r);
}

function loadSkillsFromDir(options) {
	const what = "loadSkillsFromDir options";
	checkOptions(options, what);
	const args = JSON.stringify({
		dir: absolute(checkString(options.dir, `${what}.dir`)),
		source: checkString(options.source, `${what}.source`),
		home: os.homedir(),
	});
	return piResult(call(native.loadSkillsFromDir, args));
}

function formatSkillsForPrompt(skills) {
	if (!Array.isArray(skills)) throw invalid(`formatSkillsForPrompt: skills must be an array, got ${describe(skills)}`);
	const list = skills.map((s, i) => {
		const what = `skills[${i}]`;
		checkOptions(s, what);
		return {
			name: checkString(s.name, `${what}.name`),
			description: checkString(s.description, `${what}.description`),
			filePath: checkString(s.filePath, `${what}.filePath`),
			disableModelInvocation: s.disableModelInvocation === true,
		};
	});
	return call(native.formatSkillsForPrompt, JSON.stringify(list));
}

// ---------------------------------------------------------------------------
// The full API: discover and what a discovery answers

function discoverArgs(options, what) {
	checkOptions(options ?? {}, what);
	const o = options ?? {};
	const env = optEnv(o, "env", what) ?? processEnv();
	return JSON.stringify({
		profile: optString(o, "profile", what) ?? env.SKILLPIPE_PROFILE ?? "musepi",
		appDir: optString(o, "appDir", what),
		home: absolute(optString(o, "home", what) ?? os.homedir()),
		cwd: absolute(optString(o, "cwd", what) ?? process.cwd()),
		env,
		config: optStrings(o, "config", what).map(absolute),
		set: optStrings(o, "set", what),
		skillPaths: optStrings(o, "skillPaths", what),
		noSkills: optBool(o, "noSkills", what, false),
		plugins: optStrings(o, "plugins", what).map(absolute),
		all: optBool(o, "all", what, false),
	});
}

/** A discovery: the `skillpipe list --json` document, and the runtime calls on it. */
class Discovery {
	#session;

	constructor(session) {
		this.#session = session;
		const doc = JSON.parse(call(() => session.listJson()));
		this.profile = doc.profile;
		this.skills = doc.skills;
		// `discover({all: true})`: what did not load, with its fate (`list --all --json`).
		if (doc.removed !== undefined) this.removed = doc.removed;
		this.diagnostics = doc.diagnostics;
	}

	/** The system-prompt catalogue (`skillpipe prompt`). */
	catalog(options) {
		const o = checkOptions(options ?? {}, "catalog options");
		return this.#session.catalog(optBool(o, "readTool", "catalog options", true));
	}

	/** `/skill:<name> [args]` expanded (`skillpipe expand --json`). */
	expand(text, options) {
		checkString(text, "expand: text");
		const o = checkOptions(options ?? {}, "expand options");
		const streaming = optBool(o, "streaming", "expand options", false);
		const followUp = optBool(o, "followUp", "expand options", false);
		return JSON.parse(call(() => this.#session.expand(text, streaming, followUp)));
	}

	/** A `skill://` URL: `{path, content_type, is_dir, content: Buffer}`, or an Error with the CLI's message. */
	resolve(url) {
		checkString(url, "resolve: url");
		return call(() => this.#session.resolve(url));
	}

	/** Skills ranked by relevance to `query`, best first (`skillpipe search --json`'s results). */
	search(query, options) {
		checkString(query, "search: query");
		const o = checkOptions(options ?? {}, "search options");
		const limit = o.limit ?? 10;
		if (!Number.isInteger(limit) || limit < 1 || limit > 0xffffffff) {
			throw invalid(`search options.limit must be a positive integer, got ${describe(limit)}`);
		}
		return JSON.parse(call(() => this.#session.search(query, limit)));
	}

	/** What a host appends to the conversation when the skills changed since `previous`, instead of a new system prompt. */
	catalogUpdate(previous) {
		if (!(previous instanceof Discovery)) {
			throw invalid(`catalogUpdate: previous must be a Discovery, got ${describe(previous)}`);
		}
		return JSON.parse(call(() => this.#session.catalogUpdate(previous.#session)));
	}

	/** The `skill:<name>` slash commands (`skillpipe commands --json`'s list). */
	commands() {
		return JSON.parse(call(() => this.#session.commands()));
	}

	/** The AGENTS.md files of the project, nearest first. */
	contextFiles() {
		return JSON.parse(call(() => this.#session.contextFiles()));
	}

	/** Settings warnings (`untrusted-setting`, unknown keys), as the CLI prints them on stderr. */
	warnings() {
		return JSON.parse(call(() => this.#session.warningsJson()));
	}
}

function discover(options) {
	const args = discoverArgs(options, "discover options");
	return new Discovery(call(() => native.Session.open(args)));
}

async function discoverAsync(options) {
	const args = discoverArgs(options, "discoverAsync options");
	let session;
	try {
		session = await native.discoverAsync(args);
	} catch (err) {
		throw rethrow(err);
	}
	return new Discovery(session);
}

function contextFiles(options) {
	return JSON.parse(call(native.contextFiles, discoverArgs(options, "contextFiles options")));
}

function validate(paths) {
	if (!Array.isArray(paths)) throw invalid(`validate: paths must be an array of strings, got ${describe(paths)}`);
	const list = paths.map((p, i) => checkString(p, `validate: paths[${i}]`));
	return JSON.parse(call(native.validate, JSON.stringify(list)));
}

exports.loadSkills = loadSkills;
exports.loadSkillsAsync = loadSkillsAsync;
exports.loadSkillsFromDir = loadSkillsFromDir;
exports.formatSkillsForPrompt = formatSkillsForPrompt;
exports.discover = discover;
exports.discoverAsync = discoverAsync;
exports.contextFiles = contextFiles;
exports.validate = validate;
exports.Discovery = Discovery;
