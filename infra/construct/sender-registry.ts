import { Lazy, Stack, Token } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { uniqueIdSchema } from '../../lib/internal/principals.js';
import type { SenderTenants } from '../../lib/messaging/sender-tenants.js';

/** The tenants one producer may send for: a list, every tenant (`*`), or the tenant its session is named after. */
type SenderTenantList = readonly string[] | '*' | 'session';

/**
 * Which principals may produce for which tenants, as the worker reads it (LEASEFENCE_SENDER_TENANTS,
 * lib/messaging/sender-tenants.ts). Filled by grantSendJobs and allowSender while the app is built and rendered at
 * synthesis: as soon as one producer is confined to tenants, every sender must be known (the worker refuses unknown
 * ones), so a producer whose SenderId cannot be found fails the synthesis instead of being refused in production.
 */
class SenderRegistry {
  private readonly entries: Array<SenderTenants[number]> = [];
  private readonly unidentified: string[] = [];

  constructor(private readonly scope: Construct) {}

  /** `sender` (an IAM unique id, `AROA…` covering every session, or a token) may produce for `tenants`. */
  allow(sender: string, tenants: SenderTenantList): void {
    if (!Token.isUnresolved(sender)) uniqueIdSchema.parse(sender);
    const list = typeof tenants === 'string' ? tenants : [...tenants];
    this.entries.push({ sender, tenants: list } as SenderTenants[number]);
  }

  /**
   * One of leasefence's own senders (worker, sweeper, admin, schedule tick): wake-ups for any tenant, redriven
   * messages checked as their original sender. Every role of the construct that may send to the jobs queue is one.
   */
  relay(role: iam.Role): void {
    this.entries.push({ sender: role.roleId, relay: true });
  }

  /** Registers a producer by its role; a principal whose unique id is not known here is remembered by `path`. */
  allowPrincipal(grantee: iam.IGrantable, tenants: SenderTenantList, senderId: string | undefined, path: string): void {
    const principal = grantee.grantPrincipal;
    const id = senderId ?? (principal instanceof iam.Role ? principal.roleId : undefined);
    if (id === undefined) this.unidentified.push(path);
    else this.allow(id, tenants);
  }

  /** The worker's LEASEFENCE_SENDER_TENANTS: the policy once any producer is tenant-scoped, else '' (no check). */
  variable(): string {
    return Lazy.string({ produce: () => this.render() });
  }

  private render(): string {
    const confined = this.entries.some((entry) => !('relay' in entry) && entry.tenants !== '*');
    if (!confined) return '';
    if (this.unidentified.length > 0) {
      throw new Error(
        `grantSendJobs: the SenderId of ${this.unidentified.join(', ')} is not known, and tenant-scoped producers make the worker refuse unknown senders: pass { senderId: 'AROA…' } (aws iam get-role --query Role.RoleId)`,
      );
    }
    return Stack.of(this.scope).toJsonString(this.entries);
  }
}

export { SenderRegistry, type SenderTenantList };
