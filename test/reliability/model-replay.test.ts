import { CreateTableCommand, DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { examplesTableDefinition } from '../../examples/jobs/examples-table.js';
import { parseIdentity } from '../../lib/identity.js';
import { jobsTableDefinition } from '../../lib/store/table.js';
import { createTestQueue, testDocumentClient, testSqsClient, uniqueName } from '../support/engine.js';
import { type Command, identityOf, targetClassOf, Universe } from './support/model/commands.js';
import { RealSystem } from './support/model/real-system.js';
import { eventsOf, holderFenceOf } from './support/model/replay-events.js';
import { untilActive } from './support/model/run-interleaving.js';
import { emptyReplayTally, type History, HistoryRecorder, replayHistories } from './support/replay/history.js';
import { loadModelRelation } from './support/replay/relation.js';
import { ReliabilityReport } from './support/report.js';

/*
 * The code held to the model (issue #44 item 5): a scripted history of real commands on dynalite — takeovers, a
 * refused stale completion, the sweeper, operator retries with and without the class D statement — recorded row by
 * row and replayed through the model's step relation (model/transitions.json, printed by Spin's exhaustive search).
 * model/code-mutations.json applies a change the model forbids (an operator retry that clears the effect mark) to
 * the code and runs the first test: the replay must reject it. The randomized histories of interleavings.test.ts are
 * replayed the same way after every run.
 */

const lease = Universe.leaseMs;
/** Class C (op-1, 2 attempts) and class D (op-0, 1 attempt) of tenant t0. */
const C = 1;
const D = 0;

/** The script: each command with the identity whose row it may change. */
const SCRIPT: Command[] = [
  // class C: created claimed, renewed, taken over after the lease lapsed, swept once exhausted
  { kind: 'enqueue', id: C, worker: 0, conflict: false, gate: 'none' },
  { kind: 'advance', ms: lease / 4 },
  { kind: 'heartbeat', id: C, worker: 0 },
  { kind: 'advance', ms: 3 * lease },
  { kind: 'claim', id: C, worker: 1 },
  { kind: 'complete', id: C, worker: 0 }, // the stale holder: refused
  { kind: 'advance', ms: 3 * lease },
  { kind: 'sweep' },
  // an operator retry keeps the mark (the next claim reconciles), then the job completes
  { kind: 'retry', id: C, statement: false },
  { kind: 'claim', id: C, worker: 2 },
  { kind: 'complete', id: C, worker: 2 },
  // class D: created queued by the producer, claimed, lapsed and swept, requeued only with the statement
  { kind: 'enqueue', id: D, worker: null, conflict: false, gate: 'none' },
  { kind: 'claim', id: D, worker: 0 },
  { kind: 'advance', ms: 3 * lease },
  { kind: 'sweep' },
  { kind: 'retry', id: D, statement: false }, // refused: the statement is required
  { kind: 'retry', id: D, statement: true },
  { kind: 'claim', id: D, worker: 1 },
  { kind: 'fail', id: D, worker: 1, terminal: true, delayMs: 0 },
];

describe('the code held to the model: recorded histories replayed through the step relation', () => {
  const report = new ReliabilityReport(__filename);
  const relation = loadModelRelation();
  const client = testDocumentClient();
  const sqs = testSqsClient();
  const jobsTable = uniqueName('lf-replay-jobs');
  const recordsTable = uniqueName('lf-replay-records');
  let histories: History[] = [];

  beforeAll(async () => {
    const { queueUrl } = await createTestQueue(sqs, 'rel-replay');
    await client.send(new CreateTableCommand(jobsTableDefinition(jobsTable)));
    await client.send(new CreateTableCommand(examplesTableDefinition(recordsTable)));
    await untilActive(client, [jobsTable, recordsTable]);
    const real = new RealSystem({ client, sqs, queueUrl, jobsTable, recordsTable }, Date.UTC(2026, 0, 1), [0, 0, 0]);
    const recorder = new HistoryRecorder();
    for (const command of SCRIPT) {
      const outcome = await real.apply(command);
      const ids = 'id' in command ? [command.id] : [C, D];
      for (const id of ids) {
        const row = await real.operator.get(parseIdentity(identityOf(id)), { consistent: true });
        const holderFence = holderFenceOf(command, outcome, real.lastHolderFence);
        recorder.observe(`${id}`, targetClassOf(id), eventsOf(command, outcome, id), row, holderFence);
      }
    }
    histories = recorder.all();
  });
  afterAll(async () => {
    await report.publish();
    await client.send(new DeleteTableCommand({ TableName: jobsTable }));
    await client.send(new DeleteTableCommand({ TableName: recordsTable }));
    client.destroy();
    sqs.destroy();
  });

  it('every step the real system took is a step of the model', () => {
    const tally = replayHistories(relation, histories, emptyReplayTally());
    report.counts.historiesReplayed += tally.histories;
    report.counts.stepsReplayed += tally.steps;
    report.counts.illegalSteps += tally.illegal.length;
    expect(tally.illegal).toEqual([]);
    expect(tally.histories).toBe(2);
    // the script's transitions all happened (so each was checked): creates, a takeover, sweeps, both requeues
    const states = histories.flatMap((history) =>
      history.steps.filter((step) => step.before?.state !== step.after.state).map((step) => step.after.state),
    );
    const renewals = histories.flatMap((history) => history.steps.filter((step) => step.events.includes('renew')));
    expect(renewals.filter((step) => step.before?.leaseExpiresAt !== step.after.leaseExpiresAt)).toHaveLength(1);
    expect(states.filter((state) => state === 'unknown')).toHaveLength(2);
    expect(states.filter((state) => state === 'succeeded')).toHaveLength(1);
    expect(states.filter((state) => state === 'failed_terminal')).toHaveLength(1);
    expect(tally.steps).toBeGreaterThanOrEqual(12);
    expect(tally.outside).toEqual({ 'producer creates the row queued': 1 });
  });

  it('rejects a copy of the history with a step the model forbids', () => {
    const forbid = (cls: 'C' | 'D', edit: (history: History) => void) => {
      const copy = structuredClone(histories.find((history) => history.cls === cls) as History);
      edit(copy);
      return replayHistories(relation, [copy], emptyReplayTally()).illegal.map((step) => step.step.event);
    };
    const stepOf = (history: History, events: string, state: string) => {
      const found = history.steps.find((step) => step.events.join() === events && step.after.state === state);
      if (!found) throw new Error(`no ${events} step to ${state} in the history`);
      return found;
    };
    // a takeover claim that does not raise the fence
    expect(
      forbid('C', (history) => {
        const takeover = history.steps.find(
          (step) => step.before?.state === 'claimed' && step.after.state === 'claimed' && step.after.attempts === 2,
        );
        if (takeover?.before) takeover.after.fence = takeover.before.fence;
      }),
    ).toEqual(['claim']);
    // the stale holder's completion landing (its fence is not the row's)
    expect(
      forbid('C', (history) => {
        const complete = stepOf(history, 'complete', 'succeeded');
        complete.holderFence = (complete.before?.fence ?? 0) - 1;
      }),
    ).toEqual(['complete']);
    // class D requeued from unknown without the statement (the mark kept, no statement)
    expect(
      forbid('D', (history) => {
        const requeue = stepOf(history, 'statement', 'queued');
        requeue.events = ['operator-retry'];
        requeue.after.effectMayHaveHappened = true;
      }),
    ).toEqual(['operator-retry']);
    // an operator retry of class C that clears the mark (what the code mutation in model/code-mutations.json does)
    expect(
      forbid('C', (history) => {
        stepOf(history, 'operator-retry', 'queued').after.effectMayHaveHappened = false;
      }),
    ).toEqual(['operator-retry']);
  });
});
