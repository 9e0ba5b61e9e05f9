import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultInjector } from '../../../lib/fault-injection/injector.js';
import type { FaultPlan } from '../../../lib/fault-injection/plan.js';
import { CheckEvidence } from '../../../lib/store/index.js';
import type { MessageResult } from '../../../lib/worker/worker-runtime.js';
import { createTestTables, type TestTables, testDocumentClient } from '../../support/engine.js';

const RUN = 'r1st0001';
const TENANT = `lfcheck-${RUN}-0-crash`;
const plan: FaultPlan = {
  v: 1,
  runId: RUN,
  expiresAt: Date.now() + 3_600_000,
  pauseMs: 1,
  copies: 3,
  faults: { crash: 'crash-after-effect' },
};

/** A job or wake-up envelope of the crash scenario's operation. */
const body = (kind: 'job' | 'wake', operationId: string) =>
  JSON.stringify({ v: 1, kind, tenantId: TENANT, operationId, jobType: 'fenced-credit', payloadHash: 'h' });

/**
 * The deployed worker's fault layer arms a scenario's fault for the first receipt of the producer's own message
 * only. A wake-up (the sweeper re-signalling the crashed attempt's expired claim) is received once too: armed there
 * again, the recovery crashed as well, and an operation crashed on every attempt ended unknown (fenced-credit NO-GO
 * in the deployment lane whenever the sweeper's wake-up came before the visibility timeout's redelivery).
 */
describe('the fault layer arms a fault on the first delivery of the job message only', () => {
  let tables: TestTables;
  const client = testDocumentClient();
  let injector: FaultInjector;

  beforeAll(async () => {
    tables = await createTestTables('first-delivery');
    injector = new FaultInjector({
      client,
      jobsTable: tables.jobsTable,
      payloadsTable: tables.payloadsTable,
      plan: async () => JSON.stringify(plan),
    });
  });
  afterAll(async () => {
    await tables.drop();
    client.destroy();
  });

  /** The attempt's completion write, as the worker's client sends it. */
  const completes = (operationId: string) => async (): Promise<MessageResult> => {
    await client.send(
      new UpdateCommand({
        TableName: tables.jobsTable,
        Key: { pk: `${TENANT}#${operationId}`, sk: `op#${operationId}` },
        UpdateExpression: 'SET #state = :state',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':state': 'succeeded' },
      }),
    );
    return { status: 'skipped', reason: 'replay_finished' } as unknown as MessageResult;
  };

  it('the job message received once crashes at its completion; a wake-up received once runs untouched', async () => {
    // Act
    const first = await injector
      .handle({ messageId: 'm-job', body: body('job', 'op-1'), receiveCount: 1 }, completes('op-1'))
      .then(
        () => 'acked',
        (error: Error) => error.name,
      );
    const wake = await injector
      .handle({ messageId: 'm-wake', body: body('wake', 'op-1'), receiveCount: 1 }, completes('op-1'))
      .then(
        () => 'acked',
        (error: Error) => error.name,
      );

    // Assert
    expect(first).toBe('InjectedCrash');
    expect(wake).toBe('acked');
    const evidence = await new CheckEvidence(client, tables.jobsTable).list({ tenantId: TENANT, operationId: 'op-1' });
    const byMessage = Object.fromEntries(evidence.map((record) => [record.messageId, record]));
    expect(byMessage['m-job']).toMatchObject({ fired: true, outcomes: ['not acked:InjectedCrash'] });
    expect(byMessage['m-wake']).toMatchObject({ fired: false, outcomes: ['acked:skipped:replay_finished'] });
  });
});
