import { describe, expect, it } from 'vitest';
import { faultFor, parsePlan } from '../../../lib/fault-injection/plan.js';

const NOW = Date.UTC(2026, 11, 6);
const plan = {
  v: 1,
  runId: 'a1b2c3d4',
  expiresAt: NOW + 60_000,
  pauseMs: 5_000,
  copies: 3,
  faults: { stale: 'pause-after-claim', crash: 'crash-after-effect' },
};

describe('a check run fault plan: only the stack holds it; a message names a tenant, never a fault', () => {
  it("arms a fault only for the run's own tenants, by the label the check gave them", () => {
    const parsed = parsePlan(JSON.stringify(plan), NOW);
    if (!parsed) throw new Error('the plan did not parse');
    expect(faultFor(parsed, 'lfcheck-a1b2c3d4-0-stale')).toBe('pause-after-claim');
    expect(faultFor(parsed, 'lfcheck-a1b2c3d4-1-crash')).toBe('crash-after-effect');
    expect(faultFor(parsed, 'lfcheck-a1b2c3d4-0-replay')).toBe('observe');
  });

  it('leaves every other tenant untouched: a real one, another run, one that only looks like the run', () => {
    const parsed = parsePlan(JSON.stringify(plan), NOW);
    if (!parsed) throw new Error('the plan did not parse');
    for (const tenant of ['acme', 'lfcheck-ffffffff-0-stale', 'lfcheck-a1b2c3d4', 'xlfcheck-a1b2c3d4-0-stale']) {
      expect(faultFor(parsed, tenant)).toBeUndefined();
    }
  });

  it('honours no plan that expired, does not parse, or was disarmed', () => {
    expect(parsePlan(JSON.stringify(plan), plan.expiresAt)).toBeUndefined();
    expect(parsePlan('{"v":0}', NOW)).toBeUndefined();
    expect(parsePlan('not json', NOW)).toBeUndefined();
    expect(parsePlan(undefined, NOW)).toBeUndefined();
    expect(parsePlan(JSON.stringify({ ...plan, faults: { stale: 'delete-everything' } }), NOW)).toBeUndefined();
    expect(parsePlan(JSON.stringify({ ...plan, pauseMs: 3_600_000 }), NOW)).toBeUndefined();
  });
});
