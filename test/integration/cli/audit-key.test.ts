import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../infra/cli/main.js';
import { listAuditRecords } from '../../../lib/admin/audit.js';
import { DEVELOPMENT_IDENTIFIER_KEY, hashIdentifier, payloadHash } from '../../../lib/hashing.js';
import { parseIdentity } from '../../../lib/identity.js';
import { createAdminHandler } from '../../../lib/lambda/admin-handler.js';
import { type AdminFixture, createAdminFixture } from '../../support/admin.js';
import { engineTargetFlags } from '../../support/cli-target.js';
import { type CloudFormationServer, startCloudFormationServer } from '../../support/cloudformation-server.js';
import { engineEndpoints } from '../../support/engine.js';
import { newWorkItem } from '../../support/factories.js';
import { functionUrlEvent } from '../../support/function-url-event.js';
import { drainQueue } from '../../support/queue-reader.js';
import { captureIo } from '../../unit/cli/io.js';

/** The same engines reached through 0.0.0.0: traffic stays on this machine, but the CLI cannot tell it from AWS. */
const notLoopback = (flags: string[]) => flags.map((flag) => flag.replace('//127.0.0.1:', '//0.0.0.0:'));

/**
 * The CLI's audit-writing commands hash ids under the deployment's key: pointed at anything but the local stack or an
 * engine on loopback, they refuse without --identifier-key-secret (or a stack's IdentifierKeySecretArn output) before
 * writing anything, and with it their pseudonyms are the admin function's.
 */
