import type { Db } from '../db/client.js';
import { newId } from '../db/ids.js';
import type { Services } from './services.js';
import { mailOutbox } from './schema.js';

/**
 * Mail is written to an outbox table. A deployment's mailer drains it; `svc dev` shows it at
 * GET /_dev/v1/mail so password resets and notices can be followed locally.
 */
export async function sendMail(services: Services, mail: Mail) {
  await queueMail(services.db, services.clock.now(), mail);
}

export interface Mail {
  to: string;
  subject: string;
  body: string;
}

/** The same inside a caller's transaction (a flow notification is mailed with the move that caused it, or not at all). */
export async function queueMail(db: Db, now: number, mail: Mail) {
  await db
    .insert(mailOutbox)
    .values({ id: newId('mail', now), ...mail, createdAt: now })
    .run();
}
