import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * Runs `between` right after the client's next Query response that returned items arrives, before the
 * caller sees it: a deterministic interleaving of "someone acts between my index read and my write".
 */
function afterNextQuery(client: DynamoDBDocumentClient, between: () => Promise<void>): { fired: () => boolean } {
  let fired = false;
  const name = `leasefence-after-query-${Math.random().toString(36).slice(2)}`;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      const items = (result.output as { Items?: unknown[] }).Items ?? [];
      if (!fired && String(context.commandName) === 'QueryCommand' && items.length > 0) {
        fired = true;
        client.middlewareStack.remove(name);
        await between();
      }
      return result;
    },
    { step: 'initialize', name },
  );
  return { fired: () => fired };
}

export { afterNextQuery };
