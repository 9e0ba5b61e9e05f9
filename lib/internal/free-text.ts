import * as z from 'zod/mini';

/**
 * Characters that can rewrite what a terminal or console shows: C0/C1 controls and DEL (escape sequences,
 * carriage return, backspace), line/paragraph separators, and bidirectional overrides/isolates (text that
 * displays in another order than it reads).
 */
const CONTROL_CHARACTER = /[\p{Cc}\u2028\u2029\u202A-\u202E\u2066-\u2069]/u;

/** True when `text` holds a character that could spoof an operator's screen. */
function hasControlCharacter(text: string): boolean {
  return CONTROL_CHARACTER.test(text);
}

/**
 * Free text from a caller (reason, actor, …) that is stored and later shown to operators: 1..max chars,
 * no control characters. Fails with `<field> must not contain control characters` (never stripped:
 * a rejected value mutates nothing and the caller sees why).
 */
function freeTextSchema(field: string, max: number): z.ZodMiniString<string> {
  return z.string().check(
    z.minLength(1, `${field} must not be empty`),
    z.maxLength(max, `${field} must be at most ${max} characters`),
    z.refine((text) => !hasControlCharacter(text), `${field} must not contain control characters`),
  );
}

export { CONTROL_CHARACTER, freeTextSchema, hasControlCharacter };
