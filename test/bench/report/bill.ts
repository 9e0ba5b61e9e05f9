import type { Units } from '../scenarios/capacity.js';

// Figure 10 (issue #29 item 5): the whole bill per million jobs, DynamoDB + SQS + Lambda, from measured counts
// (figure 7's accountant units, figure 9's worker CPU per job) and published prices. Arithmetic only; the section
// renders it (bill-section.ts) and test/unit/bench/bill.test.ts checks it.

/** Published on-demand prices, one region, as read on one date (the section names both and the pages). */
interface Prices {
  region: string;
  readOn: string;
  dynamodb: { perMillionWru: number; perMillionRru: number };
  /** Standard queue, per million requests (each 64 KB chunk of a payload is one request). */
  sqs: { perMillionRequests: number };
  /** Arm (the construct's architecture): per million requests and per GB-second of duration. */
  lambda: { perMillionRequests: number; perGbSecond: number };
  sources: { dynamodb: string; sqs: string; lambda: string };
}

/**
 * us-east-1, first pricing tier, free tiers left out (they are per account, not per job). DynamoDB's WRU/RRU
 * prices are the run's `--price-wru` / `--price-rru` (same defaults), so figures 7 and 10 agree.
 */
const PUBLISHED_PRICES: Prices = {
  region: 'us-east-1 (US East, N. Virginia)',
  readOn: '2026-12-01',
  dynamodb: { perMillionWru: 0.625, perMillionRru: 0.125 },
  sqs: { perMillionRequests: 0.4 },
  lambda: { perMillionRequests: 0.2, perGbSecond: 0.0000133334 },
  sources: {
    dynamodb: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
    sqs: 'https://aws.amazon.com/sqs/pricing/',
    lambda: 'https://aws.amazon.com/lambda/pricing/',
  },
};

/**
 * How long a batch runs, per job: records of a batch run in parallel (both handlers' BatchProcessor), so its wall
 * time is one record's chain of DynamoDB round trips plus the job's own time, plus the CPU of all its records one
 * after another, stretched by the memory setting's share of a vCPU (Lambda gives one vCPU at 1,769 MB).
 */
interface DurationModel {
  /** One DynamoDB round trip from Lambda (DynamoDB's documented single-digit milliseconds). */
  requestLatencyMs: number;
  /** The job's own work outside DynamoDB (none: the benchmark job). */
  jobMs: number;
  /** Worker memory in MiB (the construct's workerMemorySize default). */
  memoryMb: number;
  /** Records per invocation (the construct's batchSize default; full batches assumed). */
  batchSize: number;
  /** MiB at which a function has one full vCPU. */
  fullVcpuAtMb: number;
}

/** What one path of one system spends per job, before prices. */
interface PathCounts {
  wru: number;
  rru: number;
  sqsRequests: number;
  lambdaRequests: number;
  lambdaGbSeconds: number;
}

/** Dollars per million jobs, by service. */
interface Bill {
  dynamodb: number;
  sqs: number;
  lambda: number;
  total: number;
}

/** Seconds of one batch whose records each make `roundTrips` DynamoDB requests and spend `cpuMsPerJob` of CPU. */
function batchSeconds(model: DurationModel, roundTrips: number, cpuMsPerJob: number): number {
  const cpuStretch = Math.max(1, model.fullVcpuAtMb / model.memoryMb);
  const wallMs = roundTrips * model.requestLatencyMs + model.jobMs + model.batchSize * cpuMsPerJob * cpuStretch;
  return wallMs / 1000;
}

/** GB-seconds per job of a batch (its duration × memory, shared by its records). */
function gbSecondsPerJob(model: DurationModel, roundTrips: number, cpuMsPerJob: number): number {
  return (batchSeconds(model, roundTrips, cpuMsPerJob) * (model.memoryMb / 1024)) / model.batchSize;
}

/** Prices applied to per-job counts: dollars per million jobs. */
function billPerMillion(counts: PathCounts, prices: Prices): Bill {
  const dynamodb = counts.wru * prices.dynamodb.perMillionWru + counts.rru * prices.dynamodb.perMillionRru;
  const sqs = counts.sqsRequests * prices.sqs.perMillionRequests;
  const lambda =
    counts.lambdaRequests * prices.lambda.perMillionRequests +
    counts.lambdaGbSeconds * 1_000_000 * prices.lambda.perGbSecond;
  return { dynamodb, sqs, lambda, total: dynamodb + sqs + lambda };
}

/** SQS requests per delivered message: one send, a batch's share of a receive and of a DeleteMessageBatch. */
function sqsPerMessage(batchSize: number): number {
  return 1 + 2 / batchSize;
}

/** The messages a path moves: sends, deliveries (receives, each one invocation's share) and deletes. */
interface MessageWork {
  sends: number;
  deliveries: number;
  deletes: number;
}

/** A delivered job message: sent once, received once, deleted once. */
const ONE_MESSAGE: MessageWork = { sends: 1, deliveries: 1, deletes: 1 };

/** Counts of a path: DynamoDB units (figure 7), its SQS messages, and the worker time it adds per record. */
function pathCounts(
  units: Pick<Units, 'wru' | 'rru'>,
  model: DurationModel,
  work: MessageWork & { roundTrips: number; cpuMsPerJob: number },
): PathCounts {
  const busy = work.roundTrips > 0 || work.cpuMsPerJob > 0 || model.jobMs > 0;
  return {
    wru: units.wru,
    rru: units.rru,
    sqsRequests: work.sends + (work.deliveries + work.deletes) / model.batchSize,
    lambdaRequests: work.deliveries / model.batchSize,
    lambdaGbSeconds: busy ? gbSecondsPerJob(model, work.roundTrips, work.cpuMsPerJob) : 0,
  };
}

export {
  type Bill,
  batchSeconds,
  billPerMillion,
  type DurationModel,
  gbSecondsPerJob,
  type MessageWork,
  ONE_MESSAGE,
  type PathCounts,
  type Prices,
  PUBLISHED_PRICES,
  pathCounts,
  sqsPerMessage,
};
