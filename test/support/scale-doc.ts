/**
 * The generated parts of docs/SCALE.md: each table between `<!-- model:NAME -->` and `<!-- /model:NAME -->` is
 * rendered here from the capacity model (infra/construct/capacity-*.ts). `npm run scale-doc` rewrites them;
 * test/unit/docs/scale-doc.test.ts fails when the document and the model disagree.
 */
import { AWS_LIMITS, LIMIT, LIMITS_READ_ON } from '../../infra/construct/capacity-limits.js';
import {
  assess,
  type CapacityTarget,
  inFlight,
  noisyTenantThreshold,
  workerReservationCeiling,
} from '../../infra/construct/capacity-model.js';
import {
  busiestPartition,
  planDeadlineIndex,
  RISK,
  warmWriteToFit,
} from '../../infra/construct/capacity-partitions.js';

const n = (value: number) => Math.round(value).toLocaleString('en-US');

function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

function limitsBlock(): string {
  const rows = Object.entries(AWS_LIMITS).map(([id, limit]) => [
    id,
    limit.service,
    limit.says,
    limit.sources.map((source) => `[${source.title}](${source.url})`).join(', '),
  ]);
  return table(['#', 'service', 'documented limit', `source (read ${LIMITS_READ_ON})`], rows);
}

/** The targets SCALE.md assesses, by name. */
const SCENARIOS: ReadonlyArray<[string, CapacityTarget]> = [
  ['1,000 jobs/s, one tenant', { jobsPerSecond: 1_000 }],
  ['1,000 jobs/s, one tenant, 1 heartbeat per job', { jobsPerSecond: 1_000, heartbeatsPerJob: 1 }],
  ['1,000 jobs/s, one tenant, 2 heartbeats per job', { jobsPerSecond: 1_000, heartbeatsPerJob: 2 }],
  ['10,000 jobs/s across tenants (busiest 100)', { jobsPerSecond: 10_000, busiestTenantJobsPerSecond: 100 }],
  ['10,000 jobs/s across tenants (busiest 1,000)', { jobsPerSecond: 10_000, busiestTenantJobsPerSecond: 1_000 }],
  [
    '10,000 rows-first jobs/s across tenants (busiest 100)',
    { jobsPerSecond: 10_000, busiestTenantJobsPerSecond: 100, rowsFirstShare: 1 },
  ],
  [
    '10,000 jobs/s, provider outage: each job retried once (busiest 100)',
    { jobsPerSecond: 10_000, busiestTenantJobsPerSecond: 100, retryShare: 1 },
  ],
  ['100,000 jobs/s across tenants (busiest 100)', { jobsPerSecond: 100_000, busiestTenantJobsPerSecond: 100 }],
];

function quotaCell(units: number): string {
  return units >= LIMIT.tableQuotaWrite ? `**raise the quota** (${n(units)} ≥ ${n(LIMIT.tableQuotaWrite)})` : 'within';
}

function tableCell(writeUnits: number, keys: number): string {
  const fit = warmWriteToFit(writeUnits, keys, LIMIT.tableQuotaWrite * 10);
  const warm = fit === undefined ? 'over ten times the quota' : fit <= LIMIT.initialWrite ? 'not needed' : n(fit);
  const quota = fit !== undefined && fit > LIMIT.tableQuotaWrite ? ' (**quota**)' : '';
  return `${n(keys)} keys → ${warm}${quota}`;
}

function scenariosBlock(): string {
  const rows = SCENARIOS.map(([name, target]) => {
    const model = assess(target);
    const { demand, deadlineIndex: plan } = model;
    const index = !plan.load.fits
      ? `none fits, even ${n(plan.shards)} shards at ${n(plan.quotaNeeded ?? 0)} WRU warm: more shards or cells`
      : plan.quotaNeeded
        ? `no layout under the quota: ${n(plan.shards)} shards need ${n(plan.quotaNeeded)} WRU warm (quota)`
        : `${n(plan.shards)} shards, warm ${plan.warmWrite ? n(plan.warmWrite) : 'not needed'}`;
    const invokes = model.concurrentInvokes;
    const mode =
      invokes <= LIMIT.maxConcurrencyMax
        ? `${n(invokes)}: standard mode`
        : `${n(invokes)}: provisioned, ≥ ${n(Math.ceil(invokes / LIMIT.invokesPerPoller))} pollers`;
    return [
      name,
      `${n(demand.jobsTable.write)} (${quotaCell(demand.jobsTable.write)})`,
      `${n(demand.byDeadline.write)} (${quotaCell(demand.byDeadline.write)})`,
      `${model.rampMinutes.jobsTable} / ${model.rampMinutes.byDeadline}`,
      index,
      tableCell(demand.jobsTable.write, demand.tableKeys),
      mode,
    ];
  });
  return table(
    [
      'target',
      'jobs table WRU/s',
      '`byDeadline` WRU/s',
      'cold ramp, table / index (min)',
      '`byDeadline` layout (partition rule)',
      'jobs table: tenant keys → warm to fit the partition rule',
      'concurrent invokes (0.15 s batches)',
    ],
    rows,
  );
}

