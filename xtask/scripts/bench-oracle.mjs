// Written by `cargo xtask bench`: times pi's loadSkills in process.
import { loadSkills } from "@mariozechner/pi-coding-agent";
const cfg = JSON.parse(process.argv[2]);
const times = [];
let skills = 0, diagnostics = 0;
for (let i = 0; i <= cfg.reps; i++) {
  const t0 = performance.now();
  const r = loadSkills({ cwd: cfg.cwd, agentDir: cfg.agentDir, skillPaths: cfg.skillPaths, includeDefaults: true });
  const ms = performance.now() - t0;
  if (i > 0) times.push(ms);
  skills = r.skills.length;
  diagnostics = r.diagnostics.length;
}
console.log(JSON.stringify({ times_ms: times, skills, diagnostics, peak_rss_kb: process.resourceUsage().maxRSS }));
