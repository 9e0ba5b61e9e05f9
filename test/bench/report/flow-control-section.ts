import { type FlowControlReport, type FlowModeRow, STALL_MS } from '../scenarios/flow-control.js';
import { num, table } from './format.js';
import type { BenchResults } from './results.js';
import type { TargetRow } from './target-row.js';

/** Issue #42's threshold: write units a concurrency limit may add to a job that gets its slot at once. */
const FLOW_EXTRA_WRU = 2;
/** The noisy tenant's count the issue asks for; a quick run sends fewer and says so. */
const FLOW_NOISY_FULL = 10_000;

/** Jobs sent that never started (the run stopped on a stall): a verdict on what was seen is then not evaluated. */
function unstarted(row: FlowModeRow): number {
  return row.sent - row.started;
}

/** By how much the running jobs of each limited key went over its limit, summed (0: never above). */
function excessOf(row: FlowModeRow): number {
  return row.perKey.reduce((total, key) => total + Math.max(0, key.highest - (key.limit ?? key.highest)), 0);
}

function keysCell(row: FlowModeRow): string {
  return row.perKey
    .map((key) => `${key.tenantId}: ${key.highest}${key.limit !== undefined ? ` of ${key.limit}` : ''}`)
    .join(', ');
}

/**
 * "Never above the limit except by expired-lease holders, counted": met when every limited key's highest running
 * count is at most its limit plus the re-grants counted; not evaluated when a job never started or there was no
 * limited key (what was not seen cannot be judged), missed otherwise.
 */
function concurrencyTarget(report: FlowControlReport | undefined): TargetRow {
  const target =
    'highest concurrency per limited key ≤ the limit, except by expired-lease holders (re-grants, counted)';
  const row = report?.rows.find((candidate) => candidate.mode === 'per-tenant limit');
  if (!row) return { figure: '11', target, measured: '–', status: 'not run' };
  const measured = `${keysCell(row)}; ${row.regranted} re-grants; ${row.duplicateRuns} duplicate runs`;
  const limited = row.perKey.some((key) => key.limit !== undefined);
  if (unstarted(row) > 0 || !limited) {
    const note = `${num(unstarted(row))} of ${num(row.sent)} jobs never started before the run stopped (no job started for ${num(STALL_MS / 1000)} s): not every job was seen, so the limit is not judged.`;
    return { figure: '11', target, measured, status: 'not evaluated', note };
  }
  const met = excessOf(row) <= row.regranted && row.duplicateRuns === 0;
  return { figure: '11', target, measured, status: met ? 'met' : 'missed' };
}

/** The write units a per-tenant limit adds per job (one worker, slot always free), against issue #42's 2 WRU. */
function unitsTarget(report: FlowControlReport | undefined): TargetRow {
  const target = `extra DynamoDB write units per job with a limit on ≤ ${FLOW_EXTRA_WRU} WRU (a job that gets its slot at once)`;
  if (!report) return { figure: '11 (units)', target, measured: '–', status: 'not run' };
  const { unlimited, limited } = report.units;
  const extra = limited.wru - unlimited.wru;
  return {
    figure: '11 (units)',
    target,
    measured: `+${num(extra, 1)} WRU (${num(unlimited.wru, 1)} → ${num(limited.wru, 1)}), +${num(limited.rru - unlimited.rru, 1)} RRU`,
    status: Number.isFinite(extra) && extra <= FLOW_EXTRA_WRU ? 'met' : 'missed',
  };
}

/** Issue #42 item 6's targets: the quiet tenant's waits (reported), the limit held, its units, and figures 5 and 9. */
function flowControlTargets(results: BenchResults): TargetRow[] {
  const report = results.flowControl;
  const waits = report?.rows
    .map((row) => `${row.mode}: p50 ${num(row.quietWaitP50Ms)} ms, p99 ${num(row.quietWaitP99Ms)} ms`)
    .join('; ');
  const judgedElsewhere = [results.bundles ? '5' : undefined, results.handlerBatches ? '9' : undefined]
    .filter((figure) => figure !== undefined)
    .join(' and ');
  return [
    {
      figure: '11 (waits)',
      target: `quiet tenant's wait (enqueue to start) behind ${num(report?.noisyJobs ?? FLOW_NOISY_FULL)} noisy jobs`,
      measured: waits ?? '–',
      status: report ? 'reported' : 'not run',
    },
    concurrencyTarget(report),
    unitsTarget(report),
    {
      figure: '11 (limits off)',
      target: 'figures 5 and 9 unchanged within noise with limits off',
      measured:
        judgedElsewhere.length > 0
          ? `measured by figure ${judgedElsewhere} itself (limits off is what they run: no type declares one)`
          : 'measured by figures 5 and 9 themselves, which did not run',
      status: judgedElsewhere.length > 0 ? 'reported' : 'not run',
    },
  ];
}

