/**
 * Sign-in limits that a guesser cannot turn against the owner (outside security run): failures are counted
 * per account and client address (10 in 15 minutes) and per address (100); only the guessing address is
 * held. A per-account guard over all addresses (30 a minute) slows guessing spread over many addresses
 * and holds nobody for more than its minute. Every password sign-in path (the login API, the OAuth consent
 * form, the approval page) behaves alike.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash, randomBytes } from 'node:crypto';
import { apiClient, newSellerWithStore, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
test.before(async () => {
  // Behind a trusted proxy the client's address is the forwarded one, so a test can sign in from several.
  svc = await startTestService({ trustProxy: true });
});
test.after(async () => {
  await svc.close();
});

const from = (address: string) => ({ 'x-forwarded-for': address });

/** `POST /auth/v1/login` from `address`. */
const apiLogin = (address: string, email: string, password: string) =>
  apiClient(svc.url)('POST', '/auth/v1/login', { body: { email, password }, headers: from(address) });

/** The OAuth consent form's sign-in from `address`: a redirect with a code, or the page again (with its status). */
function consentLogin(address: string, email: string, password: string) {
  const verifier = randomBytes(32).toString('base64url');
  const body = new URLSearchParams({
    response_type: 'code',
    client_id: 'svc-cli',
    redirect_uri: 'http://127.0.0.1:1/callback',
    code_challenge_method: 'S256',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    email,
    password,
    decision: 'allow',
  });
  return fetch(`${svc.url}/auth/authorize`, { method: 'POST', body, headers: from(address), redirect: 'manual' });
}

/** The approval page's sign-in from `address` (any approval id: the sign-in comes before the approval is looked up). */
const approvalPageLogin = (address: string, email: string, password: string) =>
  fetch(`${svc.url}/approvals/apr_none`, {
    method: 'POST',
    body: new URLSearchParams({ action: 'login', email, password }),
    headers: from(address),
    redirect: 'manual',
  });

test('10 wrong passwords hold only the guessing address: the owner signs in from another by every path', async () => {
  const owner = await newSellerWithStore(svc, 'pair');
  const guesser = '198.51.100.10';
  for (let i = 0; i < 10; i++) assert.is((await apiLogin(guesser, owner.email, `wrong-${i}`)).status, 401);

  const held = await apiLogin(guesser, owner.email, owner.password);
  assert.equal([held.status, held.body.error.code], [429, 'LOGIN_THROTTLED'], 'the guessing address is held, the right password too');
  assert.ok(Number(held.headers.get('retry-after')) > 0);
  const heldConsent = await consentLogin(guesser, owner.email, owner.password);
  assert.is(heldConsent.status, 429);
  assert.ok(heldConsent.headers.get('retry-after'));
  const heldPage = await approvalPageLogin(guesser, owner.email, owner.password);
  assert.is(heldPage.status, 429);
  assert.match(await heldPage.text(), 'data-code="LOGIN_THROTTLED"');

  const home = '203.0.113.20';
  const signedIn = await apiLogin(home, owner.email, owner.password);
  assert.is(signedIn.status, 200, JSON.stringify(signedIn.body));
  assert.ok(signedIn.data.accessToken);
  const consent = await consentLogin(home, owner.email, owner.password);
  assert.is(consent.status, 302);
  assert.ok(new URL(consent.headers.get('location')!).searchParams.get('code'), 'the consent form gives a code');
  const page = await approvalPageLogin(home, owner.email, owner.password);
  assert.match(page.headers.get('set-cookie') ?? '', 'Path=/approvals', 'the approval page signs the owner in');

  // The guessing address stays held until its window ends.
  assert.is((await apiLogin(guesser, owner.email, owner.password)).status, 429);
  await svc.advance(15 * 60);
  assert.is((await apiLogin(guesser, owner.email, owner.password)).status, 200);
});

test('one address guessing across many accounts is held at 100 attempts in 15 minutes', async () => {
  const owner = await newSellerWithStore(svc, 'spray');
  const sprayer = '198.51.100.30';
  for (let i = 0; i < 100; i++) assert.is((await apiLogin(sprayer, `nobody-${i}@example.com`, 'wrong-password')).status, 401);
  const held = await apiLogin(sprayer, owner.email, owner.password);
  assert.equal([held.status, held.body.error.code], [429, 'LOGIN_THROTTLED']);
  assert.is((await apiLogin('203.0.113.30', owner.email, owner.password)).status, 200, 'the account itself is not held');
});

test('guessing spread over many addresses is slowed per account (30 a minute), holding the owner at most that minute', async () => {
  const owner = await newSellerWithStore(svc, 'spread');
  for (let i = 0; i < 30; i++) assert.is((await apiLogin(`198.51.100.${100 + Math.floor(i / 10)}`, owner.email, `wrong-${i}`)).status, 401);
  const slowed = await apiLogin('203.0.113.40', owner.email, owner.password);
  assert.equal([slowed.status, slowed.body.error.code], [429, 'LOGIN_THROTTLED']);
  const retryAfter = Number(slowed.headers.get('retry-after'));
  assert.ok(retryAfter > 0 && retryAfter <= 60, `held at most a minute (Retry-After ${retryAfter})`);
  await svc.advance(60);
  assert.is((await apiLogin('203.0.113.40', owner.email, owner.password)).status, 200);
});

test('a refused attempt takes nothing: the owner held by the account guard is not held longer for retrying', async () => {
  const owner = await newSellerWithStore(svc, 'retry');
  for (let i = 0; i < 30; i++) assert.is((await apiLogin(`198.51.100.${110 + Math.floor(i / 10)}`, owner.email, `wrong-${i}`)).status, 401);
  const home = '203.0.113.50';
  for (let i = 0; i < 12; i++) assert.is((await apiLogin(home, owner.email, owner.password)).status, 429);
  await svc.advance(60);
  assert.is((await apiLogin(home, owner.email, owner.password)).status, 200, "the refused tries did not count against the owner's address");
});

test.run();
