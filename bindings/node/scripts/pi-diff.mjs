#!/usr/bin/env node
// Where the binding's `loadSkills` and pi 0.73.1's own differ on the shared
// `pi-` case trees: for each case and each set of flags its runs use,
// both are called with the same options (pi in a child process whose HOME
// is the case's home), and every skill or diagnostic that is not the same
// in both is printed (pi's fields only). These differences are the
// deliberate ones of SPEC §14 and the pi profile's settings sources (§6).
//
//   node scripts/pi-diff.mjs [--filter PREFIX]
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

import { listCases, openCase, parseRun, scrubProcessEnv } from "../test/cases.mjs";

const require = createRequire(import.meta.url);
const sp = require("../index.js");
const here = path.dirname(fileURLToPath(import.meta.url));

scrubProcessEnv();
const filter = process.argv.includes("--filter") ? process.argv[process.argv.indexOf("--filter") + 1] : "pi-";

function piOwn(c, options) {
	const script = `
		const pi = await import("@mariozechner/pi-coding-agent");
		const r = pi.loadSkills(JSON.parse(process.argv[1]));
		process.stdout.write(JSON.stringify({ skills: r.skills, diagnostics: r.diagnostics }));`;
	const env = { PATH: process.env.PATH, HOME: c.home };
	if (c.env.PI_CODING_AGENT_DIR) env.PI_CODING_AGENT_DIR = c.env.PI_CODING_AGENT_DIR;
	const r = spawnSync(process.execPath, ["--input-type=module", "-e", script, JSON.stringify(options)], { cwd: here, env, encoding: "utf8" });
	if (r.status !== 0) return { error: r.stderr.trim().split("\n").slice(-1)[0] };
	return JSON.parse(r.stdout);
}

const short = s => (s.length > 120 ? `${s.slice(0, 60)}…${s.slice(-50)}` : s);
const rel = (c, p) => (typeof p === "string" ? short(p.split(c.tree).join("$TREE")) : p);
const diagKey = (c, d) => `${d.type} ${JSON.stringify(rel(c, d.message))} at ${rel(c, d.path)}${d.collision ? ` (winner ${rel(c, d.collision.winnerPath)})` : ""}`;

let differences = 0;
for (const name of listCases([filter])) {
	const c = openCase(name);
	try {
		const seen = new Set();
		for (const args of c.runs) {
			const run = parseRun(args);
			if (run.set.length || run.config.length) continue; // pi's loadSkills has no settings layers
			const key = JSON.stringify([run.skillPaths, run.noSkills]);
			if (seen.has(key)) continue;
			seen.add(key);
			const options = { cwd: c.cwd, skillPaths: run.skillPaths, includeDefaults: !run.noSkills };
			if (!c.env.PI_CODING_AGENT_DIR) options.agentDir = path.join(c.home, ".pi/agent");
			const theirs = piOwn(c, options);
			const ours = sp.loadSkills({ ...options, agentDir: options.agentDir ?? c.env.PI_CODING_AGENT_DIR, home: c.home, env: c.env });
			const lines = [];
			if (theirs.error) lines.push(`pi throws: ${theirs.error}`);
			else {
				const byName = list => new Map(list.map(s => [s.name, s]));
				const [a, b] = [byName(ours.skills), byName(theirs.skills)];
				for (const [n, s] of a) {
					if (!b.has(n)) lines.push(`skill only in skillpipe: ${n} (${rel(c, s.filePath)})`);
					else {
						for (const k of ["description", "filePath", "baseDir", "disableModelInvocation"]) {
							if (JSON.stringify(s[k]) !== JSON.stringify(b.get(n)[k])) lines.push(`skill ${n}: ${k} ${JSON.stringify(rel(c, s[k]))} here, ${JSON.stringify(rel(c, b.get(n)[k]))} in pi`);
						}
						if (JSON.stringify(s.sourceInfo) !== JSON.stringify(b.get(n).sourceInfo)) lines.push(`skill ${n}: sourceInfo ${JSON.stringify(s.sourceInfo.scope)} here, ${JSON.stringify(b.get(n).sourceInfo.scope)} in pi`);
					}
				}
				for (const [n, s] of b) if (!a.has(n)) lines.push(`skill only in pi: ${n} (${rel(c, s.filePath)})`);
				if (lines.length === 0 && ours.skills.map(s => s.name).join() !== theirs.skills.map(s => s.name).join()) {
					lines.push(`order: ${ours.skills.map(s => s.name).join(", ")} here, ${theirs.skills.map(s => s.name).join(", ")} in pi`);
				}
				const [da, db] = [ours.diagnostics.map(d => diagKey(c, d)), theirs.diagnostics.map(d => diagKey(c, d))];
				for (const d of da) if (!db.includes(d)) lines.push(`diagnostic only in skillpipe: ${d}`);
				for (const d of db) if (!da.includes(d)) lines.push(`diagnostic only in pi: ${d}`);
			}
			const flags = [...run.skillPaths.flatMap(s => ["--skill", s]), ...(run.noSkills ? ["--no-skills"] : [])].join(" ");
			console.log(`${name}${flags ? ` [${flags}]` : ""}: ${lines.length === 0 ? "same" : `${lines.length} difference(s)`}`);
			for (const l of lines) console.log(`  ${l}`);
			differences += lines.length;
		}
	} finally {
		c.dispose();
	}
}
console.log(`${differences} difference(s)`);
