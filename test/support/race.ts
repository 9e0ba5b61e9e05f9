import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * Runs `action` (e.g. a rival's write on another client) just before the next `commandName` request of
 * `client` is sent, once: a deterministic interleaving between an operation's read and its write.
 */
function beforeNextRequest(
  client: DynamoDBDocumentClient,
  commandName: string,
  action: () => Promise<unknown>,
): { ran: () => boolean } {
  let ran = false;
  const name = `leasefence-race-${Math.random().toString(36).slice(2)}`;
  const wanted = [commandName, commandName.replace(/Command$/, 'ItemCommand')];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (!ran && wanted.includes(String(context.commandName))) {
        ran = true;
        client.middlewareStack.remove(name);
        await action();
      }
      return next(args);
    },
    { step: 'initialize', name },
  );
  return { ran: () => ran };
}

export { beforeNextRequest };
