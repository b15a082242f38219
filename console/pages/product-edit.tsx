/** A product made or edited: name, price, status, option groups, add-ons and stock per variant. */
import { useEffect, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { ApiFailure, raw } from '../api.js';
import dayjs from 'dayjs';
import { kstToday, won } from '../format.js';
import { useSession } from '../session.js';
import type { components } from '../openapi.js';
import { ActionButton, ErrorBox, Loading, Page, Table, useLoad } from '../ui.js';
import { PRODUCT_STATUS } from './products.js';

interface Addon {
  name: string;
  required: boolean;
  values: { name: string; additionalPrice: number }[];
}
interface OptionGroup {
  name: string;
  values: string[];
}
type CustomInput = components['schemas']['Product']['customInputs'][number];
export const INPUT_TYPES: Record<CustomInput['type'], string> = { TEXT: '한 줄 입력', TEXTAREA: '여러 줄 입력', SELECT: '선택형' };
interface Draft {
  name: string;
  salePrice: number;
  stockQuantity: number;
  status: string;
  options: OptionGroup[];
  addons: Addon[];
  customInputs: CustomInput[];
}

const EMPTY: Draft = { name: '', salePrice: 10000, stockQuantity: 100, status: 'ON_SALE', options: [], addons: [], customInputs: [] };
const csv = (text: string) =>
  text
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);

/** A comma-separated list typed as text: the text stays as typed (a trailing comma too) while the list follows it. */
function CsvInput({ values, onValues, name }: { values: string[]; onValues: (values: string[]) => void; name?: string }) {
  const [text, setText] = useState(values.join(', '));
  useEffect(() => {
    if (csv(text).join('\u0000') !== values.join('\u0000')) setText(values.join(', '));
  }, [values]);
  return (
    <input
      name={name}
      value={text}
      onChange={(e) => {
        setText(e.target.value);
        onValues(csv(e.target.value));
      }}
    />
  );
}

