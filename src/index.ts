/** The package's public API (`import { verifyWebhook } from '@svc-commerce/cli'`): what receivers and scripts use. */
export { verifyWebhook, type VerifyWebhookInput, type VerifyWebhookResult } from './kernel/webhook-signature.js';
