import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { type ControlEvidence, deriveControls, verdictOf } from '../../../infra/testing/controls.js';
import { ScenarioId, type ScenarioResult } from '../../../infra/testing/scenario-support.js';
import { defineJob } from '../../../lib/job-definition.js';

const job = defineJob({
  type: 'order',
  version: 1,
  target: 'B',
  owner: 'team',
  alertRoute: 'pager',
  payload: z.object({ id: z.string() }),
  run: async () => ({ outcomeCode: 'ok' }),
});

const passed = (id: ScenarioId, evidence: ScenarioResult['evidence'] = {}, sample = 1): ScenarioResult => ({
  id,
  title: id,
  sample,
  status: 'passed',
  detail: `${id} passed`,
  remedies: [],
  evidence,
});

/** Every scenario passed, nothing leaked: the baseline each test breaks in one place. */
function allGood(): ControlEvidence {
  return {
    job,
    scenarios: [
      ...Object.values(ScenarioId)
        .filter(
          (id) =>
            id !== ScenarioId.providerTimeout && id !== ScenarioId.changedPayload && id !== ScenarioId.crashAfterEffect,
        )
        .map((id) => passed(id)),
      passed(ScenarioId.changedPayload, { conflict: 'quarantined:payload_conflict' }),
      passed(ScenarioId.crashAfterEffect, { crashedAttempt: 'not acked' }),
    ],
    unfencedWrites: [],
    reconcileFindings: [],
    effectCalls: 0,
    effects: 0,
    privacyLeaks: [],
    rowsScanned: 3,
    logEventsScanned: 9,
  };
}

const statuses = (evidence: ControlEvidence) => deriveControls(evidence).map((control) => control.status);
const replace = (evidence: ControlEvidence, result: ScenarioResult): ControlEvidence => ({
  ...evidence,
  scenarios: evidence.scenarios.map((scenario) => (scenario.id === result.id ? result : scenario)),
});
const failed = (id: ScenarioId, detail: string): ScenarioResult => ({
  ...passed(id),
  status: 'failed',
  detail,
  remedies: [`fix ${id}`],
});

