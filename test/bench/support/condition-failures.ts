import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** Counts commands that failed with ConditionalCheckFailedException (once per command, after SDK retries). */
interface ConditionFailureCounter {
  count(): number;
  reset(): void;
}

/**
 * Counts failed conditional writes on a client. dynalite ignores ReturnValuesOnConditionCheckFailure, so
 * each such failure costs both systems one read-back GetItem here that DynamoDB would not need.
 */
function countConditionFailures(client: DynamoDBClient | DynamoDBDocumentClient): ConditionFailureCounter {
  let failures = 0;
  const stack = client.middlewareStack as DynamoDBClient['middlewareStack'];
  stack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        if ((error as { name?: string }).name === 'ConditionalCheckFailedException') failures += 1;
        throw error;
      }
    },
    { step: 'initialize', name: `bench-condition-failures-${Math.random().toString(36).slice(2)}` },
  );
  return {
    count: () => failures,
    reset: () => {
      failures = 0;
    },
  };
}

export { type ConditionFailureCounter, countConditionFailures };
