import htm from 'htm';
import { h } from 'preact';

const html = htm.bind(h);

/**
 * Acknowledgements the admin API may require for a retry (class D jobs: the operator confirms the effect did not
 * happen). The API refuses without it (409 statement_required, or a 400 naming the field); the console then shows
 * a box for it and, once ticked, sends the field as `true`. Labels for the fields we know; any other field is shown with the API's own message.
 */
const KNOWN_ACKS = {
  effectDidNotHappen:
    'I confirmed in the external system that the effect did NOT happen (class D: a retry may otherwise do it twice)',
};

/** Fields every action sends itself: never mistaken for an acknowledgement. */
const OWN_FIELDS = new Set(['reason', 'body', 'to', 'outcomeCode', 'actor', 'path']);

/** The fields of the acknowledgements that were ticked. */
function ackFields(acks) {
  return Object.fromEntries(
    Object.entries(acks)
      .filter(([, ack]) => ack.checked)
      .map(([field]) => [field, true]),
  );
}

/**
 * Acknowledgements an answer asks for: a 409 `statement_required` (a class D item whose effect may have happened)
 * asks for `effectDidNotHappen`; a 400 names its fields in its issues (those the console does not send itself).
 */
function acksAsked(error) {
  if (error?.status === 409 && error.body?.error === 'statement_required') {
    return { effectDidNotHappen: { checked: false, label: KNOWN_ACKS.effectDidNotHappen } };
  }
  if (error?.status !== 400) return {};
  const issues = (error.body?.issues ?? []).filter((issue) => issue.path && !OWN_FIELDS.has(issue.path));
  return Object.fromEntries(
    issues.map((issue) => [issue.path, { checked: false, label: KNOWN_ACKS[issue.path] ?? issue.message }]),
  );
}

/** Checkboxes for the acknowledgements asked so far (`acks` maps field ▶ { checked, label }). */
function AckBoxes({ acks, onChange }) {
  return Object.entries(acks).map(
    ([field, ack]) => html`<label class="check ack" key=${field}
      ><input
        type="checkbox"
        name=${field}
        checked=${ack.checked}
        onChange=${(event) => onChange({ ...acks, [field]: { ...ack, checked: event.target.checked } })}
      />
      ${ack.label}</label
    >`,
  );
}

export { AckBoxes, ackFields, acksAsked };
