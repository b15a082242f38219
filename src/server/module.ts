import type { IncomingMessage, ServerResponse } from 'node:http';
import type { H3 } from 'h3';
import type { Db } from '../db/client.js';
import type { Job } from './jobs.js';
import type { Operation } from './registry.js';
import type { Services } from './services.js';

/**
 * A domain module as the server sees it. Tables live in the module's schema.ts (picked up by
 * drizzle-kit), rules in its service, and everything the server must wire up is declared here.
 */
export interface Module {
  name: string;
  operations?: Operation[];
  /** Periodic work run by the clock-driven job loop (and at once by /_dev/v1/jobs/run). */
  jobs?: Job[];
  /** Defaults a new store needs from this module, inside the store-creating transaction. */
  onStoreCreated?(services: Services, storeId: string): void | Promise<void>;
  /** Sample data for the seeded dev store, on its first start. */
  onSeed?(services: Services, storeId: string): void | Promise<void>;
  /**
   * An order item moved to another flow state (the order-flow engine calls every module's hook inside the
   * transaction that moved it): points earned on purchase decision, review eligibility, analytics facts.
   */
  onOrderItemMoved?(services: Services, db: Db, move: OrderItemMove): void | Promise<void>;
  /** The buyer withdrew an open claim with the flow action WITHDRAW_REQUEST (inside the move's transaction). */
  onClaimWithdrawn?(services: Services, db: Db, withdrawal: { storeId: string; orderItemId: string; at: number }): void | Promise<void>;
  /** A buyer signed up as a member of a store (inside the sign-up transaction): sign-up coupons, welcome points. */
  onCustomerSignedUp?(services: Services, db: Db, signUp: { storeId: string; customerId: string; at: number }): void | Promise<void>;
  /** Routes outside the registry (HTML pages, OAuth, file serving); keep these rare. */
  mount?(app: H3, services: Services): void;
  /**
   * Answers a request before the API's framework sees it (after the service's own request guards); true
   * when answered. Only for answers that need no routing — a few look-ups and one write, such as a site's
   * static files; anything it cannot answer whole goes on to the framework untouched.
   */
  serveEarly?(services: Services, req: IncomingMessage, res: ServerResponse): boolean | Promise<boolean>;
  /** Releases what the module holds outside the database (child processes) when the service stops. */
  onClose?(services: Services): void | Promise<void>;
}

export interface OrderItemMove {
  storeId: string;
  orderId: string;
  orderItemId: string;
  /** Flow state keys before and after the move. */
  from: string;
  to: string;
  /** Core statuses (PAID, CONFIRMED, DISPATCHED, DELIVERED, FULFILLED, PURCHASE_DECIDED, CANCELED, …). */
  previousCoreStatus: string;
  coreStatus: string;
  at: number;
}
