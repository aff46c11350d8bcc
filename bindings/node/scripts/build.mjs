#!/usr/bin/env node
// Builds the add-on with cargo and copies it beside index.js as skillpipe.node.
//
//   node scripts/build.mjs [--release]
//
// The crate is a member of the skillpipe workspace, so it builds into the
// workspace's target directory (CARGO_TARGET_DIR honoured, as cargo does).
import { spawnSync } from "node:child_process";
import { copyFileSync } from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const release = process.argv.includes("--release");
const cargo = process.env.CARGO ?? "cargo";

function run(args) {
	const r = spawnSync(cargo, args, { cwd: here, stdio: ["ignore", "pipe", "inherit"], encoding: "utf8" });
	if (r.error) throw r.error;
	if (r.status !== 0) {
		process.stderr.write(`${cargo} ${args.join(" ")} failed (exit ${r.status})\n`);
		process.exit(1);
	}
	return r.stdout;
}

const metadata = JSON.parse(run(["metadata", "--format-version", "1", "--no-deps"]));
run(["build", "-p", "skillpipe-node", ...(release ? ["--release"] : [])]);
const lib = {
	linux: "libskillpipe_node.so",
	darwin: "libskillpipe_node.dylib",
	win32: "skillpipe_node.dll",
}[process.platform] ?? "libskillpipe_node.so";
const built = path.join(metadata.target_directory, release ? "release" : "debug", lib);
const dest = path.join(here, "skillpipe.node");
copyFileSync(built, dest);
console.log(`${path.relative(process.cwd(), built) || built} -> ${dest}`);
