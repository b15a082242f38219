import * as assert from 'uvu/assert';
import { fails, ok, rejects } from './assert.js';
import type { Api } from './service.js';

export { fails, ok, rejects };

export const PG_ONE_TEST = { environment: 'TEST', clientKey: 'test_ck_D5GePWvyJnrK0W0k6q8gLzN97Eoq', secretKey: 'test_sk_zXLkKEypNArWmo50nX3lmeaxYG5R' };
export const PG_ONE_LIVE = { environment: 'LIVE', clientKey: 'live_ck_D5GePWvyJnrK0W0k6q8gLzN97Eoq', secretKey: 'live_sk_zXLkKEypNArWmo50nX3lmeaxYG5R' };
export const PG_TWO_TEST = {
  environment: 'TEST',
  storeId: 'store-4f7e2c1a-0000-4000-8000-000000000001',
  channels: [
    { channelKey: 'channel-key-card-0001', channelName: '카드', methods: ['CARD', 'EASY_PAY'] },
    { channelKey: 'channel-key-transfer-0002', methods: ['BANK_TRANSFER', 'CARD'] },
  ],
  apiSecret: 'portone-api-secret-0123456789abcdef',
  webhookSecret: 'whsec_abcdefghijklmnop',
};
export const PG_TWO_LIVE = { ...PG_TWO_TEST, environment: 'LIVE', apiSecret: 'portone-live-secret-0123456789abcdef' };

/** Every secret the tests ever send; none may appear in any response. */
export const SECRETS = [PG_ONE_TEST.secretKey, PG_ONE_LIVE.secretKey, PG_TWO_TEST.apiSecret, PG_TWO_LIVE.apiSecret, PG_TWO_TEST.webhookSecret];

export const providerOf = (settings: any, pg: string) => settings.providers.find((p: any) => p.provider === pg);

/** The §5.5 availability fields as the admin store and the buyer store both show them (they must agree). */
export async function availability(api: Api, storeId: string) {
  const pick = (d: any) => [d.checkoutAvailable, d.checkoutMode, d.checkoutUnavailableReason];
  const admin = pick(ok(await api('GET', '/v1/store')));
  const buyer = pick(ok(await api('GET', '/storefront/v1/store', { token: null, storeId })));
  assert.equal(buyer, admin, 'storefront and admin agree');
  return admin;
}
