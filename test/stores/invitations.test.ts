/**
 * Member invitation (spec 01 §5: an OWNER/ADMIN store-platform action): inviting makes a pending invitation
 * mailed to the invitee, who accepts it signed in as that e-mail's account and only then is a member. An
 * invitation expires after 7 days, the store can revoke it, and lists its pending ones; apps, access
 * tokens and agents cannot invite.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fails, ok } from '../helpers/assert.js';
import { acceptInvitation, invitationToken } from '../helpers/invitations.js';
import { apiClient, createAccessToken, login, newSellerWithStore, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let owner: Awaited<ReturnType<typeof newSellerWithStore>>;
test.before(async () => {
  svc = await startTestService();
  owner = await newSellerWithStore(svc, 'inviter');
});
test.after(async () => {
  await svc.close();
});

const invite = (email: string, role = 'STAFF', by = owner) =>
  apiClient(svc.url)('POST', '/v1/member-invitations', { token: by.token, storeId: by.storeId, body: { email, role } });
const memberEmails = async () => ok(await owner.api('GET', '/v1/members')).contents.map((m: any) => m.email);

test('inviting makes a pending invitation, not a member; the invitee accepts and becomes a member with the role', async () => {
  const invitee = await newSellerWithStore(svc, 'invitee');
  const invitation = ok(await invite(invitee.email, 'ADMIN'), 201);
  assert.equal([invitation.email, invitation.role, invitation.status], [invitee.email, 'ADMIN', 'PENDING']);
  // The old immediate add is gone: nobody joins a store without accepting.
  const added = await owner.api('POST', '/v1/members', { body: { email: invitee.email, role: 'ADMIN' } });
  assert.ok(added.status >= 400, `POST /v1/members answered ${added.status}`);
  assert.ok(!(await memberEmails()).includes(invitee.email), 'not a member before accepting');
  fails(await apiClient(svc.url)('GET', '/v1/store', { token: invitee.token, storeId: owner.storeId }), 403, 'NOT_A_MEMBER');
  const pending = ok(await owner.api('GET', '/v1/member-invitations')).contents;
  assert.equal(
    pending.map((i: any) => [i.invitationId, i.status]),
    [[invitation.invitationId, 'PENDING']],
  );

  const accepted = ok(await acceptInvitation(svc, invitee.token, await invitationToken(svc, invitee.email)));
  assert.equal([accepted.storeId, accepted.role, accepted.email], [owner.storeId, 'ADMIN', invitee.email]);
  assert.ok((await memberEmails()).includes(invitee.email));
  assert.is(ok(await apiClient(svc.url)('GET', '/v1/store', { token: invitee.token, storeId: owner.storeId })).storeId, owner.storeId);
  assert.equal(ok(await owner.api('GET', '/v1/member-invitations')).contents, []);
  // Used once: a second acceptance changes nothing.
  fails(await acceptInvitation(svc, invitee.token, await invitationToken(svc, invitee.email)), 409, 'INVITATION_NOT_PENDING');
});

test('another account cannot accept an invitation mailed to someone else; a wrong token is not found', async () => {
  const invitee = await newSellerWithStore(svc, 'rightful');
  const intruder = await newSellerWithStore(svc, 'intruder');
  ok(await invite(invitee.email), 201);
  const token = await invitationToken(svc, invitee.email);
  fails(await acceptInvitation(svc, intruder.token, token), 403, 'INVITATION_EMAIL_MISMATCH');
  fails(await acceptInvitation(svc, intruder.token, 'not-a-token'), 404, 'INVITATION_NOT_FOUND');
  assert.ok(!(await memberEmails()).includes(intruder.email));
});

test('an invitation expires after 7 days; a revoked one cannot be accepted either', async () => {
  const late = await newSellerWithStore(svc, 'late');
  ok(await invite(late.email), 201);
  const token = await invitationToken(svc, late.email);
  await svc.advance(7 * 86_400 + 60);
  owner = { ...owner, token: await login(svc, owner.email, owner.password) };
  owner.api = apiClient(svc.url, { token: owner.token, storeId: owner.storeId });
  fails(await acceptInvitation(svc, await login(svc, late.email, late.password), token), 409, 'INVITATION_EXPIRED');
  assert.equal(ok(await owner.api('GET', '/v1/member-invitations')).contents, []);

  const revokedOne = await newSellerWithStore(svc, 'revoked');
  const invitation = ok(await invite(revokedOne.email), 201);
  assert.is(ok(await owner.api('DELETE', `/v1/member-invitations/${invitation.invitationId}`)).status, 'REVOKED');
  fails(await acceptInvitation(svc, revokedOne.token, await invitationToken(svc, revokedOne.email)), 409, 'INVITATION_NOT_PENDING');
  assert.ok(!(await memberEmails()).includes(revokedOne.email));
});

test("tenancy: another store's invitation is 403 TENANT_MISMATCH and never listed; access tokens and apps cannot invite", async () => {
  const other = await newSellerWithStore(svc, 'otherstore');
  const theirs = ok(await invite('someone@example.com', 'STAFF', other), 201);
  fails(await owner.api('DELETE', `/v1/member-invitations/${theirs.invitationId}`), 403, 'TENANT_MISMATCH');
  assert.ok(!ok(await owner.api('GET', '/v1/member-invitations')).contents.some((i: any) => i.invitationId === theirs.invitationId));
  const accessToken = await createAccessToken(svc, owner.token, { scopes: ['member:rw'] });
  fails(
    await apiClient(svc.url)('POST', '/v1/member-invitations', { token: accessToken, storeId: owner.storeId, body: { email: 'x@example.com', role: 'STAFF' } }),
    403,
    'INSUFFICIENT_ROLE',
  );
  // An ADMIN invites but never grants OWNER.
  const admin = await newSellerWithStore(svc, 'invadmin');
  ok(await invite(admin.email, 'ADMIN'), 201);
  ok(await acceptInvitation(svc, admin.token, await invitationToken(svc, admin.email)));
  const ownerInvite = await invite('owner-to-be@example.com', 'OWNER', { ...admin, storeId: owner.storeId });
  fails(ownerInvite, 403, 'INSUFFICIENT_ROLE');
  assert.equal(ownerInvite.body.error.details, { requiredRole: ['OWNER'], actualRole: 'ADMIN' });
});

test.run();
