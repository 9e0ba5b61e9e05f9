import { canonicalJson } from '../../lib/hashing.js';
import type { ConformanceBench } from './bench.js';

/** Strings shorter than this are too common to call a leak (currency codes, flags). */
const MIN_LEAF_LENGTH = 6;

/** Every string leaf of a payload long enough to recognise. */
function payloadStrings(payload: unknown): string[] {
  if (typeof payload === 'string') return payload.length >= MIN_LEAF_LENGTH ? [payload] : [];
  if (payload === null || typeof payload !== 'object') return [];
  return Object.values(payload as Record<string, unknown>).flatMap(payloadStrings);
}

/**
 * Control 9's evidence: the work rows the scenarios left hold no copy of a payload body, and the log events
 * the runtime emitted hold no raw tenant id and no payload string. Returns the places where one was found.
 */
async function scanForLeaks(
  bench: ConformanceBench,
  payloads: readonly unknown[],
): Promise<{ leaks: string[]; rows: number; events: number }> {
  const leaks: string[] = [];
  const bodies = payloads.map((payload) => canonicalJson(payload));
  let rows = 0;
  for await (const row of bench.store.maintenance.allRows()) {
    rows += 1;
    const text = JSON.stringify(row);
    if (bodies.some((body) => text.includes(body) || text.includes(JSON.stringify(body)))) {
      leaks.push(`work row ${String(row.sk)} holds a payload body`);
    }
  }
  const strings = payloads.flatMap(payloadStrings);
  for (const event of bench.telemetry.events) {
    const text = `${event.message} ${JSON.stringify(event.fields)}`;
    const tenant = bench.tenants.find((tenantId) => text.includes(tenantId));
    if (tenant) leaks.push(`log event "${event.message}" holds a raw tenant id`);
    const value = strings.find((candidate) => text.includes(candidate));
    if (value) leaks.push(`log event "${event.message}" holds a payload value`);
  }
  return { leaks: [...new Set(leaks)], rows, events: bench.telemetry.events.length };
}

export { scanForLeaks };
