import { GetQueueAttributesCommand, SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../lib/clock.js';
import { createDocumentClient } from '../../../lib/document-client.js';
import { payloadHash } from '../../../lib/hashing.js';
import { createSqsClient } from '../../../lib/sqs-client.js';
import { PayloadStore } from '../../../lib/store/payloads/payloads.js';
import { killAll, runCli, startMemoryStack, tempLocalDir } from '../../support/cli-runner.js';
import { putWorkItem } from '../../support/factories.js';

type Stack = Awaited<ReturnType<typeof startMemoryStack>>;

describe('leasefence CLI against a running local stack: operations', () => {
  let stack: Stack;
  let client: DynamoDBDocumentClient;
  let sqs: SQSClient;
  const cli = (...args: string[]) => runCli([...args, ...stack.at]);

  beforeAll(async () => {
    stack = await startMemoryStack(['--sweep-interval', '60s']);
    client = createDocumentClient({ endpoint: stack.state.endpoints.dynamodb });
    sqs = createSqsClient({ endpoint: stack.state.endpoints.sqs });
  });
  afterAll(async () => {
    client?.destroy();
    sqs?.destroy();
    await stack?.close();
    killAll();
  });

  it('redrive moves every DLQ message back to the jobs queue with its body, and audits the move', async () => {
    // prepare: 12 wake-ups for unknown identities and one body that is not an envelope
    const bodies = Array.from({ length: 12 }, (_, index) =>
      JSON.stringify({
        v: 1,
        kind: 'wake',
        tenantId: 'dlq',
        operationId: `lost-${index}`,
        jobType: 'statement-publication',
        payloadHash: payloadHash({ index }),
        payload: { inline: true },
      }),
    );
    bodies.push('not an envelope');
    for (let start = 0; start < bodies.length; start += 10) {
      const entries = bodies.slice(start, start + 10).map((body, index) => ({ Id: String(index), MessageBody: body }));
      await sqs.send(new SendMessageBatchCommand({ QueueUrl: stack.state.queues.deadLetter, Entries: entries }));
    }

    // act
    const run = await cli('redrive', '--json');

    // assert
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ received: 13, moved: 13, movedInvalid: 1, sendFailed: 0 });
    const depth = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: stack.state.queues.deadLetter, AttributeNames: ['All'] }),
    );
    expect(Number(depth.Attributes?.ApproximateNumberOfMessages)).toBe(0);
    const audit = (await (await fetch(`${stack.state.endpoints.admin}/audit`)).json()) as { records: unknown[] };
    expect(audit.records[0]).toMatchObject({ action: 'redrive', actor: 'local-operator', counts: { moved: 13 } });
  });

  it('erase removes a tenant’s payload bodies only after --yes, and leaves other tenants alone', async () => {
    // prepare
    const payloads = new PayloadStore(client, stack.state.tables.payloads, systemClock);
    for (const [tenantId, operationId] of [
      ['era', 'a'],
      ['era', 'b'],
      ['keep', 'a'],
    ] as const) {
      const body = { tenantId, operationId };
      await payloads.put({ tenantId, operationId }, body, payloadHash(body));
    }

    // act
    const refused = await cli('erase', 'era', '--reason', 'GDPR request 42');
    const erased = await cli('erase', 'era', '--reason', 'GDPR request 42', '--yes', '--json');

    // assert
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--yes: erasing cannot be undone');
    expect(erased.code).toBe(0);
    expect(JSON.parse(erased.stdout)).toMatchObject({ tenantId: 'era', deleted: 2, complete: true });
    expect(await payloads.get({ tenantId: 'era', operationId: 'a' })).toBeUndefined();
    expect(await payloads.get({ tenantId: 'keep', operationId: 'a' })).toBeDefined();
  });

  it('demo runs against the running stack: one side effect per operation, two stale writes rejected', async () => {
    // act
    const run = await cli('demo', '--json', '--tag', 'clitest');

    // assert
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report).toMatchObject({ runTag: 'clitest', sideEffectsPerOperation: 1, staleWritesRejected: 2 });
    expect(report.engine).toEqual({ name: 'dynalite', transactions: false });
    expect(report.operations.map((operation: { state: string }) => operation.state)).toEqual([
      'succeeded',
      'succeeded',
      'succeeded',
      'succeeded',
    ]);
    expect(report.skipped).toEqual([expect.objectContaining({ jobType: 'inventory-reservation' })]);
  });

  it('reaches the same tables through explicit names and endpoints (the path used for AWS without --stack)', async () => {
    // prepare
    await putWorkItem(client, stack.state.tables.jobs, {
      identity: { tenantId: 'explicit', operationId: 'op-1' },
      state: 'unknown',
      now: Date.now(),
    });

    // act
    const run = await runCli([
      ...['show', 'explicit/op-1', '--json', '--jobs-table', stack.state.tables.jobs],
      ...['--payloads-table', stack.state.tables.payloads, '--queue-url', stack.state.queues.jobs],
      ...['--deadline-shards', String(stack.state.settings.deadlineShards)],
      ...['--dynamodb-endpoint', stack.state.endpoints.dynamodb, '--sqs-endpoint', stack.state.endpoints.sqs],
    ]);
    const partial = await runCli(['ls', '--dynamodb-endpoint', stack.state.endpoints.dynamodb]);

    // assert
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).item).toMatchObject({ tenantId: 'explicit', operationId: 'op-1', state: 'unknown' });
    expect(partial.code).toBe(2);
    expect(partial.stderr).toContain('--jobs-table: is required when targeting AWS without --stack');
  });

  it('enqueue answers a bad payload with exit code 2 naming the flag; a command without a stack fails with 1', async () => {
    // prepare
    const elsewhere = await tempLocalDir();

    // act
    const [notJson, wrongShape, noStack] = await Promise.all([
      cli('enqueue', '--type', 'refund-settlement', '--tenant', 'm', '--operation', 'o', '--payload', '{'),
      cli('enqueue', '--type', 'refund-settlement', '--tenant', 'm', '--operation', 'o', '--payload', '{"amount":1}'),
      runCli(['ls', '--local-dir', elsewhere.dir]),
    ]);
    await elsewhere.remove();

    // assert
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain('--payload: not JSON');
    expect(wrongShape.code).toBe(2);
    expect(wrongShape.stderr).toContain("--payload: does not match refund-settlement's schema");
    expect(noStack.code).toBe(1);
    expect(noStack.stderr).toContain('no local stack is running');
  });

  it('enqueue of a job type the running stack does not run is refused with "did you mean", nothing sent', async () => {
    // prepare: a typo of an example type, and a name like none of them
    const payload = '{"merchantId":"m_1","amount":5,"currency":"EUR"}';
    const send = (type: string, operation: string) =>
      cli('enqueue', '--type', type, '--tenant', 'typo', '--operation', operation, '--payload', payload);

    // act
    const typo = await send('refund-setlement', 'typo-1');
    const stranger = await send('payroll-run', 'typo-2');
    const listed = await cli('ls', '--tenant', 'typo', '--json');

    // assert: exit 2 naming the flag, the nearest type when there is one, the types it runs; no row, no message
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('--type: the local stack does not run refund-setlement (nothing sent)');
    expect(typo.stderr).toContain('did you mean refund-settlement?');
    expect(stranger.code).toBe(2);
    expect(stranger.stderr).not.toContain('did you mean');
    expect(stranger.stderr).toMatch(/it runs: .*refund-settlement/);
    expect(JSON.parse(listed.stdout).items).toEqual([]);
  });
});
