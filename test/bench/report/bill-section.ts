import { resolveProps } from '../../../infra/construct/props.js';
import type { CapacityReport, Units } from '../scenarios/capacity.js';
import type { HandlerBatchReport } from '../scenarios/handler-batches.js';
import {
  type Bill,
  billPerMillion,
  type DurationModel,
  type MessageWork,
  ONE_MESSAGE,
  type PathCounts,
  type Prices,
  PUBLISHED_PRICES,
  pathCounts,
  sqsPerMessage,
} from './bill.js';
import { num, table } from './format.js';
import type { BenchResults } from './results.js';

/** Worker CPU per job when figure 9 did not run (a stated guess, named in the section). */
const DEFAULT_CPU_MS_PER_JOB = 1;

/** One line of the bill: a path, and what it costs each system per million (undefined: the system has no such path). */
interface BillLine {
  path: string;
  how: string;
  leasefence: { counts: PathCounts; bill: Bill } | undefined;
  peer: { counts: PathCounts; bill: Bill } | undefined;
}

/** The construct's defaults the bill depends on (one home: infra/construct/props.ts). */
function constructModel(): DurationModel {
  const defaults = resolveProps({ workerEntry: 'worker.ts' });
  return {
    requestLatencyMs: 5,
    jobMs: 0,
    memoryMb: defaults.workerMemorySize,
    batchSize: defaults.batchSize,
    fullVcpuAtMb: 1_769,
  };
}

/** Worker CPU per job of each system: figure 9's protocol rows at the highest concurrency, else the default. */
function cpuPerJob(handler: HandlerBatchReport | undefined): { leasefence: number; peer: number; source: string } {
  const rows = handler?.rows.filter((row) => row.mode === 'protocol') ?? [];
  const row = rows.at(-1);
  if (!row)
    return {
      leasefence: DEFAULT_CPU_MS_PER_JOB,
      peer: DEFAULT_CPU_MS_PER_JOB,
      source: 'a stated 1 ms (figure 9 did not run)',
    };
  return {
    leasefence: row.leasefence.cpuMsPerJob,
    peer: row.peer.cpuMsPerJob,
    source: `figure 9, protocol only, ${row.concurrency} concurrent batches (this machine's CPU, not Lambda's)`,
  };
}

const NONE: Units = { wru: 0, rru: 0, indexWru: 0 };
const NO_MESSAGE: MessageWork = { sends: 0, deliveries: 0, deletes: 0 };

/** What a path adds besides DynamoDB units: its messages, round trips per record, and whether the job runs again. */
interface Work {
  messages: MessageWork;
  roundTrips: number;
  /** The worker's CPU of one more job (a new attempt). */
  cpu: boolean;
  /** The job's own time again (a new attempt); else only the added round trips. */
  job: boolean;
}

function minus(a: Units, b: Units): Units {
  return { wru: a.wru - b.wru, rru: a.rru - b.rru, indexWru: a.indexWru - b.indexWru };
}

/** Every line of the bill, from figure 7's rows (by situation) and the model. */
function billLines(
  capacity: CapacityReport,
  handler: HandlerBatchReport | undefined,
  prices: Prices,
  shadow?: Units,
): BillLine[] {
  const model = constructModel();
  const extraModel = { ...model, jobMs: 0 };
  const cpu = cpuPerJob(handler);
  const units = (system: 'leasefence' | 'peer', prefix: string) =>
    capacity.rows.find((row) => row.situation.startsWith(prefix))?.[system];
  const line = (system: 'leasefence' | 'peer', measured: Units | undefined, work: Work) => {
    if (!measured) return undefined;
    const counts = pathCounts(measured, work.job ? model : extraModel, {
      ...work.messages,
      roundTrips: work.roundTrips,
      cpuMsPerJob: work.cpu ? cpu[system] : 0,
    });
    return { counts, bill: billPerMillion(counts, prices) };
  };
  const happy = (system: 'leasefence' | 'peer') => units(system, 'happy path, payloadRef');
  const extra = (system: 'leasefence' | 'peer', prefix: string) => {
    const path = units(system, prefix);
    const base = happy(system);
    return path && base ? minus(path, base) : undefined;
  };
  const both = (
    path: string,
    how: string,
    lf: Units | undefined,
    peer: Units | undefined,
    work: Work,
    peerWork = work,
  ): BillLine => ({
    path,
    how,
    leasefence: line('leasefence', lf, work),
    peer: line('peer', peer, peerWork),
  });
  const job: Work = { messages: ONE_MESSAGE, roundTrips: 2, cpu: true, job: true };
  const nothing: Work = { messages: NO_MESSAGE, roundTrips: 0, cpu: false, job: false };
  // A redelivered message: one more receive (and invocation) share; it is sent and deleted once either way.
  const redelivery: MessageWork = { sends: 0, deliveries: 1, deletes: 0 };
  const delayed = extra('leasefence', 'delayed job');
  return [
    both(
      'a job (payloadRef)',
      'figure 7 "happy path, payloadRef"; 1 message; 2 round trips per record',
      happy('leasefence'),
      happy('peer'),
      job,
    ),
    both(
      '+ inline payload',
      'figure 7 "inline" − "happy": the body written by the producer, read back by the worker (+1 round trip); the peer carries it in the message (≤ 64 KB: still one SQS request)',
      extra('leasefence', 'happy path, inline payload'),
      NONE,
      { messages: NO_MESSAGE, roundTrips: 1, cpu: false, job: false },
      nothing,
    ),
    both(
      '+ delayed job',
      'figure 7 "delayed" − "happy": the queued row first, then a claim; its one message is the wake-up (DelaySeconds costs nothing); the peer delays the message only',
      delayed,
      NONE,
      nothing,
    ),
    both(
      '+ confirm-first enqueue',
      'the delayed job\'s path without the delay (rows-first: lib/messaging/producer.ts), so figure 7 "delayed" − "happy"; the peer has no such path',
      delayed,
      undefined,
      nothing,
    ),
    both(
      '+ each heartbeat',
      'figure 7 "each heartbeat" (during the job: no extra request to Lambda or SQS)',
      units('leasefence', 'each heartbeat'),
      undefined,
      nothing,
    ),
    both(
      '+ each retry',
      'figure 7 "each retry": queued again, then re-claimed; its own delayed wake-up (1 message) and one more run of the job; the peer\'s retry was not measured',
      units('leasefence', 'each retry'),
      undefined,
      job,
    ),
    both(
      '+ each takeover (message redelivered)',
      'figure 7 "takeover": the attempt that takes over (its completion included, so an upper bound); the redelivery is one more receive and invocation share, not a new send',
      units('leasefence', 'takeover'),
      units('peer', 'takeover'),
      { messages: redelivery, roundTrips: 3, cpu: true, job: true },
      { messages: redelivery, roundTrips: 2, cpu: true, job: true },
    ),
    both(
      '+ shadow mode (per job shadowed)',
      shadow
        ? "the accountant on the shadow start and end (a conditional UpdateItem each on the identity's shadow row, in no index; test/bench/scenarios/shadow-capacity.ts); +2 round trips in the shadowed function; the peer has no such mode"
        : 'not measured in this run (it is measured with figure 7); the peer has no such mode',
      shadow,
      undefined,
      { messages: NO_MESSAGE, roundTrips: 2, cpu: false, job: false },
    ),
  ];
}

