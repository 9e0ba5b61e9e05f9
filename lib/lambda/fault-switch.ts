import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SQSRecord } from 'aws-lambda';
import type { LeasefenceConfig } from '../config.js';
import { ConfigurationError } from '../errors.js';
import type { FaultInjector } from '../fault-injection/injector.js';
import * as faultLayer from '../fault-injection/injector.js';
import type { FaultPlanSource } from '../fault-injection/plan.js';
import { STACK_CHECK_TENANT_PREFIX } from '../store/index.js';
import type { LogFields, Telemetry } from '../telemetry.js';
import type { ProviderObserver } from '../worker/job-context.js';
import type { MessageResult } from '../worker/worker-runtime.js';
import { secretsManagerReader } from './identifier-key.js';

/**
 * The fault layer's loader, or undefined in a worker bundled without it: the construct defines
 * `process.env.LEASEFENCE_FAULT_LAYER` as `'omitted'` for a worker without faultInjection (FAULT_LAYER_CONSTANT),
 * this folds to undefined at build time and esbuild leaves lib/fault-injection out of the bundle.
 */
const importFaultLayer =
  process.env.LEASEFENCE_FAULT_LAYER === 'omitted' ? undefined : () => Promise.resolve(faultLayer);

/** What the fault layer is built on: the worker's client, its tables, and where the plan is read (or none). */
interface FaultSwitchOptions {
  readonly config: Pick<LeasefenceConfig, 'jobsTable' | 'payloadsTable' | 'faultPlanSecretArn'>;
  /** A plan source given in code (the local stack); else the construct's secret, when the stack enables faults. */
  readonly plan: FaultPlanSource | undefined;
}

/** The worker's record handling, with the fault layer between it and a check run's records when enabled. */
interface FaultSwitch {
  readonly enabled: boolean;
  /** Handles a record: straight to `handle` unless faults are enabled and the body names a check tenant. */
  route(record: SQSRecord, handle: () => Promise<MessageResult>): Promise<MessageResult>;
  /** The telemetry the runtime gets: `telemetry` itself when disabled; else it also shows the fault layer log fields. */
  observe(telemetry: Telemetry): Telemetry;
  /** Builds the layer on the worker's client on its first use (its module bundled only with faultInjection). */
  attach(client: DynamoDBDocumentClient): void;
  /** Enabled only: the layer's watch on a check attempt's provider client (the runtime's `observeProvider`). */
  readonly observeProvider?: ProviderObserver;
}

/**
 * The fault injection switch of the worker handler. Off (no plan source, no LEASEFENCE_FAULT_PLAN_SECRET_ARN, or a
 * bundle without the layer): `route` calls the handler at once, `observe` returns the same telemetry, and
 * lib/fault-injection is never loaded.
 * On: the first record that names a `lfcheck-` tenant loads it; its plan decides, never the message.
 */
function faultSwitch(options: FaultSwitchOptions): FaultSwitch {
  const secretArn = options.config.faultPlanSecretArn;
  const plan: FaultPlanSource | undefined =
    options.plan ?? (secretArn ? () => secretsManagerReader()(secretArn) : undefined);
  if (!plan || !importFaultLayer) {
    return {
      enabled: false,
      route: (_record, handle) => handle(),
      observe: (telemetry) => telemetry,
      attach: () => {},
    };
  }
  let client: DynamoDBDocumentClient | undefined;
  let injector: Promise<FaultInjector> | undefined;
  let loaded: FaultInjector | undefined;
  const load = () => {
    injector ??= importFaultLayer().then((module) => {
      if (!client) throw new ConfigurationError('the fault layer was used before the worker client was attached');
      loaded = module.createFaultInjector({ client, plan, ...tablesOf(options.config) });
      return loaded;
    });
    return injector;
  };
  const seen = (message: string, fields: LogFields | undefined) => loaded?.observeTelemetry(message, fields);
  return {
    enabled: true,
    attach: (worker) => {
      client = worker;
    },
    // Loaded by `route` before a check tenant's attempt runs; any other attempt's client is left as built.
    observeProvider: (declaration, built) => (loaded ? loaded.observeProvider(declaration, built) : built),
    route: async (record, handle) => {
      if (!record.body.includes(STACK_CHECK_TENANT_PREFIX)) return handle();
      const layer = await load();
      const receiveCount = Number(record.attributes?.ApproximateReceiveCount ?? 1);
      return layer.handle({ messageId: record.messageId, body: record.body, receiveCount }, handle);
    },
    observe: (telemetry) => ({
      count: (...args) => telemetry.count(...args),
      gauge: (...args) => telemetry.gauge(...args),
      info: (message, fields) => {
        seen(message, fields);
        telemetry.info(message, fields);
      },
      warn: (message, fields) => {
        seen(message, fields);
        telemetry.warn(message, fields);
      },
      error: (message, fields) => {
        seen(message, fields);
        telemetry.error(message, fields);
      },
    }),
  };
}

function tablesOf(config: FaultSwitchOptions['config']) {
  return { jobsTable: config.jobsTable, payloadsTable: config.payloadsTable };
}

export { type FaultSwitch, faultSwitch };
