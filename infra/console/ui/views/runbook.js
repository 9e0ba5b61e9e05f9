import htm from 'htm';
import { h } from 'preact';
import { api } from '../api.js';
import { useLoad } from '../components.js';

const html = htm.bind(h);

/**
 * The job type's runbook section (`leasefence runbook`: owner, alert route, what each parked state means, the
 * commands, the authoritative generation), as the console's jobs module generates it; says why when it has none.
 */
function RunbookPanel({ jobType }) {
  const runbook = useLoad(() => api('GET', `/runbooks/${encodeURIComponent(jobType)}`), jobType);
  return html`<div class="panel" data-testid="runbook">
    <h2>Runbook <span class="muted small">${jobType}</span></h2>
    ${
      runbook.data
        ? html`<details open><summary>What to do with this job type</summary><pre class="runbook">${runbook.data.text}</pre></details>`
        : runbook.error
          ? html`<p class="empty">No runbook: ${runbook.error.message}</p>`
          : html`<p class="loading">Loading…</p>`
    }
  </div>`;
}

export { RunbookPanel };
