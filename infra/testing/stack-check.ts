import type { JobDefinition } from '../../lib/job-definition.js';
import type { StackCheckCleanup } from '../../lib/store/index.js';
import type { JobConformanceModule } from './module.js';
import { deriveStackControls, type StackControlResult, stackVerdict } from './stack-check-controls.js';
import { allEvidence, faultPlanFor, STACK_FAULT_SCENARIOS } from './stack-check-faults.js';
import { stackScenariosFor } from './stack-check-scenarios.js';
import { runStackScenario, type StackScenarioResult, UNRUNNABLE } from './stack-check-support.js';
import { DEFAULT_TIMING, type ProbeTiming, StackProbe, type StackUnderCheck } from './stack-probe.js';

/** What one job type's run through a running stack showed: its scenarios, the nine controls and the verdict. */
interface StackCheckReport {
  readonly jobType: string;
  readonly target: string;
  readonly owner: string | undefined;
  readonly alertRoute: string | undefined;
  /** The stack the scenarios ran through (`local stack (pid …)`, `AWS stack …`). */
  readonly stack: string;
  /** The sample payload that drove the scenarios (1: the first given; the others only as changed payloads). */
  readonly samples: number;
  readonly scenarios: readonly StackScenarioResult[];
  readonly controls: readonly StackControlResult[];
  /** The controls this verdict stands for (the others are NOT EVALUATED through a stack, or FAIL). */
  readonly claimedControls: readonly number[];
  /** GO only with the stack's fault injection on and all nine passed; PASS: the claimed ones passed (no faults). */
  readonly verdict: 'GO' | 'PASS' | 'NO-GO' | 'NOT EVALUATED';
}

/** What the cleanup found and removed: the check's rows before and after, and work rows left to a live holder. */
interface StackCheckCleanupReport extends StackCheckCleanup {
  readonly rowsBefore: number;
  readonly rowsAfter: number;
}

/** Each table the module declares, under its declared name (a stack that names none otherwise). */
function declaredNames(module: JobConformanceModule): Record<string, string> {
  return Object.fromEntries((module.tables ?? []).map((table) => [String(table.TableName), String(table.TableName)]));
}

/**
 * `leasefence check --stack`: the go/no-go scenarios a running stack can show, run through it (messages into its
 * queue, its own worker under its own IAM, effects read back from its tables; nothing of the stack replaced), one
 * job type after the other, every row under the run's own tenants (`lfcheck-<run>-…`) so `cleanup` removes them
 * through the store. A job type the module gives no sample for, or one the stack does not run, is NOT EVALUATED.
 */
class StackCheck {
  readonly probe: StackProbe;
  private cleaned: Promise<StackCheckCleanupReport> | undefined;
  /** Set once the run's fault plan was written to the stack: the cleanup disarms it. */
  private armed = false;

  constructor(stack: StackUnderCheck, timing: ProbeTiming = DEFAULT_TIMING) {
    this.probe = new StackProbe(stack, timing);
  }

  /** Runs every job type's scenarios; each report's verdict covers its claimed controls only (see stackVerdict). */
  async run(module: JobConformanceModule): Promise<StackCheckReport[]> {
    const faults = this.probe.stack.faults;
    if (faults) {
      this.armed = true;
      await faults.arm(JSON.stringify(faultPlanFor(this.probe.runId, module.jobs, Date.now())));
    }
    const reports: StackCheckReport[] = [];
    for (const [index, job] of module.jobs.entries()) {
      const samples = module.conformance?.samplePayloads[job.type] ?? [];
      this.probe.begin(index, module.conformance?.prepare?.[job.type], module.tableNames ?? declaredNames(module));
      reports.push(await this.runJob(job, samples));
    }
    return reports;
  }

  /**
   * Deletes every row the run made (its identities' work and payload rows, its messages' quarantine records) through
   * the store, counting them before and after; first it stops the probe (nothing more is sent) and waits for the
   * queue to drain. Idempotent: a second call (Ctrl-C during the first) waits for the same cleanup.
   */
  cleanup(): Promise<StackCheckCleanupReport> {
    this.cleaned ??= (async () => {
      // Nothing new is sent; what was sent is left to settle first, so no row appears after the deletion.
      this.probe.stop();
      await this.probe.drained();
      if (this.armed) await this.probe.stack.faults?.disarm();
      const { identities, messageIds, rows } = this.probe;
      const removed = await rows.remove(identities, messageIds);
      return { ...removed, rowsBefore: removed.found, rowsAfter: await rows.count(identities, messageIds) };
    })();
    return this.cleaned;
  }

  private async runJob(job: JobDefinition<unknown>, samples: readonly unknown[]): Promise<StackCheckReport> {
    const faulted = this.probe.stack.faults !== undefined;
    const scenarios = [...stackScenariosFor(job), ...(faulted ? STACK_FAULT_SCENARIOS : [])];
    const results: StackScenarioResult[] = [];
    const skipAll = (detail: string) =>
      scenarios.map((scenario) => ({
        id: scenario.id,
        title: scenario.title,
        status: 'skipped' as const,
        detail,
        remedies: [],
        evidence: {},
      }));
    if (samples.length === 0) {
      results.push(...skipAll(`not evaluated: no sample payload (export conformance.samplePayloads['${job.type}'])`));
    } else {
      // The first scenario alone: when it shows the job cannot run on this stack at all, the others are not run.
      const [first, ...others] = scenarios;
      const probe = first ? await runStackScenario(first, this.probe, job, samples) : undefined;
      if (probe?.evidence[UNRUNNABLE] === true) results.push(probe, ...skipAll(probe.detail).slice(1));
      else {
        // Each scenario has its own tenants and messages, so the others run at once.
        const rest = await Promise.all(others.map((scenario) => runStackScenario(scenario, this.probe, job, samples)));
        results.push(...(probe ? [probe] : []), ...rest);
      }
    }
    const evidence = faulted ? await allEvidence(this.probe) : undefined;
    const controls = await deriveStackControls(job, results, this.probe, samples, evidence);
    return {
      jobType: job.type,
      target: job.target,
      owner: job.owner,
      alertRoute: job.alertRoute,
      stack: this.probe.stack.label,
      samples: Math.min(samples.length, 1),
      scenarios: results,
      controls,
      claimedControls: controls.filter((control) => control.claimed).map((control) => control.id),
      verdict: stackVerdict(controls, results),
    };
  }
}

export { StackCheck, type StackCheckCleanupReport, type StackCheckReport, type StackUnderCheck };
