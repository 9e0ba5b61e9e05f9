import type { SQSClient } from '@aws-sdk/client-sqs';
import { ConfigurationError } from '../errors.js';
import { sendWakeSignals } from '../messaging/wake.js';
import type { Claim, NewSuccessor, PayloadStore, ValidOutcome, WorkItemStore } from '../store/index.js';
import type { Telemetry } from '../telemetry.js';
import type { TraceCarrier } from '../tracing/trace-context.js';
import { type JobTracer, type SpanHandle, SpanName } from '../tracing/tracer.js';

// Called by successors.ts's completeClaim, only for a completion with successors; declarations only at module scope.

/** Where successors' wake-ups go: the client comes when the first is sent (the SQS SDK is not loaded at cold start). */
interface SuccessorWake {
  sqs: () => Promise<SQSClient>;
  queueUrl: string;
}

/** What completing with successors needs: the store, the payload bodies' table, and where wake-ups go. */
interface CompletionDependencies {
  store: WorkItemStore;
  payloads?: PayloadStore | undefined;
  wake?: SuccessorWake | undefined;
  telemetry: Telemetry;
  /** With tracing on: one span per successor's wake-up, whose context the wake-up carries (its run joins the trace). */
  tracer?: JobTracer | undefined;
}

/**
 * Completes the claim under its fence with `successors` (the store writes them with the completion, each once), then
 * sends their wake-ups: only after the commit, and a lost one is found again by the sweeper (the rows are queued and
 * due). ConfigurationError without a payloads table (the buffer refuses successors then: a wiring bug, redelivered).
 */
async function completeWithSuccessors(
  deps: CompletionDependencies,
  claim: Claim,
  outcome: ValidOutcome,
  successors: readonly NewSuccessor[],
): Promise<void> {
  // The buffer refuses successors without a payloads table, so this is a wiring bug: redeliver, never drop them.
  if (!deps.payloads) throw new ConfigurationError('successors were buffered but the worker has no payloads table');
  const committed = await deps.store.completeWithSuccessors(claim, outcome, successors, deps.payloads);
  deps.telemetry.info('successors enqueued', {
    identity: claim.identity,
    mode: committed.mode,
    created: committed.created.length,
    replayed: committed.replayed.length,
  });
  if (!deps.wake || committed.created.length === 0) return;
  const spans = deps.tracer ? enqueueSpans(deps.tracer, committed.created) : undefined;
  const report = await sendSuccessorWakeUps(
    deps.wake,
    committed.created,
    spans?.map((span) => span.carrier()),
  );
  for (const span of spans ?? []) span.end();
  if (report.failed > 0) {
    deps.telemetry.warn('successor wake-ups failed; the sweeper re-signals the queued rows', {
      failed: report.failed,
      ...(report.lastError ? { error: report.lastError.name } : {}),
    });
  }
}

type CreatedSuccessors = Parameters<typeof sendWakeSignals>[2];

/** One producer span per successor whose wake-up is sent, children of the active (completion) span. */
function enqueueSpans(tracer: JobTracer, created: CreatedSuccessors): SpanHandle[] {
  return created.map((successor) =>
    tracer.start(SpanName.enqueueSuccessor, () => ({
      identity: { tenantId: successor.tenantId, operationId: successor.operationId },
      jobType: successor.jobType,
    })),
  );
}

/** Sends the wake-ups; never throws (a client that cannot load counts every wake-up as failed: the sweeper's). */
async function sendSuccessorWakeUps(
  wake: SuccessorWake,
  created: CreatedSuccessors,
  traces: readonly (TraceCarrier | undefined)[] | undefined,
): Promise<{ failed: number; lastError?: { name: string } }> {
  try {
    const sqs = await wake.sqs();
    return await sendWakeSignals(sqs, wake.queueUrl, created, traces);
  } catch (error) {
    return { failed: created.length, lastError: { name: (error as Error).name ?? 'Error' } };
  }
}

export { type CompletionDependencies, completeWithSuccessors, type SuccessorWake };
