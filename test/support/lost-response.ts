import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * Fault injection below the SDK's retry layer: the request reaches the engine and commits, then its
 * response is replaced by a connection-reset error, so the SDK retries a write that already happened.
 */
function dropNextResponse(client: DynamoDBDocumentClient, commandName: string): { dropped: () => number } {
  let dropped = 0;
  let armed = true;
  const name = `leasefence-drop-response-${Math.random().toString(36).slice(2)}`;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      if (armed && matchesCommand(String(context.commandName), commandName)) {
        armed = false;
        dropped += 1;
        client.middlewareStack.remove(name);
        throw Object.assign(new Error('socket hang up (response dropped by test)'), { code: 'ECONNRESET' });
      }
      return result;
    },
    { step: 'deserialize', name },
  );
  return { dropped: () => dropped };
}

export { dropNextResponse };

/** Accepts either spelling: `UpdateCommand` (DocumentClient) or `UpdateItemCommand` (low-level). */
function matchesCommand(actual: string, wanted: string): boolean {
  return actual === wanted || actual === wanted.replace(/Command$/, 'ItemCommand');
}
