import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { killAll, ROOT, runCli } from '../../support/cli-runner.js';

/** `leasefence runbook`: generated from the jobs module, one section per job type. */
describe('leasefence runbook', () => {
  afterAll(() => killAll());

  it('writes, per example job type, its owner and route, honest claim, parked states, commands and the generation check', async () => {
    const run = await runCli(['runbook', '--format', 'md'], { timeoutMs: 60_000 });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('## statement-publication');
    expect(run.stdout).toContain('- Owner: statements-team');
    expect(run.stdout).toContain('- Alert route: slack:#statements-oncall');
    expect(run.stdout).toContain('Target class B: an older claim never overwrites a newer one');
    for (const state of ['unknown', 'quarantined', 'failed_terminal'])
      expect(run.stdout).toContain(`\`leasefence ls --state ${state}\``);
    expect(run.stdout).toMatch(/writer_epoch`: equal to the fence/);
  });

  it('names a missing owner and route as what check control 7 fails on', async () => {
    const module = join(ROOT, 'test/integration/cli/fixtures/unowned-module.ts');
    const run = await runCli(['runbook', '--jobs', module], { timeoutMs: 60_000 });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('- Owner: **none** (check control 7 fails until one is named)');
    expect(run.stdout).toContain('- Alert route: **none** (check control 7 fails until one is named)');
  });

  it('refuses an unknown format', async () => {
    const run = await runCli(['runbook', '--format', 'pdf'], { timeoutMs: 60_000 });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--format/);
  });
});
