/** `npm run bench -- --check`: the figures of a run against test/bench/budgets.json. */
import type { Figure } from './lib.js';

export type RecordedFigure = Figure & { bench: string };

/**
 * One target: the figure `figure` of bench `bench`, its `field` (the value, or its ratio to the run's
 * baseline) at most `max` or at least `min`. A figure within `margin` (a fraction of the bound) past its
 * bound still passes: the run-to-run noise of that figure on a busy two-core machine.
 */
export interface Budget {
  bench: string;
  figure: string;
  field: 'value' | 'ratio';
  max?: number;
  min?: number;
  margin: number;
  /** The target as issue 31's table writes it. */
  target: string;
}

const show = (n: number) => (Math.abs(n) >= 100 ? Math.round(n).toLocaleString('en') : n.toPrecision(3));

/** Prints ✔ or ✘ per budget and answers how many missed (a budget whose bench ran but recorded no such figure misses too). */
export function checkBudgets(budgets: Budget[], figures: RecordedFigure[], print: (line: string) => void): number {
  print('\nBudgets (test/bench/budgets.json)');
  let missed = 0;
  for (const budget of budgets) {
    const found = figures.find((f) => f.bench === budget.bench && f.name === budget.figure);
    const value = found?.[budget.field];
    const label = `${budget.bench}: ${budget.figure}${budget.field === 'ratio' ? ` ÷ ${found?.baseline ?? 'baseline'}` : ''}`;
    if (value === undefined) {
      missed++;
      print(`✘ ${label} — not measured (target ${budget.target})`);
      continue;
    }
    const ok = budget.max !== undefined ? value <= budget.max * (1 + budget.margin) : value >= budget.min! * (1 - budget.margin);
    if (!ok) missed++;
    const bound = budget.max !== undefined ? `≤ ${show(budget.max)}` : `≥ ${show(budget.min!)}`;
    const unit = budget.field === 'ratio' ? '×' : ` ${found!.unit}`;
    print(`${ok ? '✔' : '✘'} ${label}: ${show(value)}${unit} (budget ${bound}${unit} ± ${Math.round(budget.margin * 100)}%; target ${budget.target})`);
  }
  print(missed ? `${missed} of ${budgets.length} budgets missed` : `all ${budgets.length} budgets met`);
  return missed;
}
