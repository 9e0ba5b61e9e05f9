import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import * as z from 'zod';
import { InvalidInputError } from '../../lib/errors.js';
import type { JobDefinition } from '../../lib/job-definition.js';
import { ConformanceBench, type PrepareTenant } from './bench.js';
import {
  type ConformanceEngine,
  createConformanceTables,
  harnessClients,
  startConformanceEngine,
} from './conformance-engine.js';
import { type ControlResult, deriveControls, type UnfencedWrite, verdictOf } from './controls.js';
import { scanForLeaks } from './privacy-scan.js';
import { NO_TRANSACTIONS, type Scenario, type ScenarioResult } from './scenario-support.js';
import { crashAfterEffect, lostCompletion, providerTimeout, receiptCrash } from './scenarios-faults.js';
import {
  changedPayloadScenario,
  collidingIds,
  duplicateDelivery,
  sharedRecord,
  staleResume,
} from './scenarios-ownership.js';

/** The scenarios, in the order they run (seed scenarios 1–5, then the contract tests behind controls 1, 5 and 8). */
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
];

/** The scenarios that apply to a job's target class (provider timeouts only for class C and D). */
function applicableScenarios(job: Pick<JobDefinition<unknown>, 'target'>): Scenario[] {
  return SCENARIOS.filter((scenario) => !scenario.classes || scenario.classes.includes(job.target));
}

/** How to run the conformance scenarios for one job type. */
interface ConformanceOptions {
  /** One or more payloads the job's schema accepts; the first drives every scenario, the second (if any) is the changed payload. */
  readonly samplePayloads: readonly unknown[];
  /** A DynamoDB endpoint (moto, DynamoDB Local, AWS). Default: an embedded dynalite started for this run. */
  readonly endpoint?: string | undefined;
  /** An engine shared by several runs (from startConformanceEngine); overrides `endpoint`. */
  readonly engine?: ConformanceEngine | undefined;
  /** The job's own tables, created when missing (kept when they exist). */
  readonly tables?: readonly CreateTableCommandInput[] | undefined;
  /** Prepares the job's records for each fresh tenant (e.g. stock to reserve). */
  readonly prepare?: PrepareTenant | undefined;
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
  readonly scenarios: readonly ScenarioResult[];
  readonly unfencedWrites: readonly UnfencedWrite[];
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
    if (!job.payload.safeParse(payload).success) {
      throw new InvalidInputError(`conformance of ${job.type}: sample payload ${index} fails the job's schema`, [
        { path: `samplePayloads.${index}`, message: "does not match the job's payload schema" },
      ]);
    }
  });
}

/** Why a hand-built definition cannot be run at all (bypassing defineJob), or undefined when it can. */
function definitionProblem(job: JobDefinition<unknown>): string | undefined {
  if (typeof job.type !== 'string' || job.type.length === 0) return 'the definition has no type';
  if (!(job.payload instanceof z.ZodType))
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
function unevaluatedReport(job: JobDefinition<unknown>, reason: string, broken: boolean): ConformanceReport {
  const scenarios = applicableScenarios(job).map((scenario) => ({
    id: scenario.id,
    title: scenario.title,
    status: 'skipped' as const,
    detail: reason,
    evidence: {},
  }));
  const controls = deriveControls({
    job,
    scenarios,
    unfencedWrites: [],
    effectCalls: 0,
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
    scenarios,
    unfencedWrites: [],
    controls,
    verdict: broken ? 'NO-GO' : verdictOf(controls),
    ...(broken ? { problem: reason } : {}),
  };
}

/** Groups the unfenced target writes the job's requests made, by table, call and scenario. */
function unfencedWrites(bench: ConformanceBench): UnfencedWrite[] {
  const counts = new Map<string, UnfencedWrite>();
  for (const request of bench.recorder.requests) {
    for (const write of request.writes.filter((candidate) => !candidate.fenced)) {
      const id = `${write.table}\u0000${request.operation}\u0000${request.scenario}`;
      const seen = counts.get(id);
      counts.set(id, {
        table: write.table,
        call: request.operation,
        scenario: request.scenario,
        count: (seen?.count ?? 0) + 1,
      });
    }
  }
  return [...counts.values()];
}

async function runScenario(bench: ConformanceBench, scenario: Scenario, payloads: readonly unknown[]) {
  bench.begin(scenario.id);
  try {
    return { id: scenario.id, title: scenario.title, ...(await scenario.run(bench, payloads)) };
  } catch (error) {
    const detail = `the scenario stopped: ${(error as Error).name}: ${(error as Error).message}`;
    return { id: scenario.id, title: scenario.title, status: 'failed' as const, detail, evidence: {} };
  }
}

/**
 * Runs the fault-injection scenarios against one job definition on real engines, observing every DynamoDB
 * request its workers make and every call to its declared provider, and derives the nine go/no-go controls
 * from the counts. Class A on an engine without TransactWriteItems is NOT EVALUATED, never GO.
 * Bad options ▶ InvalidInputError before anything starts.
 */
async function runConformance(job: JobDefinition<unknown>, options: ConformanceOptions): Promise<ConformanceReport> {
  const problem = definitionProblem(job);
  if (problem) return unevaluatedReport(job, problem, true);
  checkOptions(job, options);
  const engine = options.engine ?? (await startConformanceEngine({ endpoint: options.endpoint }));
  const { client, sqs } = harnessClients(engine);
  try {
    const tables = await createConformanceTables(engine, client, sqs, options.tables ?? []);
    const bench = new ConformanceBench(engine, tables, client, sqs, job, options.prepare);
    try {
      const applicable = applicableScenarios(job);
      const scenarios: ScenarioResult[] = [];
      for (const scenario of applicable) {
        scenarios.push(
          job.target === 'A' && !tables.transactions
            ? { id: scenario.id, title: scenario.title, status: 'skipped', detail: NO_TRANSACTIONS, evidence: {} }
            : await runScenario(bench, scenario, options.samplePayloads),
        );
      }
      const privacy = await scanForLeaks(bench, options.samplePayloads);
      const unfenced = unfencedWrites(bench);
      const controls = deriveControls({
        job,
        scenarios,
        unfencedWrites: unfenced,
        effectCalls: bench.providerEvents.filter((event) => event.kind === 'effect').length,
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
        scenarios,
        unfencedWrites: unfenced,
        controls,
        verdict: verdictOf(controls),
      };
    } finally {
      await bench.close();
      await tables.drop();
    }
  } finally {
    client.destroy();
    sqs.destroy();
    if (!options.engine) await engine.stop();
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
