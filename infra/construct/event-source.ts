import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { InvalidInputError } from '../../lib/errors.js';
import { LIMIT } from './capacity-limits.js';
import { type EventSourceMode, eventSourceCeiling } from './capacity-model.js';

/** Provisioned mode of the jobs queue's event source: dedicated pollers, each up to 10 concurrent invokes (L8). */
interface ProvisionedPollers {
  /** Pollers kept ready (2..200; billed while idle). */
  readonly minimumPollers: number;
  /** Pollers the mapping may scale to (2..2,000, at least minimumPollers). */
  readonly maximumPollers: number;
}

/** The event-source props a deployment sets. */
interface EventSourceProps {
  readonly maxConcurrency?: number;
  readonly provisionedPollers?: ProvisionedPollers;
}

const DEFAULT_MAX_CONCURRENCY = 10;

function issue(path: string, message: string): InvalidInputError {
  return new InvalidInputError(`${path}: ${message}`, [{ path, message }]);
}

function checkInteger(path: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw issue(path, `must be an integer in ${min}..${max}, got ${value}`);
  }
}

/**
 * The worker's event-source mode: standard (maxConcurrency, default 10) or provisioned (provisionedPollers).
 * InvalidInputError for both at once (AWS refuses maximum concurrency in provisioned mode, L7/L8) and for values
 * outside AWS's ranges; nothing is built from a refused value.
 */
function resolveEventSource(props: EventSourceProps): EventSourceMode {
  const pollers = props.provisionedPollers;
  if (pollers === undefined) {
    const maxConcurrency = props.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY;
    checkInteger('maxConcurrency', maxConcurrency, LIMIT.maxConcurrencyMin, LIMIT.maxConcurrencyMax);
    return { mode: 'standard', maxConcurrency };
  }
  if (props.maxConcurrency !== undefined) {
    throw issue(
      'provisionedPollers',
      'maxConcurrency and provisionedPollers are mutually exclusive (AWS refuses maximum concurrency in provisioned mode): set the pollers’ minimum and maximum instead',
    );
  }
  checkInteger(
    'provisionedPollers.minimumPollers',
    pollers.minimumPollers,
    LIMIT.minimumPollersMin,
    LIMIT.minimumPollersMax,
  );
  checkInteger(
    'provisionedPollers.maximumPollers',
    pollers.maximumPollers,
    Math.max(LIMIT.maximumPollersMin, pollers.minimumPollers),
    LIMIT.maximumPollersMax,
  );
  return { mode: 'provisioned', minimumPollers: pollers.minimumPollers, maximumPollers: pollers.maximumPollers };
}

/** The highest reserved concurrency a mode can use: 1,000 in standard mode (maxConcurrency's ceiling), pollers × 10 in provisioned. */
function reservationRange(source: EventSourceMode): { min: number; max: number } {
  return { min: eventSourceCeiling(source), max: Math.max(LIMIT.maxConcurrencyMax, eventSourceCeiling(source)) };
}

/** The scaling part of the worker's event source mapping: maxConcurrency, or the provisioned poller config. */
function eventSourceScaling(
  source: EventSourceMode,
): Pick<lambda.EventSourceMappingOptions, 'maxConcurrency' | 'provisionedPollerConfig'> {
  return source.mode === 'standard'
    ? { maxConcurrency: source.maxConcurrency }
    : {
        provisionedPollerConfig: {
          minimumPollers: source.minimumPollers,
          maximumPollers: source.maximumPollers,
        },
      };
}

export {
  DEFAULT_MAX_CONCURRENCY,
  type EventSourceProps,
  eventSourceScaling,
  type ProvisionedPollers,
  reservationRange,
  resolveEventSource,
};
