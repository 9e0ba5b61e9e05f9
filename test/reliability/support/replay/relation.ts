import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** One abstract step of the work row, in the model's vocabulary (model/leasefence.pml, `lf_obs`). */
interface ModelStep {
  event: string;
  cls: 'A' | 'B' | 'C' | 'D';
  from: string;
  to: string;
  fence: 'same' | '+1' | 'up' | 'down';
  attempts: 'same' | '+1' | 'reset' | 'other';
  /** The effect mark before and after: `01`, `11`, … */
  mark: string;
  /** Whether attempts were left before the step: only where the model's guard reads them (else `-`). */
  left: 'yes' | 'no' | '-';
  /** For a holder's write: whether its fence was the row's (else `-`). */
  mine: 'yes' | 'no' | '-';
}

/** The events whose guard in the model reads the attempts left. */
const READS_ATTEMPTS = new Set(['claim', 'create', 'retry', 'sweep']);

const FIELDS = ['event', 'cls', 'from', 'to', 'fence', 'attempts', 'mark', 'left', 'mine'] as const;

/** A step as one comparable string. */
function stepKey(step: ModelStep): string {
  return FIELDS.map((field) => step[field]).join(' ');
}

/**
 * The model's step relation as Spin printed it (model/transitions.json, written by `model/check extract` from the
 * exhaustive searches of every safety configuration). Throws when the file is missing or empty: a replay against
 * no relation would accept nothing and must not be mistaken for one that ran.
 */
class ModelRelation {
  private readonly steps: ReadonlySet<string>;

  constructor(steps: readonly ModelStep[]) {
    if (steps.length === 0) throw new Error('the model step relation is empty');
    this.steps = new Set(steps.map(stepKey));
  }

  /** Whether the model can take this step. */
  allows(step: ModelStep): boolean {
    return this.steps.has(stepKey(step));
  }

  get size(): number {
    return this.steps.size;
  }
}

/** The relation committed at model/transitions.json. */
function loadModelRelation(): ModelRelation {
  const path = fileURLToPath(new URL('../../../../model/transitions.json', import.meta.url));
  const file = JSON.parse(readFileSync(path, 'utf8')) as { steps: ModelStep[] };
  return new ModelRelation(file.steps);
}

export { loadModelRelation, ModelRelation, type ModelStep, READS_ATTEMPTS, stepKey };
