import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { EXAMPLE_WORKER_ENTRY } from '../../infra/app/stacks/leasefence-stack.js';
import { cdkJsonContext } from '../../infra/app/synth.js';
import {
  FencedJobQueue,
  type FencedJobQueueProps,
  type WarmThroughputSettings,
  warmThroughputFor,
} from '../../infra/construct/index.js';
import { logicalIdOf, resourcesOfType, type Template as TemplateJson } from './support/template-queries.js';

/** A stack without bundling (props only; bundling is covered by synth.test.ts). */
function synth(props: Partial<FencedJobQueueProps> = {}): { stack: Stack; jobs: FencedJobQueue; json: TemplateJson } {
  const stack = new Stack(new App({ context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] } }), 'Warm');
  const jobs = new FencedJobQueue(stack, 'Jobs', { workerEntry: EXAMPLE_WORKER_ENTRY, ...props });
  return { stack, jobs, json: Template.fromStack(stack).toJSON() as TemplateJson };
}

type TableProperties = {
  WarmThroughput?: unknown;
  GlobalSecondaryIndexes?: Array<{ IndexName: string; WarmThroughput?: unknown }>;
};

function tableProperties(json: TemplateJson, logicalId: string): TableProperties {
  const found = resourcesOfType(json, 'AWS::DynamoDB::Table').find(([id]) => id === logicalId);
  if (!found) throw new Error(`no table ${logicalId}`);
  return found[1].Properties as TableProperties;
}

/** What the template says about warm throughput: per table, then per index of the jobs table. */
function warmOf(built: ReturnType<typeof synth>) {
  const jobs = tableProperties(built.json, logicalIdOf(built.stack, built.jobs.jobsTable));
  const payloads = tableProperties(built.json, logicalIdOf(built.stack, built.jobs.payloadsTable));
  return {
    jobsTable: jobs.WarmThroughput,
    indexes: Object.fromEntries(
      (jobs.GlobalSecondaryIndexes ?? []).map((index) => [index.IndexName, index.WarmThroughput]),
    ),
    payloadsTable: payloads.WarmThroughput,
  };
}

describe('warmThroughput (docs/SCALE.md, "The ramp")', () => {
  it('is not set unless asked for: a new on-demand table and each index start at DynamoDB’s own throughput', () => {
    expect(warmOf(synth())).toEqual({
      jobsTable: undefined,
      indexes: { byDeadline: undefined, parkedByState: undefined, parkedByTenant: undefined },
      payloadsTable: undefined,
    });
  });

  it('the 10,000 jobs/s target of SCALE.md warms the jobs table and the deadline index, each separately', () => {
    const settings = warmThroughputFor({ jobsPerSecond: 10_000 });
    expect(settings).toEqual({
      jobsTable: { writeUnitsPerSecond: 20_000 },
      jobsIndexes: { byDeadline: { writeUnitsPerSecond: 20_000 } },
    });
    expect(warmOf(synth({ warmThroughput: settings }))).toEqual({
      jobsTable: { WriteUnitsPerSecond: 20_000 },
      indexes: { byDeadline: { WriteUnitsPerSecond: 20_000 }, parkedByState: undefined, parkedByTenant: undefined },
      payloadsTable: undefined,
    });
  });

  it('the full 10,000 jobs/s launch of SCALE.md (heartbeats, retries, mass parking, inline bodies) warms every table and index', () => {
    const settings = warmThroughputFor({
      jobsPerSecond: 10_000,
      heartbeatsPerJob: 1,
      retriesPerSecond: 1_000,
      parksPerSecond: 10_000,
      inlinePayloadsPerSecond: 10_000,
    });
    // Table: 2 per job + 1 per heartbeat + 2 per retry; index: 2 per job + 4 per retry; parked: 1 per park in each.
    expect(warmOf(synth({ warmThroughput: settings }))).toEqual({
      jobsTable: { WriteUnitsPerSecond: 32_000 },
      indexes: {
        byDeadline: { WriteUnitsPerSecond: 24_000 },
        parkedByState: { WriteUnitsPerSecond: 10_000 },
        parkedByTenant: { WriteUnitsPerSecond: 10_000 },
      },
      // 10,000 strongly consistent reads of ≤ 4 KB are under a new table's 12,000 RRU: only writes are warmed.
      payloadsTable: { WriteUnitsPerSecond: 10_000 },
    });
  });

  it('the 1,000 jobs/s one-tenant target needs no warm throughput (2,000 WRU under the initial 4,000)', () => {
    expect(warmThroughputFor({ jobsPerSecond: 1_000, heartbeatsPerJob: 1 })).toEqual({});
  });

  it('delayed, confirm-first and successor jobs write the deadline index 4 times each', () => {
    expect(warmThroughputFor({ jobsPerSecond: 0, rowsFirstPerSecond: 5_000 })).toEqual({
      jobsTable: { writeUnitsPerSecond: 15_000 },
      jobsIndexes: { byDeadline: { writeUnitsPerSecond: 20_000 } },
    });
  });

  it.each<[string, WarmThroughputSettings, RegExp]>([
    [
      'at or below the initial throughput',
      { jobsTable: { writeUnitsPerSecond: 4_000 } },
      /jobsTable\.writeUnitsPerSecond: .*exceed 4,000/,
    ],
    [
      'not an integer',
      { payloadsTable: { readUnitsPerSecond: 20_000.5 } },
      /payloadsTable\.readUnitsPerSecond: .*integer/,
    ],
    ['an empty entry', { jobsTable: {} }, /jobsTable: set readUnitsPerSecond/],
    [
      'an index the table does not have',
      { jobsIndexes: { byTenant: { writeUnitsPerSecond: 8_000 } } } as unknown as WarmThroughputSettings,
      /jobsIndexes/,
    ],
  ])('refuses a value %s, before anything is built', (_, warmThroughput, message) => {
    expect(() => synth({ warmThroughput })).toThrow(message);
  });
});

describe('the in-flight alarm (docs/SCALE.md, "In-flight messages")', () => {
  function inFlightAlarms(json: TemplateJson) {
    return resourcesOfType(json, 'AWS::CloudWatch::Alarm')
      .map(([, alarm]) => alarm.Properties as Record<string, unknown>)
      .filter((properties) => properties.MetricName === 'ApproximateNumberOfMessagesNotVisible');
  }

  it('watches the jobs queue’s ApproximateNumberOfMessagesNotVisible below the 120,000 quota and notifies the topic', () => {
    const built = synth();
    const alarms = inFlightAlarms(built.json);
    const queue = logicalIdOf(built.stack, built.jobs.queue);
    const topic = { Ref: logicalIdOf(built.stack, built.jobs.alarmTopic as never) };
    expect(alarms).toHaveLength(1);
    expect(alarms[0]).toMatchObject({
      Namespace: 'AWS/SQS',
      Statistic: 'Maximum',
      Threshold: 90_000,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queue, 'QueueName'] } }],
      AlarmActions: [topic],
      OKActions: [topic],
    });
  });

  it('takes its threshold from inFlightAlarmThreshold and refuses one at or past the quota', () => {
    expect(inFlightAlarms(synth({ inFlightAlarmThreshold: 30_000 }).json)[0]?.Threshold).toBe(30_000);
    expect(() => synth({ inFlightAlarmThreshold: 120_000 })).toThrow(
      /inFlightAlarmThreshold must be an integer in 1\.\.119999/,
    );
  });
});
