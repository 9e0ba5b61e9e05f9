import htm from 'htm';
import { h } from 'preact';
import { useState } from 'preact/hooks';
import { api, itemHref, itemPath } from '../api.js';
import { ErrorBox, useLoad } from '../components.js';
import { duration, StateBadge, Time } from '../format.js';
import { AckBoxes, ackFields, acksAsked } from './acknowledge.js';
import { RunbookPanel } from './runbook.js';

const html = htm.bind(h);

/**
 * Which operator actions each state allows (the admin API enforces the same rules), in the order the tabs show
 * them: the first is the one a page opens on (Approve for a job awaiting approval).
 */
const ACTIONS = {
  approve: ['awaiting_approval'],
  reject: ['awaiting_approval'],
  resolve: ['unknown'],
  retry: ['unknown', 'quarantined', 'failed_terminal'],
  cancel: ['awaiting_approval', 'queued', 'claimed', 'unknown'],
};

/** Why a job awaiting approval shows no body (the read's `bodyStatus`), in words. */
const BODY_STATUS = {
  verified: 'This body hashes to the payload hash above: it is what an approval approves.',
  ref: 'Kept by the producer (a payload reference): read it where the producer keeps it, and check its hash.',
  erased: 'Erased: there is nothing to review. Reject it, or let it expire.',
  absent: 'Not stored yet: there is nothing to review until it is.',
  mismatch: 'The stored body does NOT hash to the payload hash: do not approve; reject it.',
};

/**
 * The approver's view of a job awaiting approval: the payload it binds, read on request (each read is audited,
 * and answered only to the principals allowed to approve), with its hash and what the read found.
 */