export default function ProductEdit({ params }: { params: { productId?: string } }) {
  const { can } = useSession();
  const [, navigate] = useLocation();
  const productId = params.productId;
  const loaded = useLoad(async () => (productId ? raw('GET', `/v1/products/${productId}`) : null), [productId]);
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState('');
  useEffect(() => {
    const p = loaded.value;
    if (p)
      setDraft({
        name: p.name,
        salePrice: p.salePrice,
        stockQuantity: p.stockQuantity,
        status: p.status,
        options: p.options,
        addons: p.addons.map((a: any) => ({
          name: a.name,
          required: a.required,
          values: a.values.map((v: any) => ({ name: v.name, additionalPrice: v.additionalPrice })),
        })),
        customInputs: (p.customInputs ?? []).map((c: any) => ({
          label: c.label,
          placeholder: c.placeholder,
          maxLength: c.maxLength,
          required: c.required,
          key: c.key,
          type: c.type,
          options: c.options,
        })),
      });
  }, [loaded.value]);
  const editable = can('product:rw');
  if (productId && !loaded.value) return loaded.error ? <ErrorBox error={loaded.error} /> : <Loading />;
  const product = loaded.value;

  const save = async () => {
    setError(null);
    setSaved('');
    try {
      if (!productId) {
        const created = await raw('POST', '/v1/products', {
          name: draft.name,
          salePrice: draft.salePrice,
          stockQuantity: draft.stockQuantity,
          status: draft.status,
          ...(draft.options.length ? { options: draft.options } : {}),
          addons: draft.addons,
          customInputs: draft.customInputs,
        });
        navigate(`/products/${created.productId}`);
        return;
      }
      await raw('PATCH', `/v1/products/${productId}`, {
        name: draft.name,
        salePrice: draft.salePrice,
        status: draft.status,
        addons: draft.addons,
        customInputs: draft.customInputs,
      });
      setSaved('저장했습니다.');
      loaded.reload();
    } catch (e) {
      setError(e instanceof ApiFailure && e.status === 202 ? new Error('승인이 필요합니다.') : e);
    }
  };

  const setAddon = (i: number, addon: Addon) => setDraft({ ...draft, addons: draft.addons.map((a, j) => (j === i ? addon : a)) });
  const setInput = (i: number, input: CustomInput) => setDraft({ ...draft, customInputs: draft.customInputs.map((c, j) => (j === i ? input : c)) });
  return (
    <Page title={product ? product.name : '상품 등록'} actions={<Link href="/products">← 상품 목록</Link>}>
      <form
        className="form"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <fieldset disabled={!editable}>
          <legend>기본 정보</legend>
          <label>
            상품명
            <input name="name" required value={draft.name} onChange={(e) => setDraft({ ...draft, name: e.target.value })} />
          </label>
          <label>
            판매가 (원)
            <input
              name="salePrice"
              type="number"
              min={10}
              step={10}
              required
              value={draft.salePrice}
              onChange={(e) => setDraft({ ...draft, salePrice: Number(e.target.value) })}
            />
          </label>
          {!productId ? (
            <label>
              재고
              <input
                name="stockQuantity"
                type="number"
                min={0}
                value={draft.stockQuantity}
                onChange={(e) => setDraft({ ...draft, stockQuantity: Number(e.target.value) })}
              />
            </label>
          ) : null}
          <label>
            상태
            <select name="status" value={draft.status} onChange={(e) => setDraft({ ...draft, status: e.target.value })}>
              {Object.entries(PRODUCT_STATUS).map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </label>
        </fieldset>
        {!productId ? (
          <fieldset disabled={!editable}>
            <legend>옵션 (최대 3개)</legend>
            {draft.options.map((group, i) => (
              <div className="row" key={i}>
                <label>
                  옵션명
                  <input
                    value={group.name}
                    onChange={(e) => setDraft({ ...draft, options: draft.options.map((g, j) => (j === i ? { ...g, name: e.target.value } : g)) })}
                  />
                </label>
                <label>
                  값 (쉼표로 구분)
                  <CsvInput
                    values={group.values}
                    onValues={(values) => setDraft({ ...draft, options: draft.options.map((g, j) => (j === i ? { ...g, values } : g)) })}
                  />
                </label>
              </div>
            ))}
            {draft.options.length < 3 ? (
              <button type="button" onClick={() => setDraft({ ...draft, options: [...draft.options, { name: '', values: [] }] })}>
                옵션 추가
              </button>
            ) : null}
          </fieldset>
        ) : null}
        <fieldset disabled={!editable}>
          <legend>추가 상품 (애드온)</legend>
          {draft.addons.map((addon, i) => (
            <div className="addon" key={i} data-testid="addon">
              <div className="row">
                <label>
                  추가 상품명
                  <input name={`addon-${i}-name`} value={addon.name} onChange={(e) => setAddon(i, { ...addon, name: e.target.value })} />
                </label>
                <label className="check">
                  <input type="checkbox" checked={addon.required} onChange={(e) => setAddon(i, { ...addon, required: e.target.checked })} />
                  필수 선택
                </label>
              </div>
              {addon.values.map((v, k) => (
                <div className="row" key={k}>
                  <label>
                    선택지
                    <input
                      name={`addon-${i}-value-${k}`}
                      value={v.name}
                      onChange={(e) => setAddon(i, { ...addon, values: addon.values.map((x, j) => (j === k ? { ...x, name: e.target.value } : x)) })}
                    />
                  </label>
                  <label>
                    추가 금액 (원)
                    <input
                      name={`addon-${i}-price-${k}`}
                      type="number"
                      min={0}
                      step={10}
                      value={v.additionalPrice}
                      onChange={(e) =>
                        setAddon(i, { ...addon, values: addon.values.map((x, j) => (j === k ? { ...x, additionalPrice: Number(e.target.value) } : x)) })
                      }
                    />
                  </label>
                </div>
              ))}
              <button type="button" onClick={() => setAddon(i, { ...addon, values: [...addon.values, { name: '', additionalPrice: 0 }] })}>
                선택지 추가
              </button>{' '}
              <button type="button" className="danger" onClick={() => setDraft({ ...draft, addons: draft.addons.filter((_, j) => j !== i) })}>
                추가 상품 삭제
              </button>
            </div>
          ))}
          <button
            type="button"
            onClick={() => setDraft({ ...draft, addons: [...draft.addons, { name: '', required: false, values: [{ name: '', additionalPrice: 0 }] }] })}
          >
            추가 상품 넣기
          </button>
        </fieldset>
        <fieldset disabled={!editable}>
          <legend>구매자 입력 항목</legend>
          {draft.customInputs.map((input, i) => (
            <div className="addon" key={i} data-testid="custom-input">
              <div className="row">
                <label>
                  입력 항목명
                  <input name={`input-${i}-label`} required value={input.label} onChange={(e) => setInput(i, { ...input, label: e.target.value })} />
                </label>
                <label>
                  입력 키 (영문)
                  <input
                    name={`input-${i}-key`}
                    required
                    pattern="[a-zA-Z][a-zA-Z0-9_]{0,39}"
                    value={input.key}
                    onChange={(e) => setInput(i, { ...input, key: e.target.value })}
                  />
                </label>
                <label>
                  입력 형식
                  <select name={`input-${i}-type`} value={input.type} onChange={(e) => setInput(i, { ...input, type: e.target.value as CustomInput['type'] })}>
                    {Object.entries(INPUT_TYPES).map(([value, label]) => (
                      <option key={value} value={value}>
                        {label}
                      </option>
                    ))}
                  </select>
                </label>
              </div>
              <div className="row">
                <label>
                  안내 문구
                  <input
                    name={`input-${i}-placeholder`}
                    value={input.placeholder ?? ''}
                    onChange={(e) => setInput(i, { ...input, placeholder: e.target.value || null })}
                  />
                </label>
                <label>
                  최대 글자 수
                  <input
                    name={`input-${i}-maxLength`}
                    type="number"
                    min={1}
                    max={1000}
                    value={input.maxLength}
                    onChange={(e) => setInput(i, { ...input, maxLength: Number(e.target.value) })}
                  />
                </label>
                <label className="check">
                  <input type="checkbox" checked={input.required} onChange={(e) => setInput(i, { ...input, required: e.target.checked })} />
                  필수 입력
                </label>
              </div>
              {input.type === 'SELECT' ? (
                <label>
                  선택형 선택지 (쉼표로 구분)
                  <CsvInput name={`input-${i}-options`} values={input.options} onValues={(options) => setInput(i, { ...input, options })} />
                </label>
              ) : null}
              <button type="button" className="danger" onClick={() => setDraft({ ...draft, customInputs: draft.customInputs.filter((_, j) => j !== i) })}>
                입력 항목 삭제
              </button>
            </div>
          ))}
          <button
            type="button"
            onClick={() =>
              setDraft({
                ...draft,
                customInputs: [
                  ...draft.customInputs,
                  { label: '', placeholder: null, maxLength: 100, required: false, key: `input${draft.customInputs.length + 1}`, type: 'TEXT', options: [] },
                ],
              })
            }
          >
            입력 항목 추가
          </button>
        </fieldset>
        {editable ? (
          <p>
            <button type="submit" className="primary">
              {productId ? '저장' : '등록'}
            </button>{' '}
            <span role="status">{saved}</span>
          </p>
        ) : (
          <p className="muted">상품을 바꿀 권한이 없습니다.</p>
        )}
        <ErrorBox error={error} />
      </form>
      {product ? (
        <section>
          <h2>재고</h2>
          {product.inventoryMode === 'DATED' ? (
            <StockCalendar product={product} editable={editable} />
          ) : (
            <Table label="옵션별 재고" caption={<caption className="visually-hidden">옵션별 재고</caption>} columns={['옵션', '추가 금액', '재고', '변경']}>
              {product.variants.map((v: any) => (
                <StockRow key={v.variantId} productId={product.productId} variant={v} editable={editable} onDone={loaded.reload} />
              ))}
            </Table>
          )}
        </section>
      ) : null}
    </Page>
  );
}

function StockRow({ productId, variant, editable, onDone }: { productId: string; variant: any; editable: boolean; onDone: () => void }) {
  const [quantity, setQuantity] = useState(String(variant.stockQuantity));
  const name = variant.optionValues.length ? variant.optionValues.join(' / ') : '기본';
  return (
    <tr>
      <td>{name}</td>
      <td className="num">{won(variant.additionalAmount)}</td>
      <td className="num">{variant.stockQuantity.toLocaleString('ko-KR')}</td>
      <td>
        {editable ? (
          <>
            <input aria-label={`${name} 재고`} type="number" min={0} value={quantity} onChange={(e) => setQuantity(e.target.value)} className="narrow" />{' '}
            <ActionButton
              onRun={() => raw('PATCH', `/v1/products/${productId}/variants/${variant.variantId}/stock`, { stockQuantity: Number(quantity) }).then(onDone)}
            >
              재고 저장
            </ActionButton>
          </>
        ) : null}
      </td>
    </tr>
  );
}

const WEEKDAYS = ['일', '월', '화', '수', '목', '금', '토'];

/** The month of a DATED product as a grid (KST dates, weeks from Sunday): each day's stock, editable with product:rw. */
function StockCalendar({ product, editable }: { product: any; editable: boolean }) {
  const [month, setMonth] = useState(() => kstToday().slice(0, 7));
  const [variantId, setVariantId] = useState<string>(product.variants[0]?.variantId ?? '');
  const [edits, setEdits] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState('');
  const first = dayjs(`${month}-01`);
  const from = first.format('YYYY-MM-DD');
  const to = first.endOf('month').format('YYYY-MM-DD');
  const calendar = useLoad(() => raw('GET', `/v1/products/${product.productId}/calendar?from=${from}&to=${to}`), [product.productId, from, to]);
  const variant = calendar.value?.variants.find((v: any) => v.variantId === variantId) ?? calendar.value?.variants[0];
  const days: Record<string, { stock: number; price: number }> = Object.fromEntries((variant?.days ?? []).map((d: any) => [d.date, d]));
  const cells: (string | null)[] = [...Array(first.day()).fill(null)];
  for (let d = first; d.month() === first.month(); d = d.add(1, 'day')) cells.push(d.format('YYYY-MM-DD'));
  while (cells.length % 7) cells.push(null);
  const weeks = Array.from({ length: cells.length / 7 }, (_, w) => cells.slice(w * 7, w * 7 + 7));
  const move = (n: number) => {
    setEdits({});
    setSaved('');
    setMonth(first.add(n, 'month').format('YYYY-MM'));
  };
  const save = async () => {
    setError(null);
    setSaved('');
    try {
      for (const [date, stock] of Object.entries(edits))
        await raw('PUT', `/v1/products/${product.productId}/calendar`, { variantIds: [variant.variantId], from: date, to: date, stock: Number(stock) });
      setEdits({});
      setSaved('날짜별 재고를 저장했습니다.');
      calendar.reload();
    } catch (e) {
      setError(e);
    }
  };
  return (
    <div data-testid="stock-calendar">
      <p className="row">
        <button type="button" onClick={() => move(-1)}>
          ← 이전 달
        </button>
        <strong>{first.format('YYYY년 M월')} (KST)</strong>
        <button type="button" onClick={() => move(1)}>
          다음 달 →
        </button>
        {product.variants.length > 1 ? (
          <label>
            옵션
            <select
              value={variant?.variantId ?? variantId}
              onChange={(e) => {
                setVariantId(e.target.value);
                setEdits({});
              }}
            >
              {product.variants.map((v: any) => (
                <option key={v.variantId} value={v.variantId}>
                  {v.optionValues.join(' / ') || '기본'}
                </option>
              ))}
            </select>
          </label>
        ) : null}
      </p>
      {calendar.error ? <ErrorBox error={calendar.error} /> : null}
      {!calendar.value ? (
        <Loading />
      ) : (
        <Table
          label={`${first.format('YYYY년 M월')} 날짜별 재고`}
          className="calendar"
          caption={<caption className="visually-hidden">{first.format('YYYY년 M월')} 날짜별 재고</caption>}
          columns={WEEKDAYS}
        >
          {weeks.map((week, w) => (
            <tr key={w}>
              {week.map((date, k) =>
                date ? (
                  <td key={date} data-date={date}>
                    <div>{Number(date.slice(8))}일</div>
                    {editable ? (
                      <input
                        aria-label={`${date} 재고`}
                        type="number"
                        min={0}
                        className="narrow"
                        value={edits[date] ?? String(days[date]?.stock ?? 0)}
                        onChange={(e) => setEdits({ ...edits, [date]: e.target.value })}
                      />
                    ) : (
                      <div className="num">재고 {(days[date]?.stock ?? 0).toLocaleString('ko-KR')}</div>
                    )}
                  </td>
                ) : (
                  <td key={`blank-${k}`} />
                ),
              )}
            </tr>
          ))}
        </Table>
      )}
      {editable ? (
        <p>
          <button type="button" className="primary" disabled={!Object.keys(edits).length} onClick={() => void save()}>
            날짜별 재고 저장
          </button>{' '}
          <span role="status">{saved}</span>
        </p>
      ) : null}
      <ErrorBox error={error} />
    </div>
  );
}
