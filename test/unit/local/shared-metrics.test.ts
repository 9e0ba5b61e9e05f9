import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clearSharedCounts, sharedCounter, sharedCounts } from '../../../infra/local/shared-metrics.js';
import { MetricName } from '../../../lib/metric-names.js';

describe("the local stack's shared worker counters (reports of other processes in <dir>/metrics)", () => {
  const run = { pid: 4242, startedAt: '2026-09-13T12:00:00.000Z' };
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'leasefence-shared-metrics-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("sums this run's reports, and ignores another run's reports and files that are not reports", async () => {
    // prepare: this process's report, another process's report for the same run, one of an earlier run, garbage
    const counter = sharedCounter(dir, run);
    counter.count(MetricName.Takeovers);
    counter.count(MetricName.StaleFenceRejected, 2);
    await counter.flush();
    await mkdir(join(dir, 'metrics'), { recursive: true });
    const report = (stackStartedAt: string, counts: Record<string, number>) =>
      JSON.stringify({ stackPid: run.pid, stackStartedAt, counts });
    await writeFile(join(dir, 'metrics', '1.json'), report(run.startedAt, { [MetricName.Takeovers]: 3 }));
    await writeFile(join(dir, 'metrics', '2.json'), report('2026-09-12T00:00:00.000Z', { [MetricName.Takeovers]: 50 }));
    await writeFile(join(dir, 'metrics', '3.json'), '{"stackPid": 4242, "stackSta');

    // act
    const counts = await sharedCounts(dir, run);

    // assert
    expect(counts).toEqual({ [MetricName.Takeovers]: 4, [MetricName.StaleFenceRejected]: 2 });
  });

  it('a flush replaces the earlier report of the same process (counts are totals, not added twice)', async () => {
    const counter = sharedCounter(dir, run);
    counter.count(MetricName.Claims);
    await counter.flush();
    counter.count(MetricName.Claims);
    await counter.flush();
    expect(await sharedCounts(dir, run)).toEqual({ [MetricName.Claims]: 2 });
  });

  it('counts nothing without reports, and nothing after they are cleared', async () => {
    expect(await sharedCounts(dir, run)).toEqual({});
    const counter = sharedCounter(dir, run);
    counter.count(MetricName.Claims);
    await counter.flush();
    await clearSharedCounts(dir);
    expect(await sharedCounts(dir, run)).toEqual({});
  });
});
