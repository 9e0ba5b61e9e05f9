import fc from 'fast-check';
import { type ApprovalCommand, approvalArbitraries, type GateKind, gateArbitrary } from './approval-commands.js';

/** Shape of every randomized run: workers, tenants, operations and the lease, all small so they collide. */
const Universe = {
  workers: 3,
  tenants: ['t0', 't1'],
  /** Operation ids, the same in every tenant (collisions across tenants are the point). */
  operations: ['op-0', 'op-1', 'op-2'],
  /** maxAttempts of each operation: one-shot, two and three attempts. */
  maxAttempts: [1, 2, 3],
  leaseMs: 1_000,
  /** Clock skew of a worker is one of these (ms); skew makes takeovers early or late, the fence keeps both safe. */
  skews: [-300, -100, 0, 100, 300],
} as const;

/** Identities are numbered tenant-major: id = tenant * operations + operation. */
const IDENTITY_COUNT = Universe.tenants.length * Universe.operations.length;

/** The identity an id stands for. */
function identityOf(id: number): { tenantId: string; operationId: string } {
  const tenant = Math.floor(id / Universe.operations.length);
  return {
    tenantId: Universe.tenants[tenant] as string,
    operationId: Universe.operations[id % Universe.operations.length] as string,
  };
}

/** The same operation id under the other tenant. */
function twinOf(id: number): number {
  return (id + Universe.operations.length) % IDENTITY_COUNT;
}

/** maxAttempts of an identity. */
function maxAttemptsOf(id: number): number {
  return Universe.maxAttempts[id % Universe.operations.length] as number;
}

/** Target class of an identity: the one-shot operation is class D (no key, no lookup), then C and B. */
function targetClassOf(id: number): 'B' | 'C' | 'D' {
  return (['D', 'C', 'B'] as const)[id % Universe.operations.length] as 'B' | 'C' | 'D';
}

/**
 * One step of a randomized interleaving. Holder steps (heartbeat, write, complete, fail) act on the claim
 * the worker last obtained for the identity, stale or not; without one they claim instead.
 */
type Command =
  | { kind: 'enqueue'; id: number; worker: number | null; conflict: boolean; gate: GateKind }
  | { kind: 'claim'; id: number; worker: number }
  | { kind: 'heartbeat'; id: number; worker: number }
  | { kind: 'advance'; ms: number }
  | { kind: 'pause'; worker: number }
  | { kind: 'write'; id: number; worker: number; mode: 'advance' | 'next' | 'repeat' }
  /** A sequenced write through the runtime's lease guard: refused, unsent, once the worker is in lease doubt. */
  | { kind: 'guardedWrite'; id: number; worker: number }
  | { kind: 'complete'; id: number; worker: number }
  | { kind: 'fail'; id: number; worker: number; terminal: boolean; delayMs: number }
  | { kind: 'cancel'; id: number }
  | { kind: 'sweep' }
  | { kind: 'resolve'; id: number; to: 'succeeded' | 'failed_terminal' | 'queued'; statement: boolean }
  | { kind: 'retry'; id: number; statement: boolean }
  | ApprovalCommand;

const id = fc.integer({ min: 0, max: IDENTITY_COUNT - 1 });
const worker = fc.integer({ min: 0, max: Universe.workers - 1 });
const lease = Universe.leaseMs;

/** Commands that act on a claim the worker holds. */
type HolderCommand = Extract<Command, { kind: 'heartbeat' | 'write' | 'guardedWrite' | 'complete' | 'fail' }>;

/** Weighted generator of commands. */
const commandArbitrary: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('enqueue' as const),
      id,
      worker: fc.option(worker, { nil: null }),
      conflict: fc.integer({ min: 0, max: 7 }).map((roll) => roll === 0),
      gate: gateArbitrary,
    }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('claim' as const), id, worker }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('heartbeat' as const), id, worker }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      ms: fc.constantFrom(1, lease / 4, lease - 1, lease, lease + 1, 3 * lease),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('pause' as const), worker }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('write' as const),
      id,
      worker,
      mode: fc.constantFrom('advance' as const, 'next' as const, 'repeat' as const),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('guardedWrite' as const), id, worker }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('complete' as const), id, worker }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('fail' as const),
      id,
      worker,
      terminal: fc.boolean(),
      delayMs: fc.constantFrom(0, lease / 2, 2 * lease),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), id }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('sweep' as const) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('resolve' as const),
      id,
      to: fc.constantFrom('succeeded' as const, 'failed_terminal' as const, 'queued' as const),
      statement: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('retry' as const), id, statement: fc.boolean() }) },
  ...approvalArbitraries(id),
);

/** One randomized run: the workers' clock skews and the command sequence. */
interface RunPlan {
  skews: number[];
  commands: Command[];
}

/** Generator of runs with between half and all of `commandsPerRun` commands. */
function runArbitrary(commandsPerRun: number): fc.Arbitrary<RunPlan> {
  return fc.record({
    skews: fc.array(fc.constantFrom(...Universe.skews), { minLength: Universe.workers, maxLength: Universe.workers }),
    commands: fc.array(commandArbitrary, {
      minLength: Math.ceil(commandsPerRun / 2),
      maxLength: commandsPerRun,
    }),
  });
}

/** The payload an enqueue of `id` sends (`conflict`: the other one, under the same identity); its hash binds the row. */
function payloadOf(id: number, conflict: boolean): Record<string, unknown> {
  return { id: identityOf(id), conflict };
}

/** Whether a command sweeps (every identity may change): a sweep, or an approval racing the sweeper's expiry. */
function sweeps(command: Command): boolean {
  return command.kind === 'sweep' || (command.kind === 'race' && command.rival === 'expire');
}

/** Identities whose stored item a command may change: its own, every one for a sweep, none for a clock move. */
function touched(command: Command): number[] {
  if (sweeps(command)) return Array.from({ length: IDENTITY_COUNT }, (_, index) => index);
  if ('id' in command) return [command.id];
  return [];
}

export {
  type Command,
  commandArbitrary,
  type HolderCommand,
  IDENTITY_COUNT,
  identityOf,
  maxAttemptsOf,
  payloadOf,
  type RunPlan,
  runArbitrary,
  sweeps,
  targetClassOf,
  touched,
  twinOf,
  Universe,
};
