import type { Module } from '../../server/module.js';
import { defineMessages } from '../../server/messages.js';
import { approvalOperations } from './operations.js';
import { dropLapsedConfirmations } from './confirmations.js';
import { mountApprovalPage } from './page.js';
import { expireApprovals, notifyApprovers, requestApproval, settleInterruptedExecutions } from './service.js';

defineMessages({
  APPROVAL_ALREADY_DECIDED: '이미 결정된 승인 요청입니다.',
  APPROVAL_NOT_PENDING: '대기 중인 승인 요청이 아닙니다.',
  APPROVAL_EXPIRED: '승인 요청이 만료되었습니다 (24시간).',
  APPROVAL_NOT_FOUND: '승인 요청을 찾을 수 없습니다.',
  OPERATION_RETIRED: '더 이상 제공하지 않는 작업입니다.',
});

export const approvalsModule: Module = {
  name: 'approvals',
  operations: approvalOperations,
  mount: mountApprovalPage,
  requestHooks: { holdForApproval: requestApproval },
  jobs: [
    { name: 'approvals.expire', run: expireApprovals },
    { name: 'approvals.settle-interrupted', run: settleInterruptedExecutions },
    { name: 'approvals.notify', run: notifyApprovers },
    { name: 'approvals.drop-lapsed-codes', run: dropLapsedConfirmations },
  ],
};

export { CONFIRMATION_WINDOW_MS, redeemConfirmation } from './confirmations.js';
export { deciderCtx } from './decider.js';
export { decideApproval } from './service.js';
