import type { Definition, Transition } from '../modules/flows/index.js';

/**
 * A flow definition as a picture a seller can paste anywhere: Mermaid (`stateDiagram-v2`, rendered by
 * GitHub, Notion and most wikis) or Graphviz dot. States show their label and core status; transitions
 * their trigger and condition.
 */

function triggerText(def: Definition, t: Transition): string {
  const on = t.on;
  let text: string;
  if ('action' in on) text = `${on.action} (${def.actions[on.action]?.actor ?? '?'})`;
  else if ('event' in on) text = on.event;
  else text = 'after' in on.timer ? `after ${on.timer.after}` : `at ${on.timer.at}`;
  return t.when ? `${text} [${t.when}]` : text;
}

/** Mermaid labels cannot hold `:` after the first, nor `;`, `"`, `<`, `>`, `#`: they become look-alikes. */
const mermaidText = (s: string) => s.replace(/:/g, '∶').replace(/;/g, '，').replace(/"/g, "'").replace(/</g, '‹').replace(/>/g, '›').replace(/#/g, '＃');

export function toMermaid(def: Definition): string {
  const lines = ['stateDiagram-v2', `  [*] --> ${def.initial}`];
  for (const [key, state] of Object.entries(def.states)) lines.push(`  ${key} : ${mermaidText(`${state.label} · ${state.coreStatus}`)}`);
  for (const t of def.transitions) lines.push(`  ${t.from} --> ${t.to} : ${mermaidText(triggerText(def, t))}`);
  for (const [key, state] of Object.entries(def.states)) if (state.final) lines.push(`  ${key} --> [*]`);
  return lines.join('\n');
}

const dotString = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

export function toDot(def: Definition, name = 'flow'): string {
  const lines = [
    `digraph ${dotString(name)} {`,
    '  rankdir=LR;',
    '  node [shape=box, style=rounded];',
    '  "__start" [shape=point];',
    `  "__start" -> ${dotString(def.initial)};`,
  ];
  for (const [key, state] of Object.entries(def.states)) {
    lines.push(`  ${dotString(key)} [label=${dotString(`${state.label}\n${key} · ${state.coreStatus}`)}${state.final ? ', peripheries=2' : ''}];`);
  }
  for (const t of def.transitions) {
    const style = 'timer' in t.on ? ', style=dashed' : 'event' in t.on ? ', style=dotted' : '';
    lines.push(`  ${dotString(t.from)} -> ${dotString(t.to)} [label=${dotString(triggerText(def, t))}${style}];`);
  }
  lines.push('}');
  return lines.join('\n');
}
