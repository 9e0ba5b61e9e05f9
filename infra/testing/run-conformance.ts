import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import * as z from 'zod';
import { InvalidInputError } from '../../lib/errors.js';
import type { JobDefinition } from '../../lib/job-definition.js';
import { defineSchedules, type ScheduleDeclaration } from '../../lib/messaging/schedule.js';
import { ConformanceBench, type PrepareTenant } from './bench.js';
import {
  type ConformanceEngine,
  createConformanceTables,
  harnessClients,
  startConformanceEngine,
} from './conformance-engine.js';
import { type ControlResult, deriveControls, EFFECT_COUNTING, verdictOf } from './controls.js';
import { type ReconcileFinding, reconcileFindings, type UnfencedWrite, unfencedWrites } from './findings.js';
import { scanForLeaks } from './privacy-scan.js';
import { withProcessClientsObserved } from './process-endpoint.js';
import { countEffects } from './provider-probe.js';
import { Remedy } from './remedies.js';
import { NO_TRANSACTIONS, type Scenario, type ScenarioResult } from './scenario-support.js';
import { APPROVAL_SCENARIOS } from './scenarios-approvals.js';
import { everyAttempt } from './scenarios-attempts.js';
import { crashAfterEffect, lostCompletion, providerTimeout, receiptCrash } from './scenarios-faults.js';
import { limitWait } from './scenarios-limits.js';
import {
  changedPayloadScenario,
  collidingIds,
  duplicateDelivery,
  sharedRecord,
  staleResume,
} from './scenarios-ownership.js';
import { runScheduleScenarios } from './scenarios-schedules.js';
import { SUCCESSOR_SCENARIOS } from './scenarios-successors.js';

/**
 * The scenarios, in the order they run for each sample payload (seed scenarios 1–5, the contract tests behind
 * controls 1, 5 and 8, every attempt of one operation, the approval gate's, then the successors': those apply to a
 * job whose run asks for a successor and have no result for one that asks for none). The duplicate-tick scenario
 * runs after them, once per schedule of the job type (scenarios-schedules.ts).
 */
const SCENARIOS: readonly Scenario[] = [
  staleResume,
  duplicateDelivery,
  lostCompletion,
  crashAfterEffect,
  changedPayloadScenario,
  collidingIds,
  sharedRecord,
  receiptCrash,
  providerTimeout,
  everyAttempt,
  ...APPROVAL_SCENARIOS,
  ...SUCCESSOR_SCENARIOS,
  limitWait,
];

/** Scenarios no control covers, each judged on its own: the approval gate's and the concurrency-limit wait. */
const JUDGED_ALONE: readonly Scenario[] = [...APPROVAL_SCENARIOS, limitWait];

/**
 * The scenarios that apply to a job: by target class (provider timeouts only for class C and D) and by what it
 * declares (the approval scenarios only for a job type with an approval gate).
 */
function applicableScenarios(job: JobDefinition<unknown>): Scenario[] {
  return SCENARIOS.filter(
    (scenario) =>
      (!scenario.classes || scenario.classes.includes(job.target)) && (!scenario.applies || scenario.applies(job)),
  );
}

/**
 * The approval scenarios judge the gate and the limit-wait scenario a limited type's wait, which no control covers:
 * one failed ▶ NO-GO; one not evaluated turns a GO into NOT EVALUATED (a gate the samples never closed, or a wait
 * never made, was not seen holding).
 */
function withUncontrolledScenarios(
  verdict: ReturnType<typeof verdictOf>,
  scenarios: readonly ScenarioResult[],
): ReturnType<typeof verdictOf> {
  const approvals = scenarios.filter((scenario) => JUDGED_ALONE.some((known) => known.id === scenario.id));
  if (approvals.some((scenario) => scenario.status === 'failed')) return 'NO-GO';
  if (verdict === 'GO' && approvals.some((scenario) => scenario.status === 'skipped')) return 'NOT EVALUATED';
  return verdict;
}

/** How to run the conformance scenarios for one job type. */
interface ConformanceOptions {
  /**
   * One or more payloads the job's schema accepts: each drives every scenario (a path only one payload takes is
   * observed like any other); another sample (or the sample with one extra field) is its changed payload.
   */
  readonly samplePayloads: readonly unknown[];
  /** A DynamoDB endpoint (moto, DynamoDB Local, AWS). Default: an embedded dynalite started for this run. */
  readonly endpoint?: string | undefined;
  /** An engine shared by several runs (from startConformanceEngine); overrides `endpoint`. */
  readonly engine?: ConformanceEngine | undefined;
  /** The job's own tables, created when missing (kept when they exist). */
  readonly tables?: readonly CreateTableCommandInput[] | undefined;
  /** Prepares the job's records for each fresh tenant (e.g. stock to reserve). */
  readonly prepare?: PrepareTenant | undefined;
  /**
   * The jobs module's job types (the one under test among them is ignored): a worker accepts them as successor
   * types from ctx.enqueue, checked against their definitions, never run. Without them a successor is refused.
   */
  readonly successorJobs?: ReadonlyArray<JobDefinition<unknown>> | undefined;
  /** The jobs module's schedules (checked as defineSchedules checks them): each of this job type is ticked twice. */
  readonly schedules?: readonly ScheduleDeclaration[] | undefined;
}

