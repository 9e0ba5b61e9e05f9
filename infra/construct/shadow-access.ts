import * as iam from 'aws-cdk-lib/aws-iam';
import { keyStatements, type LeasefenceResources, WORK_ROW_PARTITIONS } from './permissions.js';

/**
 * What a team's existing consumer needs to record shadow claims (lib/shadow): UpdateItem on the jobs table, in
 * tenant partitions only (never `#audit`, `#sweeper` or another global partition), and the customer-managed key
 * through DynamoDB when there is one. No GetItem, Query, PutItem or DeleteItem: a shadow start and end are one
 * conditional UpdateItem each and read nothing. IAM cannot confine the action to the `shadow#` sort keys; the
 * store's condition (the row is absent or a shadow row) is what keeps these writes off work items.
 */
function shadowWriteStatements(resources: LeasefenceResources): iam.PolicyStatement[] {
  return [
    // Store methods: store.shadow.start and .end.
    new iam.PolicyStatement({
      sid: 'WriteShadowClaims',
      actions: ['dynamodb:UpdateItem'],
      resources: [resources.jobsTable.tableArn],
      conditions: WORK_ROW_PARTITIONS,
    }),
    ...keyStatements(resources, ['dynamodb']),
  ];
}

export { shadowWriteStatements };
