import { isCompletion } from '../../lib/fault-injection/classify.js';
import type { WireDecision } from './observing-proxy.js';

/** Raised in place of every call of a worker that crashed: nothing it sends arrives any more. */
class InjectedCrash extends Error {
  override readonly name = 'InjectedCrash';
}

/**
 * Faults armed on one simulated worker, applied at the engine boundary to every request attributed to it.
 * `crashed` cuts the worker off; the others fire once:
 * `crashBeforeCompletion` crashes the worker instead of sending its completion write;
 * `crashBeforeCompletionUpdate` the same, but only for a completion sent as UpdateItem (on an engine without
 * transactions, the durable step's last write, after its successor rows; the refused transaction before it passes);
 * `dropCompletionResponse` lets the completion write commit and loses its response (the SDK retries);
 * `failFirstCreate` refuses the first work-item write (a crash between receipt and commit);
 * `failAfterRun` makes the attempt end in a retryable failure after run() returned (the harness throws it).
 */
interface WorkerFaults {
  crashed: boolean;
  crashBeforeCompletion: boolean;
  crashBeforeCompletionUpdate: boolean;
  dropCompletionResponse: boolean;
  failFirstCreate: boolean;
  failAfterRun: boolean;
  /** How many completion responses were dropped. */
  droppedResponses: number;
}

/** A worker with nothing armed. */
function noFaults(): WorkerFaults {
  return {
    crashed: false,
    crashBeforeCompletion: false,
    crashBeforeCompletionUpdate: false,
    dropCompletionResponse: false,
    failFirstCreate: false,
    failAfterRun: false,
    droppedResponses: 0,
  };
}

/** What the engine boundary does with one request of a worker, given its armed faults (consumed as they fire). */
function faultDecision(
  faults: WorkerFaults,
  worker: string,
  operation: string,
  body: Record<string, unknown>,
  workTable: string,
): WireDecision {
  const crash = (message: string): WireDecision => ({ kind: 'refuse', errorName: 'InjectedCrash', message });
  if (faults.crashed) return crash(`worker ${worker} has crashed`);
  if (faults.crashBeforeCompletion && isCompletion(operation, body, workTable)) {
    faults.crashBeforeCompletion = false;
    faults.crashed = true;
    return crash(`worker ${worker} crashed before its completion write`);
  }
  if (faults.crashBeforeCompletionUpdate && operation === 'UpdateItem' && isCompletion(operation, body, workTable)) {
    faults.crashBeforeCompletionUpdate = false;
    faults.crashed = true;
    return crash(`worker ${worker} crashed before its completion write`);
  }
  if (faults.failFirstCreate && operation === 'PutItem' && body.TableName === workTable) {
    faults.failFirstCreate = false;
    return crash(`worker ${worker} crashed before the work item committed`);
  }
  if (faults.dropCompletionResponse && isCompletion(operation, body, workTable)) {
    faults.dropCompletionResponse = false;
    faults.droppedResponses += 1;
    return { kind: 'forward', dropResponse: true };
  }
  return { kind: 'forward' };
}

export { faultDecision, InjectedCrash, noFaults, type WorkerFaults };
