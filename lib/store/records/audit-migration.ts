import { type ConditionalRequest, sendConditional } from '../driver/conditional-write.js';
import type { TableClient } from '../driver/plain-requests.js';
import type { RawIdAuditRecord } from './audit-pseudonyms.js';

/** The pseudonym of a raw id (hashIdentifier under the deployment's key, as the audit writer uses). */
type Pseudonymise = (rawId: string) => string;

/**
 * Replaces a record's raw ids by their pseudonyms (`tenant`, `operation`), conditional on the record still holding
 * exactly the raw ids that were read: a repeat, or a record changed in between, writes nothing. Pure.
 */
function buildPseudonymiseRequest(
  tableName: string,
  record: RawIdAuditRecord,
  pseudonymise: Pseudonymise,
): ConditionalRequest {
  const sets: string[] = [];
  const removals: string[] = [];
  const conditions: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, string> = {};
  const parts = [
    ['tenantId', 'tenant', record.tenantId],
    ['operationId', 'operation', record.operationId],
  ] as const;
  for (const [raw, hashed, rawValue] of parts) {
    if (rawValue === undefined) continue;
    names[`#${raw}`] = raw;
    names[`#${hashed}`] = hashed;
    values[`:${raw}`] = rawValue;
    values[`:${hashed}`] = pseudonymise(rawValue);
    sets.push(`#${hashed} = :${hashed}`);
    removals.push(`#${raw}`);
    conditions.push(`#${raw} = :${raw}`);
  }
  return {
    kind: 'update',
    TableName: tableName,
    Key: record.key,
    UpdateExpression: `SET ${sets.join(', ')} REMOVE ${removals.join(', ')}`,
    ConditionExpression: conditions.join(' AND '),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

/**
 * The one-off migration's write: replaces the raw ids of audit records written before pseudonyms. It needs UpdateItem
 * in the audit partition, which every role the construct creates is denied (the log stays write-once for them): it is
 * built by the CLI on an operator's own credentials, never by a function (kept out of their bundles).
 */
class AuditMigration {
  constructor(
    private readonly client: TableClient,
    private readonly tableName: string,
  ) {}

  /** Replaces one record's raw ids by their pseudonyms; false when it holds none or no longer holds what was read. */
  async pseudonymise(record: RawIdAuditRecord, pseudonymise: Pseudonymise): Promise<boolean> {
    if (record.tenantId === undefined && record.operationId === undefined) return false;
    const request = buildPseudonymiseRequest(this.tableName, record, pseudonymise);
    return (await sendConditional(this.client, request)).ok;
  }
}

export { AuditMigration, buildPseudonymiseRequest, type Pseudonymise };
