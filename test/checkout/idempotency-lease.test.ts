/**
 * A service killed (SIGKILL) while payment starts are running: their `Idempotency-Key`s were claimed but
 * never settled. After a restart each buyer retries with its key: once the claim's lease lapses the retry
 * runs (or returns the first result) — never `IDEMPOTENCY_KEY_IN_USE` forever.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiClient } from '../helpers/service.js';
import { startServiceProcess } from '../helpers/process.js';
import { buyerApi, createProduct, directSheet, ok, startGuestPayment } from '../helpers/checkout.js';

const BUYERS = 40;

test('claims of a killed process lapse: every retry after restart ends with a payment', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-idem-lease-'));
  const args = ['dev', '--port', '0', '--data-dir', dataDir, '--clock', 'manual'];
  try {
    const first = await startServiceProcess(args);
    const storeId = first.storeId!;
    const owner = apiClient(first.url, { token: first.ownerToken!, storeId });
    const p = await createProduct(owner, { name: '재시도 상품', stockQuantity: 1000 });
    const buyer = buyerApi({ url: first.url } as never, storeId);
    const sheets = await Promise.all(Array.from({ length: BUYERS }, () => directSheet(buyer, { productId: p.productId, optionId: p.optionId })));
    const key = (i: number) => `buyer-${i}-start`;
    // Each start hashes the guest's order password (scrypt) after claiming its key: kill while they run.
    const inFlight = sheets.map((sheet, i) => startGuestPayment(buyer, sheet, {}, { 'idempotency-key': key(i) }).catch(() => null));
    await new Promise((r) => setTimeout(r, 120));
    await first.kill();
    await Promise.all(inFlight);

    const second = await startServiceProcess(args);
    try {
      const again = buyerApi({ url: second.url } as never, storeId);
      const retry = () => Promise.all(sheets.map((sheet, i) => startGuestPayment(again, sheet, {}, { 'idempotency-key': key(i) })));
      const right = await retry();
      const held = right.filter((r) => r.status === 409 && r.body.error.code === 'IDEMPOTENCY_KEY_IN_USE').length;
      console.log(`  ${held} of ${BUYERS} keys were held by the killed process`);
      // The lease (60 s) lapses; then every buyer's retry ends with a payment.
      ok(await apiClient(second.url)('POST', '/_dev/v1/clock/advance', { body: { seconds: 61 } }));
      const later = await retry();
      for (const r of later) assert.is(r.status, 201, JSON.stringify(r.body.error));
      assert.is(new Set(later.map((r) => r.data.paymentId)).size, BUYERS);
      // A settled key still answers its first result.
      const replay = await startGuestPayment(again, sheets[0], {}, { 'idempotency-key': key(0) });
      assert.equal([replay.status, replay.data.paymentId, replay.headers.get('idempotent-replayed')], [201, later[0].data.paymentId, 'true']);
    } finally {
      await second.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
