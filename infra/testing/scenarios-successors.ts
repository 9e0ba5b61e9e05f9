import { parseIdentity } from '../../lib/identity.js';
import type { ConformanceBench, Delivery } from './bench.js';
import { Gate, within } from './gate.js';
import type { EnqueueCall } from './observed-job.js';
import { operationKey } from './provider-probe.js';
import { type Problem, Remedy } from './remedies.js';
import {
  describe,
  judged,
  lacksTransactions,
  NO_TRANSACTIONS,
  type Scenario,
  ScenarioId,
  type ScenarioOutcome,
  skipped,
} from './scenario-support.js';
import { freshOperation } from './scenarios-faults.js';

/*
 * The successor fault tests (issue 26, seed 002's chain under the fence). They apply to a job whose run asks for a
 * successor (ctx.enqueue, observed in the scenarios before them and in their own): one that asks for none has no
 * result here. The
 * module's other job types are registered with each worker as stand-ins (successor-stand-ins.ts), so a successor
 * is checked as a deployed worker checks it and its rows can be counted without running it.
 */

/** Why a successor scenario has no result for a job type. */
const NO_SUCCESSOR = 'does not apply: the job asked for no successor (ctx.enqueue) with this sample';

const WRITES = ['PutItem', 'UpdateItem', 'DeleteItem', 'TransactWriteItems', 'BatchWriteItem'];

/** How this engine writes successors: one transaction with the completion, or a durable step by identity. */
function successorMode(bench: ConformanceBench): string {
  return bench.tables.transactions ? 'transaction' : 'durable_step';
}

/** The distinct successor operation ids `worker` asked for in the running scenario. */
function askedBy(calls: readonly EnqueueCall[], worker: string): string[] {
  return [...new Set(calls.filter((call) => call.worker === worker).flatMap((call) => call.operationId ?? []))];
}

/** Problems when ctx.enqueue refused a successor (an unregistered type, a payload its schema rejects, …). */
function refusals(calls: readonly EnqueueCall[]): Problem[] {
  const refused = [...new Set(calls.filter((call) => call.operationId === undefined).map((call) => call.jobType))];
  return refused.map((jobType) => ({
    text: `ctx.enqueue refused a successor of type ${jobType} (SuccessorRefusedError): the job cannot complete with it`,
    remedy: Remedy.successorRegistered,
  }));
}

/**
 * What the rows show after a takeover: the parent succeeded under the winner's fence and lists exactly the
 * winner's successors, each of which exists with the parent as its parent; none of the loser's other ids exists.
 */
async function successorRowProblems(
  bench: ConformanceBench,
  parent: { tenantId: string; operationId: string },
  calls: readonly EnqueueCall[],
  loser: string,
  winner: string,
): Promise<{ problems: Problem[]; evidence: Record<string, number | string | boolean> }> {
  const row = await bench.row(parent);
  const won = askedBy(calls, winner);
  const lost = askedBy(calls, loser).filter((id) => !won.includes(id));
  const winnerFence = calls.find((call) => call.worker === winner)?.fence;
  const rowOf = (operationId: string) => bench.row(parseIdentity({ tenantId: parent.tenantId, operationId }));
  const winnerRows = await Promise.all(won.map(rowOf));
  const loserRows = (await Promise.all(lost.map(rowOf))).filter((found) => found !== undefined);
  const listed = [...(row?.successors ?? [])].sort();
  const orphaned = winnerRows.filter((found) => found?.parentOperationId !== parent.operationId).length;
  const problems: Problem[] = [
    ...(row?.state !== 'succeeded' || row.fence !== winnerFence
      ? [
          {
            text: `the parent ended ${row?.state} at fence ${row?.fence}, not succeeded under the takeover's fence ${winnerFence}`,
            remedy: Remedy.completingSample,
          },
        ]
      : []),
    ...(JSON.stringify(listed) !== JSON.stringify([...won].sort())
      ? [
          {
            text: `the parent lists successors [${listed.join(', ')}], the takeover asked for [${won.join(', ')}]`,
            remedy: Remedy.runtime,
          },
        ]
      : []),
    ...(orphaned > 0
      ? [
          {
            text: `${orphaned} of the takeover's successors missing or not linked to the parent`,
            remedy: Remedy.runtime,
          },
        ]
      : []),
    ...(loserRows.length > 0
      ? [
          {
            text: `${loserRows.length} successor row(s) of the superseded attempt exist beside the takeover's (${loserRows.map((found) => found.operationId).join(', ')}): the chain was enqueued twice`,
            remedy: Remedy.stableSuccessorName,
          },
        ]
      : []),
  ];
  return {
    problems,
    evidence: {
      mode: successorMode(bench),
      parentFence: row?.fence ?? 'none',
      successors: won.length,
      supersededRows: loserRows.length,
    },
  };
}

/** Writes to the library's own tables (jobs, payloads) that `worker` landed from request `fromSeq` on. */
function landedLibraryWrites(bench: ConformanceBench, worker: string, fromSeq: number): number {
  const library = [bench.tables.jobsTable, bench.tables.payloadsTable];
  return bench
    .requestsOfRun()
    .filter(
      (request) =>
        request.worker === worker &&
        request.seq >= fromSeq &&
        request.outcome?.landed === true &&
        WRITES.includes(request.operation) &&
        request.tables.some((table) => library.includes(table)),
    ).length;
}

