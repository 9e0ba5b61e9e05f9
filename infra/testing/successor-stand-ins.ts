import { ConfigurationError } from '../../lib/errors.js';
import type { JobDefinition } from '../../lib/job-definition.js';

/**
 * The module's other job types as a conformance worker registers them, so `ctx.enqueue` of one is checked exactly
 * as a deployed worker checks it (its payload schema, attempt budget, version and approval gate come from the
 * real definition) while nothing of it runs: the harness counts successor rows and never delivers them, and a
 * stand-in that is delivered anyway throws instead of reaching the successor's own effects. The job under test
 * keeps its observed copy (a chain of one type is its own successor type).
 */
function successorStandIns(
  job: JobDefinition<unknown>,
  others: ReadonlyArray<JobDefinition<unknown>>,
): JobDefinition<unknown>[] {
  const seen = new Set([job.type]);
  const standIns: JobDefinition<unknown>[] = [];
  for (const other of others) {
    if (seen.has(other.type)) continue;
    seen.add(other.type);
    const { provider: _provider, reconcile: _reconcile, ...definition } = other;
    standIns.push({
      ...definition,
      run: async () => {
        throw new ConfigurationError(
          `conformance of ${job.type}: successor type ${other.type} is registered to count its rows, never run`,
        );
      },
    });
  }
  return standIns;
}

export { successorStandIns };
