import { describe, expect, it } from 'vitest';
import {
  batchSeconds,
  billPerMillion,
  type DurationModel,
  gbSecondsPerJob,
  ONE_MESSAGE,
  PUBLISHED_PRICES,
  pathCounts,
  sqsPerMessage,
} from '../../bench/report/bill.js';
import { billLines, constructModel } from '../../bench/report/bill-section.js';
import type { CapacityReport } from '../../bench/scenarios/capacity.js';

const MODEL: DurationModel = { requestLatencyMs: 5, jobMs: 0, memoryMb: 512, batchSize: 10, fullVcpuAtMb: 1_769 };

describe('the bill per million jobs (figure 10): arithmetic', () => {
  it('prices per-job counts per million jobs: units × price per million units, GB-seconds × a million × price', () => {
    const bill = billPerMillion(
      { wru: 4, rru: 1, sqsRequests: 1.2, lambdaRequests: 0.1, lambdaGbSeconds: 0.001 },
      PUBLISHED_PRICES,
    );
    // 4 × 0.625 + 1 × 0.125 = 2.625; 1.2 × 0.40 = 0.48; 0.1 × 0.20 + 1,000 GB-s × 0.0000133334 = 0.0333334.
    expect(bill.dynamodb).toBeCloseTo(2.625, 10);
    expect(bill.sqs).toBeCloseTo(0.48, 10);
    expect(bill.lambda).toBeCloseTo(0.0333334, 10);
    expect(bill.total).toBeCloseTo(2.625 + 0.48 + 0.0333334, 10);
  });

  it('a batch lasts one record’s round trips plus every record’s CPU, stretched by the share of a vCPU', () => {
    // 2 × 5 ms + 10 × 1 ms × (1,769 ÷ 512 = 3.455…) = 44.55… ms.
    expect(batchSeconds(MODEL, 2, 1)).toBeCloseTo((10 + 10 * (1769 / 512)) / 1000, 12);
    // At or above one vCPU the CPU is not stretched below 1×.
    expect(batchSeconds({ ...MODEL, memoryMb: 4_096 }, 2, 1)).toBeCloseTo(0.02, 12);
    // Per job: the batch's seconds × 0.5 GB ÷ 10 records.
    expect(gbSecondsPerJob(MODEL, 2, 0)).toBeCloseTo((0.01 * 0.5) / 10, 12);
  });

  it('a delivered message is one send and a tenth of a receive and of a delete; a batch is one invocation', () => {
    expect(sqsPerMessage(10)).toBeCloseTo(1.2, 12);
    const counts = pathCounts({ wru: 4, rru: 0 }, MODEL, { ...ONE_MESSAGE, roundTrips: 2, cpuMsPerJob: 0 });
    expect(counts).toEqual({ wru: 4, rru: 0, sqsRequests: 1.2, lambdaRequests: 0.1, lambdaGbSeconds: 0.0005 });
    const nothing = pathCounts({ wru: 1, rru: 0 }, MODEL, {
      sends: 0,
      deliveries: 0,
      deletes: 0,
      roundTrips: 0,
      cpuMsPerJob: 0,
    });
    expect(nothing).toEqual({ wru: 1, rru: 0, sqsRequests: 0, lambdaRequests: 0, lambdaGbSeconds: 0 });
  });

  it('takes memory and batch size from the construct’s defaults', () => {
    expect(constructModel()).toMatchObject({ memoryMb: 512, batchSize: 10 });
  });

  it('builds every line from figure 7’s rows: a job, and what each feature adds; the peer only where it has the path', () => {
    const units = (wru: number, rru = 0, indexWru = 0) => ({ wru, rru, indexWru });
    const capacity: CapacityReport = {
      rows: [
        { situation: 'happy path, payloadRef', leasefence: units(4, 0, 2), peer: units(2) },
        { situation: 'happy path, inline payload (producer + worker)', leasefence: units(5, 1, 2), peer: units(2) },
        { situation: 'delayed job (queued row first, then a wake-up)', leasefence: units(7, 0, 4), peer: units(2) },
        { situation: 'each heartbeat', leasefence: units(1), peer: undefined },
        {
          situation: 'each retry (queued again, then re-claimed by its own wake-up)',
          leasefence: units(6, 0, 4),
          peer: undefined,
        },
        { situation: 'takeover after expiry (message redelivered)', leasefence: units(6, 0, 3), peer: units(2) },
      ],
      engineChecked: 0,
      engineCheckedCommands: [],
      engineMismatches: 0,
      rowBytes: [],
    };
    const lines = billLines(capacity, undefined, PUBLISHED_PRICES);
    const dynamodb = lines.map((line) => [line.path, line.leasefence?.counts.wru, line.peer?.counts.wru]);
    expect(dynamodb).toEqual([
      ['a job (payloadRef)', 4, 2],
      ['+ inline payload', 1, 0],
      ['+ delayed job', 3, 0],
      ['+ confirm-first enqueue', 3, undefined],
      ['+ each heartbeat', 1, undefined],
      ['+ each retry', 6, undefined],
      ['+ each takeover (message redelivered)', 6, 2],
      ['+ shadow mode (per job shadowed)', undefined, undefined],
    ]);
    // Shadow mode's line has leasefence units only when the run measured them (with figure 7).
    const shadowed = billLines(capacity, undefined, PUBLISHED_PRICES, units(2)).at(-1);
    expect([shadowed?.leasefence?.counts.wru, shadowed?.leasefence?.counts.sqsRequests, shadowed?.peer]).toEqual([
      2,
      0,
      undefined,
    ]);
    const sqs = lines.map((line) => line.leasefence?.counts.sqsRequests);
    // A job and a retry send and deliver one message; a redelivery is one more receive share; the rest send nothing.
    expect(sqs.map((value) => (value === undefined ? undefined : Number(value.toFixed(6))))).toEqual([
      1.2,
      0,
      0,
      0,
      0,
      1.2,
      0.1,
      undefined,
    ]);
    // The inline body's read-back: 1 RRU on top of the job.
    expect(lines[1]?.leasefence?.counts.rru).toBe(1);
    // A job's bill: 4 WRU → $2.50, 1.2 SQS requests → $0.48, Lambda 0.1 invocation + its GB-seconds.
    const job = lines[0]?.leasefence?.bill;
    expect(job?.dynamodb).toBeCloseTo(2.5, 10);
    expect(job?.sqs).toBeCloseTo(0.48, 10);
    const gbSeconds = gbSecondsPerJob(constructModel(), 2, 1);
    expect(job?.lambda).toBeCloseTo(0.1 * 0.2 + gbSeconds * 1_000_000 * 0.0000133334, 10);
  });
});
