import { Metrics } from '@aws-lambda-powertools/metrics';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { recordTick } from '../../../lib/lambda/schedule-tick-handler.js';
import { METRIC_NAMESPACE } from '../../../lib/metric-names.js';
import { dimensionSetsOf, emfRecordsOf } from '../../support/emf.js';

describe('schedule tick metrics', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it('a landed tick (created or replay) counts one ScheduleTickDeliveries under service + Schedule; a refusal none', () => {
    const records = emfRecordsOf(() => {
      const metrics = new Metrics({ namespace: METRIC_NAMESPACE, serviceName: 'billing' });
      const landed = { schedule: 'nightly', scheduledAt: '2026-12-01T02:00:00.000Z', state: 'queued', missed: 0 };
      recordTick(metrics, { outcome: 'created', ...landed });
      recordTick(metrics, { outcome: 'replay', ...landed });
      recordTick(metrics, { outcome: 'refused', reason: 'unknown_schedule' });
      metrics.publishStoredMetrics();
    });

    const perSchedule = records.filter((record) => 'ScheduleTickDeliveries' in record);
    expect(perSchedule).toHaveLength(2);
    for (const record of perSchedule) {
      expect(record).toMatchObject({ service: 'billing', Schedule: 'nightly', ScheduleTickDeliveries: 1 });
      expect(dimensionSetsOf(record)?.[0]?.sort()).toEqual(['Schedule', 'service']);
    }
    const serviceWide = records.filter((record) => record.Schedule === undefined);
    expect(serviceWide).toHaveLength(1);
    expect(serviceWide[0]).toMatchObject({ ScheduleTicksRefused: 1 });
  });
});
