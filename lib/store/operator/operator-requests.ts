import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import type { JobIdentity } from '../../identity.js';
import type { WorkState } from '../../states.js';
import { ExpressionBuilder } from '../driver/expressions.js';
import { workItemKey } from '../table.js';
import { removingStaleResidue } from '../work-items/attempt-residue.js';
import type { TableContext } from '../work-items/requests.js';
import type { AuditEntry, CallerIdentity, OperatorStatement } from '../work-items/work-item.js';

/**
 * A change made by someone other than the holder (operator, sweeper). It is conditional on the state and
 * fence the caller observed, raises the fence so any running holder is cut off, and may append an audit entry
 * in the same write.
 */
interface OperatorTransition {
  readonly expected: { readonly state: WorkState; readonly fence: number };
  readonly to: WorkState;
  readonly set: Record<string, unknown>;
  readonly remove?: readonly string[];
  /** Extra condition (with builder placeholders), e.g. the sweeper's "lease expired and attempts exhausted". */
  readonly condition?: (x: ExpressionBuilder) => string;
  readonly audit?: {
    readonly actor: string;
    readonly caller?: CallerIdentity;
    readonly action: string;
    readonly reason: string;
    readonly statement?: OperatorStatement;
  };
  /** Whether the attempt counter starts over (a retry gives the job a fresh attempt budget). */
  readonly resetAttempts?: boolean;
  /** Sets the fence to this value instead of fence + 1 (raising fences after a restore); must exceed expected.fence. */
  readonly fenceTo?: number;
}

/** The fence an operator transition leaves on the item. */
function operatorFence(transition: OperatorTransition): number {
  return transition.fenceTo ?? transition.expected.fence + 1;
}

/** Conditional UpdateItem for operator transitions: state and fence as observed, then fence + 1. */
function buildOperatorUpdate(
  table: TableContext,
  identity: JobIdentity,
  transition: OperatorTransition,
  now: number,
): UpdateCommandInput {
  const x = new ExpressionBuilder();
  const raw = [
    transition.fenceTo !== undefined
      ? `${x.name('fence')} = ${x.value(transition.fenceTo)}`
      : `${x.name('fence')} = ${x.name('fence')} + ${x.value(1)}`,
  ];
  if (transition.audit) {
    const entry: AuditEntry = {
      ...transition.audit,
      at: now,
      from: transition.expected.state,
      to: transition.to,
      fence: operatorFence(transition),
    };
    raw.push(
      `${x.name('audit')} = list_append(if_not_exists(${x.name('audit')}, ${x.value([])}), ${x.value([entry])})`,
    );
  }
  const set = {
    ...transition.set,
    state: transition.to,
    updatedAt: now,
    ...(transition.resetAttempts ? { attempts: 0 } : {}),
  };
  // Into another state: what the earlier state or attempt left goes (attempt-residue.ts); a raised fence keeps it.
  const removals =
    transition.to !== transition.expected.state
      ? removingStaleResidue(set, transition.remove)
      : (transition.remove ?? []);
  const update = x.update(set, removals, raw);
  const conditions = [
    `${x.name('state')} = ${x.value(transition.expected.state)}`,
    `${x.name('fence')} = ${x.value(transition.expected.fence)}`,
  ];
  if (transition.condition) conditions.push(transition.condition(x));
  return {
    TableName: table.tableName,
    Key: workItemKey(identity),
    UpdateExpression: update,
    ConditionExpression: conditions.join(' AND '),
    ...x.attributes(),
    ReturnValues: 'ALL_NEW',
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  };
}

export { buildOperatorUpdate, type OperatorTransition, operatorFence };