function ApprovalPayload({ item }) {
  const [read, setRead] = useState();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState();
  const load = async () => {
    setBusy(true);
    setError(undefined);
    try {
      setRead(await api('POST', `${itemPath(item.tenantId, item.operationId)}/payload`, { body: {} }));
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return html`<div class="panel approval-panel" data-testid="approval-payload">
    <h2>Payload to approve</h2>
    <p class="muted small">Approving binds the job to payload hash <span class="mono hash">sha-256 ${item.payloadHash}</span> and nothing else.</p>
    ${
      read
        ? html`<p class="small" data-testid="payload-status">${BODY_STATUS[read.bodyStatus] ?? read.bodyStatus}</p>
          ${read.bodyStatus === 'verified' ? html`<pre class="payload-body" data-testid="payload-body">${JSON.stringify(read.body, null, 2)}</pre>` : null}
          <p class="muted small">This read was audited (read_payload).</p>`
        : html`<button type="button" class="secondary" disabled=${busy} onClick=${load}>
            ${busy ? 'Reading…' : 'Show the payload (the read is audited)'}
          </button>`
    }
    <${ErrorBox} error=${error} />
  </div>`;
}

function Pair({ label, children }) {
  return html`<div class="pair"><dt>${label}</dt><dd>${children}</dd></div>`;
}

/** The attempt history: one row per claim, newest last (the row keeps the last five). */
function Attempts({ item }) {
  const history = item.ah ?? [];
  if (history.length === 0) return html`<p class="empty">No attempts yet.</p>`;
  return html`<table class="items">
    <thead>
      <tr><th class="num">Fence</th><th>Worker</th><th>Started</th><th>Ended</th><th class="num">Took</th><th>Outcome / error</th></tr>
    </thead>
    <tbody>
      ${history.map((entry, index) => {
        const open = entry.r === undefined;
        const fence = entry.f ?? (open && index === history.length - 1 ? item.fence : undefined);
        return html`<tr key=${index}>
          <td class="num">${fence ?? '—'}</td>
          <td class="mono">${entry.o}</td>
          <td><${Time} at=${entry.s} /></td>
          <td>${entry.e !== undefined ? html`<${Time} at=${entry.e} />` : html`<span class="muted">${open ? 'running' : 'not recorded'}</span>`}</td>
          <td class="num">${entry.e !== undefined ? duration(entry.e - entry.s) : '—'}</td>
          <td><span class=${`code ${entry.r === 'lease_lost' ? 'warn' : ''}`}>${entry.r ?? '—'}</span></td>
        </tr>`;
      })}
    </tbody>
  </table>`;
}

/** The operator actions on this item, each audited with a required reason. */
function AuditTrail({ audit }) {
  if (audit.length === 0) return html`<p class="empty">No operator actions.</p>`;
  return html`<table class="items" data-testid="audit-trail">
    <thead><tr><th>When</th><th>Actor</th><th>Action</th><th>Change</th><th class="num">Fence</th><th>Reason</th></tr></thead>
    <tbody>
      ${audit.map(
        (entry, index) => html`<tr key=${index}>
          <td><${Time} at=${entry.at} /></td>
          <td>${entry.actor}</td>
          <td><span class="code">${entry.action}</span></td>
          <td><${StateBadge} state=${entry.from} /> → <${StateBadge} state=${entry.to} /></td>
          <td class="num">${entry.fence}</td>
          <td>${entry.reason}</td>
        </tr>`,
      )}
    </tbody>
  </table>`;
}

/** Resolve / retry / cancel / approve / reject with a required reason; on success the page reloads the item. */
function Actions({ item, onDone }) {
  const available = Object.keys(ACTIONS).filter((action) => ACTIONS[action].includes(item.state));
  const [action, setAction] = useState(available[0]);
  // No default verdict: settling an unknown item is the operator's deliberate choice, never a preselected one.
  const [to, setTo] = useState('');
  const [reason, setReason] = useState('');
  const [outcomeCode, setOutcomeCode] = useState('');
  const [acks, setAcks] = useState({});
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState();
  if (available.length === 0) {
    return html`<p class="muted">No operator action applies to a ${item.state.replace('_', ' ')} item.</p>`;
  }
  const chosen = available.includes(action) ? action : available[0];
  // Requeuing (retry, or resolve ▶ queued) is where the API may ask for the class D statement.
  const requeues = chosen === 'retry' || (chosen === 'resolve' && to === 'queued');
  const submit = async (event) => {
    event.preventDefault();
    if (chosen === 'resolve' && to === '') return; // the button is disabled until a verdict is chosen
    setBusy(true);
    setError(undefined);
    const body =
      chosen === 'resolve'
        ? { to, reason, ...(outcomeCode.trim() && to !== 'queued' ? { outcomeCode: outcomeCode.trim() } : {}) }
        : chosen === 'approve'
          ? // The hash this page shows: the approval covers that payload only (refused if the row holds another).
            { reason, payloadHash: item.payloadHash }
          : { reason };
    if (requeues) Object.assign(body, ackFields(acks));
    try {
      const result = await api('POST', `${itemPath(item.tenantId, item.operationId)}/${chosen}`, { body });
      onDone(`${chosen}: ${item.state} → ${result.item.state} (fence ${result.item.fence})`);
    } catch (failure) {
      if (requeues) setAcks({ ...acksAsked(failure), ...acks });
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return html`<form class="actions-form" onSubmit=${submit}>
    <div class="segmented" role="tablist">
      ${available.map(
        (
          name,
        ) => html`<button type="button" role="tab" aria-selected=${name === chosen} class=${name === chosen ? 'on' : ''} onClick=${() => setAction(name)}>
          ${name[0].toUpperCase() + name.slice(1)}
        </button>`,
      )}
    </div>
    ${
      chosen === 'resolve'
        ? html`<div class="row">
          <label
            >Resolve to
            <select name="to" value=${to} required onChange=${(event) => setTo(event.target.value)}>
              <option value="" disabled>choose what the real system shows…</option>
              <option value="succeeded">succeeded: the effect happened</option>
              <option value="failed_terminal">failed terminal: it did not, and must not be retried</option>
              <option value="queued">queued: run it again (fresh attempts)</option>
            </select></label
          >
          ${
            to === 'succeeded' || to === 'failed_terminal'
              ? html`<label
                >Outcome code (optional)
                <input name="outcomeCode" value=${outcomeCode} placeholder=${to === 'succeeded' ? 'resolved_by_operator' : 'resolved_failed_by_operator'} onInput=${(event) => setOutcomeCode(event.target.value)}
              /></label>`
              : null
          }
        </div>`
        : null
    }
    <p class="muted small">
      ${
        chosen === 'retry'
          ? 'Back to queued with the same identity, fence + 1 and a fresh attempt budget.'
          : chosen === 'cancel'
            ? "Cancelled with fence + 1: a running worker's next fenced write is rejected."
            : chosen === 'approve'
              ? `Queued and woken, for payload hash ${item.payloadHash} only (the hash shown above).`
              : chosen === 'reject'
                ? 'Cancelled without ever running (approval_rejected, fence + 1).'
                : 'Only after checking the real system: the fence rises and the verdict is audited.'
      }
    </p>
    <label class="block"
      >Reason (required, recorded in the audit trail)
      <textarea name="reason" rows="2" value=${reason} onInput=${(event) => setReason(event.target.value)}></textarea
    ></label>
    ${requeues ? html`<${AckBoxes} acks=${acks} onChange=${setAcks} />` : null}
    <${ErrorBox} error=${error} />
    <button type="submit" class=${chosen === 'cancel' ? 'danger' : ''} disabled=${busy || reason.trim() === '' || (chosen === 'resolve' && to === '')}>
      ${busy ? 'Working…' : `${chosen[0].toUpperCase() + chosen.slice(1)} item`}
    </button>
  </form>`;
}

/**
 * One item: identity, job, payload hash, fence, attempts, history, audit, outcome; actions. The body is shown only
 * to an approver of a job awaiting approval, on request (ApprovalPayload).
 */
function ItemPage({ tenantId, operationId }) {
  const [done, setDone] = useState();
  const [version, setVersion] = useState(0);
  const detail = useLoad(() => api('GET', itemPath(tenantId, operationId)), `${tenantId}/${operationId}/${version}`);
  const item = detail.data?.item;
  return html`<section>
    <div class="page-head">
      <h1><span class="mono">${tenantId}/${operationId}</span> ${item ? html`<${StateBadge} state=${item.state} />` : null}</h1>
      <button class="secondary" onClick=${() => setVersion((value) => value + 1)}>Refresh</button>
    </div>
    ${done ? html`<div class="notice success" role="status">${done}</div>` : null}
    <${ErrorBox} error=${detail.error} />
    ${
      item
        ? html`<div class="columns wide-left">
          <div>
            <div class="panel">
              <h2>Item</h2>
              <dl class="pairs">
                <${Pair} label="Tenant"><span class="mono">${item.tenantId}</span><//>
                <${Pair} label="Operation"><span class="mono">${item.operationId}</span><//>
                <${Pair} label="Job type">${item.jobType}<//>
                <${Pair} label="State"><span data-testid="item-state"><${StateBadge} state=${item.state} /></span><//>
                <${Pair} label="Fence"><strong data-testid="item-fence">${item.fence}</strong><//>
                <${Pair} label="Attempts">${item.attempts} of ${item.maxAttempts}<//>
                <${Pair} label="Payload hash"
                  ><span class="mono hash">sha-256 ${item.payloadHash}</span>
                  <div class="muted small">${
                    item.payloadRef
                      ? `producer's reference ${item.payloadRef}`
                      : item.state === 'awaiting_approval'
                        ? 'body in the payloads table (an approver may read it below)'
                        : 'body in the payloads table (never shown here)'
                  }</div><//
                >
                ${
                  item.state === 'awaiting_approval'
                    ? html`<${Pair} label="Approval expires"
                        ><span data-testid="approval-expires">${item.approvalExpiresAt ? html`<${Time} at=${item.approvalExpiresAt} /> <span class="muted small">${new Date(item.approvalExpiresAt).toISOString()}; then the sweeper cancels it</span>` : '—'}</span><//
                      >
                      <${Pair} label="Approvers">${item.approvers === 'not-producer' ? 'anyone but its producer' : 'anyone allowed to approve'}<//>`
                    : null
                }
                <${Pair} label="Outcome"
                  >${
                    item.outcomeCode
                      ? html`<span class="code">${item.outcomeCode}</span>${item.result !== undefined ? html` <span class="mono small">${JSON.stringify(item.result)}</span>` : ''}`
                      : html`<span class="muted">—</span>`
                  }<//
                >
                <${Pair} label="Error"
                  >${
                    item.errorCode
                      ? html`<span class="code">${item.errorCode}</span> ${item.errorMessage ?? ''}`
                      : html`<span class="muted">—</span>`
                  }<//
                >
                ${
                  item.leaseOwner
                    ? html`<${Pair} label="Lease">${item.leaseOwner}, expires <${Time} at=${item.leaseExpiresAt} /><//>`
                    : null
                }
                ${item.state === 'queued' ? html`<${Pair} label="Due"><${Time} at=${item.availableAt} /><//>` : null}
                <${Pair} label="Created"><${Time} at=${item.createdAt} /><//>
                <${Pair} label="Last change"><${Time} at=${item.updatedAt} /><//>
                ${item.finishedAt ? html`<${Pair} label="Finished"><${Time} at=${item.finishedAt} /><//>` : null}
                ${item.parkedAt ? html`<${Pair} label="Parked"><${Time} at=${item.parkedAt} /><//>` : null}
                ${
                  item.parentOperationId
                    ? html`<${Pair} label="Parent"><a class="code" href=${itemHref(item.tenantId, item.parentOperationId)}>${item.parentOperationId}</a><//>`
                    : null
                }
                ${
                  item.successors?.length
                    ? html`<${Pair} label="Successors">${item.successors.map((id) => html`<div><a class="code" href=${itemHref(item.tenantId, id)}>${id}</a></div>`)}<//>`
                    : null
                }
                ${
                  Object.keys(item.steps ?? {}).length
                    ? html`<${Pair} label="Steps">${Object.entries(item.steps).map(([name, step]) => html`<div><span class="code">${name}</span> fence ${step.fence}, <${Time} at=${step.at} /></div>`)}<//>`
                    : null
                }
              </dl>
            </div>
            <div class="panel">
              <h2>Attempt history <span class="muted small">last five claims</span></h2>
              <div class="table-wrap"><${Attempts} item=${item} /></div>
            </div>
            <div class="panel">
              <h2>Audit trail</h2>
              <div class="table-wrap"><${AuditTrail} audit=${detail.data.item.audit ?? []} /></div>
            </div>
            <${RunbookPanel} jobType=${item.jobType} />
          </div>
          <div>
          ${item.state === 'awaiting_approval' ? html`<${ApprovalPayload} key=${item.payloadHash} item=${item} />` : null}
          <div class="panel actions-panel" data-testid="actions-panel">
            <h2>Actions</h2>
            <${Actions}
              key=${`${item.state}/${item.fence}`}
              item=${item}
              onDone=${(message) => {
                setDone(message);
                setVersion((value) => value + 1);
              }}
            />
          </div>
          </div>
        </div>`
        : detail.loading
          ? html`<p class="loading">Loading…</p>`
          : null
    }
  </section>`;
}

export { ItemPage };