function money(bill: Bill | undefined): [string, string, string, string] {
  if (!bill) return ['–', '–', '–', '–'];
  const usd = (value: number) => `$${num(value, 2)}`;
  return [usd(bill.dynamodb), usd(bill.sqs), usd(bill.lambda), `**${usd(bill.total)}**`];
}

/** Figure section: the whole bill per million jobs (needs figure 7; figure 9 gives the CPU per job). */
function billSection(results: BenchResults): string {
  const capacity = results.capacity;
  if (!capacity)
    return '## 10. The whole bill per million jobs\n\nNOT EVALUATED: figure 7 (the capacity units it is computed from) did not run.';
  const prices: Prices = {
    ...PUBLISHED_PRICES,
    dynamodb: { perMillionWru: results.meta.prices.perMillionWru, perMillionRru: results.meta.prices.perMillionRru },
  };
  const model = constructModel();
  const cpu = cpuPerJob(results.handlerBatches);
  const lines = billLines(capacity, results.handlerBatches, prices, results.shadowCapacity);
  return [
    '## 10. The whole bill per million jobs',
    '',
    `DynamoDB, SQS and Lambda per million jobs, computed by test/bench/report/bill.ts from this run's counts and the published prices of ${prices.region}, read on ${prices.readOn}: DynamoDB on-demand $${prices.dynamodb.perMillionWru} per million WRU and $${prices.dynamodb.perMillionRru} per million RRU (${prices.sources.dynamodb}); SQS standard $${prices.sqs.perMillionRequests} per million requests, each 64 KB chunk one request (${prices.sources.sqs}); Lambda on Arm (the construct's architecture) $${prices.lambda.perMillionRequests} per million requests and $${prices.lambda.perGbSecond} per GB-second (${prices.sources.lambda}). Free tiers are left out (per account, not per job).`,
    '',
    `- **DynamoDB**: figure 7's units (the accountant, indexes included). **SQS** per delivered message: one SendMessage, a tenth of a ReceiveMessage and a tenth of a DeleteMessageBatch (${num(sqsPerMessage(model.batchSize), 1)} requests; the event source receives and deletes in batches of ${model.batchSize}); the event source's empty receives on an idle queue are a fixed cost per hour, not per job. **Lambda**: one invocation per batch of ${model.batchSize} (full batches), and GB-seconds at the construct's ${model.memoryMb} MB: a batch lasts one record's DynamoDB round trips × ${model.requestLatencyMs} ms (records run in parallel) + the job's own time (${model.jobMs} ms) + ${model.batchSize} records' worker CPU one after another, stretched ×${num(model.fullVcpuAtMb / model.memoryMb, 2)} (one vCPU at ${num(model.fullVcpuAtMb)} MB). Worker CPU per job: leasefence ${num(cpu.leasefence, 2)} ms, peer ${num(cpu.peer, 2)} ms, from ${cpu.source}.`,
    "- leasefence's job line holds whatever RRU figure 7 measured for it: on its fresh store that includes the fence epoch read (1 RRU, $0.125 per million), which a long-lived worker makes once per 5 s, not per job.",
    '- "+" lines are what a feature adds to a job (per job that uses it, or per event); a line with "–" has no such path in that system or was not measured.',
    '',
    table(
      [
        'path',
        'lf DynamoDB',
        'lf SQS',
        'lf Lambda',
        'lf total',
        'peer DynamoDB',
        'peer SQS',
        'peer Lambda',
        'peer total',
        'counted as',
      ],
      lines.map((entry) => [entry.path, ...money(entry.leasefence?.bill), ...money(entry.peer?.bill), entry.how]),
    ),
  ].join('\n');
}

export { type BillLine, billLines, billSection, constructModel };
