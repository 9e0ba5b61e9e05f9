import * as z from 'zod/mini';
import { builtOnce } from '../internal/memoize.js';
import { parseInput } from '../internal/validation.js';

/**
 * The two lanes a job travels in: `urgent` (the jobs queue, the default) and `bulk` (the bulk queue, whose event
 * source may use only part of the worker's concurrency, so urgent work always finds capacity). Not preemption: a
 * bulk job already running finishes; README.md, "Flow control: rate limits and priorities", says what is and is not promised.
 */
const Priority = { urgent: 'urgent', bulk: 'bulk' } as const;
type Priority = (typeof Priority)[keyof typeof Priority];

// Built on first use (builtOnce), like every schema a process parses once: nothing at import.
const prioritySchema = builtOnce(() => z.enum(['urgent', 'bulk']));

/** A declared or chosen priority, parsed at its boundary; InvalidInputError naming `what` otherwise. */
function parsePriority(value: unknown, what: string): Priority {
  return parseInput(prioritySchema(), value, what, { once: true });
}

export { Priority, parsePriority };
