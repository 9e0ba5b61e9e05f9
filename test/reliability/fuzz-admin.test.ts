import { GetQueueAttributesCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAuditRecords } from '../../lib/admin/audit.js';
import { type AdminResponse, handleAdminRequest } from '../../lib/admin/router.js';
import { payloadHash } from '../../lib/hashing.js';
import { PayloadStore } from '../../lib/store/payloads/payloads.js';
import { type AdminFixture, createAdminFixture } from '../support/admin.js';
import { budget, runSeed } from './support/chaos-mode.js';
import { adminRequestArbitrary } from './support/fuzz/admin-requests.js';
import { type SeededRows, seedRowsInEveryState } from './support/fuzz/seeded-rows.js';
import { ReliabilityReport } from './support/report.js';

const TENANT = 'fz';
const BATCH = 25;

/** Problems with one answer: a status outside the allowed set, or a body that is not a typed JSON error. */
function problems(response: AdminResponse, allowed: readonly number[]): string[] {
  const found: string[] = [];
  if (!allowed.includes(response.statusCode)) found.push(`status ${response.statusCode}`);
  const body = response.body as { error?: unknown; message?: unknown; issues?: unknown };
  let roundTrip: unknown;
  try {
    roundTrip = JSON.parse(JSON.stringify(response.body));
  } catch (error) {
    found.push(`body is not JSON: ${(error as Error).message}`);
  }
  if (roundTrip === undefined || typeof roundTrip !== 'object') found.push('body is not a JSON object');
  if (response.statusCode >= 400 && (typeof body.error !== 'string' || typeof body.message !== 'string')) {
    found.push('error body without error and message');
  }
  if (response.statusCode === 400) {
    const issues = body.issues as Array<{ path?: unknown; message?: unknown }> | undefined;
    const named = Array.isArray(issues) && issues.length > 0 && issues.every((issue) => typeof issue.path === 'string');
    if (!named) found.push('400 without the offending field');
  }
  return found;
}

/**
 * Generated admin requests — wrong methods, unknown and badly encoded paths, hostile ids (`#`, controls,
 * bidi and zero-width marks, lookalikes, lone surrogates, huge), bad queries, cursors and bodies, unknown
 * fields, empty actors — and hostile but valid text on missing items, through the pure router.
 */
describe('fuzzed admin requests through the router', () => {
  const report = new ReliabilityReport(__filename);
  let fixture: AdminFixture;
  let seeded: SeededRows;
  let payloads: PayloadStore;

  beforeAll(async () => {
    fixture = await createAdminFixture('rel-fuzz-admin');
    seeded = await seedRowsInEveryState(fixture.client, fixture.tables.jobsTable, TENANT, fixture.clock.now());
    payloads = new PayloadStore(fixture.client, fixture.tables.payloadsTable, fixture.clock);
    for (const operationId of seeded.operations) {
      await payloads.put({ tenantId: TENANT, operationId }, { operationId }, payloadHash({ operationId }));
    }
    for (let index = 0; index < 3; index += 1) {
      await fixture.sqs.send(new SendMessageCommand({ QueueUrl: fixture.dlqUrl, MessageBody: `dead-${index}` }));
    }
  });
  afterAll(async () => {
    await report.publish();
    await fixture.close();
  });

  async function depth(queueUrl: string): Promise<number> {
    const { Attributes } = await fixture.sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: queueUrl,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    return (
      Number(Attributes?.ApproximateNumberOfMessages ?? 0) +
      Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0)
    );
  }

  it(
    `answers ${budget.adminRequests} requests with 400/404/405 JSON errors (never 500), and changes nothing`,
    async () => {
      const seed = runSeed();
      console.log(`[leasefence reliability] admin fuzz seed ${seed} (replay: LEASEFENCE_SEED=${seed})`);
      const before = await seeded.snapshot();
      const rowsBefore = await seeded.workRows();
      const statuses: Record<string, number> = {};
      const failures: string[] = [];
      let malformed = 0;

      for (let batch = 0; batch * BATCH < budget.adminRequests; batch += 1) {
        const cases = fc.sample(adminRequestArbitrary(TENANT, seeded.operations), {
          seed: seed + batch,
          numRuns: BATCH,
        });
        const responses = await Promise.all(
          cases.map((generated) =>
            handleAdminRequest(generated.request, fixture.deps).catch(
              (error: Error): AdminResponse => ({ statusCode: -1, body: { threw: error.name } }),
            ),
          ),
        );
        for (const [index, response] of responses.entries()) {
          const generated = cases[index];
          if (!generated) continue;
          if (generated.malformed) malformed += 1;
          const key = `${generated.malformed ? 'malformed' : 'valid'}:${response.statusCode}`;
          statuses[key] = (statuses[key] ?? 0) + 1;
          for (const problem of problems(response, generated.allowed)) {
            failures.push(`${generated.category}: ${problem} ${JSON.stringify(response.body).slice(0, 200)}`);
          }
        }
      }

      report.add('badInputs', malformed);
      report.add('invariantViolations', failures.length);
      console.log(
        `[leasefence reliability] admin fuzz: ${budget.adminRequests} requests (${malformed} malformed), statuses ${JSON.stringify(statuses)}`,
      );
      expect(failures.slice(0, 5)).toEqual([]);
      expect(await seeded.snapshot()).toEqual(before);
      expect(await seeded.workRows()).toEqual(rowsBefore);
      expect((await listAuditRecords(fixture.deps)).records).toEqual([]);
      expect(await depth(fixture.queueUrl)).toBe(0);
      expect(await depth(fixture.dlqUrl)).toBe(3);
      for (const operationId of seeded.operations) {
        expect(await payloads.get({ tenantId: TENANT, operationId })).toBeDefined();
      }
    },
    budget.testTimeoutMs,
  );

  // Regression: decodeCursor once checked scope, attribute names and the pinned partition but not the key values'
  // types and sizes, so DynamoDB rejected the start key with ValidationException and the router answered 500.
  it('answers a forged cursor (right scope, wrong key values) with 400, not 500', async () => {
    const page = await handleAdminRequest(
      { method: 'GET', path: '/items', query: { state: 'unknown', limit: '1' }, actor: 'arn:aws:iam::1:user/a' },
      fixture.deps,
    );
    const cursor = String(page.body.cursor);
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as {
      s: string;
      k: Record<string, unknown>;
    };
    const forge = (k: Record<string, unknown>) =>
      Buffer.from(JSON.stringify({ s: decoded.s, k }), 'utf8').toString('base64url');
    const forged = [
      { ...decoded.k, parkedAt: 'yesterday' },
      { ...decoded.k, pk: '' },
      { ...decoded.k, sk: 'x'.repeat(2_048) },
      { ...decoded.k, pk: 7 },
    ].map(forge);

    const answers = await Promise.all(
      forged.map((candidate) =>
        handleAdminRequest(
          {
            method: 'GET',
            path: '/items',
            query: { state: 'unknown', cursor: candidate },
            actor: 'arn:aws:iam::1:user/a',
          },
          fixture.deps,
        ),
      ),
    );

    expect(cursor).not.toBe('undefined');
    expect(answers.map((answer) => answer.statusCode)).toEqual([400, 400, 400, 400]);
  });
});
