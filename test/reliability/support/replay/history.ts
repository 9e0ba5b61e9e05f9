import type { WorkItem } from '../../../../lib/store/work-items/work-item.js';
import { type ModelRelation, type ModelStep, READS_ATTEMPTS } from './relation.js';

type TargetClass = ModelStep['cls'];

/** What the replay reads of a work row: the model's variables (state, fence, attempts, effect mark) and the lease. */
type ObservedRow = Pick<WorkItem, 'state' | 'fence' | 'attempts' | 'maxAttempts'> &
  Partial<Pick<WorkItem, 'effectMayHaveHappened' | 'leaseExpiresAt'>>;

/**
 * One observed step of one job: the events that may have caused it (a race has two), the holder's fence when a
 * holder wrote, and the row before (undefined: no row yet) and after.
 */
interface ObservedStep {
  events: readonly string[];
  holderFence?: number;
  before: ObservedRow | undefined;
  after: ObservedRow;
}

/** A history: one job's target class and its observed steps in order. */
interface History {
  job: string;
  cls: TargetClass;
  steps: ObservedStep[];
}

/** The replay's tally; `illegal` lists each step the model cannot take (empty when all were legal). */
interface ReplayTally {
  histories: number;
  steps: number;
  illegal: Array<{ job: string; index: number; step: ModelStep; events: readonly string[] }>;
  /** Observed steps the model does not describe (by kind): counted and printed, never passed as checked. */
  outside: Record<string, number>;
}

/** A zeroed tally. */
function emptyReplayTally(): ReplayTally {
  return { histories: 0, steps: 0, illegal: [], outside: {} };
}

const delta = (before: number, after: number) =>
  after === before ? 'same' : after === before + 1 ? '+1' : after > before ? 'up' : 'down';
const attemptsDelta = (before: number, after: number) =>
  after === before ? 'same' : after === before + 1 ? '+1' : after === 0 ? 'reset' : 'other';
const markOf = (row: ObservedRow | undefined) => (row?.effectMayHaveHappened ? '1' : '0');

/** The abstract step an observed step is, under one event. */
function abstractStep(cls: TargetClass, event: string, observed: ObservedStep): ModelStep {
  const { before, after } = observed;
  return {
    event: event === 'claim' && !before ? 'create' : event,
    cls,
    from: before?.state ?? 'none',
    to: after.state,
    fence: delta(before?.fence ?? 0, after.fence),
    attempts: attemptsDelta(before?.attempts ?? 0, after.attempts),
    mark: `${markOf(before)}${markOf(after)}`,
    left: READS_ATTEMPTS.has(event) ? ((before?.attempts ?? 0) < (before?.maxAttempts ?? 1) ? 'yes' : 'no') : '-',
    mine: observed.holderFence === undefined ? '-' : observed.holderFence === before?.fence ? 'yes' : 'no',
  };
}

/** Whether a step changed nothing the model tracks (nor the lease, which only a renewal moves): a stutter. */
function isStutter({ before, after }: ObservedStep): boolean {
  return (
    before !== undefined &&
    before.state === after.state &&
    before.fence === after.fence &&
    before.attempts === after.attempts &&
    markOf(before) === markOf(after) &&
    before.leaseExpiresAt === after.leaseExpiresAt
  );
}

/**
 * Steps the model does not describe, named (docs/PROTOCOL.md): a producer that writes the row `queued` itself (the
 * model's row is created by the worker that receives the first message, claimed).
 */
function outsideTheModel({ before, after }: ObservedStep): string | undefined {
  if (!before && after.state === 'queued') return 'producer creates the row queued';
  return undefined;
}

/**
 * Replays histories through the model's step relation: each observed step (stutters aside) must be a step the
 * model can take under one of its events. Adds to `tally`; never throws (the caller decides what an illegal step
 * fails).
 */
function replayHistories(relation: ModelRelation, histories: readonly History[], tally: ReplayTally): ReplayTally {
  for (const history of histories) {
    tally.histories += 1;
    for (const [index, observed] of history.steps.entries()) {
      if (isStutter(observed)) continue;
      const outside = outsideTheModel(observed);
      if (outside) {
        tally.outside[outside] = (tally.outside[outside] ?? 0) + 1;
        continue;
      }
      tally.steps += 1;
      const candidates = observed.events.map((event) => abstractStep(history.cls, event, observed));
      if (!candidates.some((step) => relation.allows(step))) {
        tally.illegal.push({ job: history.job, index, step: candidates[0] as ModelStep, events: observed.events });
      }
    }
  }
  return tally;
}

/** Records per-job histories from rows observed after each command (a job's first row is its first step). */
class HistoryRecorder {
  private readonly histories = new Map<string, History>();
  private readonly last = new Map<string, ObservedRow | undefined>();

  /** Records what `events` did to `job`: a step when the row exists (nothing while it does not). */
  observe(
    job: string,
    cls: TargetClass,
    events: readonly string[],
    row: ObservedRow | undefined,
    holderFence?: number,
  ) {
    if (!row) return;
    const before = this.last.get(job);
    const history = this.histories.get(job) ?? { job, cls, steps: [] };
    this.histories.set(job, history);
    history.steps.push({ events, ...(holderFence === undefined ? {} : { holderFence }), before, after: rowOf(row) });
    this.last.set(job, rowOf(row));
  }

  /** The histories recorded so far. */
  all(): History[] {
    return [...this.histories.values()];
  }
}

/** The fields the replay reads, copied (a row object may be reused). */
function rowOf(row: ObservedRow): ObservedRow {
  const { state, fence, attempts, maxAttempts, effectMayHaveHappened, leaseExpiresAt } = row;
  return { state, fence, attempts, maxAttempts, effectMayHaveHappened, leaseExpiresAt };
}

/** One line: what the replay checked. */
function replayLine(tally: ReplayTally): string {
  const outside = Object.entries(tally.outside)
    .map(([kind, count]) => `${count} ${kind}`)
    .join(', ');
  return (
    `model replay: ${tally.histories} histories, ${tally.steps} steps checked, illegal steps ${tally.illegal.length}` +
    (outside ? ` (not in the model, not checked: ${outside})` : '')
  );
}

export {
  abstractStep,
  emptyReplayTally,
  type History,
  HistoryRecorder,
  type ObservedRow,
  type ObservedStep,
  type ReplayTally,
  replayHistories,
  replayLine,
};
