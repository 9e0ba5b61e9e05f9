import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { jobsTableDefinition } from '../../../lib/store/table.js';
import {
  costPerMillionJobs,
  type Item,
  itemSize,
  readCost,
  type TableShape,
  tableShape,
  writeCost,
} from '../../bench/support/capacity.js';

const item = (value: Record<string, unknown>): Item => marshall(value, { removeUndefinedValues: true });

/** Table keyed by `pk`; one GSI on gk/gs projecting `p` only; one GSI on `ak` projecting everything. */
const table: TableShape = {
  keys: ['pk'],
  indexes: [
    { name: 'narrow', keys: ['gk', 'gs'], projection: ['p'] },
    { name: 'wide', keys: ['ak'], projection: 'ALL' },
  ],
};

describe('capacity accountant: item sizes (hand-computed)', () => {
  it('sizes names and scalar values by the documented rules', () => {
    // 'pk' 2 + 'a' 1 | 'n' 1 + 123 (3 digits: 2 + 1) | 'b' 1 + true 1 | 'z' 1 + null 1
    expect(itemSize(item({ pk: 'a', n: 123, b: true, z: null }))).toBe(3 + 4 + 2 + 2);
    // 1234567 significant digits of 12345.6700: ceil(7 / 2) + 1 = 5; -0.001: one digit, 2 bytes
    expect(itemSize(item({ x: 12345.67 }))).toBe(1 + 5);
    expect(itemSize(item({ x: -0.001 }))).toBe(1 + 2);
    // UTF-8: 'é' is 2 bytes
    expect(itemSize(item({ s: 'é' }))).toBe(1 + 2);
  });

  it('sizes lists and maps with 3 bytes each plus 1 byte per element', () => {
    // 'l' 1 + 3 + (1 + 'ab' 2) + (1 + 1 (one digit: 1 + 1 = 2)) = 1 + 3 + 3 + 3
    expect(itemSize(item({ l: ['ab', 1] }))).toBe(10);
    // 'm' 1 + 3 + (1 + 'x' 1 + 'y' 1)
    expect(itemSize(item({ m: { x: 'y' } }))).toBe(7);
    expect(itemSize(item({ m: {} }))).toBe(4);
  });
});

describe('capacity accountant: write units', () => {
  it('rounds the larger image up to 1 KB: 1,024 bytes is 1 unit, 1,025 is 2', () => {
    const exact = item({ data: 'x'.repeat(1_020) }); // 4 + 1,020
    const over = item({ data: 'x'.repeat(1_021) });
    expect(writeCost({ keys: ['data'], indexes: [] }, { before: undefined, after: exact }).total).toBe(1);
    expect(writeCost({ keys: ['data'], indexes: [] }, { before: undefined, after: over }).total).toBe(2);
    expect(writeCost({ keys: ['data'], indexes: [] }, { before: over, after: exact }).total).toBe(2);
  });

  it('puts an item into each index it enters, sized by the projected entry', () => {
    const after = item({ pk: 'k', gk: 'g', gs: 1, p: 'x'.repeat(1_100), q: 'y' });
    const cost = writeCost(table, { before: undefined, after });
    // table: 1,100 + small > 1 KB ▶ 2; narrow entry holds p (1,100 bytes) ▶ 2; not in `wide` (no ak)
    expect(cost).toEqual({ table: 2, indexes: { narrow: 2 }, total: 4 });
  });

  it('writes no index when only unprojected attributes change, one update when a projected one does', () => {
    const before = item({ pk: 'k', gk: 'g', gs: 1, p: 'a', q: 'y' });
    expect(writeCost(table, { before, after: { ...before, ...item({ q: 'z' }) } })).toEqual({
      table: 1,
      indexes: {},
      total: 1,
    });
    expect(writeCost(table, { before, after: { ...before, ...item({ p: 'b' }) } })).toEqual({
      table: 1,
      indexes: { narrow: 1 },
      total: 2,
    });
  });

  it('deletes and puts when an index key changes, deletes when the item leaves the index', () => {
    const before = item({ pk: 'k', gk: 'g', gs: 1, ak: 'a' });
    const moved = { ...before, ...item({ gs: 2 }) };
    // narrow: delete + put = 2; wide (ALL): the item changed ▶ one update
    expect(writeCost(table, { before, after: moved })).toEqual({ table: 1, indexes: { narrow: 2, wide: 1 }, total: 4 });
    const { gk: _gk, gs: _gs, ...left } = before;
    expect(writeCost(table, { before, after: left })).toEqual({ table: 1, indexes: { narrow: 1, wide: 1 }, total: 3 });
    expect(writeCost(table, { before, after: undefined })).toEqual({
      table: 1,
      indexes: { narrow: 1, wide: 1 },
      total: 3,
    });
  });

  it('charges a failed condition the existing item size and no index; a transaction twice', () => {
    const big = item({ pk: 'k', gk: 'g', gs: 1, d: 'x'.repeat(1_500) });
    expect(writeCost(table, { before: big, after: undefined }, { conditionFailed: true })).toEqual({
      table: 2,
      indexes: {},
      total: 2,
    });
    expect(writeCost(table, { before: undefined, after: undefined }, { conditionFailed: true }).total).toBe(1);
    const small = item({ pk: 'k', gk: 'g', gs: 1 });
    expect(writeCost(table, { before: undefined, after: small }, { transactional: true })).toEqual({
      table: 2,
      indexes: { narrow: 2 },
      total: 4,
    });
  });

  it('reads the jobs table definition: three sparse indexes with their projections', () => {
    const jobs = tableShape(jobsTableDefinition('jobs'));
    expect(jobs.keys).toEqual(['pk', 'sk']);
    expect(jobs.indexes.map((index) => [index.name, index.keys])).toEqual([
      ['byDeadline', ['deadlineShard', 'deadlineAt']],
      ['parkedByState', ['parkedState', 'parkedAt']],
      ['parkedByTenant', ['parkedTenantState', 'parkedAt']],
    ]);
    expect(jobs.indexes[0]?.projection).not.toContain('leaseExpiresAt');
  });
});

describe('capacity accountant: read units and price', () => {
  it('rounds up to 4 KB, halves eventually consistent reads, charges an empty read the minimum', () => {
    const fourKb = item({ d: 'x'.repeat(4_095) }); // 1 + 4,095
    const over = item({ d: 'x'.repeat(4_096) });
    expect(readCost([fourKb], true)).toBe(1);
    expect(readCost([over], true)).toBe(2);
    expect(readCost([over], false)).toBe(1);
    expect(readCost([], false)).toBe(0.5);
    // A Query sums its items before rounding: two 2,049-byte items are 4,098 bytes ▶ 2 units
    const half = item({ d: 'x'.repeat(2_048) });
    expect(readCost([half, half], true)).toBe(2);
  });

  it('prices a million jobs from units per job and the prices passed in', () => {
    expect(costPerMillionJobs({ wru: 4, rru: 0.5 }, { perMillionWru: 0.625, perMillionRru: 0.125 })).toBe(2.5625);
  });
});
