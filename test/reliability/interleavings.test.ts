import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestQueue, testDocumentClient, testSqsClient } from '../support/engine.js';
import { budget, replaySeed, runSeed } from './support/chaos-mode.js';
import { type ApprovalTally, emptyApprovalTally } from './support/model/approval-invariants.js';
import { runArbitrary } from './support/model/commands.js';
import { InvariantViolation } from './support/model/invariants.js';
import { type InterleavingEnvironment, runInterleaving } from './support/model/run-interleaving.js';
import { emptyReplayTally, type ReplayTally, replayLine } from './support/replay/history.js';
import { ReliabilityReport } from './support/report.js';

/** Runs per fast-check batch; each batch has its own seed, so a failure names one small replayable batch. */
const RUNS_PER_BATCH = 10;

/**
 * Randomized interleavings of enqueue, claim, heartbeat, pause, lease expiry, fenced writes, complete, fail,
 * cancel, sweep, admin resolve, and the approval gate (a gated enqueue, approve, reject, expiry, an approval racing
 * a cancel, reject or expiry) over three workers (with skewed clocks), two tenants and three operations
 * that share their ids across tenants, against dynalite. A reference model written from the design predicts
 * every outcome; the invariants are checked on the engine after every step. Replay a failure with the
 * printed LEASEFENCE_SEED (and LEASEFENCE_PATH).
 */
describe('randomized interleavings against the real engine', () => {
  const report = new ReliabilityReport(__filename);
  let env: InterleavingEnvironment;

  beforeAll(async () => {
    const sqs = testSqsClient();
    const { queueUrl } = await createTestQueue(sqs, 'rel-model');
    env = { client: testDocumentClient(), sqs, queueUrl };
  });
  afterAll(async () => {
    await report.publish();
    env.client.destroy();
    env.sqs.destroy();
  });

  /** Runs one fast-check batch; on failure prints the replay seed and path, counts an invariant violation. */
  async function runBatch(
    seed: number,
    path: string | undefined,
    counters: { executed: number; runs: number; approvals: ApprovalTally; replay: ReplayTally },
  ) {
    const property = fc.asyncProperty(runArbitrary(budget.commandsPerRun), async (plan) => {
      const executed = await runInterleaving(plan, env, counters.approvals, counters.replay);
      counters.runs += 1;
      counters.executed += executed;
    });
    try {
      await fc.assert(property, { seed, numRuns: RUNS_PER_BATCH, ...(path ? { path } : {}) });
    } catch (error) {
      if ((error as Error).cause instanceof InvariantViolation) report.add('invariantViolations');
      const failedPath = /path: "?([0-9:]+)"?/.exec(String(error))?.[1];
      console.log(
        `[leasefence reliability] replay: LEASEFENCE_SEED=${seed}${failedPath ? ` LEASEFENCE_PATH=${failedPath}` : ''}`,
      );
      throw error;
    }
  }

  it(
    `keeps every invariant over at least ${budget.interleavingCommands} commands`,
    async () => {
      const counters = { executed: 0, runs: 0, approvals: emptyApprovalTally(), replay: emptyReplayTally() };
      const replay = replaySeed();
      try {
        if (replay) {
          await runBatch(replay.seed, replay.path, counters);
          return;
        }
        const firstSeed = runSeed();
        console.log(`[leasefence reliability] interleavings: batch seeds start at ${firstSeed}`);
        // Bounded by commands, never by the wall clock: a loaded machine is slower, not wrong.
        for (let batch = 0; counters.executed < budget.interleavingCommands && batch < 10_000; batch += 1) {
          await runBatch(firstSeed + batch, undefined, counters);
        }
      } finally {
        report.counts.interleavings = counters.executed;
        report.counts.historiesReplayed = counters.replay.histories;
        report.counts.stepsReplayed = counters.replay.steps;
        report.counts.illegalSteps = counters.replay.illegal.length;
        console.log(`[leasefence reliability] interleavings, ${replayLine(counters.replay)}`);
        const gate = counters.approvals;
        console.log(
          `[leasefence reliability] interleavings, approval gate: ${gate.gated} gated jobs, ${gate.approved} approved, ` +
            `refused ${gate.refusedHash} for another payload hash and ${gate.refusedApprover} for the approver rule, ` +
            `${gate.rejected} rejected, ${gate.expired} expired; races: approval won ${gate.raceApproveWon}, rival won ${gate.raceRivalWon}`,
        );
      }
      const gate = counters.approvals;
      console.log(`[leasefence reliability] interleavings: ${counters.executed} commands in ${counters.runs} runs`);
      expect(counters.executed).toBeGreaterThanOrEqual(budget.interleavingCommands);
      // Each approval transition happened (tens of times in a bounded run), so its invariants were checked; the
      // approver-rule refusal is rarer (a few per run) and only printed, so a bounded run never fails by chance.
      const { refusedApprover: _rare, ...required } = gate;
      for (const [transition, count] of Object.entries(required)) expect(count, transition).toBeGreaterThan(0);
    },
    budget.testTimeoutMs,
  );
});
