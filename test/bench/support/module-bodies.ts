import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { EXAMPLE_WORKER_ENTRY } from '../../../infra/app/stacks/leasefence-stack.js';
import { partOf } from './bundle-composition.js';
import { constructBundling } from './construct-bundling.js';
import { HANDLER_ENVIRONMENT } from './handler-environment.js';
import { median } from './stats.js';

// `npx tsx test/bench/support/module-bodies.ts [runs] [--files]`: how long a bundle's module bodies run at import, by part,
// against how long Node takes before the first of them (loading the AWS SDK the runtime provides, compiling and
// linking the bundle) (issue #46). Bundles the project's worker and the rules floor with the construct's settings
// but not minified (esbuild then heads each module with a `// path` comment), puts a timestamp before each module's
// body, imports each in `runs` fresh processes (default 25) with the construct's NODE_OPTIONS, and prints medians.
// A module that esbuild wraps for a later `import()` (`__esm`) runs where it is first initialised: its time is
// counted where that happens, compile included. `--files` prints source files instead of parts.

const REPOSITORY = fileURLToPath(new URL('../../../', import.meta.url));
const ENTRIES = {
  worker: EXAMPLE_WORKER_ENTRY,
  'rules floor': join(REPOSITORY, 'test/bench/bundle/rules-floor.ts'),
} as const;
const MODULE_HEADER = /^\/\/ ((?:node_modules|lib|examples|test)\/\S+)$/;
const PROBE = [
  'globalThis.__bodyMarks = [];',
  'const started = performance.now();',
  'await import(process.argv[1]);',
  'process.stdout.write(JSON.stringify({ started, total: performance.now() - started, marks: globalThis.__bodyMarks }));',
].join('\n');

/** The bundle's text with a timestamp before each module body and one at its end. */
function marked(code: string): string {
  const lines = code.split('\n').flatMap((line) => {
    const path = MODULE_HEADER.exec(line)?.[1];
    return path ? [`globalThis.__bodyMarks.push([${JSON.stringify(path)}, performance.now()]);`, line] : [line];
  });
  return [...lines, "globalThis.__bodyMarks.push(['(end)', performance.now()]);"].join('\n');
}

/** One import: ms before the first body, ms per part, ms in all. */
function importOnce(file: string): { before: number; parts: Map<string, number>; total: number } {
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', PROBE, pathToFileURL(file).href], {
    env: { PATH: process.env.PATH ?? '', AWS_REGION: 'us-east-1', ...HANDLER_ENVIRONMENT },
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (result.status !== 0) throw new Error(`importing ${file} failed: ${result.stderr.slice(-500)}`);
  const run = JSON.parse(result.stdout) as { started: number; total: number; marks: Array<[string, number]> };
  const parts = new Map<string, number>();
  for (const [index, [path, at]] of run.marks.entries()) {
    const next = run.marks[index + 1];
    const key = BY_FILE ? path : partOf(path);
    if (next) parts.set(key, (parts.get(key) ?? 0) + next[1] - at);
  }
  return { before: (run.marks[0]?.[1] ?? run.started) - run.started, parts, total: run.total };
}

const BY_FILE = process.argv.includes('--files');
const runs = Number(process.argv.slice(2).find((arg) => !arg.startsWith('--')) ?? 25);
if (!Number.isInteger(runs) || runs < 1) throw new Error(`runs must be a positive integer, got ${process.argv[2]}`);
const directory = mkdtempSync(join(REPOSITORY, 'node_modules/.cache/leasefence-module-bodies-'));
try {
  const files = await Promise.all(
    Object.entries(ENTRIES).map(async ([name, entry]) => {
      const file = join(directory, `${name.replace(/\W+/g, '-')}.mjs`);
      await build({ ...constructBundling(false), minify: false, entryPoints: [entry], outfile: file });
      writeFileSync(file, marked(readFileSync(file, 'utf8')));
      return { name, file };
    }),
  );
  const samples = new Map(files.map(({ name }) => [name, [] as ReturnType<typeof importOnce>[]]));
  for (let run = 0; run < runs; run += 1) {
    for (const { name, file } of run % 2 === 0 ? files : [...files].reverse())
      samples.get(name)?.push(importOnce(file));
  }
  for (const [name, imports] of samples) {
    const bodies = imports.map((one) => [...one.parts.values()].reduce((sum, ms) => sum + ms, 0));
    console.log(
      `\n${name}: import ${median(imports.map((one) => one.total)).toFixed(1)} ms, before the first body ` +
        `${median(imports.map((one) => one.before)).toFixed(1)} ms, module bodies ${median(bodies).toFixed(1)} ms (${runs} runs)`,
    );
    const parts = new Set(imports.flatMap((one) => [...one.parts.keys()]));
    const medians = [...parts].map((part) => [part, median(imports.map((one) => one.parts.get(part) ?? 0))] as const);
    for (const [part, ms] of medians.sort((a, b) => b[1] - a[1])) {
      if (ms >= 0.1) console.log(`${ms.toFixed(2).padStart(7)}  ${part}`);
    }
  }
} finally {
  rmSync(directory, { recursive: true, force: true });
}
