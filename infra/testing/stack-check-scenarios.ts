import * as z from 'zod';
import { payloadHash } from '../../lib/hashing.js';
import type { JobDefinition } from '../../lib/job-definition.js';
import { serializeEnvelope } from '../../lib/messaging/envelope.js';
import { WorkState } from '../../lib/states.js';
import { Remedy } from './remedies.js';
import { changedPayload } from './scenarios-ownership.js';
import { STACK_APPROVAL_SCENARIOS } from './stack-check-approvals.js';
import {
  completed,
  failed,
  fingerprint,
  notEvaluated,
  OPERATION,
  passed,
  STACK_TOO_SLOW,
  type StackOutcome,
  type StackScenario,
  StackScenarioId,
} from './stack-check-support.js';
import type { StackProbe } from './stack-probe.js';

/** Copies of a finished job's message sent at once in the replay scenario. */
const REPLAY_COPIES = 3;

/** A job type no stack registers: its message must be quarantined, never guessed at. */
const UNREGISTERED_JOB_TYPE = 'lfcheck-unregistered-type';

const NOT_DRAINED = "the stack's queue never drained, so the copies may not have been handled yet";

/** A job envelope for `identity` naming `hash`, its body in the payloads table (or not: a forged or changed message). */
function jobBody(jobType: string, identity: { tenantId: string; operationId: string }, hash: string): string {
  return serializeEnvelope({ v: 1, kind: 'job', ...identity, jobType, payloadHash: hash, payload: { inline: true } });
}

/** The quarantine record of a message the check sent, judged by the reason the stack's worker gave. */
async function quarantinedAs(
  probe: StackProbe,
  messageId: string,
  reason: string,
  what: string,
): Promise<StackOutcome> {
  const record = await probe.quarantined(messageId);
  if (!record) return notEvaluated(`the stack's worker wrote no quarantine record for ${what} in time`, STACK_TOO_SLOW);
  const evidence = { quarantined: String(record.reason), bodyKept: 'body' in record };
  if (record.reason !== reason)
    return failed(`${what} was quarantined as ${String(record.reason)}, not ${reason}`, Remedy.runtime, evidence);
  if ('body' in record)
    return failed(`the quarantine record of ${what} holds the message body`, Remedy.runtime, evidence);
  return passed(`${what} quarantined as ${reason} (the record keeps a hash of the body, not the body)`, evidence);
}

/** The job done once, then its message sent again REPLAY_COPIES times at once: nothing runs again. */
const replay: StackScenario = {
  id: StackScenarioId.replay,
  title: `a finished job's message sent ${REPLAY_COPIES} more times at once`,
  run: async (probe, job, [payload]) => {
    const identity = { tenantId: await probe.tenant('replay', payload), operationId: OPERATION };
    const first = await completed(probe, job, identity, payload);
    if (first.state !== WorkState.succeeded) {
      return failed(
        `the sample ended ${first.state}${first.errorCode ? `:${first.errorCode}` : ''}`,
        Remedy.completingSample,
      );
    }
    await Promise.all(Array.from({ length: REPLAY_COPIES }, () => probe.send(job, identity, payload)));
    if (!(await probe.drained())) return notEvaluated(NOT_DRAINED, STACK_TOO_SLOW);
    const after = await probe.row(identity);
    const evidence = {
      copies: REPLAY_COPIES,
      fence: first.fence,
      attempts: first.attempts,
      unchanged: fingerprint(after) === fingerprint(first),
    };
    if (!evidence.unchanged) {
      return failed(
        `a copy changed the finished row (now ${after?.state}, fence ${after?.fence}, attempts ${after?.attempts})`,
        Remedy.runtime,
        evidence,
      );
    }
    return passed(
      `ran once (fence ${first.fence}, attempt ${first.attempts}); ${REPLAY_COPIES} copies left the row unchanged`,
      evidence,
    );
  },
};

/** Control 1 through the stack: the same operation id under two tenants is two jobs, each run once. */
const collidingIds: StackScenario = {
  id: StackScenarioId.collidingIds,
  title: 'the same operation id under two tenants',
  run: async (probe, job, [payload]) => {
    const identities = [];
    for (const label of ['tenant1', 'tenant2'])
      identities.push({ tenantId: await probe.tenant(label, payload), operationId: OPERATION });
    const rows = await Promise.all(identities.map((identity) => completed(probe, job, identity, payload)));
    const outcomes = rows.map((row) => `${row.state} (fence ${row.fence}, attempt ${row.attempts})`);
    const evidence = { outcomes: outcomes.join(', ') };
    const wrong = rows.findIndex((row) => row.state !== WorkState.succeeded || row.attempts !== 1);
    if (wrong !== -1)
      return failed(`tenant ${wrong + 1}'s operation ended ${outcomes[wrong]}`, Remedy.keyByTenant, evidence);
    return passed('two tenants, two work rows, each succeeded on its first attempt', evidence);
  },
};

