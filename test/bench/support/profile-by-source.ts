import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ProfileNode, readProfile } from './cpu-profile.js';

// `npx tsx test/bench/support/profile-by-source.ts <file.cpuprofile> [jobs per system] [maps directory]`: reads the
// V8 CPU profile figure 9's child writes (BENCH_CPU_PROFILE_DIR) and prints CPU per job of each handler by source
// file or package, the frames resolved through the kept bundles' source maps (Node's own SourceMap, no extra
// package), next to the bundles or in `maps directory` (the bundles rebuilt from the same commit).
// Attribution: a sample whose stack holds a frame of one handler's bundle (`?instance=leasefence-…` / `peer-…`)
// is that system's; every other sample (SDK and Node work resumed from the event loop) goes to the system of the
// nearest attributed sample, since the child runs one system's block of batches at a time. Idle time is left out.
// With `--baseline=<commit>` (`instance=baseline-…`, figure 9's judged mode only) a third column, and the difference is
// today's worker minus the baseline's: profile a run whose modes are the judged one only, so all handled as many jobs.

type System = 'leasefence' | 'peer' | 'baseline';

const { profile, nodes, parents } = readProfile(process.argv[2] ?? '');
/** Figure 9's default: 3 modes × 2 concurrencies × (1,400 timed + 40 warm-up) jobs per system. */
const jobs = Number(process.argv[3] ?? 8_640);
const mapsDirectory = process.argv[4];

function systemOf(id: number): System | undefined {
  for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) {
    const url = nodes.get(at)?.callFrame.url ?? '';
    if (url.includes('instance=leasefence')) return 'leasefence';
    if (url.includes('instance=peer')) return 'peer';
    if (url.includes('instance=baseline')) return 'baseline';
  }
  return undefined;
}

const maps = new Map<string, SourceMap | undefined>();
function sourceMapOf(url: string): SourceMap | undefined {
  if (!maps.has(url)) {
    const bundle = fileURLToPath(url.split('?')[0] ?? url);
    const file = mapsDirectory ? join(mapsDirectory, `${basename(bundle)}.map`) : `${bundle}.map`;
    maps.set(url, existsSync(file) ? new SourceMap(JSON.parse(readFileSync(file, 'utf8'))) : undefined);
  }
  return maps.get(url);
}

/** The source file (lib/…, test/…), the package (and SDK submodule), `node:*`, or V8's own bucket of a frame. */
function groupOf(node: ProfileNode): string {
  const { url, functionName, lineNumber, columnNumber } = node.callFrame;
  if (!url) return `(${functionName})`;
  let source = url;
  if (url.startsWith('file:')) {
    const entry = sourceMapOf(url)?.findEntry(lineNumber, columnNumber) as { originalSource?: string } | undefined;
    if (entry?.originalSource) source = entry.originalSource;
  }
  const inPackage = source.match(/node_modules\/((?:@[^/]+\/)?[^/]+)(?:\/dist-cjs\/submodules\/([^/]+))?/);
  if (inPackage) return `${inPackage[1]}${inPackage[2] ? `/${inPackage[2]}` : ''}`;
  const inRepo = source.match(/(?:^|\/)((?:lib|test|functions)\/.*)$/);
  return inRepo?.[1] ?? source.replace(/^file:\/\//, '');
}

const labels = profile.samples.map(systemOf);
/** The label of the nearest attributed sample on either side. */
function nearest(index: number): System | undefined {
  for (let distance = 1; distance < labels.length; distance += 1) {
    const before = labels[index - distance];
    if (before) return before;
    const after = labels[index + distance];
    if (after) return after;
  }
  return undefined;
}
const groups = new Map<number, string>();
const totals: Record<System, Map<string, number>> = { leasefence: new Map(), peer: new Map(), baseline: new Map() };
for (const [index, id] of profile.samples.entries()) {
  const system = labels[index] ?? nearest(index);
  const node = nodes.get(id);
  if (!system || !node) continue;
  const group = groups.get(id) ?? groupOf(node);
  groups.set(id, group);
  if (group === '((idle))' || group === '((program))') continue;
  totals[system].set(group, (totals[system].get(group) ?? 0) + (profile.timeDeltas[index] ?? 0));
}

const perJob = (system: System, group?: string) =>
  (group === undefined
    ? [...totals[system].values()].reduce((sum, value) => sum + value, 0)
    : (totals[system].get(group) ?? 0)) / jobs;
const other: System = totals.baseline.size > 0 ? 'baseline' : 'peer';
const columns: System[] = other === 'baseline' ? ['leasefence', 'baseline', 'peer'] : ['leasefence', 'peer'];
console.log(
  `CPU per job in the profile: ${columns.map((system) => `${system} ${perJob(system).toFixed(0)} µs`).join(', ')}`,
);
console.log(`µs/job ${columns.join(', ')}, difference leasefence − ${other}: source`);
const rows = [...new Set(columns.flatMap((system) => [...totals[system].keys()]))]
  .map((group) => ({
    group,
    values: columns.map((system) => perJob(system, group)),
    difference: perJob('leasefence', group) - perJob(other, group),
  }))
  .sort((a, b) => b.difference - a.difference);
for (const row of rows.filter((candidate) => Math.abs(candidate.difference) >= 1)) {
  const cells = [...row.values, row.difference].map((value) => value.toFixed(1).padStart(8));
  console.log(`${cells.join(' ')}  ${row.group}`);
}
