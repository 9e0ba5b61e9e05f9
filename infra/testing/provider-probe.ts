import type { JobIdentity } from '../../lib/identity.js';
import { idempotencyKeyFor } from '../../lib/worker/job-context.js';
import { InjectedCrash, type WorkerFaults } from './worker-faults.js';

/** One call a job made to its declared provider client (or the start of a reconcile), in order. */
interface ProviderEvent {
  readonly seq: number;
  readonly worker: string;
  readonly scenario: string;
  readonly sample: number;
  readonly kind: 'effect' | 'lookup' | 'reconcile';
  readonly method: string;
  /** `tenant\u0000operation` of the delivery the worker was running. */
  readonly operation: string;
  /** The argument that carries the operation's `ctx.idempotencyKey` (the key itself, or a string built on it). */
  readonly key: string | undefined;
  /** False when the harness refused the call before it reached the provider (an injected outage). */
  readonly reached: boolean;
  /** True once the provider's method returned: the effect is held by the provider. */
  took: boolean;
}

/** Faults armed on one worker's provider client; each fires once, on the next effect call. */
interface ProviderFaults {
  /** The effect lands, then the worker crashes before it sees the answer. */
  crashAfterEffect: boolean;
  /** The effect lands, then the call times out (an ambiguous outcome the job sees). */
  timeoutAfterEffect: boolean;
  /** The provider is unavailable: the call fails before it reaches the provider (nothing happened). */
  failBeforeEffect: boolean;
}

/** The provider's timeout: the effect happened, the answer never came. */
class ProviderTimeout extends Error {
  override readonly name = 'TimeoutError';
}

/** The provider answered 503 before doing anything (injected by the harness). */
class ProviderUnavailable extends Error {
  override readonly name = 'ServiceUnavailable';
}

/** `tenant\u0000operation`: how provider events and reconciles name the operation they belong to. */
function operationKey(identity: JobIdentity): string {
  return `${identity.tenantId}\u0000${identity.operationId}`;
}

/** The first argument (or string field of an object argument) that contains the operation's idempotency key. */
function keyArgument(args: readonly unknown[], identity: JobIdentity | undefined): string | undefined {
  if (!identity) return undefined;
  const key = idempotencyKeyFor(identity);
  const candidates = args.flatMap((arg) =>
    arg !== null && typeof arg === 'object' ? Object.values(arg as Record<string, unknown>) : [arg],
  );
  return candidates.find((value): value is string => typeof value === 'string' && value.includes(key));
}

/** What the probe of one worker's provider needs: where to record, what is running, which faults are armed. */
interface ProbeContext {
  readonly worker: string;
  readonly events: ProviderEvent[];
  readonly running: () => { scenario: string; sample: number; identity: JobIdentity | undefined };
  readonly faults: ProviderFaults;
  readonly workerFaults: WorkerFaults;
}

/**
 * Wraps the declared provider client: every method call is recorded (effects apart from lookups, with the
 * operation and the idempotency key it carried), a crashed worker's calls fail, and the armed faults fire.
 * Methods run on the client itself (private fields work).
 */
function instrumentProvider<Client>(client: Client, effects: readonly string[], context: ProbeContext): Client {
  if (client === null || typeof client !== 'object') return client;
  return new Proxy(client as object, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      const kind = effects.includes(property) ? 'effect' : 'lookup';
      return async (...args: unknown[]) => {
        if (context.workerFaults.crashed) throw new InjectedCrash(`worker ${context.worker} has crashed`);
        const { scenario, sample, identity } = context.running();
        const unavailable = kind === 'effect' && context.faults.failBeforeEffect;
        const event: ProviderEvent = {
          seq: context.events.length,
          worker: context.worker,
          scenario,
          sample,
          kind,
          method: property,
          operation: identity ? operationKey(identity) : '?',
          key: keyArgument(args, identity),
          reached: !unavailable,
          took: false,
        };
        context.events.push(event);
        if (unavailable) {
          context.faults.failBeforeEffect = false;
          throw new ProviderUnavailable(
            `${property}() failed before it reached the provider (injected by the harness)`,
          );
        }
        const result = await (value as (...parameters: unknown[]) => unknown).apply(target, args);
        event.took = kind === 'effect';
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

/**
 * How many effects a list of effect calls made: for class C, one per distinct idempotency key per operation (the
 * dedupe the provider promises; a call without the key is an effect of its own); for class D every call that
 * reached the provider. Calls the harness refused before the provider are not effects.
 */
function countEffects(events: readonly ProviderEvent[], target: string): number {
  const reached = events.filter((event) => event.kind === 'effect' && event.reached);
  if (target !== 'C') return reached.length;
  const keyed = new Set(reached.filter((event) => event.key).map((event) => `${event.operation}\u0000${event.key}`));
  return keyed.size + reached.filter((event) => !event.key).length;
}

export {
  countEffects,
  instrumentProvider,
  operationKey,
  type ProviderEvent,
  type ProviderFaults,
  ProviderTimeout,
  ProviderUnavailable,
};
