import { createAdminHandler } from '../lib/lambda/admin-handler.js';

// Wiring only: the admin Lambda behind a Function URL with AWS_IAM auth, configured from its environment.
export const handler = createAdminHandler();
