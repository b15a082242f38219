import { apiClient, login, type ApiResponse, type TestService } from './service.js';

/** The token of the newest invitation mail to `email` (svc dev's mail outbox). */
export async function invitationToken(svc: TestService, email: string): Promise<string> {
  const mails = (await apiClient(svc.url)('GET', '/_dev/v1/mail')).data.contents.filter((m: any) => m.to === email && /초대/.test(m.subject));
  const token = /token: (\S+)/.exec(mails.at(-1)?.body ?? '')?.[1];
  if (!token) throw new Error(`no invitation mail to ${email}`);
  return token;
}

/** The invitee (a login token of the invited e-mail's account) accepts the invitation mailed to them. */
export const acceptInvitation = (svc: TestService, inviteeToken: string, token: string): Promise<ApiResponse> =>
  apiClient(svc.url)('POST', '/auth/v1/member-invitations/accept', { token: inviteeToken, body: { token } });

/**
 * Makes an account a member the way people do (spec 01 §5): an OWNER or ADMIN invites the e-mail, its
 * account accepts the mailed invitation (logged in with `password` when no `token` is given). Answers the
 * member record (with `memberId`).
 */
export async function addMember(
  svc: TestService,
  inviter: { token: string; storeId: string },
  invitee: { email: string; token?: string; password?: string },
  role: 'OWNER' | 'ADMIN' | 'STAFF',
) {
  const invited = await apiClient(svc.url)('POST', '/v1/member-invitations', {
    token: inviter.token,
    storeId: inviter.storeId,
    body: { email: invitee.email, role },
  });
  if (invited.status !== 201) throw new Error(`invitation failed: ${JSON.stringify(invited.body)}`);
  const inviteeToken = invitee.token ?? (await login(svc, invitee.email, invitee.password));
  const accepted = await acceptInvitation(svc, inviteeToken, await invitationToken(svc, invitee.email));
  if (accepted.status !== 200) throw new Error(`acceptance failed: ${JSON.stringify(accepted.body)}`);
  return accepted.data;
}
