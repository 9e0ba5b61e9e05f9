import { OwnershipLostError } from '../errors.js';
import { MetricName } from '../metric-names.js';
import type { Claim } from '../store/work-item.js';
import type { WorkItemStore } from '../store/work-item-store.js';
import type { Telemetry } from '../telemetry.js';

/** How the lease keeper renews. */
interface LeaseKeeperOptions {
  store: WorkItemStore;
  claim: Claim;
  leaseMs: number;
  /** Milliseconds between renewal checks; 0 disables the timer (tests call tick()). */
  intervalMs: number;
  telemetry: Telemetry;
  /** Called once when a renewal finds the fence superseded. */
  onOwnershipLost: (error: OwnershipLostError) => void;
}

/**
 * Renews the lease only when the job reported progress since the last renewal, so a stuck handler lets
 * its lease expire (liveness) instead of a heartbeat lying for it. A superseded fence aborts the job.
 */
class LeaseKeeper {
  private claim: Claim;
  private progressed = false;
  private renewing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lost = false;

  constructor(private readonly options: LeaseKeeperOptions) {
    this.claim = options.claim;
  }

  /** Starts the renewal timer (unref'd: it never keeps a process alive). */
  start(): void {
    if (this.options.intervalMs <= 0 || this.timer) return;
    this.timer = setInterval(() => void this.tick(), this.options.intervalMs);
    this.timer.unref();
  }

  /** Marks progress: the next check renews the lease. */
  progress(): void {
    this.progressed = true;
  }

  /** The claim as last renewed. */
  current(): Claim {
    return this.claim;
  }

  /** One renewal check: renews if progress was reported, else records a skipped heartbeat. */
  async tick(): Promise<'renewed' | 'skipped' | 'lost' | 'busy' | 'failed'> {
    if (this.lost) return 'lost';
    if (this.renewing) return 'busy';
    if (!this.progressed) {
      this.options.telemetry.count(MetricName.HeartbeatSkippedNoProgress);
      this.options.telemetry.warn('heartbeat skipped: no progress since last renewal', this.fields());
      return 'skipped';
    }
    this.progressed = false;
    let result: 'renewed' | 'lost' | 'failed' = 'renewed';
    this.renewing = this.options.store
      .heartbeat(this.claim, this.options.leaseMs)
      .then((renewed) => {
        this.claim = renewed;
      })
      .catch((error: unknown) => {
        if (error instanceof OwnershipLostError) {
          result = 'lost';
          this.lost = true;
          this.options.onOwnershipLost(error);
        } else {
          // A transient failure: keep the progress flag so the next check tries again.
          result = 'failed';
          this.progressed = true;
          this.options.telemetry.warn('heartbeat failed; will retry', { ...this.fields(), error });
        }
      });
    await this.renewing;
    this.renewing = undefined;
    return result;
  }

  /** Stops the timer and waits for an in-flight renewal. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.renewing;
  }

  private fields() {
    return { identity: this.claim.identity, fence: this.claim.fence, attempt: this.claim.attempt };
  }
}

export { LeaseKeeper, type LeaseKeeperOptions };
