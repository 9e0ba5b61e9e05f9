import { afterAll, describe, expect, it } from 'vitest';
import { killAll, startCommand } from '../../support/cli-runner.js';

describe('leasefence interrupted by a signal', () => {
  afterAll(() => killAll());

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('check ends on %s with exit %i, saying it is NOT EVALUATED', async (signal, exitCode) => {
    // prepare: a check whose job is running and never finishes
    const check = startCommand(['check', '--jobs', 'test/integration/cli/fixtures/hanging-module.ts']);
    await check.waitFor(/hangs: run started/, 120_000);

    // act
    const code = await check.stop(signal);

    // assert
    expect(code).toBe(exitCode);
    expect(check.output()).toContain(`leasefence check: interrupted by ${signal} before it finished; NOT EVALUATED`);
    expect(check.output()).not.toMatch(/▶ GO|all GO/);
  });
});
