import type { FieldError } from './api.js';
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

/**
 * What the buyer agrees to before paying: the order itself (전자상거래법 §8②: the buyer confirms the
 * order and agrees to pay) and, as this template orders as a guest, the collection of the details the order needs.
 */
export const AGREEMENTS = [
  { name: 'agree.purchase', label: '주문 상품과 결제 금액을 확인했으며 구매에 동의합니다' },
  { name: 'agree.privacy', label: '비회원 주문을 위한 개인정보 수집·이용에 동의합니다' },
] as const;

/** The guest's details: what is collected, why, and how long it is kept (개인정보 보호법 §15②). */
export const PRIVACY_NOTICE = [
  ['수집 항목', '이름, 휴대폰 번호, 이메일, 주문 조회 비밀번호, 배송지'],
  ['이용 목적', '주문 처리, 배송, 주문 조회와 문의 응대'],
  ['보유 기간', '전자상거래법에 따라 계약·결제 기록 5년, 소비자 불만·분쟁 기록 3년'],
] as const;

/** The agreements left unchecked, as field errors on their checkboxes; the API is not called until there are none. */
export function missingAgreements(form: URLSearchParams): FieldError[] {
  return AGREEMENTS.filter((a) => form.get(a.name) !== 'on').map((a) => ({
    field: a.name,
    code: 'AGREEMENT_REQUIRED',
    message: '동의해 주셔야 주문할 수 있습니다.',
  }));
}

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
