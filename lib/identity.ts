import * as z from 'zod/mini';
import { parseInput } from './internal/validation.js';

/**
 * Identity of one operation: `(tenantId, operationId)`, both from business intent. Neither may contain
 * `#`, the delimiter of composite keys, and they are stored as separate key attributes, so two distinct
 * identities can never share a key.
 */
interface JobIdentity {
  tenantId: string;
  operationId: string;
}

const TENANT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const OPERATION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:/=+@-]{0,255}$/;

/** Tenant id: 1–64 chars, letters, digits, `.`, `_`, `-`, starting with a letter or digit. */
const tenantIdSchema = z
  .string()
  .check(z.regex(TENANT_ID_PATTERN, 'tenantId must be 1-64 chars of [A-Za-z0-9._-] starting with a letter or digit'));

/** Operation id: 1–256 chars, letters, digits and `._:/=+@-`, starting with a letter or digit. */
const operationIdSchema = z
  .string()
  .check(
    z.regex(
      OPERATION_ID_PATTERN,
      'operationId must be 1-256 chars of [A-Za-z0-9._:/=+@-] starting with a letter or digit',
    ),
  );

/** An identity (strict: no other field); its output is a ValidIdentity. */
const identitySchema = z
  .strictObject({ tenantId: tenantIdSchema, operationId: operationIdSchema })
  .brand<'ValidIdentity'>();

/**
 * An identity that passed identitySchema at a boundary (parseIdentity, a parsed job message, a row the store
 * wrote). The library's inner functions take this type, so a raw `{ tenantId, operationId }` cannot reach them
 * unchecked; it is never checked again on its way in.
 */
type ValidIdentity = Readonly<z.output<typeof identitySchema>>;

/** Validates an identity; throws InvalidInputError naming the bad field. Returns a fresh, frozen copy. */
function parseIdentity(value: unknown): ValidIdentity {
  return Object.freeze(parseInput(identitySchema, value, 'identity'));
}

/** A printable form for messages and admin paths (never for logs: use hashIdentifier there). */
function formatIdentity(identity: JobIdentity): string {
  return `${identity.tenantId}/${identity.operationId}`;
}

export {
  formatIdentity,
  identitySchema,
  type JobIdentity,
  operationIdSchema,
  parseIdentity,
  tenantIdSchema,
  type ValidIdentity,
};
