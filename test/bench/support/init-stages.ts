import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { EXAMPLE_WORKER_ENTRY } from '../../../infra/app/stacks/leasefence-stack.js';
import { constructBundling } from './construct-bundling.js';
import { HANDLER_ENVIRONMENT } from './handler-environment.js';
import { type InitTime, initSharesAbove, measureInitTimes } from './init-time.js';
import { type Interval, median, medianInterval } from './stats.js';

// `npx tsx test/bench/support/init-stages.ts [rounds]`: where the worker's own share of module init goes (issue #46).
// Bundles with the construct's settings the peer, the rules floor, and the project's worker in stages: its modules
// loaded with nothing built, then its job definitions validated, then the objects the floor builds (DocumentClient,
// Logger, Metrics), then the worker itself (examples/worker.ts). Times them like figure 5 (fresh node processes,
// round-robin, `rounds` each, default 60) and prints each stage's share above the floor (init ÷ peer minus the
// floor's, per round) and the step from the stage before it, with 95 % intervals. A step within ±0.01 is noise.

const BUNDLE = fileURLToPath(new URL('../bundle/', import.meta.url));
const REPOSITORY = fileURLToPath(new URL('../../../', import.meta.url));
const PEER = 'powertools-idempotency';
const FLOOR = 'rules floor';
const STAGES = [
  { name: 'worker modules, nothing built', entry: join(BUNDLE, 'init-stages/modules.ts') },
  { name: '+ job definitions validated', entry: join(BUNDLE, 'init-stages/definitions.ts') },
  { name: "+ the floor's client, Logger, Metrics", entry: join(BUNDLE, 'init-stages/floor-objects.ts') },
  { name: 'worker (examples/worker.ts)', entry: EXAMPLE_WORKER_ENTRY },
] as const;

/** Median and 95 % interval, or "–" when there is nothing to summarise. */
function summary(values: readonly number[] | undefined): string {
  if (values === undefined || values.length === 0) return '–';
  const interval: Interval = medianInterval(values);
  return `${median(values).toFixed(3)} (${interval.low.toFixed(3)}–${interval.high.toFixed(3)})`;
}

const rounds = Number(process.argv[2] ?? 60);
if (!Number.isInteger(rounds) || rounds < 1)
  throw new Error(`rounds must be a positive integer, got ${process.argv[2]}`);
// Under node_modules so the bundles' bare imports (the AWS SDK) resolve as the Lambda runtime provides them.
const directory = mkdtempSync(join(REPOSITORY, 'node_modules/.cache/leasefence-init-stages-'));
try {
  const entries = [
    { name: PEER, entry: join(BUNDLE, 'peer-handler.ts') },
    { name: FLOOR, entry: join(BUNDLE, 'rules-floor.ts') },
    ...STAGES,
  ];
  const targets = await Promise.all(
    entries.map(async ({ name, entry }, index) => {
      const file = join(directory, `stage-${index}.mjs`);
      await build({ ...constructBundling(false), entryPoints: [entry], outfile: file });
      return { name, file, env: { ...HANDLER_ENVIRONMENT } };
    }),
  );
  const times = new Map<string, InitTime>(measureInitTimes(targets, rounds).map((time) => [time.name, time]));
  const sharesOf = (name: string) => initSharesAbove(times.get(name), times.get(FLOOR), times.get(PEER));
  console.log(`init stages, ${rounds} rounds; share = init ÷ peer minus the rules floor's, per round (median, 95 %)`);
  for (const name of [PEER, FLOOR]) console.log(`${name}: ${times.get(name)?.medianMs.toFixed(1)} ms`);
  let previous: number[] | undefined;
  for (const { name } of STAGES) {
    const shares = sharesOf(name);
    const step = previous && shares ? shares.map((share, round) => share - (previous?.[round] ?? 0)) : undefined;
    console.log(`${name}: ${times.get(name)?.medianMs.toFixed(1)} ms, share ${summary(shares)}, step ${summary(step)}`);
    previous = shares;
  }
} finally {
  rmSync(directory, { recursive: true, force: true });
}
