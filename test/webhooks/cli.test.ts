/** `svc webhooks …` as a script runs it: the compiled CLI against an in-process service, no TTY, CI=1. */
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cliEnv, packageRoot, runCli } from '../helpers/cli.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { eventually, startReceiver } from '../helpers/webhook-receiver.js';

let svc: TestService;
let dir: string;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
test.before(async () => {
  svc = await startTestService({ unsafeWebhookHosts: ['127.0.0.1'] });
  dir = mkdtempSync(join(tmpdir(), 'svc-webhooks-cli-'));
  receiver = await startReceiver();
});
test.after(async () => {
  await receiver.close();
  await svc.close();
  rmSync(dir, { recursive: true, force: true });
});

const vars = () => ({ SVC_CONFIG_DIR: join(dir, 'config'), SVC_API_URL: svc.url, SVC_TOKEN: svc.ownerToken, SVC_STORE_ID: svc.storeId });
const cli = (...args: string[]) => runCli(args, vars());
async function cliJson(...args: string[]) {
  const r = await cli(...args, '--json');
  try {
    return { exitCode: r.exitCode, data: JSON.parse(String(r.stdout)) };
  } catch {
    throw new Error(`svc ${args.join(' ')}: exit ${r.exitCode}\n${r.stdout}\n${r.stderr}`);
  }
}

test('create, list, update, test, trigger, deliveries, redeliver, rotate, resume, delete', async () => {
  const created = await cliJson('webhooks', 'create', '--url', receiver.url, '--events', 'ORDER.PAID,CLAIM.COMPLETED');
  assert.is(created.exitCode, 0);
  const { webhookId, secret } = created.data;
  assert.match(secret, /^whsec_/);
  const human = await cli('webhooks', 'list');
  assert.match(String(human.stdout), webhookId);
  assert.not.match(String(human.stdout), secret);

  const updated = await cliJson('webhooks', 'update', webhookId, '--events', 'CLAIM.COMPLETED,REVIEW.CREATED');
  assert.equal(updated.data.eventTypes, ['CLAIM.COMPLETED', 'REVIEW.CREATED']);
  assert.is(updated.data.url, receiver.url);
  assert.is((await cli('webhooks', 'update', webhookId, '--events', 'NOPE')).exitCode, 2);

  const sent = await cli('webhooks', 'test', webhookId, '--event', 'REVIEW.CREATED');
  assert.is(sent.exitCode, 0, String(sent.stderr));
  assert.match(String(sent.stdout), /✓ REVIEW\.CREATED evt_test_\S+ → 200/);

  const triggered = await cliJson('webhooks', 'trigger', 'CLAIM.COMPLETED');
  assert.is(triggered.data.type, 'CLAIM.COMPLETED');
  const records = await eventually(async () => {
    const r = await cliJson('webhooks', 'deliveries', webhookId, '--status', 'SUCCESS');
    return r.data.contents.length === 1 && r.data.contents;
  });
  assert.is(records[0].eventId, triggered.data.eventId);
  const detail = await cliJson('webhooks', 'deliveries', webhookId, records[0].deliveryId);
  assert.is(JSON.parse(detail.data.payload).id, triggered.data.eventId);
  const humanDetail = await cli('webhooks', 'deliveries', webhookId, records[0].deliveryId);
  assert.match(String(humanDetail.stdout), /Svc-Signature: \(not kept\)/);

  const redeliver = await cli('webhooks', 'redeliver', webhookId, records[0].deliveryId, '--json');
  assert.is(redeliver.exitCode, 1);
  assert.is(JSON.parse(String(redeliver.stdout)).code, 'DELIVERY_NOT_FAILED');
  assert.equal((await cliJson('webhooks', 'redeliver', webhookId, '--failed')).data, { queued: 0 });

  const rotated = await cliJson('webhooks', 'rotate-secret', webhookId);
  assert.is.not(rotated.data.secret, secret);
  assert.is((await cliJson('webhooks', 'resume', webhookId)).data.status, 'ACTIVE');
  assert.is((await cliJson('webhooks', 'delete', webhookId)).data.deleted, true);
  const gone = await cli('webhooks', 'deliveries', webhookId);
  assert.is(gone.exitCode, 1);
  assert.match(String(gone.stderr), /WEBHOOK_NOT_FOUND/);
});

