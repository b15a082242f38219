import { z } from 'zod';
import { instant } from '../server/responses.js';

/**
 * What the request pipeline answers when it holds an agent's write for approval (202 APPROVAL_REQUIRED,
 * spec 01 §5.6): the kernel's contract with whichever module holds requests, so the OpenAPI document can
 * state it without knowing that module.
 */

export const APPROVAL_STATUSES = ['PENDING', 'EXECUTING', 'SUCCEEDED', 'FAILED', 'UNKNOWN', 'REJECTED', 'EXPIRED'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** `data` of the 202 APPROVAL_REQUIRED answer to an agent's held request. */
export const heldRequestAnswerSchema = z.object({
  approvalId: z.string(),
  status: z.enum(APPROVAL_STATUSES),
  operationId: z.string(),
  reason: z.string(),
  expiresAt: instant,
  approvalUrl: z.url(),
});
