import type { RequestSource } from './request-log.js';

/** One thing a scenario found wrong, and the one-line change that fixes it. */
interface Problem {
  readonly text: string;
  readonly remedy: string;
}

/** The one-line remedies a NO-GO names, one home for their wording. */
const Remedy = {
  fenceEveryWrite:
    'route every write of the job through ctx.records (class B, writer_epoch) or ctx.transactions (class A): a stale attempt must be refused',
  idempotencyKey: "pass ctx.idempotencyKey to the provider's effect method, so the provider deduplicates a repeat",
  reconcileLooksUp:
    'reconcile must look the effect up by ctx.idempotencyKey and answer done only when the provider holds it, not_done only when it does not',
  keyRetention:
    'state how long the provider keeps an idempotency key (provider: { keyRetentionMs }); an operator retry past it then needs the effect-absent statement',
  reconcileFirst: 'define reconcile and look the first call up by ctx.idempotencyKey before calling again',
  classDOneAttempt:
    'class D (no key, no lookup): set maxAttempts: 1, or give the provider a key and a lookup (class C)',
  declareProvider:
    "declare the provider (provider: { create, effects: ['<method>'] }) and reach the external system only through ctx.provider",
  declareEffects: "declare the provider's effect methods: provider.effects names the methods that cause the effect",
  keyByOperation:
    'key the record by the operation (ctx.identity), or make the job class A and write it with ctx.transactions',
  keyByTenant: 'include ctx.identity.tenantId in every record key and provider key',
  sameEffectOnRetry:
    'make every write idempotent across attempts (store values derived from the payload: set, not add; never ctx.fence or the attempt), or make the job class A so each step lands once',
  ownerAndBounds: 'set owner and alertRoute in defineJob, and a maxAttempts from 1 to 100',
  privacy: 'keep payload values and raw tenant ids out of outcomes, error messages and log fields (hash them)',
  completingSample: 'give a sample payload the job completes with (conformance.samplePayloads)',
  runtime: 'the runtime did this, not the job: report it to leasefence with this evidence',
  successorRegistered:
    'define every successor type in the same jobs module with a payload the successor accepts (a deployed worker refuses an unregistered type too)',
  stableSuccessorName:
    'give each successor a name that is the same on every attempt (ctx.enqueue(type, payload, { name })): no random part, no attempt number, no time',
  enqueueThroughContext:
    'enqueue follow-up jobs only with ctx.enqueue inside run: it writes them with the fenced completion, so a stale attempt writes none',
  schedulePayload: "give the schedule a payload the job's schema accepts and the job completes with",
  scenarioStopped: 'the scenario could not run to the end: fix the error it names (often the job throwing outside run)',
} as const;

/** The remedy for an unfenced write, by target class and by the client that sent it. */
function unfencedRemedy(target: string, table: string, source: RequestSource, operation: string): string {
  if (operation === 'BatchWriteItem' || /Statement|Transaction$/.test(operation)) {
    return `write ${table} with ctx.records (${operation} carries no fence condition)`;
  }
  if (target === 'A') return `write ${table} inside ctx.transactions.runStep (the fence rides in the transaction)`;
  if (source === 'provider') {
    return `the provider's client writes ${table} unfenced: write it with ctx.records.put / ctx.records.write, or declare the job class C if the provider is an external system`;
  }
  if (target === 'C' || target === 'D') {
    return `build the provider on the client provider.create is given, or write ${table} with ctx.records`;
  }
  return `write this record with ctx.records.put / ctx.records.write, not with a DynamoDB client of the job's own (ctx.client or another)`;
}

export { type Problem, Remedy, unfencedRemedy };
