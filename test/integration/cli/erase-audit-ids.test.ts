import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../infra/cli/main.js';
import type { RunningLocalStack } from '../../../infra/local/stack.js';
import { DEVELOPMENT_IDENTIFIER_KEY, hashIdentifier } from '../../../lib/hashing.js';
import { AUDIT_PARTITION } from '../../../lib/store/table.js';
import { startStateFileStack, stopStateFileStack, type TempLocalDir } from '../../support/quiet-stack.js';
import { captureIo } from '../../unit/cli/io.js';

/**
 * The CLI side of raw-id audit records (written before audit records held pseudonyms only): `erase` does not call
 * the tenant done while the write-once audit log names it by raw id, and `audit-pseudonymise`, the one-off migration,
 * rewrites them; against AWS it refuses to run without the deployment's key. A local stack in this process.
 */
describe('leasefence erase and audit-pseudonymise: audit records written with raw ids', () => {
  let stack: RunningLocalStack;
  let local: TempLocalDir;
  beforeAll(async () => {
    ({ stack, local } = await startStateFileStack({ pollers: 0 }));
  });
  afterAll(async () => {
    await stopStateFileStack(stack, local);
  });

  const cli = async (...argv: string[]) => {
    const io = captureIo();
    const code = await main([...argv, '--local-dir', local.dir], io);
    return { code, out: io.stdout(), err: io.stderr() };
  };
  const auditItems = async () =>
    (
      await stack.client.send(
        new QueryCommand({
          TableName: stack.state.tables.jobs,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': AUDIT_PARTITION },
          ConsistentRead: true,
        }),
      )
    ).Items ?? [];

  it('erase says NOT DONE (exit 1) while an audit record names the tenant by raw id; the migration rewrites it, then erase exits 0', async () => {
    // prepare: an audit record as versions before pseudonyms wrote it
    await stack.client.send(
      new PutCommand({
        TableName: stack.state.tables.jobs,
        Item: {
          pk: AUDIT_PARTITION,
          sk: 'audit#2026-11-01T00:00:00.000Z#legacy-cli',
          kind: 'audit',
          auditId: 'legacy-cli',
          at: Date.parse('2026-11-01T00:00:00.000Z'),
          actor: 'ops',
          action: 'erase_payloads',
          tenantId: 'tenant-old-3c',
          counts: { deleted: 1 },
        },
      }),
    );

    // act
    const before = await cli('erase', 'tenant-old-3c', '--reason', 'GDPR 12', '--yes');
    const awsWithoutKey = await cli(
      'audit-pseudonymise',
      '--yes',
      ...['--jobs-table', stack.state.tables.jobs, '--payloads-table', stack.state.tables.payloads],
      ...['--queue-url', stack.state.queues.jobs, '--deadline-shards', '32'],
      // The stack's engines through 0.0.0.0: on this machine, but not a loopback address, so taken for AWS.
      ...['--dynamodb-endpoint', stack.state.endpoints.dynamodb.replace('//127.0.0.1:', '//0.0.0.0:')],
      ...['--sqs-endpoint', stack.state.endpoints.sqs.replace('//127.0.0.1:', '//0.0.0.0:')],
    );
    const untouched = (await auditItems()).find((item) => item.auditId === 'legacy-cli');
    const migrated = await cli('audit-pseudonymise', '--yes', '--json');
    const after = await cli('erase', 'tenant-old-3c', '--reason', 'GDPR 12', '--yes');
    const items = await auditItems();

    // assert
    expect(before.code).toBe(1);
    expect(before.out).toContain('NOT DONE: 1 audit record(s)');
    expect(before.out).toContain('leasefence audit-pseudonymise');
    expect(awsWithoutKey.code).toBe(2);
    expect(awsWithoutKey.err).toContain('--identifier-key-secret: required against AWS');
    expect(untouched).toMatchObject({ tenantId: 'tenant-old-3c' });
    expect(migrated.code).toBe(0);
    expect(JSON.parse(migrated.out)).toEqual({ rewritten: 1, skipped: 0, complete: true });
    expect(after.code).toBe(0);
    expect(after.out).not.toContain('NOT');
    expect(items.find((item) => item.auditId === 'legacy-cli')).toMatchObject({
      tenant: hashIdentifier('tenant-old-3c', DEVELOPMENT_IDENTIFIER_KEY),
    });
    expect(JSON.stringify(items)).not.toContain('tenant-old-3c');
  });
});
