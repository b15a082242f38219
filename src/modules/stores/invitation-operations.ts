// The invitation endpoints: the store's OWNER/ADMIN invites, lists and revokes; the invitee accepts from their account.
import { z } from 'zod';
import { defineOperation } from '../../server/registry.js';
import { roleSchema } from './schema.js';
import { acceptInvitation, invitationSchema, inviteMember, loadInvitation, pendingInvitations, presentInvitation, revokeInvitation } from './invitations.js';
import { assertMayManage, memberManagement } from './operations.js';
import { memberSchema, presentMember } from './service.js';

const invitationParams = z.object({ invitationId: z.string() }).strict();

export const invitationOperations = [
  defineOperation({
    operationId: 'inviteMember',
    method: 'POST',
    path: '/v1/member-invitations',
    summary: 'Invite an e-mail into the store with a role; its account becomes a member when it accepts (store-platform OWNER or ADMIN)',
    ...memberManagement,
    status: 201,
    body: z.object({ email: z.string().trim().email().max(254), role: roleSchema }).strict(),
    response: invitationSchema,
    errors: { 409: ['ALREADY_A_MEMBER'] },
    target: () => ({ type: 'MEMBER_INVITATION', id: null }),
    handler: async (ctx) => {
      assertMayManage(ctx.store.role, ctx.body.role);
      return presentInvitation(await inviteMember(ctx.services, ctx.now, ctx.store.id, ctx.principal, ctx.body), ctx.now);
    },
  }),
  defineOperation({
    operationId: 'listMemberInvitations',
    method: 'GET',
    path: '/v1/member-invitations',
    summary: "The store's pending invitations (not accepted, revoked or expired), newest first",
    ...memberManagement,
    response: z.object({ contents: z.array(invitationSchema) }),
    handler: async (ctx) => ({ contents: (await pendingInvitations(ctx.db, ctx.store.id, ctx.now)).map((r) => presentInvitation(r, ctx.now)) }),
  }),
  defineOperation({
    operationId: 'revokeMemberInvitation',
    method: 'DELETE',
    path: '/v1/member-invitations/{invitationId}',
    summary: 'Take back a pending invitation (store-platform OWNER or ADMIN)',
    ...memberManagement,
    params: invitationParams,
    response: invitationSchema,
    errors: { 403: ['TENANT_MISMATCH'], 404: ['INVITATION_NOT_FOUND'], 409: ['INVITATION_NOT_PENDING'] },
    target: (ctx) => ({ type: 'MEMBER_INVITATION', id: ctx.params.invitationId }),
    handler: async (ctx) => {
      const row = await loadInvitation(ctx.db, ctx.store.id, ctx.params.invitationId);
      assertMayManage(ctx.store.role, row.role);
      return presentInvitation(await revokeInvitation(ctx.db, ctx.now, row), ctx.now);
    },
  }),
  defineOperation({
    operationId: 'acceptMemberInvitation',
    method: 'POST',
    path: '/auth/v1/member-invitations/accept',
    summary: "Accept an invitation with the mailed token, signed in as the invited e-mail's account: it becomes a member of the store",
    tag: 'Accounts',
    auth: 'account',
    callers: ['storePlatform'],
    body: z.object({ token: z.string().min(1).max(200) }).strict(),
    response: memberSchema.extend({ storeId: z.string() }),
    errors: {
      403: ['INVITATION_EMAIL_MISMATCH'],
      404: ['INVITATION_NOT_FOUND'],
      409: ['INVITATION_NOT_PENDING', 'INVITATION_EXPIRED', 'ALREADY_A_MEMBER'],
    },
    handler: async (ctx) => {
      const member = await acceptInvitation(ctx.db, ctx.now, ctx.principal!, ctx.body.token);
      return { ...presentMember(member), storeId: member.storeId };
    },
  }),
];
