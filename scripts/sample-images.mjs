/**
 * `node scripts/sample-images.mjs`: draws the pictures of svc dev's sample products (assets/sample-products/*.jpg)
 * with the project's own headless Chromium. They are committed; run this again only to change them.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import chromium from '@sparticuz/chromium';
import { chromium as playwright } from 'playwright-core';

const out = join(import.meta.dirname, '..', 'assets', 'sample-products');

const scene = (background, body) => `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 800 800" width="800" height="800">
<defs>
  <radialGradient id="bg" cx="50%" cy="38%" r="75%"><stop offset="0" stop-color="${background[0]}"/><stop offset="1" stop-color="${background[1]}"/></radialGradient>
  <filter id="shadow" x="-20%" y="-20%" width="140%" height="140%"><feGaussianBlur stdDeviation="18"/></filter>
  <linearGradient id="shade" x1="0" x2="1"><stop offset="0" stop-color="#000" stop-opacity=".10"/><stop offset=".45" stop-color="#fff" stop-opacity=".10"/><stop offset="1" stop-color="#000" stop-opacity=".16"/></linearGradient>
</defs>
<rect width="800" height="800" fill="url(#bg)"/>
${body}
</svg>`;

function tshirt(color, stitch) {
  const shape = 'M270 170 L330 150 Q400 195 470 150 L530 170 L650 240 L600 345 L545 318 L545 650 Q400 672 255 650 L255 318 L200 345 L150 240 Z';
  return `<ellipse cx="400" cy="680" rx="210" ry="26" fill="#000" opacity=".18" filter="url(#shadow)"/>
<path d="${shape}" fill="${color}"/>
<path d="${shape}" fill="url(#shade)"/>
<path d="M330 150 Q400 215 470 150" fill="none" stroke="${stitch}" stroke-width="10" stroke-linecap="round"/>
<path d="M255 318 L200 345 M545 318 L600 345" stroke="${stitch}" stroke-width="4" opacity=".6"/>
<path d="M262 630 Q400 650 538 630" fill="none" stroke="${stitch}" stroke-width="3" stroke-dasharray="8 8" opacity=".6"/>`;
}

const mug = `<ellipse cx="390" cy="640" rx="200" ry="30" fill="#000" opacity=".2" filter="url(#shadow)"/>
<path d="M520 330 Q640 330 640 440 Q640 550 520 550" fill="none" stroke="#e9e4da" stroke-width="38"/>
<path d="M520 330 Q640 330 640 440 Q640 550 520 550" fill="none" stroke="#000" stroke-opacity=".08" stroke-width="38"/>
<path d="M240 260 L240 600 Q240 650 390 650 Q540 650 540 600 L540 260 Z" fill="#f3efe6"/>
<path d="M240 260 L240 600 Q240 650 390 650 Q540 650 540 600 L540 260 Z" fill="url(#shade)"/>
<ellipse cx="390" cy="260" rx="150" ry="34" fill="#e6dfd2"/>
<ellipse cx="390" cy="266" rx="132" ry="24" fill="#6b4a32"/>
<path d="M240 420 L540 420 L540 470 L240 470 Z" fill="#2f6f73" opacity=".85"/>
<path d="M340 200 Q320 160 345 120 Q370 80 350 40 M420 205 Q400 160 425 118 Q450 76 430 36" fill="none" stroke="#fff" stroke-width="10" stroke-linecap="round" opacity=".75"/>`;

const voucher = `<g transform="rotate(-8 400 400)">
<rect x="150" y="230" width="500" height="320" rx="28" fill="#000" opacity=".22" filter="url(#shadow)"/>
<rect x="140" y="215" width="520" height="330" rx="28" fill="#d94f4f"/>
<rect x="140" y="215" width="520" height="330" rx="28" fill="url(#shade)"/>
<rect x="470" y="215" width="46" height="330" fill="#f4c542"/>
<rect x="140" y="360" width="520" height="40" fill="#f4c542"/>
<circle cx="493" cy="380" r="44" fill="#f7d66a"/>
<text x="190" y="300" font-family="Arial, Helvetica, sans-serif" font-size="40" font-weight="700" fill="#fff" letter-spacing="4">GIFT CARD</text>
<text x="190" y="500" font-family="Arial, Helvetica, sans-serif" font-size="64" font-weight="800" fill="#fff">₩10,000</text>
</g>`;

const hanok = `<rect x="0" y="560" width="800" height="240" fill="#8a7a5c"/>
<rect x="0" y="560" width="800" height="240" fill="url(#shade)" opacity=".5"/>
<circle cx="620" cy="160" r="56" fill="#ffe7b0" opacity=".9"/>
<path d="M90 330 Q400 250 710 330 Q660 300 640 270 Q400 205 160 270 Q140 300 90 330 Z" fill="#3b3a3f"/>
<path d="M150 330 L650 330 L650 350 L150 350 Z" fill="#5a4634"/>
<rect x="170" y="350" width="460" height="210" fill="#efe3c8"/>
<g fill="#6b4f36">${[170, 280, 390, 500, 610].map((x) => `<rect x="${x}" y="350" width="20" height="210"/>`).join('')}</g>
<g fill="none" stroke="#8c6b4a" stroke-width="4">${[190, 300, 410, 520].map((x) => `<rect x="${x + 12}" y="380" width="66" height="120"/><path d="M${x + 12} 420 H${x + 78} M${x + 12} 460 H${x + 78} M${x + 45} 380 V500"/>`).join('')}</g>
<rect x="140" y="560" width="520" height="34" fill="#b9a98a"/>`;

const pictures = {
  'tshirt-white': scene(['#f7f1e8', '#e2d6c3'], tshirt('#fbfbf8', '#d9d4c7')),
  'tshirt-black': scene(['#eceff3', '#c9cfd8'], tshirt('#26272b', '#47484f')),
  'tshirt-navy': scene(['#e7eef8', '#bccbe0'], tshirt('#1f3358', '#34507e')),
  mug: scene(['#f4e9dc', '#d8c1a5'], mug),
  voucher: scene(['#fdf3e4', '#f1d7b5'], voucher),
  hanok: scene(['#f6c98e', '#7a8fb8'], hanok),
};

mkdirSync(out, { recursive: true });
const browser = await playwright.launch({ executablePath: await chromium.executablePath(), args: chromium.args, headless: true });
const page = await browser.newPage({ viewport: { width: 800, height: 800 } });
for (const [name, svg] of Object.entries(pictures)) {
  await page.setContent(`<html><body style="margin:0">${svg}</body></html>`);
  writeFileSync(join(out, `${name}.jpg`), await page.screenshot({ type: 'jpeg', quality: 82 }));
  console.log(`assets/sample-products/${name}.jpg`);
}
await browser.close();
