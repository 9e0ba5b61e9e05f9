import { describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../../lib/document-client.js';
import { InvalidInputError } from '../../../lib/errors.js';
import { createSqsClient } from '../../../lib/sqs-client.js';
import { OperatorStore } from '../../../lib/store/operator/operator-store.js';
import { liveLeaseExpiry } from '../../../lib/sweeper/page.js';
import { sweep } from '../../../lib/sweeper/sweeper.js';
import { expectRejection } from '../../support/expectations.js';

const NOW = 1_767_225_600_000;

describe('the sweeper decisions', () => {
  it('a live lease is the observed claim (same fence, same index deadline) with a lease not yet expired', () => {
    const observed = { fence: 4, deadlineAt: NOW - 5 };
    const current = { state: 'claimed', fence: 4, deadlineAt: NOW - 5, leaseExpiresAt: NOW + 30_000 };
    expect(liveLeaseExpiry(current, observed, NOW)).toBe(NOW + 30_000);
    expect(liveLeaseExpiry({ ...current, leaseExpiresAt: NOW - 1 }, observed, NOW)).toBeUndefined();
    expect(liveLeaseExpiry({ ...current, fence: 5 }, observed, NOW)).toBeUndefined();
    expect(liveLeaseExpiry({ ...current, deadlineAt: NOW }, observed, NOW)).toBeUndefined();
    expect(liveLeaseExpiry({ ...current, state: 'queued' }, observed, NOW)).toBeUndefined();
    expect(liveLeaseExpiry(undefined, observed, NOW)).toBeUndefined();
  });

  it('refuses bad options before any request', async () => {
    const unreachable = { endpoint: 'http://127.0.0.1:9', maxAttempts: 1 };
    const store = new OperatorStore({ client: createDocumentClient(unreachable), tableName: 'never' });
    const sqs = createSqsClient(unreachable);
    const error = await expectRejection(sweep({ store, sqs, queueUrl: 'x', maxItemsPerRun: 0 }), InvalidInputError);
    expect(error.issues).toEqual([expect.objectContaining({ path: 'maxItemsPerRun' })]);
    await expectRejection(sweep({ store, sqs, queueUrl: 'x', shards: 8, cursor: { shard: -1 } }), InvalidInputError);
  });
});
