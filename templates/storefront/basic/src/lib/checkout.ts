import type { paths } from './site.js';
import type { PaymentStart, Sheet, Stay } from './types.js';

/**
 * The checkout form's field names are the buyer API's own field paths (`guest.phone`,
 * `shippingAddress.zipCode`), so the API's `fieldErrors` land on the right inputs as they are.
 */
export const GUEST_FIELDS = [
  { name: 'guest.name', label: '이름', type: 'text', autocomplete: 'name', required: true },
  { name: 'guest.phone', label: '휴대폰 번호', type: 'tel', autocomplete: 'tel', required: true, placeholder: '01012345678' },
  { name: 'guest.email', label: '이메일', type: 'email', autocomplete: 'email', required: true },
  { name: 'guest.orderPassword', label: '주문 조회 비밀번호 (4자 이상)', type: 'password', autocomplete: 'new-password', required: true },
] as const;

export const SHIPPING_FIELDS = [
  { name: 'shippingAddress.receiverName', label: '받는 분', type: 'text', autocomplete: 'shipping name', required: true },
  { name: 'shippingAddress.phone', label: '받는 분 연락처', type: 'tel', autocomplete: 'shipping tel', required: true, placeholder: '01012345678' },
  { name: 'shippingAddress.zipCode', label: '우편번호', type: 'text', autocomplete: 'shipping postal-code', required: true, placeholder: '06236' },
  { name: 'shippingAddress.address1', label: '주소', type: 'text', autocomplete: 'shipping address-line1', required: true },
  { name: 'shippingAddress.address2', label: '상세 주소', type: 'text', autocomplete: 'shipping address-line2', required: false },
  { name: 'shippingAddress.deliveryMemo', label: '배송 메모', type: 'text', autocomplete: 'off', required: false },
] as const;

const digits = (value: string) => value.replace(/\D/g, '');
const text = (form: URLSearchParams, name: string) => (form.get(name) ?? '').trim();

/** `POST /checkout/{checkoutId}/payment` from the submitted form: guest buyer, address when shipped, option when paid. */
export function paymentRequest(form: URLSearchParams, sheet: Pick<Sheet, 'requiresShipping' | 'paymentRequired'>, returnUrl: string) {
  return {
    guest: {
      name: text(form, 'guest.name'),
      phone: digits(text(form, 'guest.phone')),
      email: text(form, 'guest.email'),
      orderPassword: form.get('guest.orderPassword') ?? '',
    },
    ...(sheet.requiresShipping
      ? {
          shippingAddress: {
            receiverName: text(form, 'shippingAddress.receiverName'),
            phone: digits(text(form, 'shippingAddress.phone')),
            zipCode: digits(text(form, 'shippingAddress.zipCode')),
            address1: text(form, 'shippingAddress.address1'),
            address2: text(form, 'shippingAddress.address2'),
            deliveryMemo: text(form, 'shippingAddress.deliveryMemo') || null,
          },
        }
      : {}),
    ...(sheet.paymentRequired ? { option: form.get('option') ?? '', returnUrl } : {}),
  };
}

/** A stay chosen on the product page (`stay.checkIn`, `stay.checkOut`), sent with dated products only. */
export function stayFromForm(form: URLSearchParams): Stay | undefined {
  const checkIn = form.get('stay.checkIn');
  const checkOut = form.get('stay.checkOut');
  return checkIn && checkOut ? { checkIn, checkOut } : undefined;
}

/** Where the buyer goes once the payment started: the pay page, or straight to the result when nothing was to be paid. */
export function afterPaymentStart(site: ReturnType<typeof paths>, checkoutId: string, start: PaymentStart) {
  return start.payUrl ?? site.complete(checkoutId, { paymentId: start.paymentId });
}
