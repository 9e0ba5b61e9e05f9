/** The systems of the end-to-end figure: today's worker, the peer, and with `--baseline` an earlier commit's worker. */
type HandlerSystem = 'leasefence' | 'peer' | 'baseline';

/** How one handler bundle is loaded: its file, the environment the construct would set, and each mode's extra. */
interface HandlerBundleSpec {
  bundle: string;
  environment: Record<string, string>;
  /** Extra environment per mode (e.g. the records table that turns the side-effect write on). */
  modes: Record<string, Record<string, string>>;
}

/** What the parent passes the child (one JSON argument). */
interface HandlerChildConfig {
  endpoint: string;
  enginePid?: number;
  workerCpus?: number[];
  systems: Record<'leasefence' | 'peer', HandlerBundleSpec> & { baseline?: HandlerBundleSpec };
  modes: string[];
  /** The modes in which the baseline (when given) runs beside the two others. */
  baselineModes: string[];
  concurrencies: number[];
  batchSize: number;
  batchesPerRun: number;
  warmupBatches: number;
  repetitions: number;
}

/** One timed run of one system: `batches` events of `batchSize` records, `concurrency` in flight. */
interface HandlerRunSample {
  jobs: number;
  batches: number;
  /** Records the handler reported failed (partial batch response); 0 in a healthy run. */
  batchItemFailures: number;
  jobsPerSecond: number;
  batchP50Ms: number;
  batchP99Ms: number;
  /** CPU (user + system) of the child per job: the handler's own; the engine runs in the parent. */
  cpuMsPerJob: number;
  engineCpuMsPerJob: number;
  /** DynamoDB write requests per job (each HTTP attempt counted). */
  writesPerJob: number;
  /** DynamoDB read requests per job (leasefence: the fence epoch, read once per 5 s per container). */
  readsPerJob: number;
}

/** Medians over the repetitions (counts summed). */
type HandlerSummary = HandlerRunSample;

/** A median of paired ratios and its 95 % interval (medianInterval). */
interface RatioWithInterval {
  ratio: number;
  low: number;
  high: number;
}

/** A baseline commit's worker in one cell: its medians, its ratios to the peer, and today's ÷ its own. */
interface HandlerBaselineCell {
  summary: HandlerSummary;
  jobsPerSecondRatio: number;
  cpuPerJobRatio: number;
  /** Today's worker ÷ the baseline's, per repetition (each timed in the same repetition). */
  todayOverBaseline: { jobsPerSecond: RatioWithInterval; cpuPerJob: RatioWithInterval };
}

/** One row: a mode at one concurrency, both systems, and the medians of the paired ratios lf ÷ peer. */
interface HandlerBatchRow {
  mode: string;
  concurrency: number;
  leasefence: HandlerSummary;
  peer: HandlerSummary;
  jobsPerSecondRatio: number;
  cpuPerJobRatio: number;
  /** Jobs each system handled before the timed runs (not in the counts above). */
  warmupJobs: number;
  /** With `--baseline`, in its modes: the baseline commit's worker in the same repetitions. */
  baseline?: HandlerBaselineCell;
}

export type {
  HandlerBaselineCell,
  HandlerBatchRow,
  HandlerBundleSpec,
  HandlerChildConfig,
  HandlerRunSample,
  HandlerSummary,
  HandlerSystem,
  RatioWithInterval,
};
