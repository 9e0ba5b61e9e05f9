import type { AdminDeps } from '../../lib/admin/deps.js';
import type { ScheduleDeclaration } from '../../lib/messaging/schedule.js';

/** What the banner says the console is connected to. */
interface ConsoleTarget {
  kind: 'local' | 'aws';
  /** One line for people: "local stack (pid 4242)", "AWS stack leasefence-prod". */
  label: string;
  account?: string;
  region?: string;
  stack?: string;
  jobsTable: string;
}

/** Everything the console server needs: the admin operations of one target, who acts, and its name. */
interface ConsoleContext {
  target: ConsoleTarget;
  admin: AdminDeps;
  /** Recorded in every audit entry the console's actions write. */
  actor: string;
  /** Each job type's runbook section (Markdown), when the console knows the jobs module (the item page shows it). */
  runbooks?: Readonly<Record<string, string>>;
  /** The jobs module's schedules, when the console knows it (the Schedules page judges their recent ticks). */
  schedules?: readonly ScheduleDeclaration[];
}

/** Account and region of an SQS queue URL (https://sqs.<region>.amazonaws.com/<account>/<name>), when it is one. */
function queueUrlAccount(queueUrl: string): { account?: string; region?: string } {
  const match = /^https:\/\/sqs\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?\/([0-9]{12})\//.exec(queueUrl);
  return match ? { region: match[1] as string, account: match[2] as string } : {};
}

export { type ConsoleContext, type ConsoleTarget, queueUrlAccount };
