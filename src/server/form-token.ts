import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Services } from './services.js';

/**
 * A token bound to one form of one page (`purpose`, `subject`), embedded as a hidden field and checked on
 * submit: a page on another site cannot know it, so it cannot submit the form in the buyer's name.
 */
export function formToken(services: Services, purpose: string, subject: string): string {
  return createHmac('sha256', services.keys.formKey).update(`${purpose}\n${subject}`).digest('base64url');
}

export function formTokenValid(services: Services, purpose: string, subject: string, presented: unknown): boolean {
  if (typeof presented !== 'string') return false;
  const expected = Buffer.from(formToken(services, purpose, subject));
  const given = Buffer.from(presented);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
