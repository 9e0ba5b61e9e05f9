import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { median, percentile } from './stats.js';

/** A bundle whose cold invocation is timed: the environment it runs with and the SQS record body of run `n`. */
interface ColdInvocationTarget {
  name: string;
  file: string;
  env: Record<string, string>;
  body: (run: number) => string;
}

/** Median and p90 of one phase over the runs, in ms. */
interface PhaseTime {
  medianMs: number;
  p90Ms: number;
  /** Every run's value, in round order: run i of every bundle was taken in the same round. */
  samples: number[];
}

/** A bundle's cold invocations: module init, the first event, both together, and the CPU of both. */
interface ColdInvocation {
  name: string;
  init: PhaseTime;
  firstEvent: PhaseTime;
  total: PhaseTime;
  /** CPU (user + system) of import + first event, as Lambda bills a cold start's work. */
  cpu: PhaseTime;
  runs: number;
}

const RESULT_MARK = 'cold-invocation-result ';

/**
 * Runs in a fresh process: imports the bundle, then hands its handler one SQS event of one record, as the event
 * source mapping delivers it (a Lambda-like context included); prints the phases. A failed record is an error.
 */
const INVOCATION_PROBE = `
const [file, body] = process.argv.slice(1);
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const { handler } = await import(file);
const t1 = performance.now();
const record = {
  messageId: crypto.randomUUID(), receiptHandle: 'cold', body, md5OfBody: '', eventSource: 'aws:sqs',
  eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:bench', awsRegion: 'us-east-1', messageAttributes: {},
  attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(Date.now()), SenderId: 'bench',
    ApproximateFirstReceiveTimestamp: String(Date.now()) },
};
const context = { awsRequestId: crypto.randomUUID(), functionName: 'bench', functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:bench', memoryLimitInMB: '1024',
  logGroupName: 'bench', logStreamName: 'bench', callbackWaitsForEmptyEventLoop: true,
  getRemainingTimeInMillis: () => 60000, done() {}, fail() {}, succeed() {} };
const response = await handler({ Records: [record] }, context);
const t2 = performance.now();
const cpu = process.cpuUsage(cpu0);
if (response?.batchItemFailures?.length) throw new Error('the record failed: ' + JSON.stringify(response));
process.stdout.write('\\n${RESULT_MARK}' + JSON.stringify({ init: t1 - t0, firstEvent: t2 - t1, cpu: (cpu.user + cpu.system) / 1000 }) + '\\n');
process.exit(0);
`;

interface Sample {
  init: number;
  firstEvent: number;
  cpu: number;
}

function invokeOnce(target: ColdInvocationTarget, run: number): Sample {
  const result = spawnSync(
    process.execPath,
    ['--no-warnings', '--input-type=module', '-e', INVOCATION_PROBE, pathToFileURL(target.file).href, target.body(run)],
    { env: { PATH: process.env.PATH ?? '', ...target.env }, encoding: 'utf8', timeout: 60_000 },
  );
  const line = result.stdout.split('\n').find((candidate) => candidate.startsWith(RESULT_MARK));
  if (result.status !== 0 || !line) {
    throw new Error(`cold invocation of ${target.name} failed: ${result.stderr.slice(-800)}`);
  }
  return JSON.parse(line.slice(RESULT_MARK.length)) as Sample;
}

function phase(values: number[]): PhaseTime {
  return { medianMs: median(values), p90Ms: percentile(values, 90), samples: values };
}

/**
 * A Lambda-like cold invocation of each bundle: `runs` fresh `node` processes per bundle, round-robin (so
 * background load falls on all alike, every other round in reverse order), after one discarded warm-up each (run -1); `body(run)` gives each run a
 * job identity of its own, so every first event does the whole work (no replay).
 */
function measureColdInvocations(targets: readonly ColdInvocationTarget[], runs: number): ColdInvocation[] {
  const samples = new Map<string, Sample[]>(targets.map((target) => [target.name, []]));
  for (const target of targets) invokeOnce(target, -1);
  for (let round = 0; round < runs; round += 1) {
    const order = round % 2 === 0 ? targets : [...targets].reverse();
    for (const target of order) samples.get(target.name)?.push(invokeOnce(target, round));
  }
  return targets.map((target) => {
    const values = samples.get(target.name) ?? [];
    return {
      name: target.name,
      init: phase(values.map((sample) => sample.init)),
      firstEvent: phase(values.map((sample) => sample.firstEvent)),
      total: phase(values.map((sample) => sample.init + sample.firstEvent)),
      cpu: phase(values.map((sample) => sample.cpu)),
      runs: values.length,
    };
  });
}

export { type ColdInvocation, type ColdInvocationTarget, measureColdInvocations, type PhaseTime };
