// Types of the skillpipe Node add-on (hand-written; test/types.ts holds
// them to pi 0.73.1's own with `tsc --noEmit`).
/// <reference types="node" />

// ---------------------------------------------------------------------------
// pi's skills module (@mariozechner/pi-coding-agent 0.73.1,
// dist/core/{skills,source-info,diagnostics}.d.ts): the same exports and
// shapes, so a pi host swaps one import.

export type SourceScope = "user" | "project" | "temporary";
export type SourceOrigin = "package" | "top-level";

export interface SourceInfo {
	path: string;
	source: string;
	scope: SourceScope;
	origin: SourceOrigin;
	baseDir?: string;
}

export interface Skill {
	name: string;
	description: string;
	filePath: string;
	baseDir: string;
	sourceInfo: SourceInfo;
	/** skillpipe's `hidden`: `disable-model-invocation`, `disableModelInvocation` or `hide` is `true`. */
	disableModelInvocation: boolean;
}

export interface ResourceCollision {
	resourceType: "extension" | "skill" | "prompt" | "theme";
	name: string;
	winnerPath: string;
	loserPath: string;
	winnerSource?: string;
	loserSource?: string;
}

export interface ResourceDiagnostic {
	/** `collision` for a name collision, `warning` for everything else (as pi's `loadSkills`). */
	type: "warning" | "error" | "collision";
	message: string;
	path?: string;
	collision?: ResourceCollision;
	/** skillpipe's stable code (SPEC §2.3), e.g. `description-required`. */
	code: string;
	/** skillpipe's severity: `error` when the file did not become a skill. */
	severity: "error" | "warning";
	/** 1-based line in the file, where known. */
	line?: number;
	/** 1-based column in the file, where known. */
	column?: number;
}

export interface LoadSkillsResult {
	skills: Skill[];
	diagnostics: ResourceDiagnostic[];
}

export interface LoadSkillsFromDirOptions {
	/** Directory to scan for skills */
	dir: string;
	/** Source identifier for these skills */
	source: string;
}

export interface LoadSkillsOptions {
	/** Working directory for project-local skills. */
	cwd: string;
	/** Agent config directory for global skills (default: `$PI_CODING_AGENT_DIR`, else `~/.pi/agent`). */
	agentDir?: string;
	/** Explicit skill paths (files or directories), relative to cwd. */
	skillPaths?: string[];
	/** Include the default skills directories and settings entries (pi: leaving it out is `false`). */
	includeDefaults?: boolean;
	/** skillpipe: the home directory (`~` in paths; default `os.homedir()`). */
	home?: string;
	/** skillpipe: the environment snapshot settings see (default: none). */
	env?: Record<string, string>;
	/** skillpipe: settings files layered over the user and project settings (`--config`). */
	config?: string[];
	/** skillpipe: settings given as `key.path=VALUE` (`--set`). */
	set?: string[];
}

/**
 * Load skills from all configured locations, as pi's `loadSkills` (the pi
 * profile: SPEC §6, with the deliberate differences of SPEC §14).
 */
export declare function loadSkills(options: LoadSkillsOptions): LoadSkillsResult;
/** `loadSkills` on the libuv thread pool: the event loop is never blocked. */
export declare function loadSkillsAsync(options: LoadSkillsOptions): Promise<LoadSkillsResult>;
/** Load skills from one directory, scanned as pi scans a root (recursive, ignore files). */
export declare function loadSkillsFromDir(options: LoadSkillsFromDirOptions): LoadSkillsResult;
/** pi's system-prompt catalogue of `skills` (hidden ones left out; `""` when none is visible). */
export declare function formatSkillsForPrompt(skills: Skill[] | ReadonlyArray<Pick<Skill, "name" | "description" | "filePath" | "disableModelInvocation">>): string;

// ---------------------------------------------------------------------------
// The full API: `skillpipe list --json` and the runtime calls.

export type Profile = "musepi" | "pi";
export type Level = "user" | "project" | "path";

export interface DiscoverOptions {
	/** Default: `env.SKILLPIPE_PROFILE`, else `musepi`. */
	profile?: Profile;
	/** musepi: the app directory name (default `.musepi`; `--app-dir`). */
	appDir?: string;
	/** Default: `os.homedir()`. */
	home?: string;
	/** The project directory. Default: `process.cwd()`. */
	cwd?: string;
	/** The environment snapshot (settings variables, agent directories). Default: `process.env`. */
	env?: Record<string, string>;
	/** Settings files (`--config`), relative to `process.cwd()`. */
	config?: string[];
	/** Settings as `key.path=VALUE` (`--set`). */
	set?: string[];
	/** Skill directories or files (`--skill`), relative to cwd. */
	skillPaths?: string[];
	/** Load no skills except `skillPaths` (`--no-skills`). */
	noSkills?: boolean;
	/** Provider plugin libraries (`--plugin`), relative to `process.cwd()`. */
	plugins?: string[];
	/** Keep what did not load, with its fate, in `Discovery.removed` (`list --all --json`). */
	all?: boolean;
}

