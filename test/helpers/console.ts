import type { Page } from 'playwright-core';
import { SEED_EMAIL, SEED_PASSWORD } from '../../src/server/seed.js';

/** Opens the console at `path` and signs in on the service's own login page (as the seeded owner unless told). */
export async function signInToConsole(page: Page, baseUrl: string, path = '/console/', who = { email: SEED_EMAIL, password: SEED_PASSWORD }) {
  await page.goto(`${baseUrl}${path}`);
  await page.waitForURL(/\/auth\/authorize/);
  await page.fill('#email', who.email);
  await page.fill('#password', who.password);
  await page.click('button[value="allow"]');
  await page.waitForURL((url) => url.pathname.startsWith('/console/') && !url.pathname.startsWith('/console/callback'));
  await page.locator('nav[aria-label="메뉴"]').waitFor();
}

/** Moves inside the signed-in console as a person would: by its menu, without a reload (tokens live in memory). */
export async function openConsolePage(page: Page, label: string) {
  await page.locator('nav[aria-label="메뉴"]').getByRole('link', { name: label, exact: true }).click();
  await page.locator('main h1').waitFor();
  await page.waitForFunction(() => !document.querySelector('main')?.textContent?.includes('불러오는 중'));
}

/** axe-core's serious and critical violations on the page as it is now (rule id, impact, the first elements). */
export async function seriousViolations(page: Page): Promise<string[]> {
  const { default: axe } = await import('axe-core');
  // Run through the debugging protocol: the console's CSP refuses inline scripts, as it should.
  await page.evaluate(axe.source);
  const results = await page.evaluate(() => (window as any).axe.run(document, { resultTypes: ['violations'] }));
  return (results.violations as any[])
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.nodes
          .slice(0, 3)
          .map((n: any) => n.target.join(' '))
          .join(', ')}`,
    );
}

/** Opens the console's product form for a new product with its name and price filled in. */
export async function openNewProductForm(page: Page, name: string, salePrice: number) {
  await openConsolePage(page, '상품');
  await page.getByRole('link', { name: '상품 등록' }).click();
  await page.getByLabel('상품명').fill(name);
  await page.getByLabel('판매가 (원)').fill(String(salePrice));
}

/** Submits the product form: the new product's id, from the page the console goes to. */
export async function registerProduct(page: Page) {
  await page.getByRole('button', { name: '등록' }).click();
  await page.waitForURL(/\/console\/products\/prd_/);
  return new URL(page.url()).pathname.split('/').pop()!;
}
