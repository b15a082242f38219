/**
 * A Korean webfont for shops and the service's own pages (login and consent, pay page, approvals), at
 * `/_svc/fonts/noto-sans-kr/index.css` on the service and beside every site: a machine without a Korean font (many Linux desktops, CI's Chromium) would
 * otherwise draw Hangul as boxes. Noto Sans KR (SIL Open Font License) comes from the
 * `@fontsource-variable/noto-sans-kr` package: one variable file per Unicode range, so a page downloads only
 * the ranges its text uses.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { getRouterParam, type H3 } from 'h3';

export const FONTS_PREFIX = '/_svc/fonts/';
export const KOREAN_FONT_CSS = `${FONTS_PREFIX}noto-sans-kr/index.css`;
/** In the `<head>` of the service's pages, before their style. */
export const KOREAN_FONT_LINK = `<link rel="stylesheet" href="${KOREAN_FONT_CSS}">`;
/** The font stack of pages: a system Korean font where there is one, else the webfont. */
export const KOREAN_FONT_FAMILY = `-apple-system, "Apple SD Gothic Neo", "Malgun Gothic", "Noto Sans KR Variable", system-ui, sans-serif`;

const packageDir = dirname(createRequire(import.meta.url).resolve('@fontsource-variable/noto-sans-kr/package.json'));
/** Read once, then kept: the files never change while the service runs. */
const loaded = new Map<string, Promise<Buffer>>();
const fileOf = (name: string) => {
  let file = loaded.get(name);
  if (!file) loaded.set(name, (file = readFile(join(packageDir, name))));
  return file;
};

/**
 * Only the stylesheet and the font files it names are served: never another file of the package. The names
 * are read from the stylesheet itself, so its latin, latin-ext, cyrillic and vietnamese files are served
 * as well as the numbered Hangul ranges (a fixed pattern of numbered names once refused those with 404).
 */
let served: Promise<Set<string>> | undefined;
const servedNames = () =>
  (served ??= fileOf('index.css').then(
    (css) => new Set(['index.css', ...[...css.toString('utf8').matchAll(/url\(\s*['"]?\.\/([^'")\s]+)['"]?\s*\)/g)].map((m) => m[1]!)]),
  ));
const TYPES = { css: 'text/css; charset=utf-8', woff2: 'font/woff2' } as const;

export function mountFonts(app: H3) {
  app.get(`${FONTS_PREFIX}noto-sans-kr/**:name`, async (event) => {
    const name = getRouterParam(event, 'name') ?? '';
    if (!(await servedNames()).has(name)) return new Response('Not found', { status: 404 });
    return new Response(new Uint8Array(await fileOf(name)), {
      headers: {
        'content-type': TYPES[name.endsWith('.css') ? 'css' : 'woff2'],
        'cache-control': 'public, max-age=604800',
        'access-control-allow-origin': '*',
      },
    });
  });
}
