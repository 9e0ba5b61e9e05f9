import { examplesTableDefinition } from '../../../examples/jobs/examples-table.js';
import { inventoryReservationJob } from '../../../examples/jobs/inventory-reservation.js';
import { exampleConformance } from '../../../examples/jobs/module.js';
import { refundSettlementJob } from '../../../examples/jobs/refund-settlement.js';
import { statementPublicationJob } from '../../../examples/jobs/statement-publication.js';
import { describeJobConformance } from '../../../infra/testing/index.js';
import { engineEndpoints, uniqueName } from '../../support/engine.js';

// The project's example jobs, tested through the public harness exactly as a user's CI would run theirs.
const TABLE = uniqueName('lf-examples-conformance');
const setup = exampleConformance(TABLE);
const options = (type: string) => ({
  samplePayloads: setup.samplePayloads[type] ?? [],
  endpoint: engineEndpoints().dynamo,
  tables: [examplesTableDefinition(TABLE)],
  prepare: setup.prepare?.[type],
});

describeJobConformance(refundSettlementJob(TABLE), options('refund-settlement'));
// Class B: records keyed by the operation, written from the payload alone (a retry rewrites the same statement).
// Class A: on dynalite every scenario is reported skipped ("engine lacks TransactWriteItems"); GO on moto.
describeJobConformance(inventoryReservationJob(TABLE), options('inventory-reservation'));

describeJobConformance(statementPublicationJob(TABLE), options('statement-publication'));
