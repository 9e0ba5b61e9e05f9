import * as z from 'zod';
import { occurrenceOf, type ScheduleDeclaration, scheduleTicks } from '../../lib/messaging/schedule.js';
import { type ScheduleTickDependencies, type TickOutcome, tickSchedule } from '../../lib/messaging/schedule-tick.js';
import type { ConformanceBench, Delivery } from './bench.js';
import { type Problem, Remedy } from './remedies.js';
import {
  describe,
  judged,
  lacksTransactions,
  NO_TRANSACTIONS,
  ScenarioId,
  type ScenarioOutcome,
  type ScenarioResult,
  skipped,
} from './scenario-support.js';

/*
 * The schedule fault test (issue 26): the same tick of each schedule the jobs module declares for this job type,
 * delivered twice at once and once more late, through tickSchedule (the one path of the Lambda tick handler and
 * the local stack's timer), then every message it sent delivered to two workers: one job row, one run.
 */

const TITLE = 'a schedule tick delivered twice, and once more late, is one job and one run';

/** How late the late redelivery of a tick comes (the Scheduler retries a tick for up to its maximum event age). */
const LATE_MS = 10 * 60_000;

/** The tick the scenario delivers: the schedule's latest at or before the bench's clock (or its start). */
function tickToDeliver(bench: ConformanceBench, schedule: ScheduleDeclaration): number | undefined {
  const ticks = scheduleTicks(schedule);
  const from = Math.max(bench.clock.now(), schedule.start ? Date.parse(schedule.start) : 0);
  const tick = ticks.latestAtOrBefore(from) ?? ticks.nextAfter(from);
  if (tick !== undefined && tick > bench.clock.now()) bench.clock.advance(tick - bench.clock.now());
  return tick;
}

/** What the ticks' outcomes should be: one created, every other delivery a replay. */
function tickProblems(outcomes: readonly TickOutcome[]): Problem[] {
  const created = outcomes.filter((outcome) => outcome.outcome === 'created').length;
  const named = outcomes.map((outcome) => ('reason' in outcome ? `refused:${outcome.reason}` : outcome.outcome));
  return created === 1 && outcomes.every((outcome) => outcome.outcome !== 'refused')
    ? []
    : [
        {
          text: `the deliveries of one tick came to ${named.join(', ')} (one created, the rest replays)`,
          remedy: Remedy.runtime,
        },
      ];
}

async function runDuplicateTick(bench: ConformanceBench, schedule: ScheduleDeclaration): Promise<ScenarioOutcome> {
  const tick = tickToDeliver(bench, schedule);
  if (tick === undefined) return skipped(`not evaluated: schedule ${schedule.name} has no tick to deliver`);
  const accepted = z.safeParse(bench.job.payload, schedule.payload).success;
  await bench.prepareTenant(schedule.tenantId, schedule.payload);
  const deps: ScheduleTickDependencies = {
    producer: bench.producer(),
    store: bench.store,
    schedules: [schedule],
    clock: bench.clock,
  };
  const prefix = `schedule/${schedule.name}/`;
  const ours = (identity: { tenantId: string; operationId: string }) =>
    identity.tenantId === schedule.tenantId && identity.operationId.startsWith(prefix);
  const workers = [await bench.worker('tick-A'), await bench.worker('tick-B')];
  const deliveries: Delivery[] = [];
  const identities = new Set<string>();
  const deliverAll = async () => {
    for (const message of await bench.takeMessages(ours)) {
      identities.add(JSON.parse(message.body).operationId as string);
      deliveries.push(...(await Promise.all(workers.map((worker) => worker.deliver(message)))));
    }
  };
  const outcomes = await Promise.all([
    tickSchedule(deps, schedule.name, tick),
    tickSchedule(deps, schedule.name, tick),
  ]);
  await deliverAll();
  bench.clock.advance(LATE_MS);
  outcomes.push(await tickSchedule(deps, schedule.name, tick));
  await deliverAll();
  if (lacksTransactions(deliveries)) return skipped(NO_TRANSACTIONS);
  const { identity } = occurrenceOf(schedule, tick);
  const row = await bench.row(identity);
  const runs = bench.runAttempts(identity).length;
  const others = [...identities].filter((operationId) => operationId !== identity.operationId);
  const evidence = {
    schedule: schedule.name,
    tick: new Date(tick).toISOString(),
    ticks: outcomes.length,
    jobs: (row ? 1 : 0) + others.length,
    runs,
    state: String(row?.state),
    deliveries: deliveries.map(describe).join(', '),
  };
  const problems: Problem[] = [
    ...(accepted
      ? []
      : [{ text: `schedule ${schedule.name}'s payload fails the job's schema`, remedy: Remedy.schedulePayload }]),
    ...tickProblems(outcomes),
    ...(row === undefined || others.length > 0
      ? [{ text: `one tick made ${evidence.jobs} job row(s) (${[...identities].join(', ')})`, remedy: Remedy.runtime }]
      : []),
    ...(runs !== 1 || row?.state !== 'succeeded'
      ? [
          {
            text: `schedule ${schedule.name}'s tick ran ${runs} time(s) and ended ${evidence.state}`,
            remedy: accepted ? Remedy.completingSample : Remedy.schedulePayload,
          },
        ]
      : []),
  ];
  return judged(
    problems,
    `schedule ${schedule.name}: ${outcomes.length} deliveries of the tick at ${evidence.tick} made 1 job, run once`,
    evidence,
  );
}

/** One schedule's outcome: not evaluated for class A without transactions, failed (saying why) when it throws. */
async function tickOutcome(
  bench: ConformanceBench,
  schedule: ScheduleDeclaration,
  transactions: boolean,
): Promise<ScenarioOutcome> {
  if (bench.job.target === 'A' && !transactions) return skipped(`${NO_TRANSACTIONS} (schedule ${schedule.name})`);
  try {
    return await runDuplicateTick(bench, schedule);
  } catch (error) {
    const detail = `schedule ${schedule.name}: the scenario stopped: ${(error as Error).name}: ${(error as Error).message}`;
    return { status: 'failed', detail, remedies: [Remedy.scenarioStopped], evidence: {} };
  }
}

/**
 * The duplicate-tick scenario once for each schedule of this job type (none: no result); class A on an engine
 * without transactions is not evaluated, as every other scenario. A scenario that throws is failed, saying why.
 */
async function runScheduleScenarios(
  bench: ConformanceBench,
  schedules: readonly ScheduleDeclaration[],
  transactions: boolean,
): Promise<ScenarioResult[]> {
  const results: ScenarioResult[] = [];
  for (const schedule of schedules.filter((candidate) => candidate.jobType === bench.job.type)) {
    bench.begin(ScenarioId.duplicateTick, 1);
    const named = { id: ScenarioId.duplicateTick, title: TITLE, sample: 1 };
    const outcome = await tickOutcome(bench, schedule, transactions);
    results.push({ ...named, ...outcome, evidence: { schedule: schedule.name, ...outcome.evidence } });
  }
  return results;
}

export { runScheduleScenarios };
