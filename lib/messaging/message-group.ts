import { sha256Hex } from '../hashing.js';

/**
 * The SQS `MessageGroupId` of a tenant's messages: `t` + the first 16 hex digits of SHA-256("leasefence:group" +
 * U+0000 + tenantId). SQS fair queues (standard queues with message groups) keep one group's backlog from delaying
 * the others, so every message of a tenant, from any producer in any language and from the sweeper, carries the
 * same group. Unkeyed on purpose: every producer must derive it without the deployment's secret; it reveals no more
 * than the message body, which names the tenant. Never fails (tenant ids were parsed where they came in).
 */
function messageGroupOf(tenantId: string): string {
  return `t${sha256Hex(`leasefence:group\u0000${tenantId}`).slice(0, 16)}`;
}

export { messageGroupOf };
