/** Small shared pieces of every page: loading and error states, a data hook, status badges. */
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { ApiFailure } from './api.js';

export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): { value: T | undefined; error: Error | undefined; reload: () => void } {
  const [state, setState] = useState<{ value?: T; error?: Error }>({});
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    let live = true;
    loadRef.current().then(
      (value) => live && setState({ value }),
      (error: Error) => live && setState((s) => ({ value: s.value, error })),
    );
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { value: state.value, error: state.error, reload };
}

export const Loading = () => (
  <p className="muted" role="status">
    불러오는 중…
  </p>
);

export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  const e = error as Error;
  return (
    <p className="error" role="alert">
      {e instanceof ApiFailure ? `${e.message} (${e.code})` : e.message}
    </p>
  );
}

export function Page({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · svc 콘솔`;
  }, [title]);
  return (
    <section className="page">
      <header className="page-head">
        <h1>{title}</h1>
        {actions ? <div className="page-actions">{actions}</div> : null}
      </header>
      {children}
    </section>
  );
}

export const Badge = ({ tone = 'neutral', children }: { tone?: 'neutral' | 'good' | 'warn' | 'bad'; children: ReactNode }) => (
  <span className={`badge badge-${tone}`}>{children}</span>
);

/** A button whose click runs an API call: busy while it runs, its failure shown beside it. */
export function ActionButton({
  onRun,
  children,
  tone,
  disabled,
}: {
  onRun: () => Promise<unknown>;
  children: ReactNode;
  tone?: 'primary' | 'danger';
  disabled?: boolean;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  return (
    <span className="action">
      <button
        type="button"
        className={tone}
        disabled={busy || disabled}
        onClick={async () => {
          setBusy(true);
          setError(null);
          try {
            await onRun();
          } catch (e) {
            setError(e);
          } finally {
            setBusy(false);
          }
        }}
      >
        {children}
      </button>
      <ErrorBox error={error} />
    </span>
  );
}

/** Previous/next over a paged list (`{ page, totalPages, totalElements }` of the API), `unit` counting its rows. */
export function Pager({
  page,
  list,
  unit,
  onPage,
}: {
  page: number;
  list: { page: number; totalPages: number; totalElements: number };
  unit: string;
  onPage: (page: number) => void;
}) {
  return (
    <p className="pager">
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        이전
      </button>
      <span>
        {list.page} / {Math.max(list.totalPages, 1)} 페이지 · {list.totalElements}
        {unit}
      </span>
      <button type="button" disabled={page >= list.totalPages} onClick={() => onPage(page + 1)}>
        다음
      </button>
    </p>
  );
}

/**
 * A table in a frame that scrolls sideways on a narrow screen. The frame is a named, focusable region, so a
 * keyboard can scroll it as well (axe: scrollable-region-focusable).
 */
export function Table({
  label,
  columns,
  caption,
  className,
  testId,
  children,
}: {
  label: string;
  columns: ReactNode[];
  caption?: ReactNode;
  className?: string;
  testId?: string;
  children: ReactNode;
}) {
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label={label}>
      <table className={className} data-testid={testId}>
        {caption}
        <thead>
          <tr>
            {columns.map((column, i) => (
              <th scope="col" key={i}>
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
