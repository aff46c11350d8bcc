#!/usr/bin/env node
// pi 0.73.1's `loadSkills` and the binding's, in this one node process, on
// the same roots of a tree from ../shared/bench/gen_tree.py: warm cache
// (one untimed call each first), in alternation, median of `--reps` calls
// each, the binding's time including the JS objects it returns.
//
//   node bench/load-skills.mjs --tree DIR [--reps N] [--json]
//
// Roots as `cargo xtask bench` gives pi: cwd = DIR/project, agentDir =
// DIR/home/.pi/agent, every other root of the tree as a skill path. Run it
// with HOME=DIR/home (pi expands `~` with os.homedir()); `cargo xtask
// bench-node` does.
import { createRequire } from "node:module";
import * as path from "node:path";

import * as pi from "@mariozechner/pi-coding-agent";

const require = createRequire(import.meta.url);
const sp = require("../index.js");

const argv = process.argv.slice(2);
const opt = (name, fallback) => {
	const i = argv.indexOf(name);
	return i >= 0 ? argv[i + 1] : fallback;
};
const tree = opt("--tree");
if (!tree) {
	console.error("usage: load-skills.mjs --tree DIR [--reps N] [--json]");
	process.exit(2);
}
const reps = Number(opt("--reps", "9"));
// gen_tree.py's roots (xtask/src/bench.rs TREE_ROOTS) besides pi's own two.
const EXTRA = [
	"home/.musepi/agent/skills",
	"project/.musepi/skills",
	"home/.claude/skills",
	"project/.claude/skills",
	"home/.codex/skills",
	"project/.codex/skills",
	"home/.agents/skills",
	"project/.agents/skills",
	"home/.config/opencode/skills",
	"project/.opencode/skills",
	"project/.github/skills",
	"home/.musepi/agent/managed-skills",
	"home/custom-skills",
];
const options = {
	cwd: path.join(tree, "project"),
	agentDir: path.join(tree, "home/.pi/agent"),
	skillPaths: EXTRA.map(r => path.join(tree, r)),
	includeDefaults: true,
};
const ours = { ...options, home: path.join(tree, "home") };

const median = xs => {
	const s = [...xs].sort((a, b) => a - b);
	const m = s.length >> 1;
	return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
function time(fn) {
	const t = performance.now();
	const r = fn();
	return [performance.now() - t, r];
}

// Warm-up: the page cache, pi's module graph, the add-on.
const [, piResult] = time(() => pi.loadSkills(options));
const [, spResult] = time(() => sp.loadSkills(ours));
const times = { pi: [], binding: [] };
for (let i = 0; i < reps; i++) {
	times.pi.push(time(() => pi.loadSkills(options))[0]);
	times.binding.push(time(() => sp.loadSkills(ours))[0]);
}
const report = {
	reps,
	pi: { median_ms: median(times.pi), times_ms: times.pi, skills: piResult.skills.length, diagnostics: piResult.diagnostics.length },
	binding: { median_ms: median(times.binding), times_ms: times.binding, skills: spResult.skills.length, diagnostics: spResult.diagnostics.length },
};
report.ratio = report.pi.median_ms / report.binding.median_ms;
if (argv.includes("--json")) {
	console.log(JSON.stringify(report));
} else {
	const f = x => x.toFixed(1);
	console.log(`pi loadSkills:      ${f(report.pi.median_ms)} ms median of ${reps} (${report.pi.skills} skills, ${report.pi.diagnostics} diagnostics)`);
	console.log(`binding loadSkills: ${f(report.binding.median_ms)} ms median of ${reps} (${report.binding.skills} skills, ${report.binding.diagnostics} diagnostics)`);
	console.log(`binding is ${f(report.ratio)}x faster than pi`);
}
