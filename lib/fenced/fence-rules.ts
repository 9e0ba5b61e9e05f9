import { sha256Hex } from '../hashing.js';
import type { JobIdentity } from '../identity.js';
import { WriterAttribute } from '../rules.js';
import type { ExpressionBuilder } from '../store/index.js';
import { FenceRejectReason, type FenceRule } from './fence-terms.js';

/**
 * The fence rules of class B records (a record owned by ONE operation). A fence orders the claims of one
 * identity only: fences of different operations are unrelated counters and must never be compared, so every
 * record also carries `writer_op` (a pseudonym of the owning identity) and a write by another operation is
 * refused inside the same condition. A record written by many operations needs class A (fenced transactions).
 */

/** Stable pseudonym of the owning identity (no tenant data in user records). */
function writerOperation(identity: JobIdentity): string {
  return sha256Hex(`leasefence-writer-op\u0000${identity.tenantId}\u0000${identity.operationId}`).slice(0, 32);
}

/** The fence part of the condition expression, with builder placeholders. Pure. */
function renderFenceCondition(x: ExpressionBuilder, rule: FenceRule, fence: number, operation: string): string {
  const epoch = x.name(WriterAttribute.epoch);
  const op = x.name(WriterAttribute.operation);
  const mine = x.value(fence);
  const myOperation = x.value(operation);
  if (rule.kind === 'confirm') return `${epoch} = ${mine} AND ${op} = ${myOperation}`;
  const sameOperation = `(attribute_not_exists(${op}) OR ${op} = ${myOperation})`;
  const older = `attribute_not_exists(${epoch}) OR ${epoch} < ${mine}`;
  if (rule.kind === 'advance') return `(${older}) AND ${sameOperation}`;
  const seq = x.name(WriterAttribute.seq);
  return `(${older} OR (${epoch} = ${mine} AND ${seq} < ${x.value(rule.seq)})) AND ${sameOperation}`;
}

/**
 * Evaluates the fence part in code on the item read back after a failed write. Used only to classify the
 * failure (fence vs business condition); the write itself is the check.
 */
function fenceVerdict(
  item: Record<string, unknown> | undefined,
  rule: FenceRule,
  fence: number,
  operation: string,
): { holds: true } | { holds: false; reason: FenceRejectReason } {
  const epoch = item?.[WriterAttribute.epoch];
  const owner = item?.[WriterAttribute.operation];
  if (owner !== undefined && owner !== operation) return { holds: false, reason: FenceRejectReason.foreign_operation };
  const stored = typeof epoch === 'number' ? epoch : undefined;
  if (rule.kind === 'confirm') {
    if (stored === fence && owner === operation) return { holds: true };
    if (stored !== undefined && stored > fence) return { holds: false, reason: FenceRejectReason.newer_claim };
    return { holds: false, reason: FenceRejectReason.not_stamped_by_claim };
  }
  if (stored === undefined || stored < fence) return { holds: true };
  if (stored > fence) return { holds: false, reason: FenceRejectReason.newer_claim };
  if (rule.kind === 'advance') return { holds: false, reason: FenceRejectReason.same_claim_already_wrote };
  const seq = item?.[WriterAttribute.seq];
  if (typeof seq === 'number' && seq < rule.seq) return { holds: true };
  return { holds: false, reason: FenceRejectReason.sequence_not_newer };
}

/** Attributes every write under the rule sets on the record. */
function writerAttributes(rule: FenceRule, fence: number, token: string, operation: string): Record<string, unknown> {
  if (rule.kind === 'confirm') return { [WriterAttribute.token]: token };
  return {
    [WriterAttribute.epoch]: fence,
    [WriterAttribute.seq]: rule.kind === 'sequence' ? rule.seq : 0,
    [WriterAttribute.token]: token,
    [WriterAttribute.operation]: operation,
  };
}

/** True when the item shows this very write landed (a lost response retried): same epoch, seq and token. */
function landedAlready(
  item: Record<string, unknown> | undefined,
  rule: FenceRule,
  fence: number,
  token: string,
): boolean {
  if (item?.[WriterAttribute.epoch] !== fence || item[WriterAttribute.token] !== token) return false;
  return rule.kind !== 'sequence' || item[WriterAttribute.seq] === rule.seq;
}

export {
  FenceRejectReason,
  type FenceRule,
  fenceVerdict,
  landedAlready,
  renderFenceCondition,
  writerAttributes,
  writerOperation,
};
