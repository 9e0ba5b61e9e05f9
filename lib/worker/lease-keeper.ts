import { isLeasefenceError, LeaseInDoubtError, OwnershipLostError } from '../errors.js';
import { MetricName } from '../metric-names.js';
import type { Claim, LeaseDuration, WorkItemStore } from '../store/index.js';
import type { Telemetry } from '../telemetry.js';

/** How the lease keeper renews. */
interface LeaseKeeperOptions {
  store: WorkItemStore;
  claim: Claim;
  /** How far each renewal extends the lease (the claim's own lease duration). */
  leaseMs: LeaseDuration;
  /** Milliseconds between renewal checks; 0 disables the timers (tests call tick() and doubt()). */
  intervalMs: number;
  telemetry: Telemetry;
  /** Called once when a renewal finds the fence superseded. */
  onOwnershipLost: (error: OwnershipLostError) => void;
  /** Called once when the attempt falls into lease doubt (a failed renewal, or the local deadline passed). */
  onDoubt?: (error: LeaseInDoubtError) => void;
  /** Called after each confirmed renewal (concurrency slots follow the lease); false puts the attempt in doubt. */
  onRenewed?: (renewed: Claim) => Promise<boolean>;
}

type TickResult = 'renewed' | 'skipped' | 'lost' | 'busy' | 'doubt';

/**
 * Renews the lease only when the job reported progress since the last renewal, so a stuck handler lets
 * its lease expire (liveness) instead of a heartbeat lying for it. A superseded fence aborts the job. Lease
 * doubt is final for the attempt: from a failed renewal, or from the moment the local lease deadline passes
 * without a confirmed renewal, another worker may hold the job, so no new effect may start (see doubt()).
 */
class LeaseKeeper {
  private claim: Claim;
  private progressed = false;
  private renewing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private deadlineTimer: NodeJS.Timeout | undefined;
  private lost = false;
  private inDoubt: LeaseInDoubtError | undefined;

  constructor(private readonly options: LeaseKeeperOptions) {
    this.claim = options.claim;
  }

  /** Starts the renewal timer and the local-deadline timer (unref'd: they never keep a process alive). */
  start(): void {
    if (this.options.intervalMs <= 0 || this.timer) return;
    this.timer = setInterval(() => void this.tick(), this.options.intervalMs);
    this.timer.unref();
    this.armDeadline();
  }

  /** Marks progress: the next check renews the lease. */
  progress(): void {
    this.progressed = true;
  }

  /** The claim as last renewed. */
  current(): Claim {
    return this.claim;
  }

  /**
   * The attempt's lease doubt, or undefined while the lease is confirmed: set by a failed renewal, or found
   * now because the local deadline (the last confirmed leaseExpiresAt, on the store's clock) has passed.
   */
  doubt(): LeaseInDoubtError | undefined {
    if (!this.inDoubt && this.options.store.now() >= this.claim.leaseExpiresAt) {
      this.enterDoubt('the local lease deadline passed without a confirmed renewal');
    }
    return this.inDoubt;
  }

  /** One renewal check: renews if progress was reported, else records a skipped heartbeat. */
  async tick(): Promise<TickResult> {
    if (this.lost) return 'lost';
    if (this.doubt()) return 'doubt';
    if (this.renewing) return 'busy';
    if (!this.progressed) {
      this.options.telemetry.count(MetricName.HeartbeatSkippedNoProgress);
      this.options.telemetry.warn('heartbeat skipped: no progress since last renewal', this.fields());
      return 'skipped';
    }
    this.progressed = false;
    let result: TickResult = 'renewed';
    this.renewing = this.options.store
      .heartbeat(this.claim, this.options.leaseMs)
      .then(async (renewed) => {
        if (this.inDoubt) return; // doubt is final for the attempt, whatever answer arrives later
        this.claim = renewed;
        this.armDeadline();
        if (this.options.onRenewed && !(await this.options.onRenewed(renewed))) {
          result = 'doubt';
          this.enterDoubt('a concurrency slot of this claim was re-granted to another job');
        }
      })
      .catch((error: unknown) => {
        if (isLeasefenceError(error, OwnershipLostError)) {
          result = 'lost';
          this.lost = true;
          this.options.onOwnershipLost(error);
          return;
        }
        result = 'doubt';
        this.options.telemetry.count(MetricName.LeaseRenewalFailed, 1, this.claim.jobType);
        this.options.telemetry.warn('lease renewal failed; the attempt starts no new effect', {
          ...this.fields(),
          error,
        });
        this.enterDoubt('a lease renewal failed', error);
      });
    await this.renewing;
    this.renewing = undefined;
    return result;
  }

  /** Stops the timers and waits for an in-flight renewal. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.deadlineTimer) clearTimeout(this.deadlineTimer);
    this.timer = undefined;
    this.deadlineTimer = undefined;
    await this.renewing;
  }

  /** (Re)arms the timer that finds the local deadline passing, so doubt starts on time, not at the next tick. */
  private armDeadline(): void {
    if (this.options.intervalMs <= 0) return;
    if (this.deadlineTimer) clearTimeout(this.deadlineTimer);
    const remaining = Math.max(0, this.claim.leaseExpiresAt - this.options.store.now());
    // A clock that moved less than the timer waited (an injected clock, a slow tick): look again later.
    this.deadlineTimer = setTimeout(() => {
      if (!this.doubt() && this.timer) this.armDeadline();
    }, remaining + 1);
    this.deadlineTimer.unref();
  }

  private enterDoubt(why: string, cause?: unknown): void {
    if (this.inDoubt) return;
    this.inDoubt = new LeaseInDoubtError(`lease in doubt: ${why}; fence ${this.claim.fence} starts no new effect`, {
      ...(cause !== undefined ? { cause } : {}),
      fence: this.claim.fence,
      leaseExpiresAt: this.claim.leaseExpiresAt,
    });
    this.options.onDoubt?.(this.inDoubt);
  }

  private fields() {
    return { identity: this.claim.identity, fence: this.claim.fence, attempt: this.claim.attempt };
  }
}

export { LeaseKeeper, type LeaseKeeperOptions };
