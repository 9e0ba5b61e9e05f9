import type { AttributeValue, CancellationReason } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';

/**
 * Reads the CancellationReasons of a TransactionCanceledException (one per item, in request order; item 0
 * is the work item). The work item's condition outranks the rest: lost ownership explains everything else.
 */
type CancellationVerdict =
  | { readonly kind: 'work_item'; readonly item: Record<string, unknown> | undefined }
  | { readonly kind: 'business'; readonly index: number; readonly item: Record<string, unknown> | undefined }
  | { readonly kind: 'transient'; readonly codes: readonly string[] }
  | { readonly kind: 'other'; readonly codes: readonly string[] };

/** Codes after which the same transaction may simply be sent again (nothing was written). */
const TRANSIENT_CODES: readonly string[] = [
  'TransactionConflict',
  'ThrottlingError',
  'ProvisionedThroughputExceeded',
  'RequestLimitExceeded',
];

const CONDITION_FAILED = 'ConditionalCheckFailed';

function itemOf(reason: CancellationReason | undefined): Record<string, unknown> | undefined {
  const raw = reason?.Item as Record<string, AttributeValue> | undefined;
  return raw !== undefined && Object.keys(raw).length > 0 ? unmarshall(raw) : undefined;
}

/** Classifies the reasons; the item comes from ReturnValuesOnConditionCheckFailure when the engine sent it. Pure. */
function interpretCancellation(reasons: readonly CancellationReason[] | undefined): CancellationVerdict {
  const list = reasons ?? [];
  const codes = list.map((reason) => reason.Code ?? 'None');
  if (codes[0] === CONDITION_FAILED) return { kind: 'work_item', item: itemOf(list[0]) };
  const business = codes.indexOf(CONDITION_FAILED);
  if (business > 0) return { kind: 'business', index: business - 1, item: itemOf(list[business]) };
  const failing = codes.filter((code) => code !== 'None');
  if (failing.length > 0 && failing.every((code) => TRANSIENT_CODES.includes(code))) {
    return { kind: 'transient', codes: failing };
  }
  return { kind: 'other', codes: failing.length > 0 ? failing : codes };
}

export { type CancellationVerdict, interpretCancellation, TRANSIENT_CODES };