describe('deriveControls: each control follows its own evidence, none is a constant', () => {
  it('all nine PASS (GO) only when every scenario passed and nothing leaked', () => {
    expect(statuses(allGood())).toEqual(Array(9).fill('PASS'));
    expect(verdictOf(deriveControls(allGood()))).toBe('GO');
  });

  it.each([
    [ScenarioId.collidingIds, [1]],
    [ScenarioId.duplicateDelivery, [3]],
    [ScenarioId.staleResume, [4, 5]],
    [ScenarioId.everyAttempt, [4]],
    [ScenarioId.sharedRecord, [5]],
    [ScenarioId.lostCompletion, [6]],
    [ScenarioId.receiptCrash, [8]],
    [ScenarioId.successorStale, [4]],
    [ScenarioId.successorTakeover, [4]],
    [ScenarioId.duplicateTick, [1]],
  ])('a failed %s fails exactly controls %j, quoting the scenario and its remedy', (id, controls) => {
    const derived = deriveControls(replace(allGood(), failed(id, 'it went wrong')));
    expect(derived.filter((control) => control.status === 'FAIL').map((control) => control.id)).toEqual(controls);
    for (const control of derived.filter((candidate) => candidate.status === 'FAIL')) {
      expect(control.evidence).toContain(`${id}: it went wrong`);
      expect(control.remedy).toBe(`fix ${id}`);
    }
    expect(derived.filter((control) => control.status === 'PASS').every((control) => !control.remedy)).toBe(true);
  });

  it('an unfenced write fails control 4 naming table, call, client and scenario, with the remedy for its client', () => {
    const derived = deriveControls({
      ...allGood(),
      unfencedWrites: [
        { table: 'orders', call: 'PutItem', scenario: 'stale-resume', sample: 1, source: 'process', count: 2 },
        { table: 'orders', call: 'PutItem', scenario: 'every-attempt', sample: 1, source: 'process', count: 1 },
      ],
    });
    expect(derived[3]).toMatchObject({ status: 'FAIL' });
    expect(derived[3]?.evidence).toContain(
      'unfenced path: PutItem on orders from a DynamoDB client the job built itself, 3× in stale-resume, every-attempt',
    );
    expect(derived[3]?.remedy).toContain('write this record with ctx.records.put');
    const viaProvider = deriveControls({
      ...allGood(),
      unfencedWrites: [
        { table: 'ledger', call: 'UpdateItem', scenario: 'stale-resume', sample: 1, source: 'provider', count: 1 },
      ],
    });
    expect(viaProvider[3]?.remedy).toContain("the provider's client writes ledger unfenced");
  });

  it('over several samples the evidence names the sample a failure came from', () => {
    const evidence = allGood();
    const derived = deriveControls({
      ...evidence,
      scenarios: [
        ...evidence.scenarios,
        passed(ScenarioId.duplicateDelivery, {}, 2),
        { ...failed(ScenarioId.duplicateDelivery, '2 claims'), sample: 3 },
      ],
    });
    expect(derived[2]).toMatchObject({ status: 'FAIL', evidence: 'duplicate-delivery (sample 3): 2 claims' });
  });

  it('a reconcile the provider contradicts fails control 6 (only), naming scenario and attempt, with its remedy', () => {
    const classC = {
      ...job,
      target: 'C' as const,
      provider: { create: () => ({}), effects: ['charge'], keyRetentionMs: 86_400_000 },
      reconcile: async () => ({ status: 'not_done' as const }),
    };
    const derived = deriveControls({
      ...allGood(),
      job: classC,
      effectCalls: 2,
      effects: 2,
      reconcileFindings: [
        { kind: 'done_without_effect', scenario: 'stale-resume', sample: 1, worker: 'B', attempt: 2, held: 0 },
      ],
    });
    expect(derived.filter((control) => control.status === 'FAIL').map((control) => control.id)).toEqual([6]);
    expect(derived[5]?.evidence).toContain('reconcile answered done while the provider held no effect');
    expect(derived[5]?.evidence).toContain('no charge() call had taken effect');
    expect(derived[5]?.evidence).toContain('(stale-resume attempt 2)');
    expect(derived[5]?.remedy).toContain('reconcile must look the effect up by ctx.idempotencyKey');
    expect(derived[4]?.evidence).toContain('effects counted by distinct idempotency key');
  });

  it('a skipped scenario makes its controls NOT EVALUATED, and the verdict is never GO', () => {
    const skipped = { ...passed(ScenarioId.duplicateDelivery), status: 'skipped' as const, detail: 'no engine' };
    const derived = deriveControls(replace(allGood(), skipped));
    expect(derived[2]).toMatchObject({ status: 'NOT EVALUATED', evidence: 'duplicate-delivery: no engine' });
    expect(verdictOf(derived)).toBe('NOT EVALUATED');
  });

  it('a duplicate tick or a successor scenario not evaluated keeps the job type from GO (controls 1 and 4)', () => {
    const tick = { ...passed(ScenarioId.duplicateTick), status: 'skipped' as const, detail: 'no transactions' };
    const stale = { ...passed(ScenarioId.successorStale), status: 'skipped' as const, detail: 'no transactions' };
    const derived = deriveControls(replace(replace(allGood(), tick), stale));
    expect(derived[0]).toMatchObject({ status: 'NOT EVALUATED', evidence: 'duplicate-tick: no transactions' });
    expect(derived[3]).toMatchObject({ status: 'NOT EVALUATED', evidence: 'successor-stale: no transactions' });
    expect(verdictOf(derived)).toBe('NOT EVALUATED');
  });

  it('control 7 names a missing owner and alert route; control 9 a leak; control 8 an acknowledged crash', () => {
    const anonymous = { ...job, owner: undefined, alertRoute: undefined };
    expect(deriveControls({ ...allGood(), job: anonymous })[6]).toMatchObject({
      evidence: 'missing: owner, alertRoute',
      remedy: expect.stringContaining('set owner and alertRoute'),
    });
    const leaked = deriveControls({ ...allGood(), privacyLeaks: ['log event "claimed" holds a raw tenant id'] });
    expect(leaked[8]).toMatchObject({ status: 'FAIL', evidence: 'log event "claimed" holds a raw tenant id' });
    const acked = replace(allGood(), passed(ScenarioId.crashAfterEffect, { crashedAttempt: 'succeeded' }));
    expect(deriveControls(acked)[7]).toMatchObject({ status: 'FAIL' });
  });

  it('class C/D need a declared provider whose effect calls were seen', () => {
    const classC = { ...job, target: 'C' as const, reconcile: async () => ({ status: 'not_done' as const }) };
    expect(deriveControls({ ...allGood(), job: classC })[4]?.evidence).toContain('declares no provider client');
    const declared = { ...classC, provider: { create: () => ({}), effects: ['charge'], keyRetentionMs: 60_000 } };
    expect(deriveControls({ ...allGood(), job: declared })[4]?.evidence).toContain('no call to the declared provider');
    expect(deriveControls({ ...allGood(), job: declared, effectCalls: 3 })[4]?.status).toBe('PASS');
  });

  it('class C needs its provider key retention window: without one control 5 fails (never GO); with one it is printed', () => {
    const classC = { ...job, target: 'C' as const, reconcile: async () => ({ status: 'not_done' as const }) };
    const unstated = { ...classC, provider: { create: () => ({}), effects: ['charge'] } };
    const stated = { ...classC, provider: { ...unstated.provider, keyRetentionMs: 86_400_000 } };

    const without = deriveControls({ ...allGood(), job: unstated, effectCalls: 3 });
    const withWindow = deriveControls({ ...allGood(), job: stated, effectCalls: 3 });

    expect(without[4]).toMatchObject({ status: 'FAIL', evidence: expect.stringContaining('no key retention window') });
    expect(without[4]?.remedy).toContain('keyRetentionMs');
    expect(withWindow[4]).toMatchObject({
      status: 'PASS',
      evidence: expect.stringContaining('provider keeps keys 1d'),
    });
  });
});
