// Checked by `tsc --noEmit -p test/tsconfig.json` (test/api.test.mjs runs
// it): the binding's results are pi 0.73.1's own types, and its functions
// stand where pi's do, so a pi host swaps one import.
import type { LoadSkillsResult, ResourceDiagnostic, Skill, SourceInfo } from "@mariozechner/pi-coding-agent";
import * as pi from "@mariozechner/pi-coding-agent";

import * as skillpipe from "../index.js";

type PiSkillsModule = {
	loadSkills: typeof pi.loadSkills;
	loadSkillsFromDir: typeof pi.loadSkillsFromDir;
	formatSkillsForPrompt: typeof pi.formatSkillsForPrompt;
};

// The drop-in: the binding's functions where pi's are expected.
export const dropIn: PiSkillsModule = skillpipe;

export function results(cwd: string, agentDir: string): string {
	const options: Parameters<typeof pi.loadSkills>[0] = { cwd, agentDir, skillPaths: [], includeDefaults: true };
	const result: LoadSkillsResult = skillpipe.loadSkills(options);
	const first: Skill | undefined = result.skills[0];
	const info: SourceInfo | undefined = first?.sourceInfo;
	const diagnostics: ResourceDiagnostic[] = skillpipe.loadSkillsFromDir({ dir: cwd, source: "path" }).diagnostics;
	// pi's own results go where the binding's do.
	const theirs: LoadSkillsResult = pi.loadSkills(options);
	const text: string = skillpipe.formatSkillsForPrompt(theirs.skills);
	return `${info?.scope ?? ""}${diagnostics.length}${text}`;
}

export async function later(cwd: string): Promise<number> {
	const result: LoadSkillsResult = await skillpipe.loadSkillsAsync({ cwd, agentDir: cwd, skillPaths: [], includeDefaults: false });
	const d: skillpipe.Discovery = await skillpipe.discoverAsync({ profile: "musepi", cwd });
	const body: Buffer = d.resolve("skill://x").content;
	const expansion: skillpipe.Expansion = d.expand("/skill:x", { followUp: true });
	const found: skillpipe.SearchResult[] = d.search("pdf forms", { limit: 3 });
	const update: skillpipe.CatalogUpdate = d.catalogUpdate(d);
	const score: number = found[0]?.score ?? 0;
	const filled: string[] = expansion.placeholders?.filled ?? [];
	const all: skillpipe.Discovery = skillpipe.discover({ cwd, all: true });
	const tools: string[] = all.skills[0]?.invocation?.allowed_tools ?? [];
	const fates: string[] = (all.removed ?? []).map((r: skillpipe.RemovedSkill) => r.fate);
	return result.skills.length + body.length + expansion.text.length + d.commands().length + filled.length + tools.length + fates.length + score + update.message.length;
}
