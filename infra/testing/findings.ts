// What a run found beyond pass/fail of its scenarios: unfenced paths and reconcile answers the provider contradicts.
import type { ConformanceBench } from './bench.js';
import type { RequestSource } from './request-log.js';

/** A write to a table other than the library's with no fence in its condition and no fenced transaction. */
interface UnfencedWrite {
  readonly table: string;
  readonly call: string;
  readonly scenario: string;
  readonly sample: number;
  /** Which client sent it: the runtime's (ctx.client), the provider's, or one the job built itself. */
  readonly source: RequestSource;
  readonly count: number;
}

/** A reconcile answer the provider's state contradicts (control 6): done with no effect held, or not_done with one. */
interface ReconcileFinding {
  readonly kind: 'done_without_effect' | 'not_done_with_effect';
  readonly scenario: string;
  readonly sample: number;
  readonly worker: string;
  readonly attempt: number;
  /** Effects the provider held for the operation when reconcile answered. */
  readonly held: number;
}

/** ` (sample 2)` / ` (samples 1, 3)`, or nothing when the job had one sample. */
function samplesLabel(samples: readonly number[], single: boolean): string {
  if (single) return '';
  return samples.length === 1 ? ` (sample ${samples[0]})` : ` (samples ${samples.join(', ')})`;
}

/** `in stale-resume, every-attempt (samples 1, 2)`: where a finding was seen, samples named when there were several. */
function seenIn(runs: ReadonlyArray<{ scenario: string; sample: number }>, single: boolean): string {
  const scenarios = [...new Set(runs.map((run) => run.scenario))];
  const samples = [...new Set(runs.map((run) => run.sample))].sort((a, b) => a - b);
  return `in ${scenarios.join(', ')}${samplesLabel(samples, single)}`;
}

const SOURCE_NAMES: Record<RequestSource, string> = {
  runtime: "the runtime's client (ctx.client)",
  provider: "the provider's client",
  process: 'a DynamoDB client the job built itself',
};

/**
 * The unfenced paths, one per call, table and client: `PutItem on orders from the provider's client, 3× in
 * stale-resume, every-attempt (samples 1, 2)`.
 */
function unfencedPaths(writes: readonly UnfencedWrite[], single: boolean): string[] {
  const paths = new Map<string, UnfencedWrite[]>();
  for (const write of writes) {
    const path = `${write.call} on ${write.table} from ${SOURCE_NAMES[write.source]}`;
    paths.set(path, [...(paths.get(path) ?? []), write]);
  }
  return [...paths].map(([path, seen]) => {
    const count = seen.reduce((sum, write) => sum + write.count, 0);
    return `${path}, ${count}× ${seenIn(seen, single)}`;
  });
}

/** What each kind of reconcile finding means, in one sentence. */
const FINDING_TEXT: Record<ReconcileFinding['kind'], (methods: string) => string> = {
  done_without_effect: (methods) =>
    `reconcile answered done while the provider held no effect for the operation (no ${methods}() call had taken effect): the job reports success for an effect that never happened`,
  not_done_with_effect: (methods) =>
    `reconcile answered not_done while the provider held the operation's effect (a ${methods}() call had taken effect): the retry calls the provider again`,
};

/** Groups the unfenced target writes any client of the process made, by table, call, client, scenario and sample. */
function unfencedWrites(bench: ConformanceBench): UnfencedWrite[] {
  const counts = new Map<string, UnfencedWrite>();
  for (const request of bench.requests) {
    for (const write of request.writes.filter((candidate) => !candidate.fenced)) {
      const id = [write.table, request.operation, request.source, request.scenario, request.sample].join('\u0000');
      const seen = counts.get(id);
      counts.set(id, {
        table: write.table,
        call: request.operation,
        scenario: request.scenario,
        sample: request.sample,
        source: request.source,
        count: (seen?.count ?? 0) + 1,
      });
    }
  }
  return [...counts.values()];
}

/** Every reconcile answer the provider's state contradicts: done with no effect held, not_done with one. */
function reconcileFindings(bench: ConformanceBench): ReconcileFinding[] {
  return bench.reconciles.flatMap((answer): ReconcileFinding[] => {
    const { scenario, sample, worker, attempt, held } = answer;
    if (answer.status === 'done' && held === 0) {
      return [{ kind: 'done_without_effect', scenario, sample, worker, attempt, held }];
    }
    if (answer.status === 'not_done' && held > 0) {
      return [{ kind: 'not_done_with_effect', scenario, sample, worker, attempt, held }];
    }
    return [];
  });
}

export {
  FINDING_TEXT,
  type ReconcileFinding,
  reconcileFindings,
  samplesLabel,
  seenIn,
  type UnfencedWrite,
  unfencedPaths,
  unfencedWrites,
};
