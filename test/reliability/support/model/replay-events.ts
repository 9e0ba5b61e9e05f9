import type { Command } from './commands.js';
import type { Outcome } from './reference-model.js';

/** The model event a holder command is (a record write changes no row: the model has no row step for it). */
const HOLDER_EVENTS = { heartbeat: 'renew', write: 'record-write', guardedWrite: 'record-write', complete: 'complete' };

/**
 * The model events (model/transitions.json) a command may have taken on identity `id`, for the replay of its
 * history: a holder command without a claim claims instead; a race may have taken either of its two; a sweep parks
 * an exhausted lease or expires an approval; an operator's requeue is a retry, or with the statement the statement.
 */
function eventsOf(command: Command, outcome: Outcome, id: number): string[] {
  switch (command.kind) {
    case 'enqueue':
    case 'claim':
      return ['claim'];
    case 'heartbeat':
    case 'write':
    case 'guardedWrite':
    case 'complete':
      return outcome.kind === 'claim' ? ['claim'] : [HOLDER_EVENTS[command.kind]];
    case 'fail':
      return outcome.kind === 'claim' ? ['claim'] : [command.terminal ? 'fail' : 'retry'];
    case 'cancel':
      return ['cancel'];
    case 'sweep':
      return ['sweep', 'expire'];
    case 'resolve':
      if (command.to !== 'queued') return ['resolve'];
      return [command.statement ? 'statement' : 'operator-retry'];
    case 'retry':
      return [command.statement ? 'statement' : 'operator-retry'];
    case 'approve':
    case 'reject':
      return [command.kind];
    case 'race':
      if (command.rival !== 'expire') return ['approve', command.rival];
      return command.id === id ? ['approve', 'expire', 'sweep'] : ['sweep', 'expire'];
    default:
      return ['time'];
  }
}

/** The fence of the holder that wrote, for a holder command that did not claim instead (else undefined). */
function holderFenceOf(command: Command, outcome: Outcome, lastHolderFence: number): number | undefined {
  const holder = ['heartbeat', 'write', 'guardedWrite', 'complete', 'fail'].includes(command.kind);
  return holder && outcome.kind !== 'claim' ? lastHolderFence : undefined;
}

export { eventsOf, holderFenceOf };
