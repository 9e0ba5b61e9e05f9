import { describe, expect, it } from 'vitest';
import { motoStatements } from '../../../../infra/testing/deploy-lane/moto-auth.js';

const QUEUE = 'arn:aws:sqs:us-east-1:123456789012:jobs';

describe("the deployment lane's moto copy of an execution role's grants (moto authorizes most services against *)", () => {
  it("copies the Allow statements' actions of services moto cannot scope to any resource, never a Deny's", () => {
    // Act
    const statements = motoStatements([
      {
        Effect: 'Allow',
        Action: ['dynamodb:UpdateItem', 'dynamodb:GetItem'],
        Resource: 'arn:aws:dynamodb:::table/Jobs',
      },
      { Effect: 'Allow', Action: 'secretsmanager:GetSecretValue', Resource: 'arn:aws:secretsmanager:::secret:x' },
      { Effect: 'Deny', Action: 'dynamodb:DeleteTable', Resource: '*' },
      { Effect: 'Allow', Resource: '*' },
    ]);

    // Assert: the transactions moto names by operation follow the item actions AWS authorizes them by.
    expect(statements).toEqual([
      {
        Effect: 'Allow',
        Action: [
          'dynamodb:GetItem',
          'dynamodb:TransactGetItems',
          'dynamodb:TransactWriteItems',
          'dynamodb:UpdateItem',
          'secretsmanager:GetSecretValue',
        ],
        Resource: '*',
      },
    ]);
  });

  it("keeps SQS scoped: only the batch operations of the statement's own actions, on its own resources", () => {
    // Act
    const statements = motoStatements([
      { Effect: 'Allow', Action: ['sqs:SendMessage', 'sqs:GetQueueAttributes'], Resource: QUEUE },
      { Effect: 'Allow', Action: 'sqs:ReceiveMessage', Resource: QUEUE },
    ]);

    // Assert
    expect(statements).toEqual([{ Effect: 'Allow', Action: ['sqs:SendMessageBatch'], Resource: QUEUE }]);
  });
});