export interface SkillSource {
	provider: string;
	level: Level;
	/** The scanned directory; absent for a single file named as a path. */
	root?: string;
}

/**
 * The typed invocation fields of a skill's frontmatter (Claude Code's);
 * a key is absent when the frontmatter does not set it, or sets it to a
 * value that could not be read (a `field-ignored` warning says so).
 */
export interface Invocation {
	/** `allowed-tools`: tool patterns (`Read`, `Bash(git add *)`). */
	allowed_tools?: string[];
	/** `disallowed-tools`. */
	disallowed_tools?: string[];
	/** `user-invocable`: `false` removes the slash command (the skill stays in the catalogue). */
	user_invocable?: boolean;
	/** `argument-hint`. */
	argument_hint?: string;
	/** `arguments`: the names of the positional arguments (`$name`), in order. */
	arguments?: string[];
	/** `model`. */
	model?: string;
	/** `effort`. */
	effort?: "low" | "medium" | "high" | "xhigh" | "max";
	/** `context`. */
	context?: "fork";
	/** `agent`: the subagent of `context: fork`. */
	agent?: string;
	/** `paths`: globs. */
	paths?: string[];
	/** `when_to_use`. */
	when_to_use?: string;
	/** With `when_to_use`: the description and it as Claude Code lists them (` - `, at most 1,536 characters). */
	listing_description?: string;
	/** `metadata.requires`: skill names or `name@provider[:level]` addresses. */
	requires?: string[];
}

/** `skills.visibility`'s values (a loaded skill is never `off`). */
export type Visibility = "on" | "name-only" | "user-only" | "off";

export interface DiscoveredSkill {
	name: string;
	description: string;
	file_path: string;
	base_dir: string;
	source: SkillSource;
	hidden: boolean;
	frontmatter: Record<string, unknown>;
	/** Present when the frontmatter sets an invocation field. */
	invocation?: Invocation;
	/** Present when `skills.visibility` gives it one other than `on` (`user-only` is also `hidden`). */
	visibility?: Exclude<Visibility, "on" | "off">;
}

/** The copy that kept a name, as a fate names it. */
export interface Winner {
	file_path: string;
	provider: string;
	level: Level;
	priority?: number;
	pass: "providers" | "custom" | "managed";
}

/** Which name filter removed a skill (`reason` of a `removed` fate). */
export type Filter =
	| { kind: "disabled-extension"; entry: string }
	| { kind: "ignored"; glob: string }
	| { kind: "include-none"; globs: string[] }
	| { kind: "visibility"; pattern: string };

/** Why a source was switched off (`reason` of a `switched-off` fate). */
export type Switch =
	| { kind: "toggle"; keys: string[] }
	| { kind: "disabled-provider"; provider: string }
	| { kind: "no-skills" }
	| { kind: "untrusted-project"; project: string };

/**
 * Why a skill did not load: `reason` typed, `setting` and `pattern` as the
 * profile's settings spell them. `skills.visibility` "off" is
 * `{fate: "removed", reason: {kind: "visibility", pattern: "<glob>"}, setting: "skills.visibility", pattern: "\"<glob>\": \"off\"", layer}`.
 */
export type Fate =
	| { fate: "shadowed"; by: Winner }
	| { fate: "identical"; to: Winner }
	| { fate: "same-real-path"; of: Winner }
	| { fate: "removed"; reason: Filter; setting: string; pattern: string; layer?: string }
	| { fate: "switched-off"; reason: Switch; setting: string; layer?: string };

/** A skill that did not load, with its fate (a row of `list --all --json`'s `removed`). */
export type RemovedSkill = DiscoveredSkill & Fate;

export interface Diagnostic {
	severity: "error" | "warning";
	code: string;
	message: string;
	path: string;
	line?: number;
	column?: number;
	/** For `collision`: the file that kept the name, and both providers. */
	winner_path?: string;
	winner_provider?: string;
	loser_provider?: string;
}

