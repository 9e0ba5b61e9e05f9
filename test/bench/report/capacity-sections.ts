import type { Units } from '../scenarios/capacity.js';
import { costPerMillionJobs } from '../support/capacity.js';
import { num, table } from './format.js';
import type { BenchResults } from './results.js';

function unitsCell(units: Units | undefined): [string, string, string] {
  if (!units) return ['–', '–', '–'];
  return [num(units.wru, 1), num(units.indexWru, 1), num(units.rru, 1)];
}

function percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
}

/** Figure 7: billed capacity units per job and situation, both systems, and the price of a million jobs. */
function capacitySection(results: BenchResults): string {
  const report = results.capacity;
  if (!report) return '';
  const prices = results.meta.prices;
  const price = (units: Units | undefined) => (units ? `$${num(costPerMillionJobs(units, prices), 2)}` : '–');
  const sizes = report.rowBytes;
  return [
    '## 7. Capacity units per job (what DynamoDB bills, indexes included)',
    '',
    "Computed by the accountant (test/bench/support/capacity.ts) from each request's item images before and after, by DynamoDB's documented rules: 1 KB write units, 4 KB read units (halved when eventually consistent; GSI reads always are), each GSI write (put, delete, delete + put on a key change, update when a projected attribute changes) sized by the projected entry, a failed condition billed at the existing item's size, transactions ×2. The read-back GetItem dynalite needs after a failed condition is left out (DynamoDB returns the item with the failure). No job here uses a transaction.",
    '',
    table(
      [
        'situation',
        'leasefence WRU',
        'of which index',
        'leasefence RRU',
        'peer WRU',
        'of which index',
        'peer RRU',
        `$ per million, lf / peer`,
      ],
      report.rows.map((row) => [
        row.situation,
        ...unitsCell(row.leasefence),
        ...unitsCell(row.peer),
        `${price(row.leasefence)} / ${price(row.peer)}`,
      ]),
    ),
    '',
    `Prices (passed with --price-wru / --price-rru): $${prices.perMillionWru} per million WRU, $${prices.perMillionRru} per million RRU (on-demand). The sweeper's fixed read is per run (one Query per deadline shard + one oldest-unknown probe per parked shard), whatever the table size; its per-item rows are what one expired or heartbeating claim adds to a run. A heartbeat writes the row only: the deadline index keeps the claim's deadline, and the sweeper moves it to the real lease when it finds a live claim past it ("per heartbeating claim": one failed conditional write + the move), once per lease period at most instead of an index move per heartbeat. A retry ("each retry", on top of the job's own path) writes the row back to queued and is re-claimed when its own delayed wake-up arrives (one SendMessage, not billed here): no sweeper run is involved, so retries are not bounded by the sweeper's 500 entries a minute (docs/SCALE.md, "Retries").`,
    '',
    `Cross-check with the engine: ${report.engineChecked} requests had their table units reported by dynalite through ReturnConsumedCapacity INDEXES (${report.engineCheckedCommands.join(', ')}); the accountant disagreed on ${report.engineMismatches}. dynalite reports no per-index units, so the index part rests on the documented rules and the unit tests (test/unit/bench/capacity.test.ts).`,
    '',
    `**Work row sizes** of example-like jobs (the example job types and identity shapes, a Lambda-style worker id, each row measured claimed, after each step and completed; ${sizes.length} rows): min ${num(Math.min(...sizes))} B, median ${num(percentile(sizes, 0.5))} B, p90 ${num(percentile(sizes, 0.9))} B, max ${num(Math.max(...sizes))} B, so one write unit each.`,
  ].join('\n');
}

/** Figure 8: hottest partition key's share of the writes, several worker processes at once. */
function hotPartitionSection(results: BenchResults): string {
  const rows = results.hotPartitions;
  if (!rows) return '';
  return [
    '## 8. Load generator: how writes spread over partition keys',
    '',
    'Several worker processes (child processes, one leasefence worker each) handle jobs at once against the one engine; every write to the jobs table is counted by its partition key on the wire. Work items are keyed `tenant#bucket` with 16 hash buckets per tenant, so one tenant should put 1/16 of its writes on each key; the deadline index spreads over its shards (32 by default). docs/SCALE.md turns these shares into WCU per key at 1,000 jobs/s for one tenant and 10,000 jobs/s across tenants.',
    '',
    table(
      [
        'tenant mix',
        'tenants',
        'worker processes',
        'jobs',
        'jobs/s (engine-bound)',
        'table writes',
        'distinct keys',
        'hottest key share',
        'hottest deadline shard share',
      ],
      rows.map((row) => [
        row.mix,
        num(row.tenants),
        num(row.workers),
        num(row.jobs),
        num(row.jobsPerSecond),
        num(row.tableWrites),
        num(row.distinctKeys),
        `${num(row.hottestKeyShare * 100, 1)} %`,
        `${num(row.hottestShardShare * 100, 1)} %`,
      ]),
    ),
  ].join('\n');
}

export { capacitySection, hotPartitionSection };
