import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../lib/clock.js';
import { createDocumentClient } from '../../lib/document-client.js';
import { WorkItemStore } from '../../lib/store/work-item-store.js';
import { parseLease, parseLeaseDuration } from '../../lib/store/work-items/schemas.js';
import { parseJobOutcome } from '../../lib/store/work-items/transitions.js';
import { createTestTables, engineEndpoints, type TestTables, testDocumentClient } from '../support/engine.js';
import { expectCreatedClaim } from '../support/expectations.js';
import { newIdentity, newWorkItem } from '../support/factories.js';
import { RecordingProxy } from './support/replay/recording-proxy.js';

/*
 * The recording proxy the process and network fault files replay through (issue #44 item 5): it records each write
 * of a work row as the engine committed it, with the events its request shows, and counts what it could not see.
 */
describe('the recording proxy in front of the engine', () => {
  let tables: TestTables;
  const direct = testDocumentClient();
  let recorder: RecordingProxy;
  let through: ReturnType<typeof createDocumentClient>;
  const clock = new ManualClock();

  beforeAll(async () => {
    tables = await createTestTables('rec-proxy');
    recorder = await RecordingProxy.start(engineEndpoints().dynamo, direct, tables.jobsTable, () => 'B');
    through = createDocumentClient({ endpoint: recorder.endpoint });
  });
  afterAll(async () => {
    through.destroy();
    await recorder.stop();
    await tables.drop();
    direct.destroy();
  });

  it('records a takeover and a refused stale completion as the model sees them, and the replay accepts them', async () => {
    const store = new WorkItemStore({ client: through, tableName: tables.jobsTable, clock });
    const identity = newIdentity();
    const first = expectCreatedClaim(
      await store.enqueue(newWorkItem(identity), parseLease({ owner: 'w1', leaseMs: 1_000 })),
    );
    clock.advance(1_001);
    const second = await store.claim(identity, parseLease({ owner: 'w2', leaseMs: 1_000 }));
    await expect(store.complete(first, parseJobOutcome({ outcomeCode: 'stale' }))).rejects.toThrow();
    if (!second.claimed) throw new Error('the takeover did not happen');
    await store.complete(second.claim, parseJobOutcome({ outcomeCode: 'ok' }));

    const history = recorder.all().find((one) => one.job === `${identity.tenantId}/${identity.operationId}`);
    const changed = history?.steps.filter((step) => JSON.stringify(step.before) !== JSON.stringify(step.after));
    // a holder's write is named by its fence (its events are every holder event: the row tells which one)
    const kindOf = (events: readonly string[], fence?: number) =>
      fence === undefined ? events.join('|') : `holder@${fence}`;
    expect(
      changed?.map((step) => [kindOf(step.events, step.holderFence), step.before?.state ?? 'none', step.after.state]),
    ).toEqual([
      ['claim', 'none', 'claimed'],
      ['claim', 'claimed', 'claimed'],
      ['holder@2', 'claimed', 'succeeded'],
    ]);
    const replay = recorder.replay([identity]);
    expect(replay).toMatchObject({ histories: 1, steps: 3, illegal: [] });
    expect(recorder.unrecorded).toEqual({});
  });

  it('counts a write that went around it: the next recorded step finds the row changed', async () => {
    const store = new WorkItemStore({ client: through, tableName: tables.jobsTable, clock });
    const around = new WorkItemStore({ client: direct, tableName: tables.jobsTable, clock });
    const identity = newIdentity();
    const claim = expectCreatedClaim(
      await store.enqueue(newWorkItem(identity), parseLease({ owner: 'w1', leaseMs: 1_000 })),
    );
    const renewed = await around.heartbeat(claim, parseLeaseDuration(5_000));

    await store.complete(renewed, parseJobOutcome({ outcomeCode: 'ok' }));

    expect(recorder.unrecorded).toEqual({ 'row changed between recorded writes': 1 });
  });
});
