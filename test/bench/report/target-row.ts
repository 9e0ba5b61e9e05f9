/** met / missed against a threshold; `reported` for figures that are shown, not judged. */
type TargetStatus = 'met' | 'missed' | 'reported' | 'not run';

/** One line of the targets table, with why and what would fix it when missed. */
interface TargetRow {
  figure: string;
  target: string;
  measured: string;
  status: TargetStatus;
  note?: string;
}

export type { TargetRow, TargetStatus };
