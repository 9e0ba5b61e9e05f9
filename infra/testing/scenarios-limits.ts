import type { JobDefinition } from '../../lib/job-definition.js';
import type { ConformanceBench, Delivery } from './bench.js';
import { Gate, within } from './gate.js';
import { type Problem, Remedy } from './remedies.js';
import {
  describe,
  executed,
  judged,
  lacksTransactions,
  NO_TRANSACTIONS,
  type Scenario,
  ScenarioId,
  skipped,
} from './scenario-support.js';

/** The most holders the scenario pauses to fill a limit: a type whose smallest limit is larger is not evaluated. */
const MAX_HOLDERS = 4;

/** The smallest concurrency limit a job of this tenant and payload counts against (all of them share one key). */
function smallestLimit(job: JobDefinition<unknown>): number | undefined {
  const limits = job.flow?.concurrency;
  if (limits === undefined) return undefined;
  const sizes = [limits.type, limits.perTenant, limits.perKey?.limit].filter((size) => size !== undefined);
  return sizes.length > 0 ? Math.min(...sizes) : undefined;
}

/** Workers paused right after their claims, each holding one slot of every limit, until `release`. */
async function fillLimit(bench: ConformanceBench, tenantId: string, payload: unknown, holders: number) {
  const gates: Gate[] = [];
  const deliveries: Promise<Delivery>[] = [];
  for (let index = 1; index <= holders; index += 1) {
    const gate = new Gate();
    const message = await bench.message({ tenantId, operationId: `limit-holder-${index}` }, payload);
    const delivery = (await bench.worker(`holder-${index}`, { pause: gate })).deliver(message);
    const paused = await within(
      Promise.race([gate.reached.then(() => true), delivery.then(() => false)]),
      `holder ${index}'s claim`,
    );
    gates.push(gate);
    deliveries.push(delivery);
    if (!paused) break;
  }
  const held = gates.length === holders && (await Promise.all(deliveries.map(settledYet))).every((done) => !done);
  const release = async () => {
    for (const gate of gates) gate.release();
    return Promise.all(deliveries);
  };
  return { held, release };
}

/** True when the delivery already finished (its worker was never held at the gate). */
async function settledYet(delivery: Promise<Delivery>): Promise<boolean> {
  return Promise.race([delivery.then(() => true), Promise.resolve(false)]);
}

/**
 * A job of a limited type waits for its slot: the smallest limit is filled by workers paused after their claims, one
 * more operation of the same tenant and payload (so the same key) is delivered and must wait queued with no attempt
 * used (`skipped:concurrency_wait`, the row queued, attempts 0), then the holders finish and the waiter's next
 * delivery runs it once, in its first attempt. The wait is the worker's, before run(): no job module can make it
 * count as a failure, so this judges the runtime and makes waiting part of the evidence (`check` on a limited type).
 */
const limitWait: Scenario = {
  id: ScenarioId.limitWait,
  title: 'a job over its concurrency limit waits queued (no attempt used), then runs once when a slot frees',
  applies: (job) => job.flow?.concurrency !== undefined,
  run: async (bench, [payload]) => {
    const size = smallestLimit(bench.job) ?? 0;
    if (size > MAX_HOLDERS) {
      return skipped(
        `not evaluated: the smallest concurrency limit (${size}) is above the ${MAX_HOLDERS} holders this scenario pauses`,
        `declare a limit of at most ${MAX_HOLDERS} (perKey or perTenant) to have the wait exercised`,
      );
    }
    const tenantId = await bench.tenant('limit', payload);
    const fill = await fillLimit(bench, tenantId, payload, size);
    if (!fill.held) {
      const finished = await fill.release();
      if (lacksTransactions(finished)) return skipped(NO_TRANSACTIONS);
      const problem = {
        text: `a holder never started the job (${finished.map(describe).join(', ')})`,
        remedy: Remedy.completingSample,
      };
      return judged([problem], '', {});
    }
    const identity = { tenantId, operationId: 'limit-waiter' };
    const message = await bench.message(identity, payload);
    const waited = await (await bench.worker('waiter')).deliver(message);
    const rowWhileWaiting = await bench.row(identity);
    const holders = await fill.release();
    const ran = await (await bench.worker('waiter-again')).deliver(message);
    if (lacksTransactions([...holders, ran])) return skipped(NO_TRANSACTIONS);
    const row = await bench.row(identity);
    const attempts = bench.runAttempts(identity);
    const evidence = {
      limit: size,
      whileFull: describe(waited),
      stateWhileWaiting: String(rowWhileWaiting?.state),
      attemptsWhileWaiting: rowWhileWaiting?.attempts ?? -1,
      afterRelease: describe(ran),
      runOnAttempts: attempts.join(', '),
      state: String(row?.state),
      attempts: row?.attempts ?? -1,
    };
    const problems: Problem[] = [];
    if (describe(waited) !== 'skipped:concurrency_wait' || rowWhileWaiting?.state !== 'queued') {
      problems.push({
        text: `with the limit full the job was ${evidence.whileFull}, row ${evidence.stateWhileWaiting}, not waiting queued`,
        remedy: Remedy.runtime,
      });
    }
    if ((rowWhileWaiting?.attempts ?? 0) !== 0) {
      problems.push({ text: `the wait used ${evidence.attemptsWhileWaiting} attempt(s)`, remedy: Remedy.runtime });
    }
    if (executed(ran) === undefined || attempts.length !== 1 || attempts[0] !== 1) {
      problems.push({
        text: `after the slot freed the job was ${evidence.afterRelease}, run() on attempt(s) [${evidence.runOnAttempts}], ended ${evidence.state}`,
        remedy: Remedy.completingSample,
      });
    }
    return judged(
      problems,
      `limit ${size} full: ${evidence.whileFull}, queued with 0 attempts; after the slot freed: ${evidence.afterRelease}, run() once on attempt 1`,
      evidence,
    );
  },
};

export { limitWait };
