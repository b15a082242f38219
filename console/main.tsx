/**
 * The console's entry: signs in (OAuth + PKCE, console/auth.ts), loads who is signed in and their stores, and
 * draws the shell with the route's page. Every page is its own chunk, loaded on first visit.
 */
import { lazy, Suspense, useEffect, useMemo, useState, type ComponentType } from 'react';
import { createRoot } from 'react-dom/client';
import { Link, Route, Router, Switch, useLocation } from 'wouter';
import { data, api, setApiStore } from './api.js';
import { finishSignIn, signedIn, signOut, startSignIn } from './auth.js';
import { canWith, SessionContext, useSession, type Me, type Role, type Session, type StoreMembership } from './session.js';
import { ErrorBox, Loading } from './ui.js';

const page = (load: () => Promise<{ default: ComponentType<any> }>) => lazy(load);
const Home = page(() => import('./pages/home.js'));
const Orders = page(() => import('./pages/orders.js'));
const Order = page(() => import('./pages/order.js'));
const Products = page(() => import('./pages/products.js'));
const ProductEdit = page(() => import('./pages/product-edit.js'));
const Approvals = page(() => import('./pages/approvals.js'));
const Webhooks = page(() => import('./pages/webhooks.js'));
const DevTools = page(() => import('./pages/dev-tools.js'));
const Flows = page(() => import('./pages/flows.js'));
const Analytics = page(() => import('./pages/analytics.js'));
const ApiLogs = page(() => import('./pages/api-logs.js'));
const Apps = page(() => import('./pages/apps.js'));

interface NavItem {
  href: string;
  label: string;
  scope: string | null;
  roles?: Role[];
}
const NAV: NavItem[] = [
  { href: '/', label: '홈', scope: 'store:r' },
  { href: '/orders', label: '주문', scope: 'order:r' },
  { href: '/products', label: '상품', scope: 'product:r' },
  { href: '/approvals', label: '승인 요청', scope: null, roles: ['OWNER', 'ADMIN'] },
  { href: '/flows', label: '주문 흐름', scope: 'flow:r' },
  { href: '/webhooks', label: '웹훅', scope: 'webhook:r' },
  { href: '/apps', label: '앱·스토어프런트', scope: 'store:r' },
  { href: '/analytics', label: '분석', scope: 'settlement:r' },
  { href: '/api-logs', label: 'API 로그', scope: 'audit:r', roles: ['OWNER', 'ADMIN'] },
  { href: '/dev', label: '개발 도구', scope: null },
];

const STORE_KEY = 'svc-console:store';

function Shell() {
  const session = useSession();
  const [location] = useLocation();
  const nav = NAV.filter((item) => session.can(item.scope, item.roles));
  return (
    <div className="shell">
      <header className="top">
        <Link href="/" className="brand">
          svc 콘솔
        </Link>
        <label className="store-switch">
          <span className="visually-hidden">상점 선택</span>
          <select aria-label="상점 선택" value={session.store.storeId} onChange={(e) => session.setStore(e.target.value)}>
            {session.stores.map((s) => (
              <option key={s.storeId} value={s.storeId}>
                {s.name} ({s.role})
              </option>
            ))}
          </select>
        </label>
        <span className="who">{session.me.email}</span>
        <button
          type="button"
          className="link"
          onClick={async () => {
            await signOut();
            window.location.replace('/console/');
          }}
        >
          로그아웃
        </button>
      </header>
      <nav className="nav" aria-label="메뉴">
        {nav.map((item) => {
          const active = item.href === '/' ? location === '/' : location.startsWith(item.href);
          return (
            <Link key={item.href} href={item.href} className={active ? 'active' : ''} aria-current={active ? 'page' : undefined}>
              {item.label}
            </Link>
          );
        })}
      </nav>
      <main className="content" key={session.store.storeId}>
        <Suspense fallback={<Loading />}>
          <Switch>
            <Route path="/" component={Home} />
            <Route path="/orders" component={Orders} />
            <Route path="/orders/:orderId" component={Order} />
            <Route path="/products" component={Products} />
            <Route path="/products/new" component={ProductEdit} />
            <Route path="/products/:productId" component={ProductEdit} />
            <Route path="/approvals" component={Approvals} />
            <Route path="/webhooks" component={Webhooks} />
            <Route path="/flows" component={Flows} />
            <Route path="/apps" component={Apps} />
            <Route path="/analytics" component={Analytics} />
            <Route path="/api-logs" component={ApiLogs} />
            <Route path="/dev" component={DevTools} />
            <Route>
              <p>없는 화면입니다.</p>
            </Route>
          </Switch>
        </Suspense>
      </main>
    </div>
  );
}

function SignedIn() {
  const [loaded, setLoaded] = useState<{ me: Me; stores: StoreMembership[] } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [storeId, setStoreId] = useState<string | null>(null);
  useEffect(() => {
    Promise.all([data(api.GET('/auth/v1/me')), data(api.GET('/v1/me/stores'))]).then(([me, stores]) => {
      const memberships = (stores as { contents: StoreMembership[] }).contents;
      const kept = sessionStorage.getItem(STORE_KEY);
      const chosen = memberships.find((s) => s.storeId === kept) ?? memberships[0];
      setApiStore(chosen?.storeId ?? null);
      setStoreId(chosen?.storeId ?? null);
      setLoaded({ me: me as unknown as Me, stores: memberships });
    }, setError);
  }, []);
  const session = useMemo<Session | null>(() => {
    if (!loaded || !storeId) return null;
    const store = loaded.stores.find((s) => s.storeId === storeId)!;
    return {
      me: loaded.me,
      stores: loaded.stores,
      store,
      setStore(id) {
        sessionStorage.setItem(STORE_KEY, id);
        setApiStore(id);
        setStoreId(id);
      },
      can: (scope, roles) => canWith(loaded.me, store.role, scope, roles),
    };
  }, [loaded, storeId]);
  if (error) return <ErrorBox error={error} />;
  if (!loaded) return <Loading />;
  if (!session) return <p className="boot">이 계정에는 상점이 없습니다. svc stores로 상점을 만드세요.</p>;
  return (
    <SessionContext.Provider value={session}>
      <Shell />
    </SessionContext.Provider>
  );
}

function App() {
  const [state, setState] = useState<'signing-in' | 'ready' | { error: string }>(signedIn() ? 'ready' : 'signing-in');
  useEffect(() => {
    if (state !== 'signing-in') return;
    if (location.pathname === '/console/callback') {
      void finishSignIn().then((result) => {
        if ('error' in result) return setState({ error: result.error });
        history.replaceState(null, '', result.returnTo);
        setState('ready');
      });
    } else void startSignIn();
  }, [state]);
  if (typeof state === 'object')
    return (
      <div className="boot">
        <p role="alert">{state.error}</p>
        <button type="button" onClick={() => startSignIn('/console/')}>
          다시 로그인
        </button>
      </div>
    );
  if (state === 'signing-in') return <p className="boot">로그인으로 이동하는 중…</p>;
  return (
    <Router base="/console">
      <SignedIn />
    </Router>
  );
}

createRoot(document.getElementById('root')!).render(<App />);