/** Figure 11: the three modes side by side, what was counted, and the units a limit adds. */
function flowControlSection(report: FlowControlReport): string {
  const quick =
    report.noisyJobs < FLOW_NOISY_FULL
      ? ` **Quick mode: the noisy tenant sent ${num(report.noisyJobs)} jobs, not ${num(FLOW_NOISY_FULL)}**; the quiet tenant's wait behind the flood grows with the flood, so compare the modes within one run, never across runs.`
      : '';
  const { unlimited, limited } = report.units;
  return [
    '## 11. Flow control: a noisy tenant and a quiet one (issue #42)',
    '',
    `The noisy tenant sends ${num(report.noisyJobs)} jobs, then the quiet tenant sends ${report.quietJobs}; then a pool of ${report.pool} consumers (Lambda's concurrency: each one container taking one record per invocation, real workers on dynalite and fauxqs) works until every job has started once. Each job sleeps ${report.jobMs} ms; the pool, the job and the backlog are the same in every mode. Wait = from the send to the start of \`run\`. Modes: no limits (one queue); a per-tenant limit of ${report.perTenantLimit} (\`flow.concurrency.perTenant\`; a job over it goes back to queued and is woken by a freed slot: its own re-check is 15 minutes away, so no wait here ends by it); priorities (the quiet tenant's jobs urgent, the noisy tenant's bulk: ${report.bulkConsumers} of the ${report.pool} consumers serve the bulk lane, as the construct's \`bulkMaxConcurrency\`, the rest the jobs queue).${quick}`,
    '',
    table(
      [
        'mode',
        'quiet p50 wait',
        'quiet p99 wait',
        'noisy p50 wait',
        'started / sent',
        'duplicate runs',
        'highest running per tenant',
        're-grants',
        'limit waits',
        'run',
      ],
      report.rows.map((row) => [
        row.mode,
        `${num(row.quietWaitP50Ms)} ms`,
        `${num(row.quietWaitP99Ms)} ms`,
        `${num(row.noisyWaitP50Ms)} ms`,
        `${num(row.started)} / ${num(row.sent)}`,
        num(row.duplicateRuns),
        keysCell(row),
        num(row.regranted),
        num(row.concurrencyWaits),
        `${num(row.seconds, 1)} s`,
      ]),
    ),
    '',
    `A limit caps; it does not reorder. The quiet tenant's messages still sit behind the noisy backlog in the queue (fauxqs delivers a standard queue without SQS's fair-queue scheduling, which would move them forward: README, "Flow control: rate limits and priorities"), and every noisy message ahead of them is still delivered, found over its limit and put back ("limit waits": a claim, the row written back to queued, a waiter record, a delayed wake-up), to be woken later by a freed slot. So whether a per-tenant limit shortens the quiet tenant's wait depends on what a deferral costs against a job (here a ${report.jobMs} ms sleep, on dynalite); what it guarantees is the cap. Priorities give the quiet jobs a lane of their own.`,
    '',
    `"Highest running per tenant" is counted inside the job (entered at the start of \`run\`, left at its end), so it is what actually ran at once, not what the slots say. A re-grant is a slot taken over from a holder whose lease expired (\`ConcurrencySlotRegranted\`), the only way a limit can be exceeded. Units per job (the accountant, test/bench/support/capacity.ts; one worker, one job at a time, ${report.units.jobs} jobs each, the limit never full): without a limit ${num(unlimited.wru, 1)} WRU and ${num(unlimited.rru, 1)} RRU, with the per-tenant limit ${num(limited.wru, 1)} WRU and ${num(limited.rru, 1)} RRU (a job that waits writes its row and a waiter record more). With limits off, figures 5 and 9 measure the worker as it is: no job type there declares a limit, so the slot code is never imported.`,
  ].join('\n');
}

export { FLOW_EXTRA_WRU, flowControlSection, flowControlTargets };
