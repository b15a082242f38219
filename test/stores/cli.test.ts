/**
 * `svc members` with the compiled CLI: the store's members, invitations (invite, pending list, revoke) and
 * the invitee's acceptance of the mailed token from their own login.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsonOf, runCli } from '../helpers/cli.js';
import { invitationToken } from '../helpers/invitations.js';
import { newSellerWithStore, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let configDir: string;
test.before(async () => {
  svc = await startTestService();
  configDir = mkdtempSync(join(tmpdir(), 'svc-cli-members-'));
});
test.after(async () => {
  await svc.close();
  rmSync(configDir, { recursive: true, force: true });
});

const svcCli = (args: string[], token = svc.ownerToken) =>
  runCli(args, { SVC_CONFIG_DIR: configDir, SVC_API_URL: svc.url, SVC_TOKEN: token, SVC_STORE_ID: svc.storeId });

test('members invite, invitations, accept (as the invitee), list; revoke-invitation', async () => {
  const invitee = await newSellerWithStore(svc, 'cliinvitee');
  const invited = jsonOf(await svcCli(['members', 'invite', '--email', invitee.email, '--role', 'STAFF', '--json']));
  assert.equal([invited.email, invited.role, invited.status], [invitee.email, 'STAFF', 'PENDING']);
  const pending = await svcCli(['members', 'invitations']);
  assert.is(pending.exitCode, 0, pending.stderr);
  assert.match(pending.stdout, new RegExp(`${invited.invitationId}\\s+${invitee.email}\\s+STAFF`));

  const accepted = await svcCli(['members', 'accept', await invitationToken(svc, invitee.email)], invitee.token);
  assert.is(accepted.exitCode, 0, accepted.stderr);
  assert.match(accepted.stdout, /STAFF/);
  assert.match((await svcCli(['members', 'list'])).stdout, new RegExp(`${invitee.email}\\s+STAFF`));

  const other = jsonOf(await svcCli(['members', 'invite', '--email', 'later@example.com', '--role', 'ADMIN', '--json']));
  assert.match((await svcCli(['members', 'revoke-invitation', other.invitationId])).stdout, /Revoked/);
  assert.equal(jsonOf(await svcCli(['members', 'invitations', '--json'])).contents, []);
});

test.run();
