import { won } from './format.js';
import { html } from './html.js';

/** A price, with the list price struck through when it is higher (server pages and the option picker alike). */
export function priceTag({ price, originalPrice }: { price: number; originalPrice: number | null }) {
  return html`<span class="price">${won(price)}</span>${originalPrice !== null && originalPrice > price ? html` <s class="was">${won(originalPrice)}</s>` : ''}`;
}
