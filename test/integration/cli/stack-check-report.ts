/** One job type's report in `leasefence check --stack … --json`: its verdict, scenarios and the controls they earn. */
interface StackCheckReport {
  jobType: string;
  verdict: string;
  scenarios: Array<{ id: string; status: string; detail: string }>;
  controls: Array<{ id: number; status: string; claimed: boolean; evidence: string }>;
}

export type { StackCheckReport };