/** Control 2 through the stack: a message naming the same identity with another payload hash. */
const changedPayloadScenario: StackScenario = {
  id: StackScenarioId.changedPayload,
  title: 'same identity, different payload',
  run: async (probe, job, payloads) => {
    const identity = { tenantId: await probe.tenant('conflict', payloads[0]), operationId: OPERATION };
    const before = await completed(probe, job, identity, payloads[0]);
    const messageId = await probe.sendRaw(
      jobBody(job.type, identity, payloadHash(changedPayload(payloads))),
      identity.tenantId,
    );
    const judged = await quarantinedAs(probe, messageId, 'payload_conflict', 'the changed payload');
    const unchanged = fingerprint(await probe.row(identity)) === fingerprint(before);
    const evidence = {
      ...judged.evidence,
      conflict: `quarantined:${judged.evidence.quarantined}`,
      rowUnchanged: unchanged,
    };
    if (judged.status !== 'passed') return { ...judged, evidence };
    if (!unchanged) return failed('the work item changed', Remedy.runtime, evidence);
    return passed('rejected as a payload conflict and quarantined; the work row unchanged', evidence);
  },
};

/** Two operations with the same payload, one after the other: each must succeed on its own records. */
const sharedRecord: StackScenario = {
  id: StackScenarioId.sharedRecord,
  title: 'two operations with the same payload, one after the other',
  run: async (probe, job, [payload]) => {
    const tenantId = await probe.tenant('shared', payload);
    const rows = [];
    for (const operationId of ['conformance-first', 'conformance-second'])
      rows.push(await completed(probe, job, { tenantId, operationId }, payload));
    const evidence = {
      outcomes: rows.map((row) => `${row.state}${row.errorCode ? `:${row.errorCode}` : ''}`).join(', '),
    };
    const second = rows[1];
    if (second && second.state !== WorkState.succeeded) {
      return failed(
        `the second operation ended ${evidence.outcomes.split(', ')[1]} (a record shared by two operations?)`,
        Remedy.keyByOperation,
        evidence,
      );
    }
    return passed('both operations succeeded', evidence);
  },
};

/** A body that is not JSON: quarantined with no identity, never a crash or a redelivery loop. */
const malformedMessage: StackScenario = {
  id: StackScenarioId.malformedMessage,
  title: 'a message body that is not JSON',
  run: async (probe) => {
    const messageId = await probe.sendRaw(`{"lfcheck": ${probe.runId}`);
    return quarantinedAs(probe, messageId, 'unparseable', 'the malformed message');
  },
};

/** A well-formed envelope naming a job type the stack does not run. */
const unknownJobType: StackScenario = {
  id: StackScenarioId.unknownJobType,
  title: 'a message naming a job type the stack does not run',
  run: async (probe, _job, [payload]) => {
    const identity = { tenantId: await probe.tenant('unknown', payload), operationId: OPERATION };
    const messageId = await probe.sendRaw(
      jobBody(UNREGISTERED_JOB_TYPE, identity, payloadHash(payload)),
      identity.tenantId,
    );
    return quarantinedAs(probe, messageId, 'unknown_job_type', 'the unknown job type');
  },
};

/** A payload the job's schema refuses (bound by its hash, so it reaches the claim): quarantined, never run. */
const SCHEMA_PROBE = ['lfcheck-not-a-payload'];

const schemaInvalid: StackScenario = {
  id: StackScenarioId.schemaInvalid,
  title: "a payload the job's schema refuses",
  run: async (probe, job) => {
    if (z.safeParse(job.payload, SCHEMA_PROBE).success)
      return notEvaluated("the job's schema accepts any payload the check could send");
    const identity = { tenantId: await probe.tenant('schema', SCHEMA_PROBE), operationId: OPERATION };
    const row = await completed(probe, job, identity, SCHEMA_PROBE, false);
    const evidence = { state: row.state, errorCode: String(row.errorCode) };
    if (row.state !== WorkState.quarantined || row.errorCode !== 'payload_schema') {
      return failed(`the refused payload ended ${row.state}:${String(row.errorCode)}`, Remedy.runtime, evidence);
    }
    return passed('the work item was quarantined as payload_schema before run()', evidence);
  },
};

/**
 * The scenarios a running stack can show, in order: what enqueueing and reading back the tables can observe.
 * The fault scenarios (a paused worker, a dropped response, a crash, a provider timeout) need the in-process fault
 * injector and are not here: their controls are NOT EVALUATED through a stack (stack-check-controls.ts).
 */
const STACK_SCENARIOS: readonly StackScenario[] = [
  replay,
  collidingIds,
  changedPayloadScenario,
  sharedRecord,
  malformedMessage,
  unknownJobType,
  schemaInvalid,
  ...STACK_APPROVAL_SCENARIOS,
];

/** The stack scenarios that apply to a job type (the approval ones only with an approval gate). */
function stackScenariosFor(job: JobDefinition<unknown>): StackScenario[] {
  return STACK_SCENARIOS.filter((scenario) => !scenario.applies || scenario.applies(job));
}

export { STACK_SCENARIOS, stackScenariosFor, UNREGISTERED_JOB_TYPE };
