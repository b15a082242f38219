/** Products: the store's catalog with price, stock and status. */
import { useState } from 'react';
import { Link } from 'wouter';
import { api, data } from '../api.js';
import { won } from '../format.js';
import { useSession } from '../session.js';
import { Badge, ErrorBox, Loading, Page, useLoad, Pager } from '../ui.js';

export const PRODUCT_STATUS: Record<string, string> = { ON_SALE: '판매 중', SOLD_OUT: '품절', SUSPENDED: '판매 중지', ENDED: '판매 종료' };

export default function Products() {
  const { can, store } = useSession();
  const [page, setPage] = useState(1);
  const products = useLoad(() => data(api.GET('/v1/products', { params: { query: { page, size: 20 } } })), [store.storeId, page]);
  const list = products.value;
  return (
    <Page
      title="상품"
      actions={
        can('product:rw') ? (
          <Link href="/products/new" className="button primary">
            상품 등록
          </Link>
        ) : null
      }
    >
      <ErrorBox error={products.error} />
      {!list ? (
        <Loading />
      ) : (
        <>
          <div className="table-wrap">
            <table>
              <caption className="visually-hidden">상품 목록</caption>
              <thead>
                <tr>
                  <th scope="col">상품</th>
                  <th scope="col">판매가</th>
                  <th scope="col">재고</th>
                  <th scope="col">상태</th>
                </tr>
              </thead>
              <tbody>
                {list.contents.map((p) => (
                  <tr key={p.productId}>
                    <td>
                      <Link href={`/products/${p.productId}`}>{p.name}</Link> {p.isSample ? <Badge>예시</Badge> : null}
                      {p.addons.length ? <span className="muted"> · 추가 옵션 {p.addons.length}개</span> : null}
                    </td>
                    <td className="num">{won(p.salePrice)}</td>
                    <td className="num">{p.inventoryMode === 'DATED' ? '날짜별' : p.stockQuantity.toLocaleString('ko-KR')}</td>
                    <td>{PRODUCT_STATUS[p.status] ?? p.status}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} list={list} unit="개" onPage={setPage} />
        </>
      )}
    </Page>
  );
}
