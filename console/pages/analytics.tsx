/** Analytics: sales by Korean date as a chart (uPlot), and visits and what they led to. */
import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import { raw } from '../api.js';
import { won } from '../format.js';
import dayjs from 'dayjs';
import { KST } from '../format.js';
import { useSession } from '../session.js';
import { ErrorBox, Loading, Page, useLoad } from '../ui.js';

interface DayRow {
  date: string;
  paymentAmount: number;
  netAmount: number;
}

/** Every date from `from` to `to`: the report lists only days with sales, a chart needs the quiet ones as zero. */
function everyDay(rows: DayRow[], from: string, to: string): DayRow[] {
  const byDate = new Map(rows.map((r) => [r.date, r]));
  const days: DayRow[] = [];
  for (let d = dayjs(from); !d.isAfter(dayjs(to)); d = d.add(1, 'day')) {
    const date = d.format('YYYY-MM-DD');
    days.push(byDate.get(date) ?? { date, paymentAmount: 0, netAmount: 0 });
  }
  return days;
}

function SalesChart({ rows }: { rows: DayRow[] }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!box.current) return;
    const x = rows.map((r) => dayjs.tz(r.date, KST).unix());
    // Canvas text gets no web font by unicode range: the axes carry digits only.
    const font = '12px system-ui, sans-serif';
    const chart = new uPlot(
      {
        width: box.current.clientWidth,
        height: 260,
        series: [
          { label: '날짜', value: (_u, v) => (v === null ? '—' : dayjs.unix(v).tz(KST).format('YYYY-MM-DD')) },
          { label: '결제', stroke: '#0b5cad', width: 2, value: (_u, v) => (v === null ? '—' : won(v)) },
          { label: '순매출', stroke: '#116329', width: 2, value: (_u, v) => (v === null ? '—' : won(v)) },
        ],
        axes: [
          { font, values: (_u, ticks) => ticks.map((t) => dayjs.unix(t).tz(KST).format('M/D')) },
          { font, size: 70, values: (_u, ticks) => ticks.map((t) => t.toLocaleString('ko-KR')) },
        ],
        scales: { x: { time: true } },
      },
      [x, rows.map((r) => r.paymentAmount), rows.map((r) => r.netAmount)],
      box.current,
    );
    return () => chart.destroy();
  }, [rows]);
  return <div ref={box} className="chart" role="img" aria-label={`일별 매출: ${rows.map((r) => `${r.date} ${won(r.paymentAmount)}`).join(', ')}`} />;
}

export default function Analytics() {
  const { can, store } = useSession();
  const [days, setDays] = useState(30);
  const to = dayjs().tz(KST).format('YYYY-MM-DD');
  const from = dayjs()
    .tz(KST)
    .subtract(days - 1, 'day')
    .format('YYYY-MM-DD');
  const sales = useLoad(
    async () => (can('settlement:r') ? raw('GET', `/v1/sales-report?from=${from}&to=${to}&groupBy=DAY&includeTest=true`) : null),
    [store.storeId, from],
  );
  const visits = useLoad(
    async () => (can('analytics:r') ? raw('GET', `/v1/analytics/overview?from=${from}&to=${to}&includeTest=true`) : null),
    [store.storeId, from],
  );
  return (
    <Page title="분석">
      <label className="inline">
        기간{' '}
        <select value={days} onChange={(e) => setDays(Number(e.target.value))}>
          <option value={7}>최근 7일</option>
          <option value={30}>최근 30일</option>
          <option value={90}>최근 90일</option>
        </select>
      </label>
      <h2>매출</h2>
      <ErrorBox error={sales.error} />
      {sales.value === undefined ? (
        <Loading />
      ) : sales.value === null ? (
        <p className="muted">매출을 볼 권한이 없습니다.</p>
      ) : (
        <>
          <p>
            결제 {won(sales.value.summary.paymentAmount)} ({sales.value.summary.paymentCount}건) · 환불 {won(sales.value.summary.refundAmount)} · 순매출{' '}
            <strong>{won(sales.value.summary.netAmount)}</strong>
          </p>
          <SalesChart rows={everyDay(sales.value.rows, from, to)} />
        </>
      )}
      <h2>방문</h2>
      <ErrorBox error={visits.error} />
      {visits.value === undefined ? (
        <Loading />
      ) : visits.value === null ? (
        <p className="muted">방문 분석을 볼 권한이 없습니다.</p>
      ) : (
        <div className="cards">
          {[
            ['방문', visits.value.summary.sessions],
            ['방문자', visits.value.summary.visitors],
            ['페이지뷰', visits.value.summary.pageViews],
            ['상품 조회', visits.value.summary.productViews],
            ['장바구니', visits.value.summary.cartAdds],
            ['구매', visits.value.summary.purchases],
          ].map(([label, value]) => (
            <div className="card" key={label}>
              <h3>{label}</h3>
              <p className="figure">{Number(value ?? 0).toLocaleString('ko-KR')}</p>
            </div>
          ))}
        </div>
      )}
    </Page>
  );
}
