import type { BundleReport } from '../scenarios/bundles.js';
import type { PhaseTime } from '../support/cold-invocation.js';
import { pairedRatio } from '../support/stats.js';
import { num, table } from './format.js';

const PEER = 'powertools-idempotency';

function medianP90(time: PhaseTime): string {
  return `${num(time.medianMs)} / ${num(time.p90Ms)}`;
}

/** Figure 5's second table: a Lambda-like cold invocation (import + first handled SQS event), worker and peer. */
function coldInvocationSection(report: BundleReport | undefined): string {
  const rows = report?.coldInvocation ?? [];
  const peer = rows.find((row) => row.name === PEER);
  const ratio = (mine: PhaseTime, theirs: PhaseTime | undefined) => {
    const value = theirs ? pairedRatio(mine.samples, theirs.samples) : undefined;
    return value === undefined ? '–' : num(value, 2);
  };
  return [
    '### 5b. Lambda-like cold invocation: import + first handled SQS event',
    '',
    "A fresh `node` process imports the bundle and hands its handler one SQS event of one record with a Lambda-like context, against dynalite in its own process (both systems reach it through `AWS_ENDPOINT_URL_DYNAMODB`). leasefence: the construct's worker handler (`createSqsWorkerHandler`) running the benchmark job (test/bench/bundle/leasefence-handler.ts: claim, run, fenced completion), its payload schema in zod classic and, in a second row, in `zod/mini` (leasefence-handler-mini.ts); peer: the handler of the table above (idempotency record written and completed). Both return without a side effect of their own, bundled with the construct's settings, the AWS SDK external. Not included: the identifier-key read (the worker's first event in Lambda reads its Secrets Manager secret once; there is no local Secrets Manager engine, so the development key stands in). Both run with the construct's `NODE_OPTIONS` (`--enable-source-maps`). CPU = user + system of the whole process from import to response. Round-robin (every other round reversed), a new job identity per run; ÷ peer is the median of the per-round ratios.",
    '',
    table(
      [
        'handler',
        'init ms median / p90',
        'first event ms median / p90',
        'import + first event ms median / p90',
        '÷ peer',
        'CPU ms median / p90',
        'CPU ÷ peer',
      ],
      rows.map((row) => [
        row.name,
        medianP90(row.init),
        medianP90(row.firstEvent),
        medianP90(row.total),
        ratio(row.total, peer?.total),
        medianP90(row.cpu),
        ratio(row.cpu, peer?.cpu),
      ]),
    ),
    '',
    `Cold invocations per handler: ${rows[0]?.runs ?? 0}.`,
  ].join('\n');
}

export { coldInvocationSection };
