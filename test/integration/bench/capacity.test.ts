import type { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CapacityReport, measureCapacity } from '../../bench/scenarios/capacity.js';
import { type BenchEngine, startBenchEngine } from '../../bench/support/bench-engine.js';
import { createTestQueue, testSqsClient } from '../../support/engine.js';

/**
 * The capacity targets of issue #14, counted by the accountant (DynamoDB's billing rules applied to the item
 * images before and after each request), never timed: happy path ≤ 4 WRU with indexes, a heartbeat 1 WRU and
 * no index write, example rows ≤ 1 KB, and the accountant agrees with every unit the engine reports.
 */
describe('capacity units per job (accountant, DynamoDB rules)', () => {
  let engine: BenchEngine;
  let sqs: SQSClient;
  let report: CapacityReport;
  const row = (situation: string) => {
    const found = report.rows.find((candidate) => candidate.situation.startsWith(situation));
    if (!found) throw new Error(`no row ${situation}`);
    return found;
  };

  beforeAll(async () => {
    engine = await startBenchEngine();
    sqs = testSqsClient();
    const { queueUrl } = await createTestQueue(sqs, 'capacity');
    report = await measureCapacity(engine, { sqs, queueUrl });
  });
  afterAll(async () => {
    sqs.destroy();
    await engine.stop();
  });

  // Each scenario runs on a fresh store, whose first row creation reads the fence epoch row (one consistent
  // GetItem, 1 RRU); a long-lived store reads it once per 5 s, not per job.
  it('happy path: 4 WRU including the deadline index (claim put + completion delete), the fence epoch read', () => {
    expect(row('happy path, payloadRef').leasefence).toEqual({ wru: 4, rru: 1, indexWru: 2 });
    expect(row('happy path, payloadRef').peer).toEqual({ wru: 2, rru: 0, indexWru: 0 });
  });

  it('a delayed job: the queued row (index put), the claim that moves the index key, the completion', () => {
    expect(row('delayed job').leasefence).toEqual({ wru: 7, rru: 1, indexWru: 4 });
  });

  it('confirm-first: the body and the queued row before the wake-up, 3 WRU more than the inline two-write path', () => {
    const confirm = row('confirm-first enqueue').leasefence;
    const inline = row('happy path, inline payload').leasefence;
    // Its reads are fence-epoch reads, which depend on each store's 5 s cache: the writes are the figure.
    expect(confirm).toMatchObject({ wru: 8, indexWru: 4 });
    expect((confirm?.wru ?? 0) - (inline?.wru ?? 0)).toBe(3);
  });

  it('a body carried in the message costs what the inline two-write path costs: the put moves to the worker, one read stays', () => {
    const carried = row('inline payload carried in the message').leasefence;
    const inline = row('happy path, inline payload').leasefence;
    expect({ wru: carried?.wru, indexWru: carried?.indexWru }).toEqual({
      wru: inline?.wru,
      indexWru: inline?.indexWru,
    });
    expect({ wru: carried?.wru, indexWru: carried?.indexWru }).toEqual({ wru: 5, indexWru: 2 });
    // Reads: the worker's one consistent read of the identity's payload slot before the row (a different body there
    // is a conflict, nothing written), as the inline path reads its body; the fence epoch row is cached per period.
    expect(carried?.rru).toBe(inline?.rru);
  });

  it('each heartbeat: 1 WRU on the row, no index write', () => {
    expect(row('each heartbeat').leasefence).toEqual({ wru: 1, rru: 0, indexWru: 0 });
  });

  it('each retry: queueing the row again and the re-claim each move the deadline index key (row 1 + index 2)', () => {
    expect(row('each retry').leasefence).toEqual({ wru: 6, rru: 0, indexWru: 4 });
  });

  it('a replay costs one failed conditional write; a takeover moves the index key once', () => {
    expect(row('replay').leasefence).toEqual({ wru: 1, rru: 1, indexWru: 0 });
    expect(row('takeover').leasefence).toEqual({ wru: 6, rru: 1, indexWru: 3 });
  });

  it('the sweeper: a fixed read cost per run, then a bounded write cost per item', () => {
    expect(row('sweep run').leasefence?.wru).toBe(0);
    expect(row('sweep, per expired claim').leasefence).toMatchObject({ wru: 3, indexWru: 2 });
    // One failed conditional write (the lease is live) + moving the index deadline (row 1 + index 2).
    expect(row('sweep, per heartbeating claim').leasefence).toMatchObject({ wru: 4, indexWru: 2 });
  });

  it('example-like work rows stay within one write unit (1 KB) through claim, steps and completion', () => {
    expect(report.rowBytes.length).toBeGreaterThan(6);
    expect(Math.max(...report.rowBytes)).toBeLessThanOrEqual(1_024);
  });

  it('agrees with every table unit the engine reports (ReturnConsumedCapacity INDEXES)', () => {
    console.log(
      `[capacity] engine-reported units checked: ${report.engineChecked} (${report.engineCheckedCommands.join(', ')})`,
    );
    expect(report.engineChecked).toBeGreaterThan(0);
    expect(report.engineMismatches).toBe(0);
  });
});
