import htm from 'htm';
import { h } from 'preact';

const html = htm.bind(h);

/**
 * Acknowledgements the admin API may require for a retry (class D jobs: the operator confirms the effect did not
 * happen). The API names the field in its 400; the console then shows the box and sends the field as `true`.
 */
const KNOWN_ACKS = {
  effectDidNotHappen:
    'I confirmed in the external system that the effect did NOT happen (class D: a retry may otherwise do it twice)',
};

/** The fields of the acknowledgements that were ticked. */
function ackFields(acks) {
  return Object.fromEntries(Object.entries(acks).filter(([, value]) => value === true));
}

/** Acknowledgement fields an API error asks for (issues on a field other than the reason). */
function acksAsked(error) {
  const issues = error?.body?.issues ?? [];
  return issues.map((issue) => issue.path).filter((path) => Object.hasOwn(KNOWN_ACKS, path));
}

/** Checkboxes for the acknowledgements asked so far (`acks` maps field ▶ ticked). */
function AckBoxes({ acks, onChange }) {
  return Object.keys(acks).map(
    (field) => html`<label class="check ack" key=${field}
      ><input
        type="checkbox"
        name=${field}
        checked=${acks[field] === true}
        onChange=${(event) => onChange({ ...acks, [field]: event.target.checked })}
      />
      ${KNOWN_ACKS[field] ?? field}</label
    >`,
  );
}

export { AckBoxes, ackFields, acksAsked, KNOWN_ACKS };
