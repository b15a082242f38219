import { newId } from '../db/ids.js';
import type { Services } from './services.js';
import { mailOutbox } from './schema.js';

/**
 * Mail is written to an outbox table. A deployment's mailer drains it; `svc dev` shows it at
 * GET /_dev/v1/mail so password resets and notices can be followed locally.
 */
export function sendMail(services: Services, mail: { to: string; subject: string; body: string }) {
  const now = services.clock.now();
  services.db.insert(mailOutbox).values({ id: newId('mail', now), ...mail, createdAt: now }).run();
}
