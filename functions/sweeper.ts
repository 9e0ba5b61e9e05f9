import { createSweeperHandler } from '../lib/lambda/sweeper-handler.js';

// Wiring only: the scheduled sweeper Lambda, configured from its environment.
export const handler = createSweeperHandler();
