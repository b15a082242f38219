/** `12,000원`: grouped by hand so the output does not depend on the runtime's Intl data. */
export const won = (amount: number) => `${String(Math.trunc(amount)).replace(/\B(?=(\d{3})+(?!\d))/g, ',')}원`;

/** `화이트 / M`, or '' for a product without options. */
export const optionLabel = (values: string[]) => values.join(' / ');

/** `2026-11-25` → `11월 25일 (수)`; dates are calendar days, read as UTC so the weekday never shifts. */
export function dateLabel(date: string) {
  const d = new Date(`${date}T00:00:00Z`);
  return `${d.getUTCMonth() + 1}월 ${d.getUTCDate()}일 (${'일월화수목금토'[d.getUTCDay()]})`;
}

/** `20261128-000012`: the 14-digit order number as buyers read it out (the date, then the day's sequence). */
export const orderNumber = (orderNo: number) => `${String(orderNo).slice(0, 8)}-${String(orderNo).slice(8)}`;
