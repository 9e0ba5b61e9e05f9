/** Talks to the console server's /api (the admin API), with the per-server token of this page. */

const token = document.querySelector('meta[name="leasefence-token"]')?.getAttribute('content') ?? '';

/** The target this console acts on, as the server described it (for the banner). */
const target = JSON.parse(document.querySelector('meta[name="leasefence-target"]')?.getAttribute('content') ?? '{}');

/** An answer other than 2xx: status, the API's error body, and a readable message. */
class ApiError extends Error {
  constructor(status, body) {
    const issues = (body.issues ?? []).map((issue) => `${issue.path}: ${issue.message}`).join('; ');
    super(issues || body.message || `request failed with ${status}`);
    this.status = status;
    this.body = body;
  }
}

/** Calls the API; resolves with the JSON body, rejects with ApiError. */
async function api(method, path, { query, body } = {}) {
  const url = new URL(`/api${path}`, window.location.origin);
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== '') url.searchParams.set(name, String(value));
  }
  const response = await fetch(url, {
    method,
    headers: { 'x-leasefence-console-token': token, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

/** API path of one item (the operation id may contain `/`, so each part is encoded). */
function itemPath(tenantId, operationId) {
  return `/items/${encodeURIComponent(tenantId)}/${encodeURIComponent(operationId)}`;
}

/** Console link of one item. */
function itemHref(tenantId, operationId) {
  return `#/item/${encodeURIComponent(tenantId)}/${encodeURIComponent(operationId)}`;
}

export { ApiError, api, itemHref, itemPath, target };
