import * as z from 'zod/mini';
import type { JobIdentity } from '../identity.js';
import { parseInput } from '../internal/validation.js';
import type { TransactItem } from '../store/index.js';
import {
  ExpressionBuilder,
  identityOfItem,
  MAX_OWNED_RECORDS,
  type OwnedRecordRef,
  type WorkItem,
} from '../store/index.js';
import { renderFenceCondition, writerAttributes, writerOperation } from './fence-rules.js';
import { ADVANCE_RULE, refSchema } from './record-requests.js';

// The schemas here are built on first use (z.lazy: the same checks and issues), not at import: a cold start
// that never reaches them does not build them (test/unit/internal/module-scope-schemas.test.ts).
const ownedRecordsSchema = z.lazy(() => z.array(refSchema).check(z.maxLength(MAX_OWNED_RECORDS)));

/**
 * The records a job type declares it owns for one identity (`defineJob({ ownedRecords })`), checked like any
 * record ref: a bad declaration ▶ InvalidInputError naming the job type (the message is redelivered, nothing
 * claimed). Undefined without a declaration.
 */
function ownedRecordsFor(
  jobType: string,
  declare: ((identity: JobIdentity) => readonly OwnedRecordRef[]) | undefined,
  identity: JobIdentity,
): OwnedRecordRef[] | undefined {
  if (declare === undefined) return undefined;
  return parseInput(ownedRecordsSchema, declare(identity), `ownedRecords of job type ${jobType}`);
}

/**
 * The stamps a cancel puts on the records a job type declares it owns (recorded on the row by each claim): each
 * record gets `writer_epoch` = the cancel's fence under the one-write-per-claim rule, so the cancelled holder's
 * next write to it is refused at once (`newer_claim`) and aborts it. A record not yet written is created holding
 * only its key and the fence attributes, so the holder cannot create it either. Pure.
 */
function cancelStamps(item: WorkItem, fence: number): TransactItem[] {
  const operation = writerOperation(identityOfItem(item));
  return (item.ownedRecords ?? []).map((ref) => cancelStamp(ref, fence, operation));
}

/** One record's stamp: refused by a record already at or above the fence, or fenced by another operation. */
function cancelStamp(ref: OwnedRecordRef, fence: number, operation: string): TransactItem {
  const x = new ExpressionBuilder();
  const condition = renderFenceCondition(x, ADVANCE_RULE, fence, operation);
  const update = x.update(writerAttributes(ADVANCE_RULE, fence, `cancel-${fence}`, operation));
  return {
    Update: {
      TableName: ref.tableName,
      Key: { ...ref.key },
      UpdateExpression: update,
      ConditionExpression: condition,
      ...x.attributes(),
    },
  };
}

export { cancelStamps, ownedRecordsFor };
