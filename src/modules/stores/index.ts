import type { Module } from '../../server/module.js';
import { listUserStores, type CheckoutAvailability } from './service.js';
import { resolveStore } from './access.js';
import { seedSampleBusinessInfo } from './sample-business.js';
import { storeOperations } from './operations.js';
import { invitationOperations } from './invitation-operations.js';
import { assertAiActionsLeft, countAiAction, storeStillPrivate } from './usage.js';

export const storesModule: Module = {
  name: 'stores',
  operations: [...storeOperations, ...invitationOperations],
  answers: { storeIdsOfMember: async (db, userId) => (await listUserStores(db, userId)).map((s) => s.storeId) },
  requestHooks: {
    storeAccess: resolveStore,
    storeNeverPublic: (services, storeId) => storeStillPrivate(services.db, storeId),
    assertAiActionsLeft: (services, storeId, now) => assertAiActionsLeft(services.db, storeId, now),
    aiActionDone: (services, storeId, now) => countAiAction(services.db, storeId, now),
  },
  onSeed: seedSampleBusinessInfo,
};

export { checkoutAvailabilityFields, type CheckoutAvailability } from './service.js';
export { cachedPerStoreSettings, cachedPerStoreVersion, storeScopeVersion } from './store-cache.js';

declare module '../../server/module.js' {
  interface Happenings {
    /** A store was created with its creator as OWNER (inside that transaction): modules add their per-store defaults. */
    storeCreated: { storeId: string; at: number };
  }
  interface Questions {
    /** The address of the store's hosted storefront, null until it has a site (the store document's `storefrontUrl`). */
    storefrontUrlOf(services: Services, storeId: string): Promise<string | null>;
    /** Whether and how buyers can pay now (spec 01 §5.5): the store document's checkout fields. */
    checkoutAvailabilityOf(services: Pick<Services, 'db'>, storeId: string): Promise<CheckoutAvailability>;
  }
}

export { resolveStore } from './access.js';
export { createStore, findMembership, findStore, storeIdNamedBy, storeNamedBy, storeSettings } from './service.js';
export { type StoreSettings } from './settings.js';
export { countAiAction, markStoreMilestone } from './usage.js';
export { membersInRoles } from './service.js';
export { findStoreByCode } from './service.js';
export { setStoreSuspension, touchStore } from './service.js';
export { businessInfo } from './settings.js';