/** What one job type's run showed: every scenario, every unfenced path, each control and the verdict. */
interface ConformanceReport {
  readonly jobType: string;
  readonly target: string;
  readonly reversibility: string | undefined;
  readonly owner: string | undefined;
  readonly alertRoute: string | undefined;
  readonly engine: string;
  readonly transactions: boolean;
  /** How many sample payloads drove the scenarios (each scenario ran once per sample). */
  readonly samples: number;
  /** Class C/D: how effects were counted (C by distinct idempotency key, the provider's dedupe). */
  readonly effectCounting: string | undefined;
  readonly scenarios: readonly ScenarioResult[];
  readonly unfencedWrites: readonly UnfencedWrite[];
  /** Reconcile answers the provider's state contradicted (done without the effect, not_done with it). */
  readonly reconcileFindings: readonly ReconcileFinding[];
  readonly controls: readonly ControlResult[];
  readonly verdict: 'GO' | 'NO-GO' | 'NOT EVALUATED';
  /** Set when the definition itself could not be run (a hand-built object missing a required field). */
  readonly problem?: string;
}

function checkOptions(job: JobDefinition<unknown>, options: ConformanceOptions): void {
  if (!Array.isArray(options.samplePayloads) || options.samplePayloads.length === 0) {
    throw new InvalidInputError(`conformance of ${job.type}: give at least one sample payload`, [
      { path: 'samplePayloads', message: 'must be a non-empty array' },
    ]);
  }
  options.samplePayloads.forEach((payload, index) => {
    if (!z.safeParse(job.payload, payload).success) {
      throw new InvalidInputError(`conformance of ${job.type}: sample payload ${index} fails the job's schema`, [
        { path: `samplePayloads.${index}`, message: "does not match the job's payload schema" },
      ]);
    }
  });
}

/** Why a hand-built definition cannot be run at all (bypassing defineJob), or undefined when it can. */
function definitionProblem(job: JobDefinition<unknown>): string | undefined {
  if (typeof job.type !== 'string' || job.type.length === 0) return 'the definition has no type';
  if (!(job.payload instanceof z.core.$ZodType))
    return 'payload is not a zod schema: the worker cannot validate what it runs';
  if (typeof job.run !== 'function') return 'run(context) is missing';
  if (!['A', 'B', 'C', 'D'].includes(String(job.target))) return 'no target class (A, B, C or D) is declared';
  if (!Number.isInteger(job.maxAttempts) || job.maxAttempts < 1 || job.maxAttempts > 100) {
    return `maxAttempts ${String(job.maxAttempts)} is not an integer from 1 to 100`;
  }
  if (!Number.isInteger(job.leaseMs) || job.leaseMs < 1_000) return `leaseMs ${String(job.leaseMs)} is below 1000`;
  if (!Number.isInteger(job.retry?.baseDelayMs) || !Number.isInteger(job.retry?.maxDelayMs)) {
    return 'retry { baseDelayMs, maxDelayMs } is missing';
  }
  return undefined;
}

/**
 * The report of a job type whose scenarios could not run (`reason`): every scenario skipped, controls derived
 * from that, and NO-GO when the definition itself is broken (`broken`).
 */
function unevaluatedReport(
  job: JobDefinition<unknown>,
  reason: string,
  broken: boolean,
  remedy?: string,
): ConformanceReport {
  const scenarios = applicableScenarios(job).map((scenario) => ({
    id: scenario.id,
    title: scenario.title,
    sample: 1,
    status: 'skipped' as const,
    detail: reason,
    remedies: remedy ? [remedy] : [],
    evidence: {},
  }));
  const controls = deriveControls({
    job,
    scenarios,
    unfencedWrites: [],
    reconcileFindings: [],
    effectCalls: 0,
    effects: 0,
    privacyLeaks: [],
    rowsScanned: 0,
    logEventsScanned: 0,
  });
  return {
    jobType: String(job.type),
    target: String(job.target),
    reversibility: job.reversibility,
    owner: job.owner,
    alertRoute: job.alertRoute,
    engine: 'none',
    transactions: false,
    samples: 0,
    effectCounting: effectCounting(job),
    scenarios,
    unfencedWrites: [],
    reconcileFindings: [],
    controls,
    verdict: broken ? 'NO-GO' : verdictOf(controls),
    ...(broken ? { problem: reason } : {}),
  };
}

/** How the report counts class C/D effects. */
function effectCounting(job: JobDefinition<unknown>): string | undefined {
  return job.target === 'C' || job.target === 'D' ? EFFECT_COUNTING[job.target] : undefined;
}

/** The order in which one sample runs: the sample first, the other samples after it (for the changed payload). */
function withSampleFirst(samples: readonly unknown[], index: number): unknown[] {
  return [samples[index], ...samples.filter((_, other) => other !== index)];
}

