/**
 * The site's browser entry (built with a hashed name; pages find it through `asset('client.js')`).
 * Module scripts run after the document is parsed, so the page's elements are there.
 */
import { initAddressSearch } from './client/address-search.js';
import { initCart } from './client/cart.js';
import { initCheckout } from './client/checkout.js';
import { initProduct } from './client/product.js';

initProduct();
initCheckout();
initAddressSearch();
void initCart();
