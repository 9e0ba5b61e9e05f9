import { App, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { EXAMPLE_WORKER_ENTRY } from '../../infra/app/stacks/leasefence-stack.js';
import { cdkJsonContext } from '../../infra/app/synth.js';
import { capacityPlanFor, FencedJobQueue, type FencedJobQueueProps } from '../../infra/construct/index.js';
import { InvalidInputError, isLeasefenceError } from '../../lib/errors.js';
import { logicalIdOf, resourcesOfType, type Template as TemplateJson } from './support/template-queries.js';

/** A stack without bundling (props only; bundling is covered by synth.test.ts). */
function synth(props: Partial<FencedJobQueueProps> = {}) {
  const stack = new Stack(new App({ context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] } }), 'Capacity');
  const jobs = new FencedJobQueue(stack, 'Jobs', { workerEntry: EXAMPLE_WORKER_ENTRY, ...props });
  return { stack, jobs, json: Template.fromStack(stack).toJSON() as TemplateJson };
}

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** The capacity warnings of a synthesized stack (cdk synth prints them). */
function capacityWarnings(stack: Stack): string[] {
  return Annotations.fromStack(stack)
    .findWarning('*', Match.stringLikeRegexp('.*'))
    .map((entry) => String(entry.entry.data))
    .filter((text) => text.includes('@leasefence/capacity'));
}

function mapping(json: TemplateJson) {
  const found = resourcesOfType(json, 'AWS::Lambda::EventSourceMapping');
  expect(found).toHaveLength(1);
  return found[0]?.[1].Properties as Record<string, unknown>;
}

function workerConcurrencyAlarm(json: TemplateJson) {
  return resourcesOfType(json, 'AWS::CloudWatch::Alarm')
    .map(([, alarm]) => alarm.Properties as Record<string, unknown>)
    .filter((properties) => properties.MetricName === 'ConcurrentExecutions');
}

function reservedConcurrency(built: ReturnType<typeof synth>): unknown {
  const id = logicalIdOf(built.stack, built.jobs.worker);
  return resourcesOfType(built.json, 'AWS::Lambda::Function').find(([logical]) => logical === id)?.[1].Properties
    ?.ReservedConcurrentExecutions;
}

describe('event source modes (docs/SCALE.md, "Lambda sizing")', () => {
  it('standard mode: maximum concurrency on the mapping, reserved concurrency and the alarm sized from it', () => {
    const built = synth({ maxConcurrency: 300 });
    const properties = mapping(built.json);
    expect(properties.ScalingConfig).toEqual({ MaximumConcurrency: 300 });
    expect(properties.ProvisionedPollerConfig).toBeUndefined();
    expect(reservedConcurrency(built)).toBe(300);
    expect(workerConcurrencyAlarm(built.json)).toEqual([
      expect.objectContaining({ Threshold: 270, Statistic: 'Maximum' }),
    ]);
  });

  it('provisioned mode: pollers on the mapping, no maximum concurrency, reserved concurrency = pollers × 10', () => {
    const built = synth({ provisionedPollers: { minimumPollers: 5, maximumPollers: 150 } });
    const properties = mapping(built.json);
    expect(properties.ProvisionedPollerConfig).toEqual({ MinimumPollers: 5, MaximumPollers: 150 });
    expect(properties.ScalingConfig).toBeUndefined();
    expect(reservedConcurrency(built)).toBe(1_500);
    expect(workerConcurrencyAlarm(built.json)).toEqual([expect.objectContaining({ Threshold: 1_350 })]);
    // 1,500 is past what a default account can reserve for the worker (889 with sweeper and admin): say which quota.
    expect(capacityWarnings(built.stack).join('\n')).toMatch(/Concurrent executions/);
  });

  it('refuses maxConcurrency with provisionedPollers, as AWS does, with a typed error and nothing built', () => {
    const error = thrown(() =>
      synth({ maxConcurrency: 100, provisionedPollers: { minimumPollers: 2, maximumPollers: 20 } }),
    );
    expect(isLeasefenceError(error, InvalidInputError)).toBe(true);
    expect((error as InvalidInputError).issues).toEqual([expect.objectContaining({ path: 'provisionedPollers' })]);
  });

  it.each<[string, Partial<FencedJobQueueProps>, RegExp]>([
    [
      'pollers outside AWS’s range',
      { provisionedPollers: { minimumPollers: 1, maximumPollers: 20 } },
      /minimumPollers/,
    ],
    [
      'a maximum below the minimum',
      { provisionedPollers: { minimumPollers: 50, maximumPollers: 20 } },
      /maximumPollers/,
    ],
    [
      'a reservation below what the pollers invoke',
      { provisionedPollers: { minimumPollers: 2, maximumPollers: 20 }, workerReservedConcurrency: 100 },
      /maximumPollers × 10 = 200/,
    ],
  ])('refuses %s', (_, props, message) => {
    expect(() => synth(props)).toThrow(message);
  });
});

