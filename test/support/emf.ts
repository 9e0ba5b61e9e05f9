import { vi } from 'vitest';

/**
 * The EMF records Powertools Metrics wrote to stdout while `act` ran (its own Console on process.stdout, as in
 * Lambda), with metrics switched on for the call. Restores stdout before returning.
 */
function emfRecordsOf(act: () => void): Array<Record<string, unknown>> {
  vi.stubEnv('POWERTOOLS_DEV', 'false');
  vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
  const printed = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  let writes: unknown[][];
  try {
    act();
  } finally {
    // Copied first: restoring the spy clears its calls.
    writes = [...printed.mock.calls];
    printed.mockRestore();
  }
  return writes
    .flatMap((args) => String(args[0]).split('\n'))
    .filter((line) => line.startsWith('{"_aws"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The dimension sets of an EMF record's first metric directive. */
function dimensionSetsOf(record: Record<string, unknown>): string[][] | undefined {
  return (record._aws as { CloudWatchMetrics: Array<{ Dimensions: string[][] }> }).CloudWatchMetrics[0]?.Dimensions;
}

export { dimensionSetsOf, emfRecordsOf };
