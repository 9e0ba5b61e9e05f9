import { describe, expect, it } from 'vitest';
import { ExpressionBuilder } from '../../../lib/store/driver/expressions.js';

describe('ExpressionBuilder', () => {
  it('names each segment of a path and reuses a placeholder for the same name', () => {
    const x = new ExpressionBuilder();

    expect(x.name('steps.publish')).toBe('#steps.#publish');
    expect(x.name('steps')).toBe('#steps');
    expect(x.names).toEqual({ '#steps': 'steps', '#publish': 'publish' });
  });

  it('keeps a literal segment whole: a dot in a map key is not a path separator', () => {
    const x = new ExpressionBuilder();

    expect(`${x.name('steps')}.${x.segment('charge.card')}`).toBe('#steps.#charge_card');
    expect(x.names['#charge_card']).toBe('charge.card');
  });

  it('gives distinct placeholders to names that sanitise alike', () => {
    const x = new ExpressionBuilder();

    const first = x.segment('a-b');
    const second = x.segment('a b');

    expect(first).not.toBe(second);
    expect(x.names[first]).toBe('a-b');
    expect(x.names[second]).toBe('a b');
  });

  it('numbers value placeholders in order and never reuses one', () => {
    const x = new ExpressionBuilder();

    expect([x.value(1), x.value(1), x.value('s')]).toEqual([':v1', ':v2', ':v3']);
    expect(x.values).toEqual({ ':v1': 1, ':v2': 1, ':v3': 's' });
  });

  it('builds SET and REMOVE clauses, skipping undefined assignments', () => {
    const x = new ExpressionBuilder();

    const update = x.update({ state: 'queued', note: undefined }, ['leaseOwner'], ['#n = #n + :one']);

    expect(update).toBe('SET #state = :v1, #n = #n + :one REMOVE #leaseOwner');
  });

  it('omits empty names and values maps (DynamoDB rejects empty maps)', () => {
    expect(new ExpressionBuilder().attributes()).toEqual({});
  });
});
