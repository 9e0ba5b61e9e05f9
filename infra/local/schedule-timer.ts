import { scheduleTicks } from '../../lib/messaging/schedule.js';
import { TICK_MAX_AGE_SECONDS } from '../../lib/messaging/schedule-status.js';
import { type ScheduleTickDependencies, type TickOutcome, tickSchedule } from '../../lib/messaging/schedule-tick.js';
import { pause } from './pollers.js';

/** The longest the timer sleeps before looking again (a clock that jumps is seen within this). */
const MAX_SLEEP_MS = 60_000;

/** What the local schedules need: the tick dependencies (their clock decides what is due) and how to wait. */
interface ScheduleTimerOptions {
  deps: ScheduleTickDependencies;
  /** Waits `ms` or until the signal aborts. Default: a real timer (tests drive `fireDue` instead). */
  wait?: (ms: number, signal: AbortSignal) => Promise<void>;
  onTick?: (name: string, outcome: TickOutcome) => void;
  onError?: (name: string, error: unknown) => void;
}

/**
 * EventBridge Scheduler, locally: fires each schedule's ticks at their times through tickSchedule, the code path of
 * the Lambda tick. Like the Scheduler, a tick is delivered while it is at most TICK_MAX_AGE_SECONDS late (a process
 * that slept fires the ticks it overslept within that window, each once) and dropped after: such a tick has no job
 * and `leasefence schedules` reports it missed. Ticks before the timer started are not its to fire.
 */
class ScheduleTimer {
  private readonly abort = new AbortController();
  private running: Promise<void> | undefined;
  /** Per schedule, the time up to which its ticks were fired (or dropped). */
  private readonly firedUntil = new Map<string, number>();

  constructor(private readonly options: ScheduleTimerOptions) {
    const now = options.deps.clock.now();
    for (const schedule of options.deps.schedules) this.firedUntil.set(schedule.name, now);
  }

  /** Starts firing ticks; nothing to do without schedules. */
  start(): void {
    if (this.options.deps.schedules.length === 0) return;
    this.running ??= this.loop();
  }

  /** Stops the timer and waits for the ticks in flight. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.running;
  }

  /**
   * Fires every tick due at the clock's now and not fired yet, oldest first per schedule, each once; ticks more than
   * TICK_MAX_AGE_SECONDS late are dropped, as the Scheduler drops them. A failed tick is reported and not retried
   * here (its next firing would be a replay anyway). Returns what each fired tick did.
   */
  async fireDue(): Promise<Array<{ name: string; outcome: TickOutcome }>> {
    const now = this.options.deps.clock.now();
    const fired: Array<{ name: string; outcome: TickOutcome }> = [];
    for (const schedule of this.options.deps.schedules) {
      const ticks = scheduleTicks(schedule);
      let tick = ticks.nextAfter(this.firedUntil.get(schedule.name) ?? now);
      while (tick !== undefined && tick <= now) {
        if (now - tick <= TICK_MAX_AGE_SECONDS * 1000) {
          try {
            const outcome = await tickSchedule(this.options.deps, schedule.name, tick);
            fired.push({ name: schedule.name, outcome });
            this.options.onTick?.(schedule.name, outcome);
          } catch (error) {
            this.options.onError?.(schedule.name, error);
          }
        }
        this.firedUntil.set(schedule.name, tick);
        tick = ticks.nextAfter(tick);
      }
      this.firedUntil.set(schedule.name, now);
    }
    return fired;
  }

  /** How long until the earliest tick not yet fired (capped, so a clock jump is noticed). */
  private untilNextTick(): number {
    const now = this.options.deps.clock.now();
    const next = this.options.deps.schedules
      .map((schedule) => scheduleTicks(schedule).nextAfter(this.firedUntil.get(schedule.name) ?? now))
      .filter((tick): tick is number => tick !== undefined);
    return Math.min(MAX_SLEEP_MS, Math.max(0, Math.min(...next, now + MAX_SLEEP_MS) - now));
  }

  private async loop(): Promise<void> {
    const { signal } = this.abort;
    const wait = this.options.wait ?? pause;
    while (!signal.aborted) {
      await wait(this.untilNextTick(), signal);
      if (signal.aborted) return;
      await this.fireDue();
    }
  }
}

export { ScheduleTimer, type ScheduleTimerOptions };