function partitionsBlock(): string {
  const layouts: ReadonlyArray<[string, number, number, number]> = [
    ['`byDeadline` at 10,000 jobs/s, 32 shards, warmed to its demand', 20_000, 32, 20_000],
    ['the same, 1,000 shards', 20_000, 1_000, 20_000],
    ['the same, 1,000 shards, warmed to 33,000', 20_000, 1_000, 33_000],
    ['one tenant, 2,000 WRU over its 16 keys, new table', 2_000, 16, 4_000],
    ['one tenant, 2,000 WRU over its 16 keys, warmed to 5,000', 2_000, 16, 5_000],
    ['one parked state, 10,000 parks/s over 16 keys, warmed to 10,000', 10_000, 16, 10_000],
    ['one parked state, 2,000 parks/s over 16 keys, new index', 2_000, 16, 4_000],
  ];
  const rows = layouts.map(([name, writeUnits, keys, warmWrite]) => {
    const load = busiestPartition({ writeUnits, keys, warmWrite });
    return [
      name,
      n(writeUnits / keys),
      String(load.partitions),
      String(load.keysOnBusiest),
      n(load.busiest),
      load.fits ? 'fits' : '**throttles**',
    ];
  });
  return table(
    [
      'layout',
      'WRU per key',
      'partitions (at least)',
      `keys on the busiest (risk ${RISK * 100} %)`,
      'busiest partition WRU',
      '≤ 1,000',
    ],
    rows,
  );
}

function shardsBlock(): string {
  const rows = [2_000, 10_000, 20_000, 22_000, 24_000, 40_000, 60_000].map((units) => {
    const plan = planDeadlineIndex(units);
    return [
      n(units),
      n(plan.shards),
      plan.warmWrite ? n(plan.warmWrite) : 'not needed',
      `${n(plan.load.busiest)} (${plan.load.keysOnBusiest} shards)`,
      plan.quotaNeeded ? `**${n(plan.quotaNeeded)}**` : 'default 40,000',
    ];
  });
  return table(['index WRU/s', 'shards', 'warm WRU', 'busiest partition WRU', 'quota needed'], rows);
}

/** The highest rate (a multiple of `step`) whose `unitsPerItem` WRU over `keys` keys fit the partition rule within the quota. */
function mostWithinQuota(unitsPerItem: number, keys: number, step = 50): number {
  let rate = 0;
  while (warmWriteToFit((rate + step) * unitsPerItem, keys, LIMIT.tableQuotaWrite) !== undefined) rate += step;
  return rate;
}

function smallBlock(): string {
  const rows = [
    ['most jobs/s for one tenant (2 WRU each on its 16 keys) within the default quota', n(mostWithinQuota(2, 16))],
    ['the same with 2 heartbeats per job (4 WRU each)', n(mostWithinQuota(4, 16))],
    ['most parks/s in one state (1 WRU on each of its 16 keys) within the default quota', n(mostWithinQuota(1, 16))],
    [
      'worker reservation ceiling, default account (sweeper 1, admin 5, schedule tick 5)',
      n(workerReservationCeiling(11)),
    ],
    ['worker reservation ceiling without schedules', n(workerReservationCeiling(6))],
    [
      'in flight, 10,000 jobs/s, 1 s window, 0.2 s batches',
      n(inFlight({ deliveriesPerSecond: 10_000, windowSeconds: 1, secondsPerBatch: 0.2 })),
    ],
    [
      'in flight, 1,000 jobs/s of 30 s jobs',
      n(inFlight({ deliveriesPerSecond: 1_000, windowSeconds: 1, secondsPerBatch: 30 })),
    ],
    [
      'in flight, 10,000 jobs/s, 3 % of records failed (361 s dwell)',
      n(
        inFlight({
          deliveriesPerSecond: 10_000,
          windowSeconds: 1,
          secondsPerBatch: 0.2,
          failedPerSecond: 300,
          visibilitySeconds: 361,
        }),
      ),
    ],
    [
      'noisy tenant on a fair queue at 12,000 in flight (in-flight messages of its own)',
      n(noisyTenantThreshold(12_000)),
    ],
    ['noisy tenant at 200 in flight', n(noisyTenantThreshold(200))],
  ];
  return table(['quantity', 'value'], rows);
}

/** The names of the generated blocks (their markers in docs/SCALE.md). */
type BlockName = 'limits' | 'scenarios' | 'partitions' | 'shards' | 'numbers';

/** Every generated block, by marker name. */
function renderBlocks(): Record<BlockName, string> {
  return {
    limits: limitsBlock(),
    scenarios: scenariosBlock(),
    partitions: partitionsBlock(),
    shards: shardsBlock(),
    numbers: smallBlock(),
  };
}

/** The document with every block replaced by its rendering; throws when a marker pair is missing. */
function applyBlocks(markdown: string, blocks: Record<string, string> = renderBlocks()): string {
  let out = markdown;
  for (const [name, body] of Object.entries(blocks)) {
    const pattern = new RegExp(`(<!-- model:${name} -->\\n)[\\s\\S]*?(<!-- /model:${name} -->)`);
    if (!pattern.test(out))
      throw new Error(`docs/SCALE.md has no <!-- model:${name} --> … <!-- /model:${name} --> block`);
    out = out.replace(pattern, (_, open: string, close: string) => `${open}${body}\n${close}`);
  }
  return out;
}

export { applyBlocks, type BlockName, renderBlocks, SCENARIOS };
