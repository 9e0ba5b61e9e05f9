import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../lib/clock.js';
import { InvalidInputError } from '../../../lib/errors.js';
import { StepLedger } from '../../../lib/fenced/steps.js';
import { FencedTransactions } from '../../../lib/fenced/transaction.js';
import type { SharedWrite } from '../../../lib/fenced/transaction-requests.js';
import { WorkItemStore } from '../../../lib/store/work-item-store.js';
import { parseLeaseDuration } from '../../../lib/store/work-items/schemas.js';
import type { Claim } from '../../../lib/store/work-items/work-item.js';
import { silentTelemetry } from '../../../lib/telemetry.js';
import { AttemptAbort } from '../../../lib/worker/attempt-abort.js';
import { buildJobContext } from '../../../lib/worker/job-context.js';
import { LeaseKeeper } from '../../../lib/worker/lease-keeper.js';
import { claimFixture } from '../../support/claim-fixture.js';

const decrement: SharedWrite = {
  kind: 'update',
  tableName: 'inventory',
  key: { sku: 'sku-1' },
  add: { count: -1 },
  where: { count: { ge: 1 } },
};

/** A client that accepts every write and names each command it was sent (the engine's answer is not under test). */
function acceptingClient(): { client: DynamoDBDocumentClient; sent: string[] } {
  const sent: string[] = [];
  const client = {
    send: async (command: { constructor: { name: string } }) => {
      sent.push(command.constructor.name);
      return {};
    },
  } as unknown as DynamoDBDocumentClient;
  return { client, sent };
}

/** When the manual clock starts; the fixtures' leases run a minute past it (a lease in doubt would refuse every step). */
const CLOCK_START = Date.UTC(2026, 4, 1);
const LEASE_VALID = { leaseExpiresAt: CLOCK_START + 60_000 };

/** A job context on a store with a manual clock, as the worker builds it. */
function contextFor(claim: Claim = claimFixture({ fence: 3, ...LEASE_VALID })) {
  const { client, sent } = acceptingClient();
  const clock = new ManualClock(CLOCK_START);
  const store = new WorkItemStore({ client, tableName: 'jobs', clock });
  const keeper = new LeaseKeeper({
    store,
    claim,
    leaseMs: parseLeaseDuration(30_000),
    intervalMs: 0,
    telemetry: silentTelemetry,
    onOwnershipLost: () => {},
  });
  const ctx = buildJobContext({
    store,
    client,
    claim,
    payload: {},
    abort: new AttemptAbort(),
    keeper,
  });
  return { ctx, sent, clock };
}

describe('one step API: ctx.step and ctx.transactions.runStep share one ledger', () => {
  it('a step done by ctx.step is skipped by runStep, with no request, and carries the injected clock time', async () => {
    const { ctx, sent, clock } = contextFor();
    clock.advance(1_234);

    await expect(ctx.step('reserve', async () => ({ reserved: 1 }))).resolves.toEqual({ reserved: 1 });
    expect(sent).toEqual(['UpdateItemCommand']);

    const outcome = await ctx.transactions.runStep('reserve', [decrement]);
    expect(outcome).toEqual({
      status: 'skipped',
      result: { reserved: 1 },
      record: { fence: 3, at: Date.UTC(2026, 4, 1) + 1_234, result: { reserved: 1 } },
    });
    expect(ctx.transactions.isDone('reserve')).toBe(true);
    expect(sent).toEqual(['UpdateItemCommand']);
  });

  it('a step done by runStep is not run again by ctx.step, which returns the recorded result', async () => {
    const { ctx, sent } = contextFor();
    await expect(ctx.transactions.runStep('reserve', [decrement], { result: { reserved: 2 } })).resolves.toEqual({
      status: 'applied',
      result: { reserved: 2 },
    });
    let runs = 0;
    const result = await ctx.step('reserve', async () => {
      runs += 1;
      return { reserved: 99 };
    });
    expect(result).toEqual({ reserved: 2 });
    expect(runs).toBe(0);
    expect(sent).toEqual(['TransactWriteItemsCommand']);
  });

  it('the step record written by runStep carries the injected clock time, read once', async () => {
    const claim = claimFixture({ fence: 3, ...LEASE_VALID });
    const ledger = new StepLedger(claim);
    const { client } = acceptingClient();
    const clock = new ManualClock(5_000);
    const store = new WorkItemStore({ client, tableName: 'jobs', clock });
    const tx = new FencedTransactions({ store, client, claim, steps: ledger });
    await tx.runStep('reserve', [decrement]);
    expect(ledger.get('reserve')).toEqual({ fence: 3, at: 5_000, result: null });
  });

  it('a step recorded by an earlier holder is skipped by both APIs', async () => {
    const claim = claimFixture({
      fence: 4,
      ...LEASE_VALID,
      steps: { reserve: { fence: 3, at: 1, result: { reserved: 1 } } },
    });
    const { ctx, sent } = contextFor(claim);
    await expect(ctx.step('reserve', async () => ({ reserved: 5 }))).resolves.toEqual({ reserved: 1 });
    await expect(ctx.transactions.runStep('reserve', [decrement])).resolves.toMatchObject({ status: 'skipped' });
    expect(sent).toEqual([]);
  });

  it('both APIs refuse the same bad names before running anything or sending a request', async () => {
    const { ctx, sent } = contextFor();
    let runs = 0;
    for (const name of ['', 'notify customer', 'a'.repeat(65), 'step/1']) {
      await expect(
        ctx.step(name, async () => {
          runs += 1;
        }),
      ).rejects.toBeInstanceOf(InvalidInputError);
      await expect(ctx.transactions.runStep(name, [decrement])).rejects.toBeInstanceOf(InvalidInputError);
    }
    expect(runs).toBe(0);
    expect(sent).toEqual([]);
  });

  it('both APIs refuse a result over 16 KB of UTF-8, counted in bytes (not characters), nothing recorded', async () => {
    const { ctx, sent } = contextFor();
    // 6,000 three-byte characters: 6,002 characters of JSON but 18,002 bytes.
    const wide = '€'.repeat(6_000);
    await expect(ctx.step('wide', async () => wide)).rejects.toBeInstanceOf(InvalidInputError);
    await expect(ctx.transactions.runStep('wide', [decrement], { result: wide })).rejects.toBeInstanceOf(
      InvalidInputError,
    );
    expect(sent).toEqual([]);
    expect(ctx.transactions.isDone('wide')).toBe(false);
  });
});