describe('the declared capacity target, checked at synth (docs/SCALE.md)', () => {
  it('says nothing for a target the deployment serves', () => {
    const target = { jobsPerSecond: 500, busiestTenantJobsPerSecond: 50 };
    expect(capacityWarnings(synth({ capacityTarget: target, ...capacityPlanFor(target).props }).stack)).toEqual([]);
  });

  it('warns, naming the quota, when the deadline index reaches its table-level quota (10,000 rows-first jobs/s)', () => {
    const warnings = capacityWarnings(synth({ capacityTarget: { jobsPerSecond: 10_000, rowsFirstShare: 1 } }).stack);
    expect(warnings.join('\n')).toMatch(/40,000 WRU\/s on the byDeadline index.*Table-level write throughput limit/);
  });

  it('warns for the table and the index in a provider outage (each job retried once), whatever the shards', () => {
    const target = { jobsPerSecond: 10_000, busiestTenantJobsPerSecond: 100, retryShare: 1 };
    const warnings = capacityWarnings(synth({ capacityTarget: target, ...capacityPlanFor(target).props }).stack);
    const quota = warnings.filter((text) => text.includes('Table-level write throughput limit'));
    expect(quota.some((text) => text.includes('on the jobs table'))).toBe(true);
    expect(quota.some((text) => text.includes('on the byDeadline index'))).toBe(true);
  });

  it('warns when the default 32 deadline shards co-locate on a partition at 10,000 jobs/s, and not at the plan', () => {
    const target = { jobsPerSecond: 10_000, busiestTenantJobsPerSecond: 100 };
    const unplanned = capacityWarnings(
      synth({
        capacityTarget: target,
        warmThroughput: { jobsIndexes: { byDeadline: { writeUnitsPerSecond: 20_000 } } },
      }).stack,
    );
    expect(unplanned.join('\n')).toMatch(/byDeadline: 32 shards .* past its 1,000: set deadlineShards 1000/);
    const planned = capacityWarnings(synth({ capacityTarget: target, ...capacityPlanFor(target).props }).stack);
    expect(planned.filter((text) => text.includes('byDeadline:'))).toEqual([]);
  });

  it('refuses warm throughput above the table-level quota unless tableQuota says it was raised', () => {
    const warmThroughput = { jobsIndexes: { byDeadline: { writeUnitsPerSecond: 60_000 } } };
    const error = thrown(() => synth({ warmThroughput }));
    expect(isLeasefenceError(error, InvalidInputError)).toBe(true);
    expect((error as InvalidInputError).issues).toEqual([
      expect.objectContaining({ path: 'warmThroughput.jobsIndexes.byDeadline.writeUnitsPerSecond' }),
    ]);
    expect(() => synth({ warmThroughput, tableQuota: { writeUnitsPerSecond: 80_000 } })).not.toThrow();
  });

  it('refuses a malformed target with a typed error', () => {
    const error = thrown(() => synth({ capacityTarget: { jobsPerSecond: 10, rowsFirstShare: 2 } }));
    expect(isLeasefenceError(error, InvalidInputError)).toBe(true);
    expect((error as InvalidInputError).issues).toEqual([
      expect.objectContaining({ path: 'capacityTarget.rowsFirstShare' }),
    ]);
  });
});
