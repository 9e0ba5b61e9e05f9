import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createExampleJobs } from '../../../functions/jobs/index.js';
import { checkControls, type DefinitionLike } from '../../../infra/cli/controls.js';
import { main } from '../../../infra/cli/main.js';
import { captureIo } from './io.js';

/** A complete, valid class B definition to break one field at a time. */
const base: DefinitionLike = {
  type: 'hand-built',
  version: 1,
  target: 'B',
  maxAttempts: 3,
  leaseMs: 30_000,
  retry: { baseDelayMs: 1_000, maxDelayMs: 60_000 },
  payload: z.object({ id: z.string() }),
  run: async () => ({ outcomeCode: 'ok' }),
};

const failed = (definition: DefinitionLike) =>
  checkControls(definition)
    .filter((control) => control.status === 'FAIL')
    .map((control) => control.id);

describe('go/no-go controls (leasefence check)', () => {
  it('passes all nine controls for every example job, with the target class recorded', () => {
    for (const job of createExampleJobs('examples') as unknown as DefinitionLike[]) {
      const controls = checkControls(job);
      expect(controls.map((control) => control.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(controls.every((control) => control.status === 'PASS')).toBe(true);
      expect(controls[4]?.evidence).toContain(`target class ${String(job.target)} recorded`);
    }
  });

  it('fails the control a hand-built definition lacks, naming it, and only that one', () => {
    expect(failed({ ...base, target: 'C' })).toEqual([6]);
    expect(checkControls({ ...base, target: 'C' })[5]?.evidence).toContain('defines no reconcile()');
    expect(failed({ ...base, target: 'C', reconcile: async () => ({ status: 'not_done' }) })).toEqual([]);
    expect(failed({ ...base, target: 'D' })).toEqual([6]);
    expect(failed({ ...base, target: 'D', maxAttempts: 1 })).toEqual([]);
    expect(failed({ ...base, target: undefined })).toEqual([5, 6]);
    expect(failed({ ...base, payload: { parse: () => ({}) } })).toEqual([2]);
    expect(failed({ ...base, maxAttempts: 0 })).toEqual([6, 7]);
  });

  it('names evidence test files that exist in the repository', () => {
    const files = new Set(checkControls(base).flatMap((control) => control.tests));
    expect(files.size).toBeGreaterThan(10);
    for (const file of files) expect(existsSync(file), file).toBe(true);
  });

  it('check --jobs loads a module of hand-built definitions and exits 1 with NO-GO', async () => {
    const io = captureIo();
    expect(await main(['check', '--jobs', 'test/unit/cli/fixtures/unsafe-jobs.ts'], io)).toBe(1);
    expect(io.stdout()).toContain('refund-without-reconcile  class C  ▶ NO-GO (failed: 6)');
    expect(io.stdout()).toContain('notify-without-key  class D  ▶ NO-GO (failed: 6)');
    expect(io.stdout()).not.toContain('(missing)');
  });
});
