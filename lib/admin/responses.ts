import {
  ApprovalRefusedError,
  ConfigurationError,
  IllegalTransitionError,
  InvalidInputError,
  ItemNotFoundError,
  isLeasefenceError,
  OperatorStatementRequiredError,
  StatementTooEarlyError,
} from '../errors.js';

/** Status code and JSON body of an admin API answer. */
interface AdminReply {
  statusCode: number;
  body: Record<string, unknown>;
}

/** 200 with a JSON body. */
function ok(body: Record<string, unknown>): AdminReply {
  return { statusCode: 200, body };
}

/**
 * Maps an error to its answer: bad input 400 (with every offending field), missing item 404, illegal or
 * raced transition, a refused approval, a missing operator statement or one made while a holder may still run 409, missing deployment setting 500 with its own message, anything else 500 with a fixed
 * message (SDK and engine details never leave the process; the handler logs them).
 */
function errorReply(error: unknown): AdminReply {
  if (isLeasefenceError(error, InvalidInputError)) {
    return { statusCode: 400, body: { error: 'invalid_input', message: error.message, issues: error.issues } };
  }
  if (isLeasefenceError(error, ItemNotFoundError)) {
    return { statusCode: 404, body: { error: 'item_not_found', message: error.message } };
  }
  if (isLeasefenceError(error, IllegalTransitionError)) {
    const current = error.current as { state?: unknown; fence?: unknown } | undefined;
    return {
      statusCode: 409,
      body: {
        error: 'illegal_transition',
        message: error.message,
        ...(current?.state !== undefined ? { currentState: current.state, currentFence: current.fence } : {}),
      },
    };
  }
  if (isLeasefenceError(error, OperatorStatementRequiredError)) {
    const current = error.current as { state?: unknown; fence?: unknown } | undefined;
    return {
      statusCode: 409,
      body: {
        error: 'statement_required',
        message: error.message,
        statement: error.statement,
        ...(current?.state !== undefined ? { currentState: current.state, currentFence: current.fence } : {}),
      },
    };
  }
  if (isLeasefenceError(error, StatementTooEarlyError)) {
    return {
      statusCode: 409,
      body: {
        error: 'statement_too_early',
        message: error.message,
        acceptedFrom: new Date(error.acceptedFrom).toISOString(),
      },
    };
  }
  if (isLeasefenceError(error, ApprovalRefusedError)) {
    const current = error.current as { state?: unknown; fence?: unknown } | undefined;
    return {
      statusCode: 409,
      body: {
        error: 'approval_refused',
        message: error.message,
        refusal: error.refusal,
        ...(current?.state !== undefined ? { currentState: current.state, currentFence: current.fence } : {}),
      },
    };
  }
  if (isLeasefenceError(error, ConfigurationError)) {
    return { statusCode: 500, body: { error: 'configuration', message: error.message } };
  }
  return { statusCode: 500, body: { error: 'internal', message: 'internal error; see the function logs' } };
}

export { type AdminReply, errorReply, ok };
