import type { Browser, Page } from 'playwright-core';

export interface BrowserSession {
  page: Page;
  close(): Promise<void>;
}

/**
 * Headless Chromium from the npm package @sparticuz/chromium (the browser ships inside the package, so
 * `npm ci` alone brings it), driven by playwright-core. A missing part fails the test with what to do.
 */
export async function launchBrowser(options: { userAgent?: string } = {}): Promise<BrowserSession> {
  let browser: Browser;
  try {
    const [{ chromium }, sparticuz] = await Promise.all([import('playwright-core'), import('@sparticuz/chromium')]);
    // The package's arguments are for serverless scrapers and turn the same-origin policy off: tests need a
    // browser that enforces it as visitors' do. A user agent is also set on the command line: requests
    // outliving their page (keepalive) ignore the context's.
    const args = [
      ...sparticuz.default.args.filter((arg) => arg !== '--disable-web-security'),
      ...(options.userAgent ? [`--user-agent=${options.userAgent}`] : []),
    ];
    browser = await chromium.launch({ executablePath: await sparticuz.default.executablePath(), args, headless: true });
  } catch (error) {
    throw new Error(`headless Chromium could not start (packages @sparticuz/chromium and playwright-core; run npm ci): ${(error as Error).message}`);
  }
  const context = await browser.newContext({ locale: 'ko-KR', ...options });
  const page = await context.newPage();
  return { page, close: () => browser.close() };
}
