import type { JobDefinition } from '../../lib/job-definition.js';
import { CONTROL_NAMES } from './controls.js';
import {
  applicableScenarios,
  type ConformanceOptions,
  type ConformanceReport,
  runConformance,
} from './run-conformance.js';
import { ScenarioId } from './scenario-support.js';

// vitest is only needed by describeJobConformance: `leasefence/testing` stays importable from plain Node without it.
const vitest = await import('vitest').catch(() => undefined);

/** Longest a whole run may take before vitest gives up on the hook (a hang guard, not a verdict). */
const RUN_HOOK_TIMEOUT_MS = 120_000;

/** Skips the running test with the reason printed (counted as skipped, never as passed). */
function skipWith(context: { skip: (note?: string) => void; task: { name: string } }, reason: string): void {
  console.log(`[leasefence conformance] SKIPPED "${context.task.name}": ${reason}`);
  context.skip(reason);
}

/**
 * Registers the conformance suite of one job type with vitest: the scenarios run once per sample (beforeAll),
 * then one test per scenario and sample and one per go/no-go control, each failing with its evidence and remedy. Scenarios the engine cannot
 * run (class A on dynalite) are reported as skipped with the reason, never as passed.
 * @example
 * describeJobConformance(refundJob, { samplePayloads: [{ amount: 70.25 }], tables: [refundsTable] });
 */
function describeJobConformance(job: JobDefinition<unknown>, options: ConformanceOptions): void {
  if (!vitest) throw new Error('describeJobConformance runs inside vitest: npm install --save-dev vitest');
  const { beforeAll, describe, expect, it } = vitest;
  describe(`conformance: ${job.type} (class ${job.target})`, () => {
    let report: ConformanceReport | undefined;
    beforeAll(async () => {
      report = await runConformance(job, options);
    }, RUN_HOOK_TIMEOUT_MS);

    const samples = Array.isArray(options.samplePayloads) ? options.samplePayloads.length : 0;
    for (const scenario of applicableScenarios(job)) {
      for (let sample = 1; sample <= Math.max(samples, 1); sample += 1) {
        const label = samples > 1 ? ` (sample ${sample})` : '';
        it(`${scenario.id}${label}: ${scenario.title}`, (context) => {
          const result = report?.scenarios.find(
            (candidate) => candidate.id === scenario.id && candidate.sample === sample,
          );
          if (!result && scenario.absentWhen) return skipWith(context, scenario.absentWhen);
          if (!result) throw new Error(`scenario ${scenario.id}${label} did not run`);
          if (result.status === 'skipped') return skipWith(context, result.detail);
          const remedy = result.remedies.length > 0 ? ` remedy: ${result.remedies.join('; ')}` : '';
          expect(result.status, `${result.detail}${remedy} ${JSON.stringify(result.evidence)}`).toBe('passed');
        });
      }
    }

    for (const schedule of (options.schedules ?? []).filter((candidate) => candidate.jobType === job.type)) {
      it(`${ScenarioId.duplicateTick} (schedule ${schedule.name}): one job and one run per tick`, (context) => {
        const result = report?.scenarios.find(
          (candidate) =>
            candidate.id === ScenarioId.duplicateTick && String(candidate.evidence.schedule) === schedule.name,
        );
        if (!result) throw new Error(`the duplicate tick of schedule ${schedule.name} did not run`);
        if (result.status === 'skipped') return skipWith(context, result.detail);
        expect(result.status, `${result.detail} ${JSON.stringify(result.evidence)}`).toBe('passed');
      });
    }

    CONTROL_NAMES.forEach((name, index) => {
      it(`control ${index + 1}: ${name}`, (context) => {
        const control = report?.controls[index];
        if (!control) throw new Error(`control ${index + 1} was not derived`);
        if (control.status === 'NOT EVALUATED') return skipWith(context, control.evidence);
        expect(control.status, `${control.evidence}${control.remedy ? ` remedy: ${control.remedy}` : ''}`).toBe('PASS');
      });
    });
  });
}

export { describeJobConformance };
