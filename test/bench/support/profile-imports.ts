import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { EXAMPLE_WORKER_ENTRY } from '../../../infra/app/stacks/leasefence-stack.js';
import { partOf } from './bundle-composition.js';
import { constructBundling } from './construct-bundling.js';
import { type ProfileTree, readProfile } from './cpu-profile.js';
import { HANDLER_ENVIRONMENT } from './handler-environment.js';

// `npx tsx test/bench/support/profile-imports.ts [runs]`: where module initialisation goes (issue #29, figure 5).
// Bundles the project's worker, the bench worker (zod/mini payload), the sweeper, the admin function and the peer
// with the construct's settings,
// imports each `runs` times (default 8) in a fresh node process with the construct's NODE_OPTIONS and a V8 CPU
// profile, and prints the busy ms per import by part: a sample goes to the nearest frame of the bundle on its stack
// (resolved through the bundle's source map to a package or lib/ folder, native work it called included); a sample
// with no bundle frame goes to the outermost package on its stack (the AWS SDK the runtime provides), or to Node's
// own loading, compiling and garbage collection. Profiling slows everything down: read the parts, not the totals.

const REPOSITORY = fileURLToPath(new URL('../../../', import.meta.url));
const ENTRIES = {
  worker: EXAMPLE_WORKER_ENTRY,
  'bench worker, mini payload': join(REPOSITORY, 'test/bench/bundle/leasefence-handler-mini.ts'),
  sweeper: join(REPOSITORY, 'functions/sweeper.ts'),
  admin: join(REPOSITORY, 'functions/admin.ts'),
  'powertools-idempotency': join(REPOSITORY, 'test/bench/bundle/peer-handler.ts'),
} as const;
const ENVIRONMENT = { PATH: process.env.PATH ?? '', AWS_REGION: 'us-east-1', ...HANDLER_ENVIRONMENT };
const PROBE = 'await import(process.argv[1]);';

/** Busy µs of one profile by part (see the header). */
function partsOf({ profile, nodes, parents }: ProfileTree, bundleUrl: string, map: SourceMap): Map<string, number> {
  const parts = new Map<string, number>();
  for (const [index, id] of profile.samples.entries()) {
    const frame = nodes.get(id)?.callFrame;
    if (!frame || frame.functionName === '(idle)' || frame.functionName === '(program)') continue;
    let part: string | undefined;
    let outerPackage: string | undefined;
    for (let at: number | undefined = id; at !== undefined && part === undefined; at = parents.get(at)) {
      const { url, lineNumber, columnNumber } = nodes.get(at)?.callFrame ?? frame;
      if (url === bundleUrl) {
        const source = (map.findEntry(lineNumber, columnNumber) as { originalSource?: string }).originalSource;
        // Map sources are relative to the bundle; partOf names them from the repository's root.
        part = source ? partOf(relative(REPOSITORY, fileURLToPath(new URL(source, bundleUrl)))) : 'bundle (top level)';
      } else {
        if (url.includes('node_modules/')) outerPackage = partOf(url);
      }
    }
    part ??=
      outerPackage ?? (frame.functionName.startsWith('(') ? `node ${frame.functionName}` : 'node (loading, compiling)');
    parts.set(part, (parts.get(part) ?? 0) + (profile.timeDeltas[index] ?? 0));
  }
  return parts;
}

const runs = Number(process.argv[2] ?? 8);
const directory = mkdtempSync(join(REPOSITORY, 'node_modules/.cache/leasefence-import-profiles-'));
try {
  for (const [name, entry] of Object.entries(ENTRIES)) {
    const bundle = join(directory, `${name.replace(/\W+/g, '-')}.mjs`);
    await build({ ...constructBundling(false), entryPoints: [entry], outfile: bundle });
    const profiles = join(directory, `${name.replace(/\W+/g, '-')}-profiles`);
    mkdirSync(profiles);
    for (let run = 0; run < runs; run += 1) {
      const flags = ['--cpu-prof', '--cpu-prof-interval=100', `--cpu-prof-dir=${profiles}`];
      const result = spawnSync(process.execPath, [...flags, '--input-type=module', '-e', PROBE, bundle], {
        env: ENVIRONMENT,
        encoding: 'utf8',
      });
      if (result.status !== 0) throw new Error(`importing ${name} failed: ${result.stderr.slice(-500)}`);
    }
    const map = new SourceMap(JSON.parse(readFileSync(`${bundle}.map`, 'utf8')));
    const totals = new Map<string, number>();
    for (const file of readdirSync(profiles)) {
      for (const [part, micros] of partsOf(readProfile(join(profiles, file)), pathToFileURL(bundle).href, map)) {
        totals.set(part, (totals.get(part) ?? 0) + micros);
      }
    }
    const perImport = (micros: number) => (micros / runs / 1000).toFixed(1).padStart(7);
    const busy = [...totals.values()].reduce((sum, micros) => sum + micros, 0);
    console.log(`\n${name}: ${perImport(busy).trim()} ms busy per import (${runs} profiled imports)`);
    for (const [part, micros] of [...totals].sort((a, b) => b[1] - a[1])) {
      if (micros / runs >= 300) console.log(`${perImport(micros)}  ${part}`);
    }
  }
} finally {
  rmSync(directory, { recursive: true, force: true });
}
