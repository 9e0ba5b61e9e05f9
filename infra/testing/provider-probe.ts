import { InjectedCrash, type WorkerFaults } from './worker-client.js';

/** One thing a job did outside DynamoDB, in order: a provider call, or the start of a reconcile. */
interface ProviderEvent {
  readonly worker: string;
  readonly scenario: string;
  readonly kind: 'effect' | 'lookup' | 'reconcile';
  readonly method: string;
}

/** Faults armed on one worker's provider client; each fires on the next effect call that completes. */
interface ProviderFaults {
  /** The effect lands, then the worker crashes before it sees the answer. */
  crashAfterEffect: boolean;
  /** The effect lands, then the call times out (an ambiguous outcome the job sees). */
  timeoutAfterEffect: boolean;
}

/** The provider's timeout: the effect happened, the answer never came. */
class ProviderTimeout extends Error {
  override readonly name = 'TimeoutError';
}

/**
 * Wraps the declared provider client: every method call is recorded (effects apart from lookups), a
 * crashed worker's calls fail, and the armed faults fire after an effect call completed.
 */
function instrumentProvider<Client>(
  client: Client,
  effects: readonly string[],
  context: {
    worker: string;
    events: ProviderEvent[];
    scenario: () => string;
    faults: ProviderFaults;
    workerFaults: WorkerFaults;
  },
): Client {
  if (client === null || typeof client !== 'object') return client;
  return new Proxy(client as object, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      const kind = effects.includes(property) ? 'effect' : 'lookup';
      return async (...args: unknown[]) => {
        if (context.workerFaults.crashed) throw new InjectedCrash(`worker ${context.worker} has crashed`);
        context.events.push({ worker: context.worker, scenario: context.scenario(), kind, method: property });
        const result = await (value as (...parameters: unknown[]) => unknown).apply(target, args);
        if (kind === 'effect' && context.faults.crashAfterEffect) {
          context.faults.crashAfterEffect = false;
          context.workerFaults.crashed = true;
          throw new InjectedCrash(`worker ${context.worker} crashed right after ${property}() took effect`);
        }
        if (kind === 'effect' && context.faults.timeoutAfterEffect) {
          context.faults.timeoutAfterEffect = false;
          throw new ProviderTimeout(`${property}() timed out after it took effect (injected by the harness)`);
        }
        return result;
      };
    },
  }) as Client;
}

export { instrumentProvider, type ProviderEvent, type ProviderFaults, ProviderTimeout };
