/** The admin operations of leasefence: list, count, show, resolve, retry, cancel, redrive, erase, audit, health, and the HTTP router. */
export { type AuditRecord, listAuditRecords, writeAuditRecord } from './audit.js';
export { cancelItem } from './cancel.js';
export { type CountsReport, countItems, type StateCount } from './counts.js';
export type { AdminDeps } from './deps.js';
export { type EraseInput, type EraseReport, erasePayloads } from './erase-payloads.js';
export { checkHealth, type HealthReport } from './health.js';
export { type ListItemsInput, type ListParkedInput, listItems, listParked, type ParkedPage } from './list.js';
export { type RedriveInput, type RedriveReport, redriveDeadLetters } from './redrive.js';
export { type ResolveInput, type ResolveResult, ResolveTarget, resolveItem } from './resolve.js';
export { RETRYABLE_STATES, type RequeueResult, retryItem } from './retry.js';
export { type AdminRequest, type AdminResponse, handleAdminRequest } from './router.js';
export { AdminRoute } from './routes.js';
export { type ItemDetail, showItem } from './show.js';
export { type MetricCounts, readSignals, type Signal } from './signals.js';
