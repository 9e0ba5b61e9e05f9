import { describe, expect, it } from 'vitest';
import { main } from '../../../infra/cli/main.js';
import { engineEndpoints } from '../../support/engine.js';
import { captureIo } from '../../unit/cli/io.js';

const FIXTURES = 'test/integration/cli/fixtures';
const onEngine = () => ['--dynamodb-endpoint', engineEndpoints().dynamo];

async function check(...args: string[]) {
  const io = captureIo();
  const code = await main(['check', ...args], io);
  return { code, out: io.stdout(), err: io.stderr() };
}

describe('leasefence check: go/no-go from the scenarios run now', () => {
  it('exits 1 with each known-bad job type NO-GO on its control, the unfenced path named', async () => {
    const { code, out } = await check('--jobs', `${FIXTURES}/known-bad-module.ts`, ...onEngine());
    expect(code).toBe(1);
    expect(out).toMatch(/raw-client-write {2}class B {2}▶ NO-GO \(failed: [0-9, ]*4/);
    expect(out).toContain('unfenced path: PutItem on lf-check-known-bad');
    expect(out).toMatch(/reconcile-never-finds {2}class C {2}▶ NO-GO \(failed: [0-9, ]*6/);
    expect(out).toMatch(/class-d-with-retries {2}class D {2}▶ NO-GO \(failed: [0-9, ]*5\b/);
    expect(out).toMatch(/record-shared-by-operations {2}class B {2}▶ NO-GO \(failed: [0-9, ]*5/);
  });

  it('a job type with concurrency limits is judged like any other: its scenarios hold slots and release them, GO', async () => {
    const { code, out } = await check('--jobs', `${FIXTURES}/limited-module.ts`, '--json', ...onEngine());
    const parsed = JSON.parse(out) as {
      go: boolean;
      jobTypes: Array<{
        jobType: string;
        verdict: string;
        controls: Array<{ id: number; status: string; evidence: string }>;
      }>;
    };
    expect(parsed.jobTypes.map((job) => [job.jobType, job.verdict])).toEqual([['limited-order', 'GO']]);
    expect(parsed.jobTypes[0]?.controls.filter((control) => control.status !== 'PASS')).toEqual([]);
    expect(code).toBe(0);
  });

  it('control 7: a job type with no owner and no alert route is NO-GO on 7 alone, named, with what is missing', async () => {
    const { code, out } = await check('--jobs', `${FIXTURES}/unowned-module.ts`, '--json', ...onEngine());
    expect(code).toBe(1);
    const parsed = JSON.parse(out) as {
      go: boolean;
      jobTypes: Array<{
        jobType: string;
        verdict: string;
        controls: Array<{ id: number; status: string; evidence: string }>;
      }>;
    };
    expect(parsed.go).toBe(false);
    expect(parsed.jobTypes.map((job) => [job.jobType, job.verdict])).toEqual([['good-order', 'NO-GO']]);
    const failed = parsed.jobTypes[0]?.controls.filter((control) => control.status !== 'PASS');
    expect(failed).toEqual([
      expect.objectContaining({ id: 7, status: 'FAIL', evidence: 'missing: owner, alertRoute' }),
    ]);
  });

  it('--json carries every control with its status, evidence and scenarios', async () => {
    const { code, out } = await check('--jobs', `${FIXTURES}/good-module.ts`, '--json', ...onEngine());
    expect(code).toBe(0);
    const parsed = JSON.parse(out) as {
      go: boolean;
      jobTypes: Array<{
        jobType: string;
        verdict: string;
        unfencedWrites: unknown[];
        scenarios: Array<{ id: string; status: string; evidence: Record<string, unknown> }>;
        controls: Array<{ id: number; status: string; evidence: string; scenarios: string[] }>;
      }>;
    };
    expect(parsed.go).toBe(true);
    const [job] = parsed.jobTypes;
    expect(job?.verdict).toBe('GO');
    expect(job?.unfencedWrites).toEqual([]);
    expect(job?.controls.map((control) => [control.id, control.status])).toEqual(
      [1, 2, 3, 4, 5, 6, 7, 8, 9].map((id) => [id, 'PASS']),
    );
    expect(job?.controls[2]?.scenarios).toEqual(['duplicate-delivery']);
    expect(job?.controls[2]?.evidence).toContain('1 claim and 1 effect from 4 deliveries');
    const duplicate = job?.scenarios.find((scenario) => scenario.id === 'duplicate-delivery');
    expect(duplicate?.evidence).toMatchObject({ deliveries: 4, claims: 1, effects: 1 });
  });

  it('checks the example jobs by default: refund and statement GO; inventory GO only where transactions run', async () => {
    const { code, out } = await check(...onEngine());
    expect(out).toContain('refund-settlement  class C  ▶ GO');
    expect(out).toContain('statement-publication  class B  ▶ GO');
    expect(out).toContain(
      'schedules: none declared (the jobs module exports no `schedules`), so no duplicate-tick scenario',
    );
    if (engineEndpoints().transactions) {
      expect(out).toContain('inventory-reservation  class A  ▶ GO');
      expect(code).toBe(0);
    } else {
      expect(out).toContain('inventory-reservation  class A  ▶ NOT EVALUATED');
      expect(out).toContain('not evaluated: engine lacks TransactWriteItems');
      expect(code).toBe(1);
    }
  });

  it("successors and schedules: the chain and its successor's type GO, the tick one job; a schedule of no job type NOT EVALUATED (exit 1)", async () => {
    const { code, out } = await check('--jobs', `${FIXTURES}/chain-module.ts`, ...onEngine());
    expect(out).toContain('chain-order  class B  ▶ GO');
    expect(out).toContain('chain-invoice  class B  ▶ GO');
    expect(out).toContain('successor-stale passed, successor-takeover passed, duplicate-tick passed');
    expect(out).toContain('schedules: nightly-orders (chain-order), orphan (not-in-module)');
    expect(out).toContain(
      'schedule orphan ▶ NOT EVALUATED: it enqueues job type not-in-module, which the jobs module does not define',
    );
    expect(out).toContain('job type(s): schedule orphan NOT EVALUATED');
    expect(code).toBe(1);
  });

  it('a job type without sample payloads is NOT EVALUATED (exit 1), saying what to export', async () => {
    const { code, out } = await check('--jobs', `${FIXTURES}/no-samples-module.ts`, ...onEngine());
    expect(code).toBe(1);
    expect(out).toContain('good-order  class B  ▶ NOT EVALUATED');
    expect(out).toContain("not evaluated: no sample payload (export conformance.samplePayloads['good-order'])");
  });

  it('--inventory lists job types by class and reversibility, irreversible first, running nothing', async () => {
    const { code, out } = await check('--inventory');
    expect(code).toBe(0);
    const lines = out.split('\n');
    expect(lines[0]).toMatch(/^TYPE +CLASS +REVERSIBILITY +OWNER +ALERT ROUTE +APPROVAL$/);
    expect(lines[1]).toMatch(/^refund-settlement +C +irreversible +payments-team +pagerduty:payments +none$/);
    expect(lines.slice(2).every((line) => line.includes('reversible'))).toBe(true);
  });

  it('exits 2 on usage errors, naming the problem', async () => {
    const missing = await check('--jobs', `${FIXTURES}/no-such-module.ts`);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('--jobs: cannot load');
    const badUrl = await check('--dynamodb-endpoint', 'not a url');
    expect(badUrl.code).toBe(2);
    // Requests are observed through a loopback proxy (Host rewritten): AWS itself would refuse their signatures.
    const aws = await check('--dynamodb-endpoint', 'https://dynamodb.eu-west-1.amazonaws.com');
    expect(aws.code).toBe(2);
    expect(aws.err).toContain('not on AWS');
    const badSample = await check('--jobs', `${FIXTURES}/bad-sample-module.ts`, ...onEngine());
    expect(badSample.code).toBe(2);
    expect(badSample.err).toContain("sample payload 0 fails the job's schema");
  });
});
