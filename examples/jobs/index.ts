import type { AnyJobDefinition } from '../../lib/job-definition.js';
import { inventoryReservationJob } from './inventory-reservation.js';
import { refundSettlementJob } from './refund-settlement.js';
import { statementPublicationJob } from './statement-publication.js';

/** The project's example job types, writing their records to `examplesTable`. */
function createExampleJobs(examplesTable: string): AnyJobDefinition[] {
  return [
    refundSettlementJob(examplesTable),
    statementPublicationJob(examplesTable),
    inventoryReservationJob(examplesTable),
  ];
}

export { examplesTableDefinition } from './examples-table.js';
export { createExampleJobs };
