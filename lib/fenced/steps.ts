import { parseInput } from '../internal/validation.js';
import { recordedResultSchema, type StepName, stepNameSchema } from '../rules.js';
import type { Claim, StepRecord } from '../store/index.js';

/**
 * The steps one claim knows are done: seeded from the claim (steps of earlier holders) and updated by
 * `ctx.step` and `ctx.transactions.runStep` alike, so a step done through one is skipped by the other.
 * Holds only records a write confirmed; it never decides ownership (the fenced write does).
 */
class StepLedger {
  private readonly done: Map<string, StepRecord>;

  constructor(claim: Pick<Claim, 'steps'>) {
    this.done = new Map(Object.entries(claim.steps ?? {}));
  }

  /** The record of step `name`, or undefined when no holder is known to have done it. */
  get(name: string): StepRecord | undefined {
    return this.done.get(name);
  }

  /** True when step `name` was recorded by this or an earlier holder. */
  has(name: string): boolean {
    return this.done.has(name);
  }

  /** Notes a step whose record a fenced write just committed (or found committed). */
  record(name: string, record: StepRecord): void {
    this.done.set(name, record);
  }
}

/** Validates a step name against the one step rule; InvalidInputError otherwise, nothing written. */
function parseStepName(name: unknown): StepName {
  return parseInput(stepNameSchema, name, 'step name');
}

/** Validates the result of the step `name` already names (at most 16 KB of JSON); InvalidInputError otherwise. */
function parseStepResult(name: StepName, result: unknown): unknown {
  return parseInput(recordedResultSchema, result, `step ${name} result`);
}

/** Validates a step name and result; InvalidInputError otherwise, nothing written. */
function parseStep(name: unknown, result: unknown): { name: StepName; result: unknown } {
  const valid = parseStepName(name);
  return { name: valid, result: parseStepResult(valid, result) };
}

export { parseStep, parseStepName, parseStepResult, StepLedger };
