import type { SQSClient } from '@aws-sdk/client-sqs';
import type { AdminDeps } from '../../lib/admin/deps.js';
import { type AdminResponse, handleAdminRequest } from '../../lib/admin/router.js';
import { ManualClock } from '../../lib/clock.js';
import type { WorkState } from '../../lib/states.js';
import { PayloadStore } from '../../lib/store/payloads/payloads.js';
import { createTestQueue, createTestTables, type TestTables, testSqsClient } from './engine.js';
import { newIdentity, putWorkItem } from './factories.js';
import { TEST_CALLER_ARN } from './function-url-event.js';
import { type StoreFixture, storeFixture } from './store.js';

/** One admin API on fresh tables and queues, with a call helper that goes through the pure router. */
interface AdminFixture extends StoreFixture {
  tables: TestTables;
  sqs: SQSClient;
  queueUrl: string;
  dlqUrl: string;
  deps: AdminDeps;
  /** The payloads table's store on the fixture's clock (bodies a test stores or checks). */
  payloads: PayloadStore;
  call(
    method: string,
    path: string,
    options?: { query?: Record<string, string>; body?: unknown; actor?: string },
  ): Promise<AdminResponse>;
  /** Puts a row in `state` (fence 5, attempts 3) for a new identity of `tenantId`, parked `parkedAgoMs` ago. */
  seed(state: WorkState, tenantId?: string, parkedAgoMs?: number): ReturnType<typeof putWorkItem>;
  close(): Promise<void>;
}

/** Creates tables, a queue with its DLQ and the admin deps (DLQ short polls: the engine is in-process). */
async function createAdminFixture(prefix: string): Promise<AdminFixture> {
  const tables = await createTestTables(prefix);
  const sqs = testSqsClient();
  const { queueUrl, dlqUrl } = await createTestQueue(sqs, prefix);
  const fixture = storeFixture(tables.jobsTable, { clock: new ManualClock() });
  const deps: AdminDeps = {
    store: fixture.store,
    sqs,
    queueUrl,
    deadLetterQueueUrl: dlqUrl,
    payloadsTable: tables.payloadsTable,
    dlqWaitTimeSeconds: 0,
  };
  return {
    ...fixture,
    tables,
    sqs,
    queueUrl,
    dlqUrl,
    deps,
    payloads: new PayloadStore(fixture.client, tables.payloadsTable, fixture.clock),
    call: (method, path, options = {}) =>
      handleAdminRequest(
        {
          method,
          path,
          query: options.query ?? {},
          ...(options.body !== undefined
            ? { body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) }
            : {}),
          actor: options.actor ?? TEST_CALLER_ARN,
        },
        deps,
      ),
    seed: (state, tenantId = 'tenant-a', parkedAgoMs = 0) =>
      putWorkItem(fixture.client, tables.jobsTable, {
        identity: newIdentity(tenantId),
        state,
        now: fixture.clock.now() - parkedAgoMs,
        overrides: { fence: 5, attempts: 3 },
      }),
    close: async () => {
      await tables.drop();
      sqs.destroy();
    },
  };
}

export { type AdminFixture, createAdminFixture };
