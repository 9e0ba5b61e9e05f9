import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** A client that stalls after a chosen request, like a worker frozen by a long GC pause. */
interface PausableClient {
  client: DynamoDBDocumentClient;
  /** Resolves once the chosen request has completed and every later request is held. */
  paused: Promise<void>;
  /** Lets the held requests (and all later ones) go. */
  resume(): void;
}

/**
 * Wraps `client` so that, after the first request whose input matches `pauseAfter` has completed, every later
 * request waits until `resume()`. Requests are delayed, never dropped or altered: what the worker sends after it
 * resumes is exactly what it would have sent without the pause.
 */
function pausableClient(
  client: DynamoDBDocumentClient,
  pauseAfter: (input: Record<string, unknown>) => boolean,
): PausableClient {
  let holding = false;
  let resume!: () => void;
  let markPaused!: () => void;
  const resumed = new Promise<void>((done) => {
    resume = done;
  });
  const paused = new Promise<void>((done) => {
    markPaused = done;
  });
  const send = async (command: { input?: unknown }, ...rest: unknown[]) => {
    if (holding) await resumed;
    const output = await (client.send as (...args: unknown[]) => Promise<unknown>)(command, ...rest);
    if (!holding && pauseAfter((command.input ?? {}) as Record<string, unknown>)) {
      holding = true;
      markPaused();
    }
    return output;
  };
  const proxy = new Proxy(client, {
    get(target, property) {
      if (property === 'send') return send;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { client: proxy, paused, resume };
}

export { type PausableClient, pausableClient };
