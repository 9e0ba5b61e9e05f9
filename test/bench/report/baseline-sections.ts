import type { RatioWithInterval } from '../handler/types.js';
import type { BundleReport } from '../scenarios/bundles.js';
import type { HandlerBatchReport } from '../scenarios/handler-batches.js';
import { initRatio, initRatioInterval, initShareAbove } from '../support/init-time.js';
import { RulesFloor } from '../support/rules-floor.js';
import { kb, num, table } from './format.js';

// `--baseline=<commit>` (support/baseline.ts): an earlier commit's worker timed in the same run as today's, in
// figures 5 and 9. Rendered only when the run had a baseline.

const PEER = 'powertools-idempotency';

/** `1.03 (0.98–1.07)`: a median ratio with its 95 % interval. */
function withInterval(value: RatioWithInterval | undefined): string {
  return value === undefined ? '–' : `${num(value.ratio, 2)} (${num(value.low, 2)}–${num(value.high, 2)})`;
}

/** Figure 5's comparison with the baseline's project worker: init ÷ peer, share above the floor, today ÷ baseline. */
function baselineInitSection(report: BundleReport | undefined): string {
  const baseline = report?.baseline;
  if (!report || !baseline) return '';
  const row = (name: string) => report.rows.find((candidate) => candidate.name === name);
  const today = row('worker');
  const base = row(baseline.label);
  const peer = row(PEER)?.initSdkExternal;
  const floor = row(RulesFloor.worker)?.initSdkExternal;
  const ratioOver = (mine: typeof today, theirs: typeof today) => {
    const ratio = initRatio(mine?.initSdkExternal, theirs?.initSdkExternal);
    const interval = initRatioInterval(mine?.initSdkExternal, theirs?.initSdkExternal);
    return ratio === undefined || interval === undefined ? undefined : { ratio, ...interval };
  };
  const share = (mine: typeof today) => {
    const above = initShareAbove(mine?.initSdkExternal, floor, peer);
    return above === undefined ? '–' : withInterval({ ratio: above.share, ...above.interval });
  };
  return [
    `**Against ${baseline.label}** (\`--baseline=${baseline.commit}\`): that commit's project worker (its examples/worker.ts and lib/, today's esbuild settings and node_modules), timed in the same rounds as the rows above. Ratios are medians of per-round ratios with their 95 % interval; the share is above \`${RulesFloor.worker}\`.`,
    '',
    table(
      ['worker', 'minified', 'init ÷ peer', 'share above the rules floor (init ÷ peer minus its)'],
      [
        [
          'worker (today)',
          today ? kb(today.sdkExternalBytes) : '–',
          withInterval(ratioOver(today, row(PEER))),
          share(today),
        ],
        [baseline.label, base ? kb(base.sdkExternalBytes) : '–', withInterval(ratioOver(base, row(PEER))), share(base)],
        [`today ÷ ${baseline.label}`, '', withInterval(ratioOver(today, base)), ''],
      ],
    ),
  ].join('\n');
}

/** Figure 9's comparison with the baseline's bench worker, fencing on: jobs/s and CPU per job, ÷ peer and today ÷ it. */
function baselineHandlerSection(report: HandlerBatchReport | undefined): string {
  const baseline = report?.baseline;
  if (!report || !baseline) return '';
  const rows = report.rows.filter((row) => row.baseline !== undefined);
  return [
    `**Against ${baseline.label}** (\`--baseline=${baseline.commit}\`): that commit's bench entry (test/bench/handler/leasefence-entry.ts and the messages its test/bench/support/jobs.ts builds), bundled with today's settings, in the same child and repetitions as the two others, fencing on. Today ÷ baseline is the median of per-repetition ratios with its 95 % interval (with few repetitions, the whole range).`,
    '',
    table(
      [
        'concurrent batches',
        `${baseline.label} jobs/s`,
        `${baseline.label} jobs/s ÷ peer`,
        `today jobs/s ÷ ${baseline.label}`,
        `${baseline.label} CPU ms/job`,
        `${baseline.label} CPU ÷ peer`,
        `today CPU ÷ ${baseline.label}`,
        `engine CPU ms/job today / ${baseline.label}`,
      ],
      rows.map((row) => [
        String(row.concurrency),
        num(row.baseline?.summary.jobsPerSecond),
        num(row.baseline?.jobsPerSecondRatio, 2),
        withInterval(row.baseline?.todayOverBaseline.jobsPerSecond),
        num(row.baseline?.summary.cpuMsPerJob, 2),
        num(row.baseline?.cpuPerJobRatio, 2),
        withInterval(row.baseline?.todayOverBaseline.cpuPerJob),
        `${num(row.leasefence.engineCpuMsPerJob, 2)} / ${num(row.baseline?.summary.engineCpuMsPerJob, 2)}`,
      ]),
    ),
  ].join('\n');
}

export { baselineHandlerSection, baselineInitSection };