export interface Expansion {
	expanded: boolean;
	text: string;
	skill: string | null;
	delivery: "prompt" | "steer" | "follow-up" | null;
	/** A read error of the skill file, when there was one. */
	diagnostics?: Diagnostic[];
	/** With `skills.arguments = "claude"`: the placeholders filled, those left as written, and whether `ARGUMENTS: <args>` was appended. */
	placeholders?: { filled: string[]; unfilled: string[]; appended: boolean };
}

export interface Resource {
	path: string;
	content_type: string;
	is_dir: boolean;
	/** The file's bytes, or a directory's listing. */
	content: Buffer;
}

export interface SlashCommand {
	name: string;
	description: string;
	skill: string;
	source: SkillSource;
}

/** A skill found by `search`: the skill as in `skills`, with its score. */
export interface SearchResult extends DiscoveredSkill {
	/** BM25 score, higher is better (comparable within one query), to four decimals. */
	score: number;
}

/** What changed in the catalogue since a previous discovery (`Discovery.catalogUpdate`). */
export interface CatalogUpdate {
	/** The text to append to the conversation; `""` when nothing the catalogue shows changed. */
	message: string;
	/** Skills new to the catalogue, in pipeline order. */
	added: string[];
	/** Skills whose catalogue entry changed. */
	changed: string[];
	/** Skills gone from the catalogue. */
	removed: string[];
	/** Search mode: how many skills are left to search now, when that changed. */
	searchable?: number;
	/** Render the catalogue again instead of appending: its settings changed, more than half of it changed, or (with a budget) the old catalogue and the message exceed it. */
	rerender?: "settings" | "most-changed" | "budget-exceeded";
}

export interface ContextFile {
	path: string;
	/** 0 for cwd, 1 for its parent, … */
	depth: number;
}

export interface SettingsWarning {
	code: string;
	message: string;
}

/** A discovery: the `skillpipe list --json` document, and the runtime calls on it. */
export declare class Discovery {
	private constructor();
	profile: Profile;
	skills: DiscoveredSkill[];
	/** With `discover({all: true})`: what did not load, with its fate, in pipeline order. */
	removed?: RemovedSkill[];
	diagnostics: Diagnostic[];
	/** The system-prompt catalogue (`skillpipe prompt`); `""` with `readTool: false`. */
	catalog(options?: { readTool?: boolean }): string;
	/** Expands `/skill:<name> [args]` (`skillpipe expand --json`). */
	expand(text: string, options?: { streaming?: boolean; followUp?: boolean }): Expansion;
	/** Reads a `skill://<name>/<path>` URL; throws an Error with the CLI's message and a `code`. */
	resolve(url: string): Resource;
	/** Skills ranked by relevance to `query` (name, description, `when_to_use`), best first; hidden skills are not found. Default limit 10. */
	search(query: string, options?: { limit?: number }): SearchResult[];
	/** The message a host appends when the skills changed since `previous`, so the system prompt stays as it was. */
	catalogUpdate(previous: Discovery): CatalogUpdate;
	/** The `skill:<name>` slash commands. */
	commands(): SlashCommand[];
	/** The AGENTS.md files of the project, nearest first. */
	contextFiles(): ContextFile[];
	/** Settings warnings, as the CLI prints them on stderr. */
	warnings(): SettingsWarning[];
}

/** Settings, providers, discovery: `skillpipe list --json`. Throws `SETTINGS` on a bad setting. */
export declare function discover(options?: DiscoverOptions): Discovery;
/** `discover` on the libuv thread pool. */
export declare function discoverAsync(options?: DiscoverOptions): Promise<Discovery>;
/** The AGENTS.md files for the project, nearest first (`skillpipe context --json`'s list). */
export declare function contextFiles(options?: DiscoverOptions): ContextFile[];

export interface ValidationResult {
	path: string;
	valid: boolean;
	errors: string[];
}

/** The Agent Skills spec check of skill folders or SKILL.md files (`skillpipe validate --json`). */
export declare function validate(paths: string[]): { valid: boolean; results: ValidationResult[] };

/**
 * Every error thrown (or rejected) by this module: `code` is one of
 * `INVALID_ARG` (a wrong type, a missing field, a path that is not
 * well-formed Unicode or holds a NUL), `SETTINGS`, `NOT_SKILL_URL`,
 * `EMPTY_NAME`, `UNKNOWN_SKILL`, `ABSOLUTE_PATH`, `PATH_TRAVERSAL`,
 * `INVALID_SEGMENT`, `NOT_FOUND`, `NOT_REGULAR_FILE`, `FILE_TOO_LARGE`,
 * `READ_ERROR`, `ADDON_NOT_BUILT`.
 */
export interface SkillpipeError extends Error {
	code: string;
}