test('verify checks a received request on its raw bytes', async () => {
  const secret = 'whsec_cli_verify';
  const body = '{"id":"evt_1","type":"ORDER.PAID","data":{"orderId":"ord_1"}}';
  const t = Math.floor(Date.now() / 1000);
  const header = `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
  writeFileSync(join(dir, 'body.json'), body);
  const ok = await cli('webhooks', 'verify', '--secret', secret, '--header', header, '--body', `@${join(dir, 'body.json')}`);
  assert.is(ok.exitCode, 0, String(ok.stderr));
  assert.match(String(ok.stdout), /✓ valid/);
  const tampered = await cliJson('webhooks', 'verify', '--secret', secret, '--header', header, '--body', body.replace('ord_1', 'ord_2'));
  assert.is(tampered.exitCode, 1);
  assert.equal(tampered.data, { valid: false, reason: 'NO_MATCHING_SIGNATURE', timestamp: t });
});

test('listen forwards a sandbox purchase (trigger ORDER.PAID) at once, signed with the session secret; so does a dev-flag subscription', async () => {
  const local = await startReceiver();
  const { data: sub } = await cliJson('webhooks', 'create', '--url', receiver.url, '--events', 'ORDER.PAID');
  const listen = execa(process.execPath, ['bin/run.js', 'webhooks', 'listen', '--forward-to', local.url, '--events', 'ORDER.PAID'], {
    cwd: packageRoot,
    env: cliEnv(vars()),
    extendEnv: false,
    reject: false,
  });
  let out = '';
  const sessionSecret = await new Promise<string>((resolve, reject) => {
    listen.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /Signing secret[^:]*: (whsec_\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    void listen.then((r) => reject(new Error(`listen exited: ${r.stdout} ${r.stderr}`)));
  });
  // The stream is open once its first bytes arrived; give the CLI a moment to be reading it.
  await new Promise((r) => setTimeout(r, 300));
  const before = receiver.received.length;

  const purchase = await cliJson('webhooks', 'trigger', 'ORDER.PAID');
  assert.is(purchase.exitCode, 0, JSON.stringify(purchase.data));
  const order = purchase.data;
  const [hit] = await local.waitFor(1, 5000);
  const body = JSON.parse(hit.body);
  assert.is(body.type, 'ORDER.PAID');
  assert.is(body.data.orderId, order.orderId);
  assert.is(body.data.testPayment, true);
  const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(hit.headers['svc-signature']))!;
  assert.is(v1, createHmac('sha256', sessionSecret).update(`${t}.${hit.body}`).digest('hex'));
  const paidAt = Date.parse(order.orderedAt ?? order.createdAt);
  // Delivery is pushed at commit, not left to a retry a minute later. The 1 s of the issue is what it takes
  // on an idle machine (printed); the bound is wide so a loaded CI machine cannot fail it by chance.
  console.log(`listen forwarded ORDER.PAID ${hit.at - paidAt} ms after payment`);
  assert.ok(hit.at - paidAt < 10_000, `listen forwarded ${hit.at - paidAt} ms after payment`);

  const viaSubscription = await eventually(() => receiver.received.slice(before).find((r) => JSON.parse(r.body).data.orderId === order.orderId));
  console.log(`a dev-flag subscription got ORDER.PAID ${viaSubscription.at - paidAt} ms after payment`);
  assert.ok(viaSubscription.at - paidAt < 10_000, `subscription got it ${viaSubscription.at - paidAt} ms after payment`);
  const [, t2, v2] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(viaSubscription.headers['svc-signature']))!;
  assert.is(v2, createHmac('sha256', sub.secret).update(`${t2}.${viaSubscription.body}`).digest('hex'));
  await eventually(() => /ORDER\.PAID\s+evt_\S+\s+→ 200 \(\d+ ms\)/.test(out));

  listen.kill('SIGINT');
  assert.is((await listen).exitCode, 0);
  await local.close();
});

test.run();
