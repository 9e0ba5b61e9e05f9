import { afterAll, describe, expect, it } from 'vitest';
import { killAll, runCli } from '../../support/cli-runner.js';
import { engineEndpoints } from '../../support/engine.js';

// The six job modules of issue 23, each as a team would write it, run through the real CLI (`leasefence check
// --jobs <module> --json`, a process of its own): five that an earlier `check` rated GO although they are unsafe,
// and the natural class C job it rated NO-GO.
const CASES = 'test/integration/cli/fixtures/cases';
const CLI_TIMEOUT_MS = 240_000;

interface Control {
  id: number;
  status: string;
  evidence: string;
  remedy?: string;
}
interface Report {
  jobType: string;
  verdict: string;
  samples: number;
  effectCounting?: string;
  scenarios: Array<{ id: string; sample: number; status: string; detail: string; evidence: Record<string, unknown> }>;
  unfencedWrites: Array<{ table: string; call: string; scenario: string; sample: number; source: string }>;
  reconcileFindings: Array<{ kind: string; scenario: string; attempt: number }>;
  controls: Control[];
}

/**
 * `leasefence check --jobs <module> --json` on the test engine: the exit code and the one job type's report.
 * `env` is the developer's shell (e.g. DYNAMODB_ENDPOINT pointing at the engine itself).
 */
async function check(
  module: string,
  env: Record<string, string> = {},
): Promise<{ code: number | null; report: Report }> {
  const run = await runCli(['check', '--jobs', module, '--json', '--dynamodb-endpoint', engineEndpoints().dynamo], {
    timeoutMs: CLI_TIMEOUT_MS,
    env,
  });
  if (run.stderr.trim()) throw new Error(`check wrote to stderr:\n${run.stderr}`);
  const parsed = JSON.parse(run.stdout) as { go: boolean; jobTypes: Report[] };
  const [report] = parsed.jobTypes;
  if (!report || parsed.jobTypes.length !== 1) throw new Error(`expected one job type:\n${run.stdout}`);
  expect(parsed.go).toBe(report.verdict === 'GO');
  return { code: run.code, report };
}

const failed = (report: Report) => report.controls.filter((control) => control.status === 'FAIL');
const control = (report: Report, id: number) => report.controls.find((candidate) => candidate.id === id);

/** A NO-GO that says what to change: every failed control has evidence and a one-line remedy. */
function expectActionable(report: Report): void {
  expect(report.verdict).toBe('NO-GO');
  for (const found of failed(report)) {
    expect(found.evidence.length, `control ${found.id}`).toBeGreaterThan(0);
    expect(found.remedy, `control ${found.id} names no remedy`).toMatch(/\S/);
    expect(found.remedy).not.toContain('\n');
  }
}

