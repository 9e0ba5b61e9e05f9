import type { JobDefinition } from '../../lib/job-definition.js';

/** The honest claim of each target class (DESIGN.md's table): what leasefence can promise, no more. */
const HONEST_CLAIM: Record<string, string> = {
  A: 'a superseded worker commits nothing; each step lands once across takeovers (transaction with the work item)',
  B: "an older claim never overwrites a newer one (the record's writer_epoch is compared with the fence in the write)",
  C: 'deduplication as the provider defines it, not fencing (tenant-scoped idempotency key, reconcile by lookup before a retry)',
  D: 'at most one attempt: intent recorded before the call; an ambiguous result is parked as unknown',
};

/** What each parked state means for a job of this class. */
function parkedMeaning(target: string): Array<[string, string]> {
  const unknown =
    target === 'D'
      ? 'the one attempt may have reached the external system: nobody knows; check it there before anything else'
      : target === 'C'
        ? 'attempts are exhausted and the provider lookup did not settle it: look the key up at the provider'
        : "the outcome could not be confirmed: compare the record's writer_epoch (B) or the steps (A) with the fence";
  return [
    ['unknown', unknown],
    [
      'quarantined',
      'the message could not be interpreted (schema, version, payload conflict), or no deployed worker runs its version or type (`no_worker_runs_version`, `no_worker_runs_job_type`: deploy one, then retry): nothing ran under it',
    ],
    ['failed_terminal', 'a confirmed failure (terminal error or attempts exhausted): no effect is pending'],
  ];
}

/**
 * The rows of a gated job type (docs/RUNBOOK.md, "Jobs awaiting approval"): what waits, how an approver reads the
 * payload the approval binds, and the two decisions.
 */
function approvalRows(approvers: string, expiresAfterMs: number): string[] {
  const who = approvers === 'not-producer' ? 'an authenticated principal other than its producer' : 'an approver';
  return [
    `| awaiting_approval | nothing has run: the job waits for ${who} to approve its payload (cancelled \`approval_expired\` ${Math.round(expiresAfterMs / 60_000)} min after it was written) | \`leasefence ls --state awaiting_approval\`, \`leasefence show <tenant>/<operation> --payload\` (the body, its hash, the expiry; the read is audited); console: #/item/<tenant>/<operation> ▶ Show the payload | approve: \`leasefence approve <tenant>/<operation> --payload-hash <the hash shown> --reason "…"\`; reject: \`leasefence reject <tenant>/<operation> --reason "…"\` |`,
  ];
}

/** How to find the authoritative generation during an incident, per class (seed 001). */
function generationText(target: string): string {
  if (target === 'A' || target === 'B')
    return [
      "The work item's `fence` (`leasefence show <tenant>/<operation>`) is the current generation; only a holder of that fence can write.",
      target === 'B'
        ? "Read the protected record's `writer_epoch`: equal to the fence ▶ written by the current claim; lower ▶ by an earlier claim (a later write of the current claim wins); a worker whose log shows a lower fence is stale, whatever it believes."
        : "A step is done when the work item's `steps` records it with a fence: a record written by a superseded fence never committed (the transaction carried the fence).",
    ].join(' ');
  return "There is no fence at the target: the work item's `fence` and attempt history (`leasefence show`) say which claim ran last; the external system's own record (looked up by the idempotency key, class C) is the authority on the effect.";
}

/** The runbook section of one job type, in Markdown. */
function runbookSection(job: JobDefinition<unknown>): string {
  const target = String(job.target);
  const type = String(job.type);
  const lines = [
    `## ${type}`,
    '',
    `- Owner: ${job.owner ?? '**none** (check control 7 fails until one is named)'}`,
    `- Alert route: ${job.alertRoute ?? '**none** (check control 7 fails until one is named)'}`,
    `- Target class ${target}: ${HONEST_CLAIM[target] ?? 'unknown class'}`,
    `- Attempts: at most ${job.maxAttempts}; lease ${job.leaseMs} ms`,
    '',
    '| parked state | what it means for this job type | inspect | resolve |',
    '|---|---|---|---|',
  ];
  for (const [state, meaning] of parkedMeaning(target)) {
    const resolve =
      state === 'unknown'
        ? '`leasefence resolve <tenant>/<operation> --to succeeded\\|failed_terminal\\|queued --reason "…"`'
        : `\`leasefence retry <tenant>/<operation> --reason "…"${target === 'D' ? ' --effect-did-not-happen' : ''}\``;
    lines.push(
      `| ${state} | ${meaning} | \`leasefence ls --state ${state}\`, \`leasefence show <tenant>/<operation>\`; console: \`leasefence console\` ▶ #/item/<tenant>/<operation> | ${resolve} |`,
    );
  }
  if (job.approval) lines.push(...approvalRows(job.approval.approvers ?? 'anyone', job.approval.expiresAfterMs));
  lines.push('', '### Authoritative generation during an incident', '', generationText(target), '');
  return lines.join('\n');
}

/** The whole runbook: one section per job type, in the order given. */
function runbookMarkdown(jobs: ReadonlyArray<JobDefinition<unknown>>): string {
  return ['# leasefence runbook', '', ...jobs.map(runbookSection)].join('\n');
}

export { runbookMarkdown, runbookSection };