/**
 * True once the job asked for a successor in any scenario run so far (they run after the seed scenarios of each
 * sample): a job that never did is spared two more runs that would show nothing.
 */
function asksForSuccessors(bench: ConformanceBench): boolean {
  return bench.enqueues.length > 0;
}

/** The enqueue calls of the running scenario for its parent, or undefined when the job asked for no successor. */
function callsOfRun(bench: ConformanceBench, parent: { tenantId: string; operationId: string }) {
  const { scenario, sample } = bench.running();
  const key = operationKey(parent);
  const calls = bench.enqueues.filter(
    (call) => call.scenario === scenario && call.sample === sample && call.parent === key,
  );
  return calls.length > 0 ? calls : undefined;
}

/** The outcome both successor scenarios share: the refusals, the rows, and (stale) what the loser landed late. */
async function judgeSuccessors(
  bench: ConformanceBench,
  identity: { tenantId: string; operationId: string },
  deliveries: { loser: Delivery; winner: Delivery },
  staleWrites: number | undefined,
): Promise<ScenarioOutcome | undefined> {
  const calls = callsOfRun(bench, identity);
  if (!calls) return undefined;
  if (lacksTransactions([deliveries.loser, deliveries.winner])) return skipped(NO_TRANSACTIONS);
  const rows = await successorRowProblems(bench, identity, calls, 'A', 'B');
  const problems = [
    ...refusals(calls),
    ...(staleWrites !== undefined && staleWrites > 0
      ? [
          {
            text: `the stale holder landed ${staleWrites} write(s) on the jobs or payloads table after the takeover: it enqueued outside the fenced completion`,
            remedy: Remedy.enqueueThroughContext,
          },
        ]
      : []),
    ...rows.problems,
  ];
  const evidence = {
    ...rows.evidence,
    loser: describe(deliveries.loser),
    winner: describe(deliveries.winner),
    ...(staleWrites !== undefined ? { staleWritesLanded: staleWrites } : {}),
  };
  return judged(
    problems,
    `${rows.evidence.successors} successor(s) written once, by the takeover's fence ${rows.evidence.parentFence} (${successorMode(bench)}); the superseded attempt wrote none`,
    evidence,
  );
}

/**
 * A holder pauses after its claim past the lease; a second worker takes over and completes with its successors;
 * the stale holder resumes, asks for its successors and completes: refused, nothing of it written.
 */
const successorStale: Scenario = {
  id: ScenarioId.successorStale,
  title: "a stale holder's successor enqueue is refused (pause past the lease, takeover completes, stale resumes)",
  absentWhen: NO_SUCCESSOR,
  run: async (bench, [payload]) => {
    if (!asksForSuccessors(bench)) return undefined;
    const { identity, message } = await freshOperation(bench, 'succ-stale', payload);
    const gate = new Gate();
    const staleDelivery = (await bench.worker('A', { pause: gate })).deliver(message);
    const paused = await within(
      Promise.race([gate.reached.then(() => true), staleDelivery.then(() => false)]),
      'the first claim',
    );
    if (!paused)
      return callsOfRun(bench, identity) ? skipped('not evaluated: worker A never started the job') : undefined;
    bench.expireLease();
    const winner = await (await bench.worker('B')).deliver(message);
    const resumedFrom = bench.requests.length;
    gate.release();
    const loser = await staleDelivery;
    return judgeSuccessors(bench, identity, { loser, winner }, landedLibraryWrites(bench, 'A', resumedFrom));
  },
};

/**
 * A holder crashes instead of sending its completion (after a durable step's successor rows where the engine has
 * no transactions); the lease expires and a second worker takes over and completes: one set of successors.
 */
const successorTakeover: Scenario = {
  id: ScenarioId.successorTakeover,
  title: 'a takeover never enqueues the successors twice (the first holder crashes before its completion)',
  absentWhen: NO_SUCCESSOR,
  run: async (bench, [payload]) => {
    if (!asksForSuccessors(bench)) return undefined;
    const { identity, message } = await freshOperation(bench, 'succ-takeover', payload);
    const first = await bench.worker('A');
    // Without transactions the completion is tried as one first (refused as unsupported): crash at the durable one.
    if (bench.tables.transactions) first.faults.crashBeforeCompletion = true;
    else first.faults.crashBeforeCompletionUpdate = true;
    const loser = await first.deliver(message);
    if (!first.faults.crashed) {
      const calls = callsOfRun(bench, identity);
      if (!calls) return undefined;
      const refused = refusals(calls);
      if (refused.length > 0) return judged(refused, '', { loser: describe(loser) });
      return skipped(
        `not evaluated: worker A never reached its completion (${describe(loser)})`,
        Remedy.completingSample,
      );
    }
    bench.expireLease();
    const winner = await (await bench.worker('B')).deliver(message);
    return judgeSuccessors(bench, identity, { loser, winner }, undefined);
  },
};

/** The successor scenarios, in the order they run. */
const SUCCESSOR_SCENARIOS: readonly Scenario[] = [successorStale, successorTakeover];

export { SUCCESSOR_SCENARIOS };
