import { eq } from 'drizzle-orm';
import type { Services } from '../../server/services.js';
import { stores } from './schema.js';
import { findStore } from './service.js';
import type { StoreSettings } from './settings.js';

/**
 * svc dev's store shows what a Korean shop's footer must carry (상호, 대표자, 사업자등록번호, 통신판매업
 * 신고번호, contact), marked as a sample, so the hosted shop looks like one a seller would publish.
 */
const SAMPLE_BUSINESS: StoreSettings['businessInfo'] = {
  companyName: '데브스토어(예시)',
  representativeName: '홍길동',
  registrationNumber: '123-45-67890',
  mailOrderSalesNumber: '제2026-서울강남-0000호',
  phone: '02-000-0000',
  email: 'help@dev-store.example',
  address: { zipCode: '06236', address1: '서울특별시 강남구 테헤란로 152', address2: '12층' },
};

export async function seedSampleBusinessInfo(services: Services, storeId: string) {
  const settings = (await findStore(services.db, storeId))!.settings as StoreSettings;
  await services.db
    .update(stores)
    .set({ settings: { ...settings, businessInfo: SAMPLE_BUSINESS } })
    .where(eq(stores.id, storeId))
    .run();
}
