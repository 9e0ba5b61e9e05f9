import * as z from 'zod/mini';
import { InvalidInputError } from '../errors.js';
import { parseInput } from '../internal/validation.js';
import type { CallerIdentity, OperatorAction, WorkItem } from '../store/index.js';
import { type ApprovalPayloadInput, approvalPayload } from './approval-payload.js';
import { type ApproveInput, approveItem, rejectItem } from './approve.js';
import { listAuditRecords } from './audit.js';
import { cancelItem } from './cancel.js';
import { countItems } from './counts.js';
import type { AdminDeps } from './deps.js';
import { type EraseInput, erasePayloads } from './erase-payloads.js';
import { checkHealth } from './health.js';
import {
  auditQuerySchema,
  countsQuerySchema,
  limitsQuerySchema,
  listQuerySchema,
  noQuerySchema,
} from './http-schemas.js';
import { readLimits } from './limits.js';
import { listItems } from './list.js';
import { type RaiseFencesInput, raiseFences } from './raise-fences.js';
import { type RedriveInput, redriveDeadLetters } from './redrive.js';
import { type ResolveInput, resolveItem } from './resolve.js';
import { type AdminReply, errorReply, ok } from './responses.js';
import { type RetryInput, retryItem } from './retry.js';
import { routeRefusal } from './route-principals.js';
import { AdminRoute, matchRoute } from './routes.js';
import { actorSchema, callerSchema } from './schemas.js';
import { showItem } from './show.js';
import { readSignals } from './signals.js';
import { recordView } from './views.js';

/** One HTTP request, already separated from its transport. `actor` is the authenticated IAM caller. */
interface AdminRequest {
  method: string;
  path: string;
  query?: Record<string, string | undefined>;
  /** Raw body text (JSON); empty or absent means `{}` for POST routes and is required for GET routes. */
  body?: string;
  actor: string;
  /** The AWS caller behind `actor` (account, unique user id, access key id), audited beside it; absent locally. */
  caller?: CallerIdentity;
}

/** The answer, plus what the handler may log (raw ids: the handler hashes them) and the error behind a 500. */
interface AdminResponse extends AdminReply {
  route?: AdminRoute;
  subject?: { tenantId?: string; operationId?: string };
  error?: unknown;
}

/**
 * The admin API as a pure function of the request and the dependencies: routes, refuses a principal a route's
 * allowlist does not name (403, deps.routePrincipals), validates every input with strict schemas, calls the admin
 * operation and maps errors (400 with the field, 404, 405, 409, 500 without internals). Never throws.
 * @example
 * const reply = await handleAdminRequest({ method: 'GET', path: '/items', query: { state: 'unknown' }, actor }, deps);
 */
async function handleAdminRequest(request: AdminRequest, deps: AdminDeps): Promise<AdminResponse> {
  let route: AdminRoute | undefined;
  let subject: AdminResponse['subject'];
  try {
    const match = matchRoute(request.method, request.path);
    if (!match.ok) {
      const body =
        match.status === 404
          ? { error: 'route_not_found', message: `no route ${request.method} ${request.path}` }
          : { error: 'method_not_allowed', message: `allowed: ${match.allow}` };
      return { statusCode: match.status, body };
    }
    route = match.route;
    subject = { tenantId: match.tenantId, operationId: match.operationId };
    const who = parseInput(
      z.strictObject({ actor: actorSchema, caller: z.optional(callerSchema) }),
      { actor: request.actor, ...(request.caller ? { caller: request.caller } : {}) },
      'caller identity',
    );
    const refusal = routeRefusal(match.route, { arn: who.actor, userId: who.caller?.userId }, deps.routePrincipals);
    if (refusal) return { statusCode: 403, body: { error: 'forbidden', message: refusal }, route, subject };
    const reply = await dispatch(match, request, who, deps);
    return { ...reply, route, subject };
  } catch (error) {
    const reply = errorReply(error);
    return {
      ...reply,
      ...(route ? { route } : {}),
      ...(subject ? { subject } : {}),
      ...(reply.statusCode >= 500 ? { error } : {}),
    };
  }
}

type Matched = Extract<ReturnType<typeof matchRoute>, { ok: true }>;

/** Who acts: the actor and, when AWS authenticated the call, the caller behind it (both audited). */
type Who = { actor: string; caller?: CallerIdentity };

