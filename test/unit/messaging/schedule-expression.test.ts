import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../lib/errors.js';
import { defineSchedule, occurrenceAt } from '../../../lib/messaging/schedule.js';
import { croner7Part, parseScheduleExpression } from '../../../lib/messaging/schedule-expression.js';

const iso = (time: number | undefined) => (time === undefined ? undefined : new Date(time).toISOString());
const at = (text: string) => Date.parse(text);

describe('schedule expressions: EventBridge syntax, ticks in the time zone', () => {
  it('converts EventBridge cron fields to croner seven-part patterns (? ▶ *, nL ▶ n#L, year kept)', () => {
    expect(croner7Part(['0', '9', '?', '*', 'MON-FRI', '*'])).toBe('0 0 9 * * MON-FRI *');
    expect(croner7Part(['15', '10', 'L', '*', '?', '2027'])).toBe('0 15 10 L * * 2027');
    expect(croner7Part(['0', '12', '?', '*', '6L', '*'])).toBe('0 0 12 * * 6#L *');
  });

  it('a weekday cron in Europe/Berlin ticks at 09:00 local: 08:00 UTC in winter, 07:00 UTC in summer', () => {
    const ticks = parseScheduleExpression('cron(0 9 ? * MON-FRI *)', 'Europe/Berlin');
    // Friday 4 December 2026, noon UTC: the latest tick is that morning, the next one Monday.
    expect(iso(ticks.latestAtOrBefore(at('2026-12-04T12:00:00Z')))).toBe('2026-12-04T08:00:00.000Z');
    expect(iso(ticks.nextAfter(at('2026-12-04T12:00:00Z')))).toBe('2026-12-07T08:00:00.000Z');
    expect(iso(ticks.nextAfter(at('2027-07-02T12:00:00Z')))).toBe('2027-07-05T07:00:00.000Z');
  });

  it('numbers weekdays as EventBridge does (1 = Sunday) and reads 6L as the last Friday', () => {
    const sunday = parseScheduleExpression('cron(0 6 ? * 1 *)', 'UTC');
    expect(iso(sunday.nextAfter(at('2026-12-01T00:00:00Z')))).toBe('2026-12-06T06:00:00.000Z');
    const lastFriday = parseScheduleExpression('cron(0 12 ? * 6L *)', 'UTC');
    expect(iso(lastFriday.nextAfter(at('2026-12-01T00:00:00Z')))).toBe('2026-12-25T12:00:00.000Z');
    const lastDay = parseScheduleExpression('cron(30 23 L * ? *)', 'UTC');
    expect(iso(lastDay.nextAfter(at('2027-02-01T00:00:00Z')))).toBe('2027-02-28T23:30:00.000Z');
  });

  it('honours the year field: no tick after the last year', () => {
    const ticks = parseScheduleExpression('cron(0 0 1 1 ? 2027)', 'UTC');
    expect(iso(ticks.nextAfter(at('2026-06-01T00:00:00Z')))).toBe('2027-01-01T00:00:00.000Z');
    expect(ticks.nextAfter(at('2027-06-01T00:00:00Z'))).toBeUndefined();
    expect(ticks.latestAtOrBefore(at('2026-06-01T00:00:00Z'))).toBeUndefined();
  });

  it('rate() ticks at multiples of the interval since the epoch; a delivery maps to its interval', () => {
    const ticks = parseScheduleExpression('rate(15 minutes)', 'UTC');
    expect(iso(ticks.latestAtOrBefore(at('2026-12-01T09:29:59Z')))).toBe('2026-12-01T09:15:00.000Z');
    expect(iso(ticks.nextAfter(at('2026-12-01T09:15:00Z')))).toBe('2026-12-01T09:30:00.000Z');
    expect(iso(parseScheduleExpression('rate(1 day)', 'UTC').latestAtOrBefore(at('2026-12-01T09:00:00Z')))).toBe(
      '2026-12-01T00:00:00.000Z',
    );
  });

  it('at() is one local time in its zone, one tick', () => {
    const ticks = parseScheduleExpression('at(2026-12-24T09:00:00)', 'America/New_York');
    expect(iso(ticks.nextAfter(at('2026-12-01T00:00:00Z')))).toBe('2026-12-24T14:00:00.000Z');
    expect(ticks.nextAfter(at('2026-12-24T14:00:00Z'))).toBeUndefined();
    expect(ticks.latestAtOrBefore(at('2026-12-24T13:59:59Z'))).toBeUndefined();
    expect(iso(ticks.latestAtOrBefore(at('2027-01-01T00:00:00Z')))).toBe('2026-12-24T14:00:00.000Z');
  });

  it.each([
    ['rate(0 minutes)', 'UTC'],
    ['rate(5 weeks)', 'UTC'],
    ['cron(0 9 * * MON-FRI *)', 'UTC'],
    ['cron(0 9 ? * ? *)', 'UTC'],
    ['cron(0 9 ? * MON-FRI)', 'UTC'],
    ['cron(99 9 ? * MON *)', 'UTC'],
    ['at(2026-12-24 09:00)', 'UTC'],
    ['cron(0 9 ? * MON *)', 'Mars/Olympus'],
  ])('refuses %s in %s with a typed error naming the field', (expression, timeZone) => {
    const declare = () =>
      defineSchedule({ name: 'n', jobType: 'report', tenantId: 'acme', payload: {}, expression, timeZone });
    expect(declare).toThrow(InvalidInputError);
    try {
      declare();
    } catch (error) {
      expect((error as InvalidInputError).issues.map((issue) => issue.path)).toContain('expression');
    }
  });

  it('refuses a payload that is not plain JSON or over 2 KB', () => {
    const base = { name: 'n', jobType: 'report', tenantId: 'acme', expression: 'rate(1 hour)' };
    expect(() => defineSchedule({ ...base, payload: { when: new Date() } })).toThrow(InvalidInputError);
    expect(() => defineSchedule({ ...base, payload: { big: 'x'.repeat(2100) } })).toThrow(InvalidInputError);
    expect(defineSchedule({ ...base, payload: { ok: [1, 'a', null, true] } }).payload).toEqual({
      ok: [1, 'a', null, true],
    });
  });

  it('derives one occurrence identity per tick from the schedule name and the tick time', () => {
    const schedule = defineSchedule({
      name: 'weekday-digest',
      jobType: 'report',
      tenantId: 'acme',
      payload: {},
      expression: 'cron(0 9 ? * MON-FRI *)',
      timeZone: 'Europe/Berlin',
    });
    const onTime = occurrenceAt(schedule, at('2026-12-04T08:00:00Z'));
    const late = occurrenceAt(schedule, at('2026-12-04T08:14:00Z'));
    expect(onTime?.identity.operationId).toBe('schedule/weekday-digest/2026-12-04T08:00:00.000Z');
    expect(late?.identity).toEqual(onTime?.identity);
    expect(occurrenceAt(schedule, at('2026-12-07T08:00:00Z'))?.identity.operationId).not.toBe(
      onTime?.identity.operationId,
    );
  });
});
