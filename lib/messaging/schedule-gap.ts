import { type ScheduleDeclaration, scheduleTicks } from './schedule.js';

const DAY_MS = 24 * 60 * 60_000;

/** How far ahead a cron's gaps are walked: a year and a day holds every month length, DST change and weekday. */
const GAP_HORIZON_MS = 366 * DAY_MS;

/**
 * Most ticks walked for one cron (an every-minute cron has 527,040 a year). Past them the longest gap found so
 * far stands: a rarer, longer gap further on is missed, and the silence alarm then fires early (noisy, never quiet).
 */
const MAX_WALKED_TICKS = 2_000;

/**
 * The longest time between two consecutive ticks of a schedule from `from` on (epoch ms): a rate's interval; a
 * cron's widest gap over the next 366 days (DST changes, weekends, month ends included), or over its first
 * MAX_WALKED_TICKS ticks when it has more. Undefined for a schedule that ends (an at(), a cron whose year field
 * runs out within the horizon, none left after `from`): no gap is expected to close. Pure.
 */
function longestTickGapMs(
  schedule: Pick<ScheduleDeclaration, 'expression' | 'timeZone'>,
  from: number,
): number | undefined {
  const ticks = scheduleTicks(schedule);
  if (ticks.kind === 'at') return undefined;
  let previous = ticks.nextAfter(from);
  if (previous === undefined) return undefined;
  if (ticks.kind === 'rate') return (ticks.nextAfter(previous) ?? previous) - previous;
  let longest = 0;
  for (let walked = 0; walked < MAX_WALKED_TICKS && previous <= from + GAP_HORIZON_MS; walked += 1) {
    const next = ticks.nextAfter(previous);
    if (next === undefined) return undefined;
    longest = Math.max(longest, next - previous);
    previous = next;
  }
  return longest;
}

export { GAP_HORIZON_MS, longestTickGapMs, MAX_WALKED_TICKS };
