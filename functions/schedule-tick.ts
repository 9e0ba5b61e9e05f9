import { createScheduleTickHandler } from '../lib/lambda/schedule-tick-handler.js';

// Wiring only: the EventBridge Scheduler target that enqueues schedule ticks, configured from its environment.
export const handler = createScheduleTickHandler();
