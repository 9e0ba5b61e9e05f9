import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { METRIC_NAMESPACE, MetricName } from '../../../lib/metric-names.js';
import { countingTelemetry, powertoolsTelemetry } from '../../../lib/telemetry.js';
import { dimensionSetsOf, emfRecordsOf } from '../../support/emf.js';

describe('per-job-type metrics', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it('emits a count with a job type twice: service-wide, and under service + JobType (what the routed alarms watch)', () => {
    const records = emfRecordsOf(() => {
      const metrics = new Metrics({ namespace: METRIC_NAMESPACE, serviceName: 'billing' });
      const telemetry = powertoolsTelemetry(new Logger({ serviceName: 'billing' }), metrics, () => undefined);
      telemetry.count(MetricName.Quarantined, 1, 'refund');
      telemetry.count(MetricName.Claims);
      metrics.publishStoredMetrics();
    });
    const perType = records.filter((record) => record.JobType === 'refund');
    expect(perType).toHaveLength(1);
    expect(perType[0]).toMatchObject({ service: 'billing', JobType: 'refund', Quarantined: 1 });
    expect(dimensionSetsOf(perType[0] ?? {})?.[0]?.sort()).toEqual(['JobType', 'service']);
    const serviceWide = records.filter((record) => record.JobType === undefined);
    expect(serviceWide).toHaveLength(1);
    expect(serviceWide[0]).toMatchObject({ service: 'billing', Quarantined: 1, Claims: 1 });
  });

  it('keeps per-type counts apart in the counting telemetry, and none without a job type', () => {
    const telemetry = countingTelemetry();
    telemetry.count(MetricName.StaleFenceRejected, 1, 'ledger');
    telemetry.count(MetricName.StaleFenceRejected, 2, 'refund');
    telemetry.count(MetricName.Quarantined);
    expect(telemetry.counts).toMatchObject({ StaleFenceRejected: 3, Quarantined: 1 });
    expect(telemetry.byJobType).toEqual({ ledger: { StaleFenceRejected: 1 }, refund: { StaleFenceRejected: 2 } });
  });
});
