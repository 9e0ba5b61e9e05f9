import type { WorkItem } from '../../../lib/store/work-items/work-item.js';
import type { DatabaseFixture, SentJob } from './database-fixture.js';
import { ReliabilityJobType, type ReliabilityPayload } from './reliability-jobs.js';

/** States a job of the database-failure tests may end in. */
const FINAL_STATES = ['succeeded', 'failed_terminal', 'unknown', 'quarantined'];
const TENANTS = ['db-a', 'db-b'];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What one run must keep at 0, per figure. */
interface Tally {
  /** Jobs whose row should exist and is missing or not final. */
  lost: number;
  /** Effects beyond the first per operation (charges, mails), and class B records not written by the last claim. */
  duplicates: number;
  /** Fences of one operation under which two runs started (two holders of one claim). */
  doubleClaims: number;
  states: Record<string, number>;
  /** One line per counted problem (operation, what), printed with the verdict. */
  problems: string[];
}

/** How jobs are sent: the gap between two sends and the range of each job's simulated work. */
interface Pace {
  gapMs: number;
  workMs: readonly [number, number];
}
const STEADY: Pace = { gapMs: 200, workMs: [0, 600] };

/** `count` jobs of `phase` over both tenants, their types taken from `types` in turn. */
function jobsOf(seed: number, phase: string, count: number, types: readonly string[]): SentJob[] {
  return Array.from({ length: count }, (_, index) => ({
    identity: { tenantId: TENANTS[index % 2] as string, operationId: `${phase}-${seed}-${index}` },
    jobType: types[index % types.length] as string,
  }));
}

function payloadOf(random: () => number, pace: Pace): ReliabilityPayload {
  return {
    amount: 1 + Math.floor(random() * 9),
    workMs: pace.workMs[0] + Math.floor(random() * (pace.workMs[1] - pace.workMs[0])),
    pauseAt: 'none',
    pauseAttempt: 0,
  };
}

/**
 * Sends, waits for and tallies the jobs of one database-failure test: rows from the failing engine, effects
 * and runs from the external systems.
 */
class DatabaseJobs {
  constructor(private readonly fixture: DatabaseFixture) {}

  /** Sends `jobs` one after another at `pace` (each send retried while the engine is away). */
  async produce(jobs: readonly SentJob[], random: () => number, pace = STEADY): Promise<void> {
    for (const job of jobs) {
      await this.fixture.send(job, payloadOf(random, pace));
      await sleep(pace.gapMs / 2 + Math.floor(random() * pace.gapMs));
    }
  }

  /** Waits (bounded: 30 s) until `ready` holds for the rows of `jobs`; false if it never did. */
  async waitForRows(jobs: readonly SentJob[], ready: (rows: Array<WorkItem | undefined>) => boolean): Promise<boolean> {
    for (let wait = 0; wait < 300; wait += 1) {
      if (ready(await Promise.all(jobs.map((job) => this.fixture.row(job.identity))))) return true;
      await sleep(100);
    }
    return false;
  }

  /** Reads rows until every job `mustSettle` selects is final (bounded), while the test's sweeper runs. */
  async settle(
    jobs: readonly SentJob[],
    mustSettle: (job: SentJob) => boolean,
  ): Promise<Map<string, WorkItem | undefined>> {
    const rows = new Map<string, WorkItem | undefined>();
    const deadline = Date.now() + 60_000 + jobs.length * 1_000;
    while (Date.now() < deadline) {
      for (const job of jobs) rows.set(job.identity.operationId, await this.fixture.row(job.identity));
      const open = jobs.filter(
        (job) => mustSettle(job) && !FINAL_STATES.includes(String(rows.get(job.identity.operationId)?.state)),
      );
      if (open.length === 0) break;
      await sleep(500);
    }
    return rows;
  }

  /** Counts lost rows, duplicate effects and double claims over `jobs`, from the rows and the external systems. */
  async tally(
    jobs: readonly SentJob[],
    rows: Map<string, WorkItem | undefined>,
    mustSettle: (job: SentJob) => boolean,
  ): Promise<Tally> {
    const result: Tally = { lost: 0, duplicates: 0, doubleClaims: 0, states: {}, problems: [] };
    const problem = (figure: 'lost' | 'duplicates' | 'doubleClaims', id: string, what: string) => {
      result[figure] += 1;
      result.problems.push(`${id}: ${what}`);
    };
    for (const tenantId of TENANTS) {
      const [charges, mails, runs] = await Promise.all([
        this.fixture.ledger.chargesByOperation(tenantId),
        this.fixture.ledger.mailsByOperation(tenantId),
        this.fixture.ledger.runsByOperation(tenantId),
      ]);
      for (const job of jobs.filter((candidate) => candidate.identity.tenantId === tenantId)) {
        const id = job.identity.operationId;
        const row = rows.get(id);
        const state = String(row?.state ?? 'absent');
        // Printed by state and, for the parked ones, why (a final state is not a success).
        const label = row?.errorCode ? `${state}/${row.errorCode}` : state;
        result.states[label] = (result.states[label] ?? 0) + 1;
        if (mustSettle(job) && !FINAL_STATES.includes(state)) problem('lost', id, `ends ${state}`);
        const fences = (runs.get(id) ?? []).map((run) => run.fence);
        for (const fence of new Set(fences)) {
          const count = fences.filter((candidate) => candidate === fence).length;
          if (count > 1) problem('doubleClaims', id, `${count} runs under fence ${fence}`);
        }
        const effects =
          job.jobType === ReliabilityJobType.charge
            ? (charges.get(id) ?? [])
            : job.jobType === ReliabilityJobType.mail
              ? (mails.get(id) ?? [])
              : [];
        if (effects.length > 1) problem('duplicates', id, `${effects.length} effects (${job.jobType})`);
        if (job.jobType === ReliabilityJobType.record && state === 'succeeded') {
          // Class B: the record carries the fence of the claim that completed (its outcome says which; a later
          // raise-fences moves the row's fence, not the outcome); an older claim never overwrote it.
          const record = await this.fixture.record(job.identity);
          const completedBy = (row?.result as { fence?: number } | undefined)?.fence;
          if (record?.writer_epoch !== completedBy)
            problem('duplicates', id, `record epoch ${String(record?.writer_epoch)}, completed by ${completedBy}`);
        } else if (state === 'succeeded' && effects.length !== 1) {
          problem('lost', id, `succeeded with ${effects.length} effects (${job.jobType})`);
        }
      }
    }
    return result;
  }
}

export { DatabaseJobs, jobsOf, type Tally };