describe('leasefence audit-writing commands against a deployment: the identifier key first', () => {
  let admin: AdminFixture;
  let flags: string[];
  let cloudFormation: CloudFormationServer;
  /** `--stack` outputs: one stack deployed before IdentifierKeySecretArn existed, one with it (set once known). */
  const keyed: Record<string, string> = {};
  beforeAll(async () => {
    admin = await createAdminFixture('cli-key');
    const outputs = {
      JobsTableName: admin.tables.jobsTable,
      PayloadsTableName: admin.tables.payloadsTable,
      QueueUrl: admin.queueUrl,
      DeadLetterQueueUrl: admin.dlqUrl,
      DeadlineShards: String(admin.store.deadlines.shardCount),
    };
    Object.assign(keyed, outputs);
    cloudFormation = await startCloudFormationServer([
      { name: 'Keyless', outputs },
      { name: 'Keyed', outputs: keyed },
    ]);
    // The SDK's own settings (this file's process only): DescribeStacks to the loopback CloudFormation endpoint.
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_CLOUDFORMATION: cloudFormation.url,
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_REGION: 'us-east-1', // the region the engines' tables were made in (lib/aws-clients.ts' default)
    });
    flags = [
      ...engineTargetFlags({
        jobsTable: admin.tables.jobsTable,
        payloadsTable: admin.tables.payloadsTable,
        queueUrl: admin.queueUrl,
        deadlineShards: admin.store.deadlines.shardCount,
      }),
      ...['--dlq-url', admin.dlqUrl],
    ];
  });
  afterAll(async () => {
    await cloudFormation?.stop();
    await admin.close();
  });

  const cli = async (...argv: string[]) => {
    const io = captureIo();
    const code = await main(argv, io);
    return { code, out: io.stdout(), err: io.stderr() };
  };
  const auditIds = async () =>
    (await listAuditRecords(admin.deps, { limit: 100 })).records.map((record) => String(record.auditId));
  const auditTenants = async () =>
    (await listAuditRecords(admin.deps, { limit: 100 })).records.map((record) => record.tenant);
  const seedTenant = async (tenantId: string) => {
    const identity = parseIdentity({ tenantId, operationId: 'op-1' });
    const body = { order: tenantId };
    await admin.payloads.put(identity, body, payloadHash(body));
    await admin.store.enqueue(newWorkItem(identity, { payloadRef: undefined, payloadInline: true }));
    return identity;
  };

  it('without a key every audit-writing command refuses (exit 2) and writes nothing; on loopback the development key', async () => {
    // prepare: a tenant with a body, and a message in the DLQ
    const identity = await seedTenant('tenant-nokey');
    await admin.sqs.send(new SendMessageCommand({ QueueUrl: admin.dlqUrl, MessageBody: '{"v":1}' }));
    const remote = notLoopback(flags);
    const commands = [
      ['erase', 'tenant-nokey', '--reason', 'GDPR 7', '--yes'],
      ['redrive'],
      ['audit-pseudonymise', '--yes'],
      ['retry', 'tenant-nokey', 'op-1', '--reason', 'mail log shows none', '--effect-did-not-happen'],
      ['show', 'tenant-nokey', 'op-1', '--payload'],
      ['console', '--port', '0'],
    ];

    // act
    const refused = [];
    for (const command of commands) refused.push(await cli(...command, ...remote));
    const bodyAfterRefusals = await admin.payloads.get(identity);
    const auditAfterRefusals = await auditTenants();
    const dlqAfterRefusals = await drainQueue(admin.sqs, admin.dlqUrl);
    const onLoopback = await cli('erase', 'tenant-nokey', '--reason', 'GDPR 7', '--yes', ...flags);

    // assert
    for (const result of refused) {
      expect(result.code).toBe(2);
      expect(result.err).toContain('--identifier-key-secret: required against AWS');
    }
    expect(bodyAfterRefusals).toMatchObject({ intact: true });
    expect(auditAfterRefusals).toEqual([]);
    expect(dlqAfterRefusals).toHaveLength(1);
    expect(onLoopback.code).toBe(0);
    expect(await admin.payloads.get(identity)).toBeUndefined();
    expect(await auditTenants()).toEqual([hashIdentifier('tenant-nokey', DEVELOPMENT_IDENTIFIER_KEY)]);
  });

  it('--stack of a stack without the IdentifierKeySecretArn output: refused (exit 2), nothing erased or audited', async () => {
    // prepare
    const identity = await seedTenant('tenant-old-stack');
    const before = await auditIds();

    // act
    const refused = await cli(
      ...['erase', 'tenant-old-stack', '--reason', 'GDPR 9', '--yes', '--stack', 'Keyless'],
      ...notLoopback(['--dynamodb-endpoint', engineEndpoints().dynamo, '--sqs-endpoint', engineEndpoints().sqs]),
    );

    // assert
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('stack Keyless has no IdentifierKeySecretArn output');
    expect(cloudFormation.described).toContain('Keyless');
    expect(await admin.payloads.get(identity)).toMatchObject({ intact: true });
    expect(await auditIds()).toEqual(before);
  });

  it("with --identifier-key-secret, or --stack of a stack that outputs it, the audit pseudonym is the admin function's", async (context) => {
    // Secrets Manager is a control-plane service: moto's server has it, dynalite does not.
    const { engineName, dynamo } = engineEndpoints();
    if (engineName !== 'moto') {
      const reason = `needs Secrets Manager, which ${engineName} lacks; runs in the moto lane (.ci/moto-lane)`;
      console.log(`[leasefence tests] SKIPPED "${context.task.name}": ${reason}`);
      context.skip(reason);
    }
    // prepare: the deployment's secret on moto, read by the CLI and the admin function through the SDK's own settings
    process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = dynamo;
    const secrets = new SecretsManagerClient({});
    const value = 'k3y-of-this-deployment-0123456789abcdef';
    const created = await secrets.send(new CreateSecretCommand({ Name: `cli-key-${Date.now()}`, SecretString: value }));
    secrets.destroy();
    const secretArn = created.ARN ?? '';
    await seedTenant('tenant-cli');
    const { dynamo: dynamodbEndpoint, sqs: sqsEndpoint } = engineEndpoints();
    const adminFunction = createAdminHandler({
      config: {
        jobsTable: admin.tables.jobsTable,
        payloadsTable: admin.tables.payloadsTable,
        queueUrl: admin.queueUrl,
        deadLetterQueueUrl: admin.dlqUrl,
        deadlineShards: admin.store.deadlines.shardCount,
        payloadRetentionDays: 30,
        dynamodbEndpoint,
        sqsEndpoint,
        identifierKeySecretArn: secretArn,
      },
    });

    // act: the same tenant erased by the CLI and by the admin function
    const before = new Set(await auditIds());
    const byCli = await cli(
      ...['erase', 'tenant-cli', '--reason', 'GDPR 8', '--yes', '--identifier-key-secret', secretArn],
      ...flags, // a key given is used on loopback engines too (moto answers on its loopback address only)
    );
    keyed.IdentifierKeySecretArn = secretArn;
    const byStack = await cli(
      ...['erase', 'tenant-cli', '--reason', 'GDPR 8', '--yes', '--stack', 'Keyed'],
      ...['--dynamodb-endpoint', dynamodbEndpoint, '--sqs-endpoint', sqsEndpoint],
    );
    const byFunction = await adminFunction(
      functionUrlEvent({ method: 'POST', path: '/tenants/tenant-cli/erase-payloads', body: { reason: 'GDPR 8' } }),
    );
    const written = (await listAuditRecords(admin.deps, { limit: 100 })).records.filter(
      (record) => !before.has(String(record.auditId)),
    );

    // assert: one pseudonym, under the deployment's key (not the public one), from both writers
    expect(byCli.err).toBe('');
    expect(byCli.code).toBe(0);
    expect(byStack.err).toBe('');
    expect(byStack.code).toBe(0);
    expect(byFunction).toMatchObject({ statusCode: 200 });
    expect(written.map((record) => String(record.actor).startsWith('cli:')).sort()).toEqual([false, true, true]);
    expect(written.map((record) => record.tenant)).toEqual(Array(3).fill(hashIdentifier('tenant-cli', value)));
    expect(hashIdentifier('tenant-cli', value)).not.toBe(hashIdentifier('tenant-cli', DEVELOPMENT_IDENTIFIER_KEY));
  });
});