async function dispatch(match: Matched, request: AdminRequest, who: Who, deps: AdminDeps): Promise<AdminReply> {
  const identity = { tenantId: match.tenantId ?? '', operationId: match.operationId ?? '' };
  switch (match.route) {
    case AdminRoute.listItems: {
      noBody(request);
      const query = parseQuery(listQuerySchema, request);
      return ok({
        ...(await listItems(deps, {
          ...(query.state !== undefined ? { state: query.state } : {}),
          ...(query.tenant !== undefined ? { tenantId: query.tenant } : {}),
          ...(query.limit !== undefined ? { limit: query.limit } : {}),
          ...(query.cursor !== undefined ? { cursor: query.cursor } : {}),
          ...(query.olderThanSeconds !== undefined ? { olderThanMs: query.olderThanSeconds * 1000 } : {}),
        })),
      });
    }
    case AdminRoute.showItem:
      noBody(request);
      parseQuery(noQuerySchema, request);
      return ok({ item: await showItem(deps, identity) });
    case AdminRoute.resolveItem:
      parseQuery(noQuerySchema, request);
      return itemReply(await resolveItem(deps, identity, operationInput<ResolveInput>(request, who)));
    case AdminRoute.retryItem:
      parseQuery(noQuerySchema, request);
      return itemReply(await retryItem(deps, identity, operationInput<RetryInput>(request, who)));
    case AdminRoute.cancelItem:
      parseQuery(noQuerySchema, request);
      return itemReply({ item: await cancelItem(deps, identity, operationInput<OperatorAction>(request, who)) });
    case AdminRoute.approveItem:
      parseQuery(noQuerySchema, request);
      return itemReply(await approveItem(deps, identity, operationInput<ApproveInput>(request, who)));
    case AdminRoute.rejectItem:
      parseQuery(noQuerySchema, request);
      return itemReply({ item: await rejectItem(deps, identity, operationInput<OperatorAction>(request, who)) });
    case AdminRoute.approvalPayload:
      parseQuery(noQuerySchema, request);
      return ok({ ...(await approvalPayload(deps, identity, operationInput<ApprovalPayloadInput>(request, who))) });
    case AdminRoute.redrive:
      parseQuery(noQuerySchema, request);
      return ok({ ...(await redriveDeadLetters(deps, operationInput<RedriveInput>(request, who))) });
    case AdminRoute.erasePayloads: {
      parseQuery(noQuerySchema, request);
      const input = operationInput<EraseInput>(request, { tenantId: identity.tenantId, ...who });
      return ok({ ...(await erasePayloads(deps, input)) });
    }
    case AdminRoute.raiseFences:
      parseQuery(noQuerySchema, request);
      return ok({ ...(await raiseFences(deps, operationInput<RaiseFencesInput>(request, who))) });
    case AdminRoute.listAudit: {
      noBody(request);
      const query = parseQuery(auditQuerySchema, request);
      return ok({ ...(await listAuditRecords(deps, query)) });
    }
    case AdminRoute.counts: {
      noBody(request);
      const query = parseQuery(countsQuerySchema, request);
      const counts = await countItems(deps, query.tenant !== undefined ? { tenantId: query.tenant } : {});
      return ok({ ...counts, signals: await readSignals(deps, counts) });
    }
    case AdminRoute.limits: {
      noBody(request);
      const { tenant, key, provider } = parseQuery(limitsQuerySchema, request);
      const query = {
        jobType: match.jobType ?? '',
        ...(tenant !== undefined ? { tenantId: tenant } : {}),
        ...(key !== undefined ? { key } : {}),
        ...(provider !== undefined ? { providers: provider.split(',') } : {}),
      };
      return ok({ ...(await readLimits(deps, query)) });
    }
    case AdminRoute.health:
      noBody(request);
      parseQuery(noQuerySchema, request);
      return ok({ ...(await checkHealth(deps)) });
  }
}

/** An operation's result with the item projected like every other item the API returns. */
function itemReply(result: { item: WorkItem; wake?: string }): AdminReply {
  return ok({ ...result, item: recordView(result.item as unknown as Record<string, unknown>) });
}

/** Query parameters, absent ones dropped, checked strictly (an unknown parameter is named in the 400). */
function parseQuery<S extends z.core.$ZodType>(schema: S, request: AdminRequest): z.output<S> {
  const present = Object.fromEntries(Object.entries(request.query ?? {}).filter(([, value]) => value !== undefined));
  return parseInput(schema, present, 'query');
}

/** Fields only the request supplies (who acted), refused in a body whether or not this request carries them. */
const WHO_FIELDS = ['actor', 'caller'] as const;

/**
 * The input of a POST route's operation: its JSON body (empty means `{}`) with the fields the route supplies
 * (the authenticated `actor` and `caller`, a path's tenant). The operation's own strict schema parses it, once: the
 * body has no schema of its own. Text that is not JSON, anything but a JSON object, or a body naming a supplied
 * field (an `actor` or `caller` smuggled in, even where this request has no caller) is a 400 before the operation runs.
 */
function operationInput<Input>(request: AdminRequest, supplied: Record<string, unknown>): Input {
  let body: unknown = {};
  if (request.body !== undefined && request.body.trim() !== '') {
    try {
      body = JSON.parse(request.body);
    } catch {
      throw new InvalidInputError('invalid body: not JSON', [{ path: 'body', message: 'must be a JSON object' }]);
    }
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new InvalidInputError('invalid body: not a JSON object', [
      { path: '(root)', message: 'must be a JSON object' },
    ]);
  }
  const reserved = new Set([...WHO_FIELDS, ...Object.keys(supplied)]);
  const named = [...reserved].filter((field) => Object.hasOwn(body, field));
  if (named.length > 0) {
    const issues = named.map((field) => ({ path: field, message: 'comes from the request, never the body' }));
    throw new InvalidInputError(`invalid body: ${named.join(', ')} comes from the request, never the body`, issues);
  }
  // Not yet checked: the type is the operation's input, which the operation parses before anything is done.
  return { ...body, ...supplied } as Input;
}

function noBody(request: AdminRequest): void {
  if (request.body !== undefined && request.body.trim() !== '') {
    throw new InvalidInputError('invalid body: GET takes no body', [{ path: 'body', message: 'must be empty' }]);
  }
}

export { type AdminRequest, type AdminResponse, handleAdminRequest };
