/** One line per command, shown by `leasefence --help` before any command module is loaded. */
const COMMAND_SUMMARIES = {
  start: 'run the whole system locally on embedded engines (dynalite + fauxqs): worker, sweeper, admin API, console',
  demo: 'run the example jobs, inject a stalled worker, and show that every side effect lands once',
  enqueue:
    'send a job: the payload hash binds it to its identity, the body goes to the payloads table (or in the message)',
  ls: 'list work items by state, tenant and age (parked oldest first; succeeded, cancelled per tenant; paginated)',
  counts: 'count items per state (never a Scan), the DLQ depth and the five health signals',
  limits: "a job type's concurrency limits: slots in use, held past their lease, and jobs waiting",
  show: 'show one work item, its attempt history and its audit trail (no payload, only its hash), or the quarantined messages that named it',
  resolve: 'settle an unknown item after checking the real system (audited; fence + 1)',
  retry:
    'requeue a failed_terminal, unknown or quarantined work item: same identity, fence + 1, fresh attempts (a quarantined message has no work item: send it again)',
  cancel:
    "cancel an awaiting_approval, queued, claimed or unknown item; the fence rises, so a running worker's next write is rejected",
  approve:
    'approve a job awaiting approval for the payload hash you reviewed: it is queued and woken (audited; refused for another payload)',
  reject: 'reject a job awaiting approval: it is cancelled without ever running (audited; fence + 1)',
  redrive: 'move dead-letter messages back to the jobs queue, bodies unchanged (identity and payload hash kept)',
  erase:
    "erase a tenant's payload bodies; work rows stay as tombstones (identity, hash, fence), so fences never restart",
  'raise-fences':
    'after a restore: a new fence epoch above every fence issued before, on every row (audited, resumable)',
  audit: 'list the audit log (redrive, erase), newest first, or the audit trail of one item',
  'audit-pseudonymise':
    'one-off: replace the raw tenant and operation ids in audit records written before pseudonyms (operator credentials)',
  console: 'serve the operator console (a web page) on 127.0.0.1 against the same target as the other commands',
  shadow:
    'shadow mode report: operations an existing consumer ran twice, concurrently, after a completion, or with a conflicting payload',
  runbook:
    'write a runbook per job type: owner, alert route, honest claim, parked states and the commands to resolve them',
  schedules:
    'list each schedule with its next tick and last run; a past tick with no job is MISSED (exit 1), NOT EVALUATED when it cannot tell',
  check:
    'go/no-go: runs the fault-injection scenarios on every job type and derives the nine controls from them (--stack: the scenarios a running stack can show, through it)',
} as const;

/** A command name. */
type CommandName = keyof typeof COMMAND_SUMMARIES;

export { COMMAND_SUMMARIES, type CommandName };
