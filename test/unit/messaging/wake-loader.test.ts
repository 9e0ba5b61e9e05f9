import { describe, expect, it, vi } from 'vitest';
import { sendWakeSignals } from '../../../lib/messaging/wake.js';

const QUEUE_URL = 'https://sqs.us-east-1.amazonaws.com/000000000000/jobs';
const SUBJECT = {
  tenantId: 'tenant-a',
  operationId: 'op-1',
  jobType: 'refund',
  jobVersion: 1,
  payloadHash: 'a'.repeat(64),
  payloadRef: 'ref-1',
};

describe('sendWakeSignals with a client loader (the sweeper loads SQS on its first wake-up)', () => {
  it('never calls the loader when there is nothing to wake', async () => {
    const loader = vi.fn(() => Promise.reject(new Error('must not load')));

    const report = await sendWakeSignals(loader, QUEUE_URL, []);

    expect(report).toEqual({ sent: 0, failed: 0 });
    expect(loader).not.toHaveBeenCalled();
  });

  it('counts every wake-up as failed, and does not throw, when the client cannot be loaded', async () => {
    const loader = vi.fn(() => Promise.reject(new Error('SDK missing')));

    const report = await sendWakeSignals(loader, QUEUE_URL, [SUBJECT, { ...SUBJECT, operationId: 'op-2' }]);

    expect(report).toEqual({ sent: 0, failed: 2, lastError: { name: 'Error', message: 'SDK missing' } });
    expect(loader).toHaveBeenCalledTimes(1);
  });
});