async function runScenario(bench: ConformanceBench, scenario: Scenario, payloads: readonly unknown[], sample: number) {
  bench.begin(scenario.id, sample);
  const named = { id: scenario.id, title: scenario.title, sample };
  try {
    const outcome = await scenario.run(bench, payloads);
    return outcome && { ...named, ...outcome };
  } catch (error) {
    const detail = `the scenario stopped: ${(error as Error).name}: ${(error as Error).message}`;
    return { ...named, status: 'failed' as const, detail, remedies: [Remedy.scenarioStopped], evidence: {} };
  }
}

/** Every applicable scenario once per sample payload (class A on an engine without transactions: skipped). */
async function runScenarios(
  bench: ConformanceBench,
  job: JobDefinition<unknown>,
  samples: readonly unknown[],
  transactions: boolean,
): Promise<ScenarioResult[]> {
  const results: ScenarioResult[] = [];
  for (const [index] of samples.entries()) {
    for (const scenario of applicableScenarios(job)) {
      const sample = index + 1;
      const result =
        job.target === 'A' && !transactions
          ? {
              id: scenario.id,
              title: scenario.title,
              sample,
              status: 'skipped' as const,
              detail: NO_TRANSACTIONS,
              remedies: [],
              evidence: {},
            }
          : await runScenario(bench, scenario, withSampleFirst(samples, index), sample);
      if (result) results.push(result);
    }
  }
  return results;
}

/**
 * Runs the fault-injection scenarios against one job definition on real engines, once per sample payload,
 * observing every DynamoDB request any client of the process makes (at the engine boundary: the runtime's, the
 * provider's, and clients the job builds itself, pointed there through AWS_ENDPOINT_URL_DYNAMODB) and every call
 * to its declared provider, and derives the nine go/no-go controls from the counts. Class A on an engine without
 * TransactWriteItems is NOT EVALUATED, never GO. Bad options ▶ InvalidInputError before anything starts.
 */
async function runConformance(job: JobDefinition<unknown>, options: ConformanceOptions): Promise<ConformanceReport> {
  const problem = definitionProblem(job);
  if (problem) return unevaluatedReport(job, problem, true);
  checkOptions(job, options);
  // Checked before anything starts (a bad schedule ▶ InvalidInputError naming its field), as the construct checks it.
  const checked = { ...options, schedules: defineSchedules(options.schedules ?? []) };
  const engine = options.engine ?? (await startConformanceEngine({ endpoint: options.endpoint }));
  const { client, sqs } = harnessClients(engine);
  try {
    return await withProcessClientsObserved(engine.proxy, () => evaluate(job, checked, engine, client, sqs));
  } finally {
    client.destroy();
    sqs.destroy();
    if (!options.engine) await engine.stop();
  }
}

async function evaluate(
  job: JobDefinition<unknown>,
  options: ConformanceOptions,
  engine: ConformanceEngine,
  client: ReturnType<typeof harnessClients>['client'],
  sqs: ReturnType<typeof harnessClients>['sqs'],
): Promise<ConformanceReport> {
  const userTables = options.tables ?? [];
  const tables = await createConformanceTables(engine, client, sqs, userTables);
  const declared = userTables.map((table) => String(table.TableName));
  const bench = new ConformanceBench(
    engine,
    tables,
    client,
    sqs,
    job,
    options.prepare,
    declared,
    options.successorJobs,
  );
  try {
    const scenarios = [
      ...(await runScenarios(bench, job, options.samplePayloads, tables.transactions)),
      ...(await runScheduleScenarios(bench, options.schedules ?? [], tables.transactions)),
    ];
    const privacy = await scanForLeaks(bench, options.samplePayloads);
    const unfenced = unfencedWrites(bench);
    const findings = reconcileFindings(bench);
    const effectEvents = bench.providerEvents.filter((event) => event.kind === 'effect' && event.reached);
    const controls = deriveControls({
      job,
      scenarios,
      unfencedWrites: unfenced,
      reconcileFindings: findings,
      effectCalls: effectEvents.length,
      effects: countEffects(effectEvents, job.target),
      privacyLeaks: privacy.leaks,
      rowsScanned: privacy.rows,
      logEventsScanned: privacy.events,
    });
    return {
      jobType: job.type,
      target: job.target,
      reversibility: job.reversibility,
      owner: job.owner,
      alertRoute: job.alertRoute,
      engine: engine.name,
      transactions: tables.transactions,
      samples: options.samplePayloads.length,
      effectCounting: effectCounting(job),
      scenarios,
      unfencedWrites: unfenced,
      reconcileFindings: findings,
      controls,
      verdict: withUncontrolledScenarios(verdictOf(controls), scenarios),
    };
  } finally {
    await bench.close();
    await tables.drop();
  }
}

export {
  applicableScenarios,
  type ConformanceOptions,
  type ConformanceReport,
  runConformance,
  SCENARIOS,
  unevaluatedReport,
};
