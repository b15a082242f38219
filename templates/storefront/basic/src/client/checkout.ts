import { BuyerApiError, newKey, type FieldError } from '../lib/api.js';
import { afterPaymentStart, missingAgreements, paymentRequest } from '../lib/checkout.js';
import { won } from '../lib/format.js';
import type { Amounts, PaymentStart } from '../lib/types.js';
import { formParams, qs, site } from './site.js';

/** The input's label an error message belongs to: a field wraps its message, an agreement's follows it. */
const holderOf = (message: HTMLElement) => message.closest('.field') ?? message.previousElementSibling;

/**
 * The checkout form: starts the payment with the buyer API and goes to the pay page. The API's field
 * errors are shown under the inputs of the same name; the server handles the same form without the script.
 */
export function initCheckout() {
  const form = qs<HTMLFormElement>('[data-checkout-form]');
  if (!form) return;
  const sheet = { requiresShipping: form.dataset.requiresShipping === 'true', paymentRequired: form.dataset.paymentRequired === 'true' };
  const checkoutId = (form.elements.namedItem('checkoutId') as HTMLInputElement).value;
  const formError = qs('[data-form-error]', form)!;
  // No button while the store takes no payment: the page says why instead (checkoutUnavailableReason).
  const submit = qs<HTMLButtonElement>('button[type=submit]', form);
  if (!submit) return;

  const clearErrors = () => {
    formError.hidden = true;
    for (const node of form.querySelectorAll<HTMLElement>('[data-error-for]')) {
      node.textContent = '';
      holderOf(node)?.classList.remove('invalid');
    }
  };

  // A remote-area surcharge (Jeju, islands) shows as soon as the postal code is known.
  const zip = form.querySelector<HTMLInputElement>('input[name="shippingAddress.zipCode"]');
  zip?.addEventListener('change', async () => {
    const zipCode = zip.value.replace(/\D/g, '');
    if (!/^\d{5}$/.test(zipCode)) return;
    try {
      const { data } = await site.api<{ amounts: Amounts }>('POST', `/checkout/${encodeURIComponent(checkoutId)}/delivery-quote`, { body: { zipCode } });
      for (const node of document.querySelectorAll<HTMLElement>('[data-amount]')) {
        const key = node.dataset.amount as keyof Amounts;
        if (key in data.amounts) node.textContent = won(data.amounts[key]);
      }
    } catch {
      // The quote is a courtesy: the payment start prices the sheet again anyway.
    }
  });

  const showFieldErrors = (fieldErrors: FieldError[]) => {
    const unplaced: string[] = [];
    for (const fieldError of fieldErrors) {
      const node = form.querySelector<HTMLElement>(`[data-error-for="${CSS.escape(fieldError.field)}"]`);
      if (!node) unplaced.push(fieldError.message);
      else {
        node.textContent = fieldError.message;
        holderOf(node)?.classList.add('invalid');
      }
    }
    return unplaced;
  };

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearErrors();
    const params = formParams(form);
    const unagreed = missingAgreements(params);
    if (unagreed.length) {
      showFieldErrors(unagreed);
      form.querySelector<HTMLElement>('.agreement.invalid input')?.focus();
      return;
    }
    submit.disabled = true;
    try {
      const { data: start } = await site.api<PaymentStart>('POST', `/checkout/${encodeURIComponent(checkoutId)}/payment`, {
        body: paymentRequest(params, sheet, site.paths.complete(checkoutId)),
        idempotencyKey: params.get('idempotencyKey') ?? undefined,
      });
      location.assign(afterPaymentStart(site.paths, checkoutId, start));
    } catch (error) {
      submit.disabled = false;
      if (!(error instanceof BuyerApiError)) {
        formError.textContent = '잠시 후 다시 시도해 주세요.';
        formError.hidden = false;
        return;
      }
      // The API remembers a refusal under its key: the corrected form is a new request.
      (form.elements.namedItem('idempotencyKey') as HTMLInputElement).value = newKey();
      const unplaced = showFieldErrors(error.fieldErrors);
      if (!error.fieldErrors.length) unplaced.push(error.message);
      if (unplaced.length) {
        formError.textContent = unplaced.join(' ');
        formError.hidden = false;
      }
      form.querySelector<HTMLElement>('.invalid input')?.focus();
    }
  });
}
