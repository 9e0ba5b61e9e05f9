/**
 * met / missed against a threshold; `reported` for figures that are shown, not judged; `not evaluated` when the run
 * did not see everything the verdict needs.
 */
type TargetStatus = 'met' | 'missed' | 'reported' | 'not run' | 'not evaluated';

/** One line of the targets table, with why and what would fix it when missed. */
interface TargetRow {
  figure: string;
  target: string;
  measured: string;
  status: TargetStatus;
  note?: string;
}

export type { TargetRow, TargetStatus };
