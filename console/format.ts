/** Won amounts and Korean dates (KST, Asia/Seoul), as the console shows them. */
import dayjs from 'dayjs';
import timezone from 'dayjs/plugin/timezone.js';
import utc from 'dayjs/plugin/utc.js';

dayjs.extend(utc);
dayjs.extend(timezone);
export const KST = 'Asia/Seoul';

export const won = (amount: number | null | undefined) => (amount === null || amount === undefined ? '—' : `${amount.toLocaleString('ko-KR')}원`);
export const kst = (iso: string | null | undefined) => (iso ? dayjs(iso).tz(KST).format('YYYY-MM-DD HH:mm') : '—');
export const kstTime = (iso: string | null | undefined) => (iso ? dayjs(iso).tz(KST).format('HH:mm:ss') : '—');
/** Today's Korean calendar date, YYYY-MM-DD. */
export const kstToday = () => dayjs().tz(KST).format('YYYY-MM-DD');
