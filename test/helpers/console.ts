import type { Page } from 'playwright-core';
import { SEED_EMAIL, SEED_PASSWORD } from '../../src/server/seed.js';

/** Opens the console at `path` and signs in on the service's own login page as the seeded owner. */
export async function signInToConsole(page: Page, baseUrl: string, path = '/console/') {
  await page.goto(`${baseUrl}${path}`);
  await page.waitForURL(/\/auth\/authorize/);
  await page.fill('#email', SEED_EMAIL);
  await page.fill('#password', SEED_PASSWORD);
  await page.click('button[value="allow"]');
  await page.waitForURL((url) => url.pathname.startsWith('/console/') && !url.pathname.startsWith('/console/callback'));
  await page.locator('nav[aria-label="메뉴"]').waitFor();
}
