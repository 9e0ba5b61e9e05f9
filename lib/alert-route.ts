import * as z from 'zod/mini';
import { parseInput } from './internal/validation.js';
import { jobTypeSchema } from './rules.js';

/** An SNS topic ARN in any partition (standard or FIFO topic name). */
const SNS_TOPIC_ARN = /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}(\.fifo)?$/;

/**
 * A label on the construct's default alarm topic: letters, digits and `:#@._/+-`, starting with a letter or
 * digit (e.g. `pagerduty:payments`, `slack:#statements-oncall`). Subscribers pick their label's job types out of
 * the topic with the construct's alertRouteFilter(label).
 */
const ROUTE_LABEL = /^[A-Za-z0-9][A-Za-z0-9:#@._/+-]{0,99}$/;

// Built on first use (z.lazy: the same checks and issues), not at import: a cold start whose first events never
// reach this schema does not pay for building it (BENCHMARKS.md figure 5).
/**
 * Where a job type's alarms go: an SNS topic ARN (notified directly), or a label on the construct's default topic
 * (delivered to the subscriptions made with that label's filter). One grammar for defineJob and the construct.
 */
const alertRouteSchema = z.lazy(() =>
  z
    .string()
    .check(
      z.refine(
        (route) => (route.startsWith('arn:') ? SNS_TOPIC_ARN.test(route) : ROUTE_LABEL.test(route)),
        'an alert route is an SNS topic ARN (arn:aws:sns:<region>:<account>:<topic>) or a label of 1-100 chars of [A-Za-z0-9:#@._/+-]',
      ),
    ),
);

/** An alert route, parsed: which topic it names. */
type ParsedAlertRoute = { kind: 'topic'; topicArn: string } | { kind: 'label'; label: string };

/** Classifies a route already checked by alertRouteSchema (an `arn:` route is a topic, anything else a label). */
function parseAlertRoute(route: string): ParsedAlertRoute {
  return route.startsWith('arn:') ? { kind: 'topic', topicArn: route } : { kind: 'label', label: route };
}

/** Job type → alert route, every key a job type and every value a route. */
const alertRoutesSchema = z.lazy(() => z.record(jobTypeSchema, alertRouteSchema));

/**
 * Checks a job type → route map (the construct's alertRoutes); InvalidInputError naming each bad entry, before
 * anything is built.
 */
function parseAlertRoutes(routes: unknown): Record<string, string> {
  return parseInput(alertRoutesSchema, routes, 'alertRoutes');
}

/**
 * The job type → route map of job definitions that name a route (pass it to the construct's alertRoutes, so the
 * definition stays the one place a route is written); definitions without one are left out (check control 7
 * fails on them).
 */
function alertRoutesOf(jobs: ReadonlyArray<{ type: string; alertRoute?: string }>): Record<string, string> {
  return Object.fromEntries(
    jobs.flatMap((job) => (job.alertRoute === undefined ? [] : [[job.type, job.alertRoute] as const])),
  );
}

export { alertRouteSchema, alertRoutesOf, type ParsedAlertRoute, parseAlertRoute, parseAlertRoutes };