describe('leasefence check cannot be fooled (issue 23), each case a job module through the CLI with --json', () => {
  afterAll(() => killAll());

  it('1. writes through a DynamoDB client the job builds itself: NO-GO on control 4, the stale double credit seen', async () => {
    // The shell points DYNAMODB_ENDPOINT straight at the engine, as a developer's does; the module reads it at import.
    const { code, report } = await check(`${CASES}/own-client.ts`, { DYNAMODB_ENDPOINT: engineEndpoints().dynamo });
    expect(code).toBe(1);
    expectActionable(report);
    expect(control(report, 4)?.status).toBe('FAIL');
    expect(control(report, 4)?.evidence).toContain(
      'unfenced path: UpdateItem on lf-case-ledger from a DynamoDB client the job built itself',
    );
    expect(control(report, 4)?.remedy).toContain('write this record with ctx.records');
    expect(report.unfencedWrites.every((write) => write.source === 'process')).toBe(true);
    const stale = report.scenarios.filter((scenario) => scenario.id === 'stale-resume');
    expect(stale.map((scenario) => scenario.status)).toEqual(['failed', 'failed']);
    expect(stale[0]?.detail).toContain('the stale attempt changed lf-case-ledger');
  });

  it("2. the same write through a class B job's declared provider: NO-GO on control 4, the provider's client named", async () => {
    const { code, report } = await check(`${CASES}/provider-on-class-b.ts`);
    expect(code).toBe(1);
    expectActionable(report);
    expect(control(report, 4)?.status).toBe('FAIL');
    expect(control(report, 4)?.evidence).toContain("UpdateItem on lf-case-ledger from the provider's client");
    expect(control(report, 4)?.remedy).toContain("the provider's client writes lf-case-ledger unfenced");
    expect(report.unfencedWrites.every((write) => write.source === 'provider')).toBe(true);
  });

  it('3. only the third sample takes an unfenced path: every sample ran, NO-GO on control 4 naming sample 3', async () => {
    const { code, report } = await check(`${CASES}/unfenced-sample.ts`);
    expect(code).toBe(1);
    expectActionable(report);
    expect(report.samples).toBe(3);
    expect(new Set(report.scenarios.map((scenario) => scenario.sample))).toEqual(new Set([1, 2, 3]));
    expect(control(report, 4)?.status).toBe('FAIL');
    expect(control(report, 4)?.evidence).toContain('(sample 3)');
    expect(report.unfencedWrites.length).toBeGreaterThan(0);
    expect(report.unfencedWrites.every((write) => write.sample === 3 && write.call === 'PutItem')).toBe(true);
  });

  it('4. an unfenced write on the last attempt only: every attempt reached, NO-GO on control 4 alone', async () => {
    const { code, report } = await check(`${CASES}/last-attempt.ts`);
    expect(code).toBe(1);
    expectActionable(report);
    expect(failed(report).map((found) => found.id)).toEqual([4]);
    expect(report.unfencedWrites.every((write) => write.scenario === 'every-attempt')).toBe(true);
    const attempts = report.scenarios.filter((scenario) => scenario.id === 'every-attempt');
    expect(attempts.map((scenario) => scenario.evidence.runOnAttempts)).toEqual(['1, 2, 3', '1, 2, 3']);
  });

  it('5. reconcile answers done without looking: NO-GO on control 6 with the evidence that no charge existed', async () => {
    const { code, report } = await check(`${CASES}/reconcile-says-done.ts`);
    expect(code).toBe(1);
    expectActionable(report);
    expect(control(report, 6)?.status).toBe('FAIL');
    expect(control(report, 6)?.evidence).toContain('reconcile answered done while the provider held no effect');
    expect(control(report, 6)?.evidence).toContain('no charge() call had taken effect');
    expect(control(report, 6)?.remedy).toContain('reconcile must look the effect up by ctx.idempotencyKey');
    expect(report.reconcileFindings).toContainEqual(
      expect.objectContaining({ kind: 'done_without_effect', scenario: 'stale-resume', attempt: 2 }),
    );
  });

  it("6. the README's class C job (keyed provider, lookup-based reconcile) is GO, effects counted by key", async () => {
    const { code, report } = await check('test/readme/class-c.ts');
    expect(report.controls.map((found) => [found.id, found.status, found.remedy ?? null])).toEqual(
      [1, 2, 3, 4, 5, 6, 7, 8, 9].map((id) => [id, 'PASS', null]),
    );
    expect(report.verdict).toBe('GO');
    expect(code).toBe(0);
    expect(report.effectCounting).toContain('distinct idempotency key');
    expect(control(report, 5)?.evidence).toContain('effects counted by distinct idempotency key');
    // The paused holder wakes in lease doubt: its charge is refused before the provider is called.
    const stale = report.scenarios.filter((scenario) => scenario.id === 'stale-resume');
    expect(stale.map((scenario) => [scenario.evidence.staleAttempt, scenario.evidence.effects])).toEqual([
      ['lease_in_doubt', 1],
      ['lease_in_doubt', 1],
    ]);
  });
});
