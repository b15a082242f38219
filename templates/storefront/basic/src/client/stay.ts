import type { Product, Variant } from '../lib/types.js';

/** What the product page needs from the stay dates: whether they are complete, and what to say. */
export interface StayState {
  ready: boolean;
  /** The stay's price when known (the `stay` template sums the nights). */
  price?: number;
  message?: string;
}

export interface StayPicker {
  update(variant: Variant | null): StayState;
  onChange(listener: () => void): void;
}

const NIGHT = 86_400_000;
const nights = (checkIn: string, checkOut: string) => Math.round((Date.parse(checkOut) - Date.parse(checkIn)) / NIGHT);

/** This template's stay dates are two date inputs (the `stay` template has a calendar instead). */
export function initStay(form: HTMLFormElement, product: Product): StayPicker {
  if (product.inventoryMode !== 'DATED') return { update: () => ({ ready: true }), onChange: () => {} };
  const checkIn = form.querySelector<HTMLInputElement>('input[name="stay.checkIn"]')!;
  const checkOut = form.querySelector<HTMLInputElement>('input[name="stay.checkOut"]')!;
  const today = new Date(Date.now() + 9 * 3_600_000).toISOString().slice(0, 10);
  checkIn.min = today;
  return {
    update() {
      checkOut.min = checkIn.value || today;
      if (!checkIn.value || !checkOut.value) return { ready: false, message: '체크인과 체크아웃 날짜를 고르세요' };
      const n = nights(checkIn.value, checkOut.value);
      if (n < 1) return { ready: false, message: '체크아웃은 체크인 다음 날 이후여야 합니다' };
      return { ready: true, message: `${n}박 예약 가능 여부는 주문할 때 확인합니다` };
    },
    onChange: () => {},
  };
}
