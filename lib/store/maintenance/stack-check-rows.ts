import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { InvalidInputError } from '../../errors.js';
import type { JobIdentity } from '../../identity.js';
import { mapBounded } from '../../internal/bounded-parallel.js';
import { WorkState } from '../../states.js';
import { CheckEvidence } from '../check-evidence/check-evidence.js';
import { type PlainDelete, sendDelete, sendGet, type TableClient } from '../driver/plain-requests.js';
import { sanitizeMessageId } from '../records/quarantine.js';
import {
  approvalRecordKey,
  payloadKey,
  quarantineKey,
  STACK_CHECK_TENANT_PREFIX,
  TableKeys,
  workItemKey,
} from '../table.js';

/** Reads and deletes in flight at once. */
const IN_FLIGHT = 16;

/** Where a stack's rows live: the jobs table (work and quarantine rows) and the payloads table. */
interface StackCheckTables {
  readonly jobsTable: string;
  readonly payloadsTable: string;
}

/** What a cleanup found and removed, and what it left because a worker still held it. */
interface StackCheckCleanup {
  /** Rows of the check's identities and messages found before deleting. */
  readonly found: number;
  readonly deleted: number;
  /** Work rows still claimed (a worker holds the lease): never deleted under a live holder. */
  readonly leftClaimed: number;
}

/** One row the check made: its table and key. */
interface RowKey {
  readonly table: string;
  readonly key: { pk: string; sk: string };
}

/** Identities must carry the check's tenant prefix: the cleanup can never reach a real tenant's rows. */
function checkIdentities(identities: readonly JobIdentity[]): void {
  const foreign = identities.filter((identity) => !identity.tenantId.startsWith(STACK_CHECK_TENANT_PREFIX));
  if (foreign.length > 0) {
    throw new InvalidInputError(`stack check rows: ${foreign.length} identities outside the check's namespace`, [
      { path: 'identities', message: `every tenant must start with ${STACK_CHECK_TENANT_PREFIX}` },
    ]);
  }
}

/**
 * The rows a stack check made, through the store (the one door to the jobs and payloads tables): the quarantine
 * records of the messages it sent, the evidence rows its fault plan made the worker write, and the work and payload rows of the identities it sent jobs for and of their
 * successors (named on the parent's row), counted and deleted by key, never by Scan. The check's tenants are
 * random and never recur, so deleting their work rows cannot restart a fence a later job would reuse. An identity
 * outside STACK_CHECK_TENANT_PREFIX ▶ InvalidInputError, nothing read or deleted.
 */
class StackCheckRows {
  constructor(
    private readonly client: TableClient,
    private readonly tables: StackCheckTables,
  ) {}

  /** The quarantine record of a message the check sent, or undefined while there is none (a consistent read). */
  async quarantine(messageId: string): Promise<Record<string, unknown> | undefined> {
    return this.read(this.tables.jobsTable, quarantineKey(sanitizeMessageId(messageId)));
  }

  /**
   * Rows of these identities (and their successors) in both tables, their approval records, plus these messages'
   * quarantine records.
   */
  async count(identities: readonly JobIdentity[], messageIds: readonly string[]): Promise<number> {
    checkIdentities(identities);
    const quarantined = await mapBounded(messageIds, IN_FLIGHT, (messageId) => this.quarantine(messageId));
    return (await this.rowsOf(identities)).length + quarantined.filter(Boolean).length;
  }

  /**
   * Deletes the rows of these identities and their successors in both tables (a work row only while no worker
   * claims it) and these messages' quarantine records (only those naming no tenant or one of the check's).
   */
  async remove(identities: readonly JobIdentity[], messageIds: readonly string[]): Promise<StackCheckCleanup> {
    checkIdentities(identities);
    const rows = await this.rowsOf(identities);
    const deletedRows = await mapBounded(rows, IN_FLIGHT, (row) => this.deleteUnlessClaimed(row));
    const deletedRecords = await mapBounded(messageIds, IN_FLIGHT, (messageId) => this.deleteQuarantine(messageId));
    const deleted = deletedRows.filter(Boolean).length;
    const records = deletedRecords.filter(Boolean).length;
    return { found: rows.length + records, deleted: deleted + records, leftClaimed: rows.length - deleted };
  }

  /** The work and payload rows that exist for these identities, following each work row's successors. */
  private async rowsOf(identities: readonly JobIdentity[]): Promise<RowKey[]> {
    const seen = new Set<string>();
    const rows: RowKey[] = [];
    let next = [...identities];
    while (next.length > 0) {
      const fresh = next.filter((identity) => {
        const id = `${identity.tenantId}\u0000${identity.operationId}`;
        if (seen.has(id)) return false;
        seen.add(id);
        return true;
      });
      const found = await mapBounded(fresh, IN_FLIGHT, (identity) => this.rowsOfOne(identity));
      rows.push(...found.flatMap((entry) => entry.rows));
      next = found.flatMap((entry) => entry.successors);
    }
    return rows;
  }

  private async rowsOfOne(identity: JobIdentity): Promise<{ rows: RowKey[]; successors: JobIdentity[] }> {
    const work = { table: this.tables.jobsTable, key: workItemKey(identity) };
    const payload = { table: this.tables.payloadsTable, key: payloadKey(identity) };
    // A gated job's approval record (its own partition of the jobs table, opened by the worker) goes with it.
    const approval = { table: this.tables.jobsTable, key: approvalRecordKey(identity) };
    const [row, body, record, evidence] = await Promise.all([
      this.read(work.table, work.key),
      this.read(payload.table, payload.key),
      this.read(approval.table, approval.key),
      new CheckEvidence(this.client, this.tables.jobsTable).keys(identity),
    ]);
    const successors = Array.isArray(row?.successors) ? (row.successors as string[]) : [];
    const evidenceRows = evidence.map((key) => ({ table: this.tables.jobsTable, key }));
    return {
      rows: [...(row ? [work] : []), ...(body ? [payload] : []), ...(record ? [approval] : []), ...evidenceRows],
      successors: successors.map((operationId) => ({ tenantId: identity.tenantId, operationId })),
    };
  }

  private async read(table: string, key: { pk: string; sk: string }): Promise<Record<string, unknown> | undefined> {
    const output = await sendGet(this.client, { TableName: table, Key: key, ConsistentRead: true });
    return output.Item;
  }

  /** One conditional DeleteItem: refused (false) while the row is claimed, so a live holder is never cut off. */
  private deleteUnlessClaimed(row: RowKey): Promise<boolean> {
    return this.conditionalDelete({
      TableName: row.table,
      Key: row.key,
      ConditionExpression: 'attribute_not_exists(#state) OR #state <> :claimed',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':claimed': WorkState.claimed },
    });
  }

  /** Deletes a message's quarantine record when it names no tenant or one of the check's (false when absent). */
  private deleteQuarantine(messageId: string): Promise<boolean> {
    return this.conditionalDelete({
      TableName: this.tables.jobsTable,
      Key: quarantineKey(sanitizeMessageId(messageId)),
      ConditionExpression: 'attribute_exists(#pk) AND (attribute_not_exists(#tenant) OR begins_with(#tenant, :prefix))',
      ExpressionAttributeNames: { '#pk': TableKeys.partition, '#tenant': 'tenantId' },
      ExpressionAttributeValues: { ':prefix': STACK_CHECK_TENANT_PREFIX },
    });
  }

  private async conditionalDelete(input: PlainDelete): Promise<boolean> {
    try {
      await sendDelete(this.client, input);
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }
}

export { STACK_CHECK_TENANT_PREFIX, type StackCheckCleanup, StackCheckRows, type StackCheckTables };
