import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../lib/aws-clients.js';
import { classifyRequest, type ObservedRequest, operationName } from './request-log.js';

/** Raised in place of every request of a worker that crashed: nothing it sends arrives any more. */
class InjectedCrash extends Error {
  override readonly name = 'InjectedCrash';
}

/**
 * Faults armed on one worker's client. `crashed` cuts the worker off; the others fire once:
 * `crashBeforeCompletion` crashes the worker instead of sending its completion write;
 * `dropCompletionResponse` lets the completion write commit and loses its response (the SDK retries);
 * `failFirstCreate` refuses the first work-item write (a crash between receipt and commit).
 */
interface WorkerFaults {
  crashed: boolean;
  crashBeforeCompletion: boolean;
  dropCompletionResponse: boolean;
  failFirstCreate: boolean;
  /** How many completion responses were dropped. */
  droppedResponses: number;
}

/** Where every observed request goes, and which scenario is running. */
interface RequestRecorder {
  readonly requests: ObservedRequest[];
  scenario: string;
}

function noFaults(): WorkerFaults {
  return {
    crashed: false,
    crashBeforeCompletion: false,
    dropCompletionResponse: false,
    failFirstCreate: false,
    droppedResponses: 0,
  };
}

/** The work item's completion: a write of the work table that sets the state to succeeded. */
function isCompletion(operation: string, body: Record<string, unknown>, workTable: string): boolean {
  const text = JSON.stringify(body);
  if (!text.includes('"succeeded"')) return false;
  if (operation === 'UpdateItem') return body.TableName === workTable;
  return operation === 'TransactWriteItems' && text.includes(JSON.stringify(workTable));
}

/**
 * A worker's own DynamoDB client with the harness's middleware: every request is recorded and classified
 * (above the SDK's retries, so one logical call is one entry) and the armed faults are applied.
 */
function observedWorkerClient(options: {
  endpoint: string;
  worker: string;
  workTable: string;
  recorder: RequestRecorder;
  faults: WorkerFaults;
}): DynamoDBDocumentClient {
  const { worker, workTable, recorder, faults } = options;
  const client = createDocumentClient({ endpoint: options.endpoint });
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const operation = operationName(context.commandName);
      const body = args.input as Record<string, unknown>;
      if (faults.crashed) throw new InjectedCrash(`worker ${worker} has crashed`);
      if (faults.crashBeforeCompletion && isCompletion(operation, body, workTable)) {
        faults.crashBeforeCompletion = false;
        faults.crashed = true;
        throw new InjectedCrash(`worker ${worker} crashed before its completion write`);
      }
      if (faults.failFirstCreate && operation === 'PutItem' && body.TableName === workTable) {
        faults.failFirstCreate = false;
        throw new InjectedCrash(`worker ${worker} crashed before the work item committed`);
      }
      const classified = classifyRequest(operation, body, workTable);
      const entry: ObservedRequest = {
        seq: recorder.requests.length,
        worker,
        scenario: recorder.scenario,
        operation,
        writes: classified.writes,
        workTable: classified.workTable,
        outcome: undefined,
      };
      recorder.requests.push(entry);
      try {
        const result = await next(args);
        entry.outcome = { landed: true };
        return result;
      } catch (error) {
        entry.outcome = { landed: false, error: (error as Error).name ?? 'Error' };
        throw error;
      }
    },
    { step: 'build', name: 'leasefence-conformance-observer' },
  );
  // Below the retry layer: the engine commits the completion, then its response is lost.
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      const operation = operationName(context.commandName);
      if (faults.dropCompletionResponse && isCompletion(operation, args.input as Record<string, unknown>, workTable)) {
        faults.dropCompletionResponse = false;
        faults.droppedResponses += 1;
        throw Object.assign(new Error('socket hang up (response dropped by the conformance harness)'), {
          code: 'ECONNRESET',
        });
      }
      return result;
    },
    { step: 'deserialize', name: 'leasefence-conformance-lost-response' },
  );
  return client;
}

export { InjectedCrash, noFaults, observedWorkerClient, type RequestRecorder, type WorkerFaults };
