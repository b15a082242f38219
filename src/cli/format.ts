/** Korean money as people read it: `12,900원`. */
export const won = (amount: number | null | undefined) => (amount === null || amount === undefined ? '-' : `${amount.toLocaleString('ko-KR')}원`);
