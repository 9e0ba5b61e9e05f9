import htm from 'htm';
import { h } from 'preact';
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { ErrorBox, Pager, useLoad } from '../components.js';
import { Time } from '../format.js';

const html = htm.bind(h);

/** The audit log of actions on no single item (redrive, erase), newest first; item actions are on each item. */
function AuditLog() {
  const [pages, setPages] = useState([]);
  const log = useLoad(() => api('GET', '/audit', { query: { limit: 50, cursor: pages.at(-1) } }), pages.length);
  return html`<section>
    <div class="page-head"><h1>Audit log</h1></div>
    <p class="muted">Redrives and payload erasures. Resolve, retry and cancel are recorded on each item, in the same write.</p>
    <${ErrorBox} error=${log.error} />
    ${
      log.data
        ? html`${
            log.data.records.length === 0
              ? html`<p class="empty">No audit records.</p>`
              : html`<table class="items">
                <thead><tr><th>When</th><th>Actor</th><th>Action</th><th>Tenant</th><th>Counts</th><th>Reason</th></tr></thead>
                <tbody>
                  ${log.data.records.map(
                    (record) => html`<tr key=${record.auditId}>
                      <td><${Time} at=${record.at} /></td>
                      <td>${record.actor}</td>
                      <td><span class="code">${record.action}</span></td>
                      <td class="code" title="keyed pseudonym of the tenant (an audit record keeps no raw id)">${record.tenant ?? record.tenantId ?? '—'}</td>
                      <td class="small">${Object.entries(record.counts ?? {})
                        .map(([name, value]) => `${name} ${value}`)
                        .join(' · ')}</td>
                      <td>${record.reason ?? '—'}</td>
                    </tr>`,
                  )}
                </tbody>
              </table>`
          }
          <${Pager} pages=${pages} cursor=${log.data.cursor} onPage=${setPages} />`
        : null
    }
  </section>`;
}

export { AuditLog };
