import { describe, expect, it } from 'vitest';
import { findingsOf, ShadowFinding } from '../../../lib/shadow/findings.js';
import { buildShadowReport } from '../../../lib/shadow/report.js';
import type { ShadowExecution } from '../../../lib/store/shadow/shadow-requests.js';
import { buildShadowEnd, buildShadowStart } from '../../../lib/store/shadow/shadow-requests.js';

const done = (s: number, e: number, h = 'h1', o: 'succeeded' | 'failed' = 'succeeded'): ShadowExecution => ({
  s,
  l: s + 100,
  h,
  e,
  o,
});
const open = (s: number, h = 'h1'): ShadowExecution => ({ s, l: s + 100, h });

describe('shadow findings of one identity', () => {
  it('one execution, or a retry after a failure, is no finding', () => {
    expect([...findingsOf([done(0, 10)]).findings]).toEqual([]);
    expect([...findingsOf([done(0, 10, 'h1', 'failed'), done(20, 30)]).findings]).toEqual([]);
  });

  it('an execution that starts while an earlier one runs is concurrent; both succeeding ran twice', () => {
    const result = findingsOf([done(0, 50), done(20, 30)]);
    expect([...result.findings].sort()).toEqual([ShadowFinding.concurrent, ShadowFinding.ranTwice].sort());
  });

  it('a start inside the lease of an execution that never ended is concurrent; after the lease, undetermined', () => {
    expect([...findingsOf([open(0), done(50, 60)]).findings]).toEqual([ShadowFinding.concurrent]);
    const lapsed = findingsOf([open(0), done(150, 160)]);
    expect([...lapsed.findings]).toEqual([]);
    expect(lapsed.undetermined).toBe(true);
  });

  it('a start after a success is a replay not recognised; with another payload, a conflict', () => {
    expect([...findingsOf([done(0, 10), done(20, 30, 'h1', 'failed')]).findings]).toEqual([
      ShadowFinding.afterCompletion,
    ]);
    expect([...findingsOf([done(0, 10, 'h1', 'failed'), done(20, 30, 'h2')]).findings]).toEqual([
      ShadowFinding.payloadConflict,
    ]);
  });
});

describe('the shadow report', () => {
  const row = (operationId: string, executions: ShadowExecution[], jobType = 'refund') => ({
    tenantId: 'acme',
    operationId,
    jobType,
    fence: executions.length,
    executions,
    full: false,
  });

  it('counts findings by job type with examples', () => {
    const report = buildShadowReport({
      rows: [row('a', [done(0, 50), done(20, 30)]), row('b', [done(0, 10)]), row('c', [done(0, 10)], 'mail')],
      unreadable: 0,
      complete: true,
    });
    expect(report.verdict).toBe('findings');
    expect(report.doubleRuns).toBe(1);
    const refund = report.jobTypes.find((entry) => entry.jobType === 'refund');
    expect(refund?.counts[ShadowFinding.concurrent]).toBe(1);
    expect(refund?.examples[ShadowFinding.concurrent]).toEqual([{ tenantId: 'acme', operationId: 'a' }]);
    expect(report.jobTypes.map((entry) => entry.jobType)).toEqual(['mail', 'refund']);
  });

  it('says none recorded only when every row was read and every pair decided', () => {
    const clean = { rows: [row('b', [done(0, 10)])], unreadable: 0 };
    expect(buildShadowReport({ ...clean, complete: true }).verdict).toBe('none_recorded');
    expect(buildShadowReport({ ...clean, complete: false }).verdict).toBe('not_evaluated');
    expect(buildShadowReport({ ...clean, unreadable: 1, complete: true }).verdict).toBe('not_evaluated');
    const undecided = buildShadowReport({ rows: [row('d', [open(0), done(150, 160)])], unreadable: 0, complete: true });
    expect(undecided.verdict).toBe('not_evaluated');
    expect(undecided.notEvaluated.join(' ')).toMatch(/no recorded end/);
    const full = buildShadowReport({
      rows: [{ ...row('e', [done(0, 10)]), full: true }],
      unreadable: 0,
      complete: true,
    });
    expect(full.verdict).toBe('not_evaluated');
    expect(full.notEvaluated.join(' ')).toMatch(/cap of 100 recorded executions/);
    expect(full.jobTypes[0]?.notEvaluatedExamples).toEqual([{ tenantId: 'acme', operationId: 'e' }]);
  });
});

describe('shadow requests', () => {
  const identity = { tenantId: 'acme', operationId: 'refund-1' };

  it('a start is one conditional UpdateItem raising the fence and appending the execution', () => {
    const request = buildShadowStart('jobs', {
      identity,
      jobType: 'refund',
      payloadHash: 'abc',
      startedAt: 1_000,
      leaseMs: 30_000,
      retentionMs: 86_400_000,
    });
    expect(request.Key?.sk).toBe('shadow#refund-1');
    expect(request.UpdateExpression).toContain('ADD #fence :one');
    expect(request.UpdateExpression).toContain('#x = list_append(if_not_exists(#x, :empty), :execution)');
    expect(request.ConditionExpression).toBe('attribute_not_exists(#pk) OR (#kind = :shadow AND size(#x) < :max)');
    expect(request.ExpressionAttributeValues?.[':execution']).toEqual([{ s: 1_000, l: 31_000, h: 'abc' }]);
    expect(request.ReturnValues).toBe('UPDATED_NEW');
  });

  it('an end sets the end and outcome of the execution at fence - 1, only if it exists', () => {
    const request = buildShadowEnd('jobs', identity, 3, { endedAt: 5, outcome: 'failed' });
    expect(request.UpdateExpression).toBe('SET #x[2].#e = :endedAt, #x[2].#o = :outcome');
    expect(request.ConditionExpression).toBe('#kind = :shadow AND attribute_exists(#x[2].#s)');
  });
});
