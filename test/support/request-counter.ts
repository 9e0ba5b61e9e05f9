import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

const READ_COMMANDS = new Set(['GetItemCommand', 'QueryCommand', 'ScanCommand', 'BatchGetItemCommand']);

/** Counts DynamoDB requests by command name, including SDK retries (each HTTP attempt is one request). */
interface RequestCounter {
  readonly byCommand: Record<string, number>;
  total(): number;
  reads(): number;
  writes(): number;
  reset(): void;
  detach(): void;
}

/** Adds a counting middleware below the retry layer of the client's stack. */
function countRequests(client: DynamoDBDocumentClient): RequestCounter {
  const byCommand: Record<string, number> = {};
  const name = `leasefence-request-counter-${Math.random().toString(36).slice(2)}`;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = String(context.commandName ?? 'unknown');
      byCommand[command] = (byCommand[command] ?? 0) + 1;
      return next(args);
    },
    { step: 'finalizeRequest', priority: 'low', name },
  );
  const sum = (predicate: (command: string) => boolean) =>
    Object.entries(byCommand)
      .filter(([command]) => predicate(command))
      .reduce((total, [, count]) => total + count, 0);
  return {
    byCommand,
    total: () => sum(() => true),
    reads: () => sum((command) => READ_COMMANDS.has(command)),
    writes: () => sum((command) => !READ_COMMANDS.has(command)),
    reset: () => {
      for (const key of Object.keys(byCommand)) delete byCommand[key];
    },
    detach: () => {
      client.middlewareStack.remove(name);
    },
  };
}

export { countRequests, type RequestCounter };
