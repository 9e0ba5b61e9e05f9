/**
 * Bounded (CI, part of `npm test`) or long (`npm run test:chaos`, LEASEFENCE_CHAOS=long) budgets for the
 * reliability suite, and the replay seed. Every loop in the suite is bounded by these counts; the time limits
 * only catch hangs, so a slow (loaded) machine never turns a pass into a failure.
 */

/** `long` when LEASEFENCE_CHAOS=long, else `bounded`. */
const CHAOS_MODE = process.env.LEASEFENCE_CHAOS === 'long' ? 'long' : 'bounded';

/** Counts and time limits of one mode. */
interface ChaosBudget {
  /** Model commands run against the engine by the randomized interleavings (at least). */
  interleavingCommands: number;
  /** Commands per randomized run (a fresh table each run). */
  commandsPerRun: number;
  /** Generated malformed SQS records fed to the worker runtime. */
  sqsRecords: number;
  /** Generated malformed admin requests fed to the admin router. */
  adminRequests: number;
  /** Worker processes and jobs of the real-process soak, and how long faults are injected. */
  soakWorkers: number;
  soakJobs: number;
  soakChaosMs: number;
  /** Jobs and engine kills of each database-failure test (the DynamoDB engine as a process of its own). */
  databaseJobs: number;
  databaseKills: number;
  /** Claimers and items of the concurrent-claims test (real concurrency: one client each). */
  claimWorkers: number;
  claimItems: number;
  /** The runner's timeout for any single test in this mode: a hang detector, generous so no load decides a verdict. */
  testTimeoutMs: number;
}

const BUDGETS: Record<'bounded' | 'long', ChaosBudget> = {
  bounded: {
    interleavingCommands: 6_000,
    commandsPerRun: 50,
    sqsRecords: 10_000,
    adminRequests: 10_000,
    soakWorkers: 3,
    soakJobs: 24,
    soakChaosMs: 8_000,
    databaseJobs: 12,
    databaseKills: 2,
    claimWorkers: 8,
    claimItems: 64,
    testTimeoutMs: 900_000,
  },
  long: {
    interleavingCommands: 100_000,
    commandsPerRun: 80,
    sqsRecords: 50_000,
    adminRequests: 50_000,
    soakWorkers: 4,
    soakJobs: 240,
    soakChaosMs: 90_000,
    databaseJobs: 90,
    databaseKills: 8,
    claimWorkers: 16,
    claimItems: 200,
    testTimeoutMs: 1_800_000,
  },
};

/** The budget of the current mode. */
const budget: ChaosBudget = BUDGETS[CHAOS_MODE];

/** LEASEFENCE_SEED (and LEASEFENCE_PATH for a fast-check counterexample path) replay a failing run exactly. */
function replaySeed(): { seed: number; path?: string } | undefined {
  const raw = process.env.LEASEFENCE_SEED;
  if (raw === undefined || raw === '') return undefined;
  const seed = Number(raw);
  if (!Number.isSafeInteger(seed)) throw new Error(`LEASEFENCE_SEED must be an integer, got ${raw}`);
  const path = process.env.LEASEFENCE_PATH;
  return path ? { seed, path } : { seed };
}

/** The seed of this run: the replay seed, else a fresh one (printed by every test that uses it). */
function runSeed(): number {
  return replaySeed()?.seed ?? (Date.now() ^ (Math.random() * 0x7fffffff)) | 0;
}

export { budget, CHAOS_MODE, type ChaosBudget, replaySeed, runSeed };
