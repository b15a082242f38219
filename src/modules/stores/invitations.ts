// Member invitations (spec 01 §5: an OWNER/ADMIN store-platform action): a pending invitation mailed to the
// invitee, who accepts it signed in as that e-mail's account; only then is the account a member.
import { and, desc, eq, gt } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { newId, newSecret } from '../../db/ids.js';
import type { Principal, Role } from '../../kernel/identity.js';
import { fail } from '../../server/errors.js';
import { queueMail } from '../../server/mail.js';
import { defineMessages } from '../../server/messages.js';
import { instant } from '../../server/responses.js';
import type { Services } from '../../server/services.js';
import { requireOwned } from '../../server/tenancy.js';
import { hashSecret, normalizeEmail, userByEmail } from '../accounts/index.js';
import { memberInvitations, roleSchema } from './schema.js';
import { findMembership, findStore, insertMember } from './service.js';

defineMessages({
  INVITATION_NOT_FOUND: '초대를 찾을 수 없습니다.',
  INVITATION_EMAIL_MISMATCH: '이 초대는 다른 이메일 계정에 보낸 것입니다. 초대받은 이메일의 계정으로 로그인하세요.',
  INVITATION_EXPIRED: '초대가 만료되었습니다. 다시 초대를 요청하세요.',
  INVITATION_NOT_PENDING: '이미 수락되었거나 취소된 초대입니다.',
});

/** How long an invitation can be accepted (Shopify's staff invitations last 7 days too). */
export const INVITATION_TTL_MS = 7 * 86_400_000;

type InvitationRow = typeof memberInvitations.$inferSelect;

export const invitationSchema = z.object({
  invitationId: z.string(),
  email: z.string(),
  role: roleSchema,
  status: z.enum(['PENDING', 'ACCEPTED', 'REVOKED', 'EXPIRED']).describe('EXPIRED: still PENDING at expiresAt'),
  invitedBy: z.string().describe('User id of the inviter'),
  expiresAt: instant,
  createdAt: instant,
});

const statusAt = (row: InvitationRow, now: number) => (row.status === 'PENDING' && row.expiresAt <= now ? 'EXPIRED' : row.status);

export const presentInvitation = (row: InvitationRow, now: number): z.output<typeof invitationSchema> => ({
  invitationId: row.id,
  email: row.email,
  role: row.role,
  status: statusAt(row, now),
  invitedBy: row.invitedBy,
  expiresAt: isoAt(row.expiresAt),
  createdAt: isoAt(row.createdAt),
});

/**
 * Invites `email` into the store with `role`, inside the caller's transaction: refused when its account is
 * already a member; a pending invitation to the same e-mail is replaced (revoked), so inviting again resends.
 * The token goes out only in the mail.
 */
export async function inviteMember(services: Services, now: number, storeId: string, inviter: Principal, body: { email: string; role: Role }) {
  const { db } = services;
  const email = normalizeEmail(body.email);
  const account = await userByEmail(db, email);
  if (account && (await findMembership(db, storeId, account.id, now))) throw fail(409, 'ALREADY_A_MEMBER');
  await db
    .update(memberInvitations)
    .set({ status: 'REVOKED', updatedAt: now })
    .where(and(eq(memberInvitations.storeId, storeId), eq(memberInvitations.email, email), eq(memberInvitations.status, 'PENDING')))
    .run();
  const token = newSecret(32);
  const row: InvitationRow = {
    id: newId('inv', now),
    storeId,
    email,
    role: body.role,
    tokenHash: hashSecret(token),
    status: 'PENDING',
    invitedBy: inviter.userId,
    expiresAt: now + INVITATION_TTL_MS,
    memberId: null,
    createdAt: now,
    updatedAt: now,
  };
  await db.insert(memberInvitations).values(row).run();
  const store = (await findStore(db, storeId))!;
  await queueMail(db, now, {
    to: email,
    subject: `[svc] ${store.name} 스토어 멤버 초대`,
    body:
      `${inviter.userName}님이 ${store.name} 스토어에 ${body.role} 역할로 초대했습니다. 7일 안에 이 이메일의 계정으로 로그인해 수락하세요` +
      ` (계정이 없으면 먼저 가입하세요).\n\nPOST ${services.urls.auth}/v1/member-invitations/accept\n{"token":"${token}"}\n\ntoken: ${token}`,
  });
  return row;
}

/** The store's invitations still open (pending, not expired), newest first. */
export const pendingInvitations = (db: Db, storeId: string, now: number) =>
  db
    .select()
    .from(memberInvitations)
    .where(and(eq(memberInvitations.storeId, storeId), eq(memberInvitations.status, 'PENDING'), gt(memberInvitations.expiresAt, now)))
    .orderBy(desc(memberInvitations.createdAt), desc(memberInvitations.id))
    .all();

export async function loadInvitation(db: Db, storeId: string, invitationId: string) {
  return requireOwned(await db.select().from(memberInvitations).where(eq(memberInvitations.id, invitationId)).get(), storeId, 'INVITATION_NOT_FOUND');
}

/** The store takes an invitation back before it is accepted (an accepted, revoked or expired one is 409). */
export async function revokeInvitation(db: Db, now: number, row: InvitationRow) {
  const changed = await db
    .update(memberInvitations)
    .set({ status: 'REVOKED', updatedAt: now })
    .where(and(eq(memberInvitations.id, row.id), eq(memberInvitations.status, 'PENDING'), gt(memberInvitations.expiresAt, now)))
    .run();
  if (changed.changes === 0) throw fail(409, 'INVITATION_NOT_PENDING', { status: statusAt(row, now) });
  return { ...row, status: 'REVOKED' as const, updatedAt: now };
}

/**
 * The signed-in account accepts: only the account of the invited e-mail, only while pending and before
 * `expiresAt`; it becomes a member with the invited role, inside the caller's transaction.
 */
export async function acceptInvitation(db: Db, now: number, principal: Principal, token: string) {
  const row = await db
    .select()
    .from(memberInvitations)
    .where(eq(memberInvitations.tokenHash, hashSecret(token)))
    .get();
  if (!row) throw fail(404, 'INVITATION_NOT_FOUND');
  // The e-mail first: someone else's invitation reveals nothing of its state.
  if (normalizeEmail(principal.email) !== row.email) throw fail(403, 'INVITATION_EMAIL_MISMATCH');
  if (row.status !== 'PENDING') throw fail(409, 'INVITATION_NOT_PENDING', { status: row.status });
  if (row.expiresAt <= now) throw fail(409, 'INVITATION_EXPIRED', { expiresAt: isoAt(row.expiresAt) });
  if (await findMembership(db, row.storeId, principal.userId, now)) throw fail(409, 'ALREADY_A_MEMBER');
  const member = { id: newId('mem', now), storeId: row.storeId, userId: principal.userId, role: row.role, createdAt: now };
  const taken = await db
    .update(memberInvitations)
    .set({ status: 'ACCEPTED', memberId: member.id, updatedAt: now })
    .where(and(eq(memberInvitations.id, row.id), eq(memberInvitations.status, 'PENDING')))
    .run();
  if (taken.changes === 0) throw fail(409, 'INVITATION_NOT_PENDING', { status: 'ACCEPTED' });
  await insertMember(db, member);
  return { ...member, email: principal.email, name: principal.userName };
}
