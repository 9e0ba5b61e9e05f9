import { MetricName } from '../metric-names.js';
import { WorkState } from '../states.js';
import type { CountsReport } from './counts.js';
import { type AdminDeps, adminClock, type MetricCounts } from './deps.js';

/** One health signal: a value with its unit, or why this target cannot provide it. */
type Signal = { name: string; label: string } & (
  | { available: true; value: number; unit: 'items' | 'seconds' | 'events'; detail?: string; since?: number }
  | { available: false; reason: string }
);

/** Where the metric-based signals live on a target without in-process counters. */
const NOT_ON_TARGET = 'not available on this target (a CloudWatch metric: see the dashboard and alarms)';

/** A counter signal from the host's metrics, with its share of claims as detail. */
function counterSignal(name: string, label: string, metric: string, metrics: MetricCounts | undefined): Signal {
  if (!metrics) return { name, label, available: false, reason: NOT_ON_TARGET };
  const value = metrics.counts[metric] ?? 0;
  const claims = metrics.counts[MetricName.Claims] ?? 0;
  const share = claims > 0 ? `${((value / claims) * 100).toFixed(1)}% of ${claims} claims` : 'no claims yet';
  return { name, label, available: true, value, unit: 'events', detail: share, since: metrics.since };
}

/**
 * The five signals an operator watches: claimed-but-stalled and unknown age from the table (every target), and
 * quarantine rate, takeover rate and stale-fence rejections from the host's worker counters where it has them
 * (the local stack); elsewhere those say they are not available. Never throws on a missing metrics source.
 */
async function readSignals(deps: AdminDeps, counts: CountsReport): Promise<Signal[]> {
  const now = adminClock(deps).now();
  const [stalled, metrics] = await Promise.all([
    // Claimed items whose lease has expired and that no sweep has handled yet: a Query per deadline shard.
    deps.store.deadlines.countExpiredClaims(now),
    deps.metrics ? deps.metrics().catch(() => undefined) : Promise.resolve(undefined),
  ]);
  const unknown = counts.states.find((entry) => entry.state === WorkState.unknown);
  const oldestUnknown = unknown?.available ? unknown.oldestAt : undefined;
  return [
    {
      name: 'claimedStalled',
      label: 'claimed but stalled (lease expired, not yet swept)',
      available: true,
      value: stalled,
      unit: 'items',
    },
    {
      name: 'unknownAge',
      label: 'age of the oldest unknown item',
      available: true,
      value: oldestUnknown === undefined ? 0 : Math.max(0, Math.floor((now - oldestUnknown) / 1000)),
      unit: 'seconds',
      ...(oldestUnknown === undefined ? { detail: 'no unknown items' } : {}),
    },
    counterSignal('quarantineRate', 'quarantined', MetricName.Quarantined, metrics),
    counterSignal('takeoverRate', 'takeovers', MetricName.Takeovers, metrics),
    counterSignal('staleFenceRejections', 'stale-fence rejections', MetricName.StaleFenceRejected, metrics),
  ];
}

export { readSignals, type Signal };
