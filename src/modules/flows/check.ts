import { CORE_STATUSES, coreRank } from '../orders/index.js';
import { APP_CHANNEL, APP_EVENT, CUSTOM_EVENT, mentionsSecrets, SECRET_PARAM, type Definition, type InputDef } from './definition.js';
import { expressionProblem } from './expressions.js';

/**
 * The definition check (issue 11 Build 2): everything that would make a published flow strand an item or
 * misbehave. Errors block publishing (409 PUBLISH_BLOCKED); warnings do not. Pure: what the store has
 * installed comes in as `apps`, the names of its flow secrets as `secrets`.
 */

export interface Finding {
  code: string;
  /** Where in the definition, as a dotted path (`states.MAKING.notify[0].channel`). */
  path: string;
  message: string;
}

export interface CheckResult {
  errors: Finding[];
  warnings: Finding[];
}

/** What the flow may use of one app, by handle: null when no installation of it is active in the store. */
export interface InstalledApp {
  notifications: Record<string, { params?: Record<string, { required?: boolean }> }>;
  events: string[];
}
export type AppLookup = (handle: string) => InstalledApp | null;

/** Kinds that choose among `options`, and those that may not have any. */
const CHOICE_KINDS = new Set(['radio', 'select', 'checkbox']);
/** Core statuses a claim ends in: reaching them from anywhere is no step back. */
const CLAIM_OUTCOMES = new Set(['CANCELED', 'RETURNED', 'EXCHANGED']);
/** Offered only while a claim is open (engine.ts): it needs no transition. */
const WITHDRAW = 'WITHDRAW_REQUEST';

export function checkDefinition(def: Definition, apps: AppLookup, secrets: ReadonlySet<string>): CheckResult {
  const errors: Finding[] = [];
  const warnings: Finding[] = [];
  const error = (code: string, path: string, message: string) => errors.push({ code, path, message });
  const warn = (code: string, path: string, message: string) => warnings.push({ code, path, message });
  const states = def.states;

  if (!states[def.initial]) error('INITIAL_MISSING', 'initial', `시작 상태 ${def.initial}이(가) states에 없습니다.`);

  def.transitions.forEach((t, i) => {
    const at = `transitions[${i}]`;
    if (!states[t.from]) error('UNKNOWN_STATE', `${at}.from`, `없는 상태 ${t.from}에서 출발합니다.`);
    if (!states[t.to]) error('UNKNOWN_STATE', `${at}.to`, `없는 상태 ${t.to}(으)로 갑니다.`);
    if ('action' in t.on && !def.actions[t.on.action]) error('UNKNOWN_ACTION', `${at}.on.action`, `actions에 없는 작업 ${t.on.action}입니다.`);
    if ('event' in t.on) checkEvent(t.on.event, `${at}.on.event`);
    if ('timer' in t.on && 'at' in t.on.timer) checkExpression(t.on.timer.at, `${at}.on.timer.at`);
    if (t.when !== undefined) checkExpression(t.when, `${at}.when`);
    const from = states[t.from];
    const to = states[t.to];
    if (from && to && !CLAIM_OUTCOMES.has(to.coreStatus) && coreRank(to.coreStatus) < coreRank(from.coreStatus)) {
      error('CORE_STATUS_BACKWARDS', at, `핵심 상태가 ${from.coreStatus}에서 ${to.coreStatus}(으)로 되돌아갑니다.`);
    }
  });

  const reachable = reachableStates(def);
  for (const [key, state] of Object.entries(states)) {
    const at = `states.${key}`;
    const exits = def.transitions.filter((t) => t.from === key).length;
    if (states[def.initial] && !reachable.has(key)) error('UNREACHABLE_STATE', at, `시작 상태에서 ${key}에 이를 수 없습니다.`);
    if (exits === 0 && !state.final) error('DEAD_END', at, `${key}에서 나가는 길이 없는데 final이 아닙니다.`);
    if (exits > 0 && state.final) warn('FINAL_HAS_EXITS', at, `final 상태 ${key}에서 나가는 전이가 있습니다.`);
    if (!(CORE_STATUSES as readonly string[]).includes(state.coreStatus))
      warn('UNKNOWN_CORE_STATUS', `${at}.coreStatus`, `알려진 핵심 상태가 아닙니다: ${state.coreStatus}`);
    (state.notify ?? []).forEach((n, i) => {
      const path = `${at}.notify[${i}]`;
      checkChannel(n.channel, n.params ?? {}, `${path}.channel`);
      for (const [name, source] of Object.entries(n.params ?? {})) checkParam(n.channel, source, `${path}.params.${name}`);
    });
  }

  for (const [key, action] of Object.entries(def.actions)) {
    const at = `actions.${key}`;
    checkInputs(action.inputs ?? [], `${at}.inputs`);
    if (key !== WITHDRAW && !def.transitions.some((t) => 'action' in t.on && t.on.action === key))
      warn('ACTION_UNUSED', at, `작업 ${key}을(를) 쓰는 전이가 없습니다.`);
    if (action.authority === 'IMMEDIATE_CANCEL' && !isBuyerCancel(def, key))
      warn('AUTHORITY_NOT_BUYER_CANCEL', `${at}.authority`, `IMMEDIATE_CANCEL은 취소 상태(coreStatus CANCELED)로 가는 구매자(BUYER) 작업에만 뜻이 있습니다.`);
  }
  return { errors, warnings };

  function checkExpression(source: string, path: string) {
    const problem = expressionProblem(source);
    if (problem) error('EXPRESSION_INVALID', path, `식을 해석할 수 없습니다: ${problem}`);
  }

  function checkEvent(name: string, path: string) {
    if (CUSTOM_EVENT.test(name)) return;
    const m = APP_EVENT.exec(name);
    if (!m) return error('UNKNOWN_EVENT', path, `custom.<이름> 또는 app.<handle>.<EVENT> 형식의 이벤트가 아닙니다: ${name}`);
    const app = apps(m[1]);
    if (!app) return error('APP_NOT_INSTALLED', path, `앱 ${m[1]}이(가) 이 상점에 설치되어 있지 않습니다.`);
    if (!app.events.includes(m[2])) error('UNKNOWN_EVENT', path, `앱 ${m[1]}의 manifest flow.events에 ${m[2]}이(가) 없습니다.`);
  }

  /** Secrets go whole to app functions only: never into webhooks or e-mail, never mixed into a computed value. */
  function checkParam(channel: string, source: string, path: string) {
    const secret = SECRET_PARAM.exec(source);
    if (secret && APP_CHANNEL.test(channel)) {
      if (!secrets.has(secret[1])) warn('SECRET_MISSING', path, `저장된 flow secret ${secret[1]}이(가) 없어 null로 갑니다.`);
      return;
    }
    if (mentionsSecrets(source)) return error('SECRET_NOT_ALLOWED', path, 'secrets는 앱 알림 파라미터에 secrets.<이름> 그대로만 쓸 수 있습니다.');
    checkExpression(source, path);
  }

  function checkChannel(channel: string, params: Record<string, string>, path: string) {
    if (channel === 'webhook' || channel === 'email') return;
    const m = APP_CHANNEL.exec(channel);
    if (!m) return error('UNKNOWN_CHANNEL', path, `webhook, email, app.<handle>.<알림> 중 하나가 아닙니다: ${channel}`);
    const app = apps(m[1]);
    if (!app) return error('APP_NOT_INSTALLED', path, `앱 ${m[1]}이(가) 이 상점에 설치되어 있지 않습니다.`);
    const notification = app.notifications[m[2]];
    if (!notification) return error('APP_NOTIFICATION_UNKNOWN', path, `앱 ${m[1]}의 manifest flow.notifications에 ${m[2]}이(가) 없습니다.`);
    const declared = notification.params ?? {};
    for (const name of Object.keys(params))
      if (!declared[name]) warn('APP_PARAM_UNKNOWN', `${path.replace(/\.channel$/, '')}.params.${name}`, `앱 알림 ${m[2]}에 없는 파라미터입니다.`);
    for (const [name, p] of Object.entries(declared))
      if (p.required && params[name] === undefined)
        warn('APP_PARAM_MISSING', `${path.replace(/\.channel$/, '')}.params`, `필수 파라미터 ${name}이(가) 없어 null로 갑니다.`);
  }

  function checkInputs(inputs: InputDef[], at: string) {
    const seen = new Map<string, InputDef>();
    inputs.forEach((input, i) => {
      const path = `${at}[${i}]`;
      const bad = (message: string) => error('INPUT_INVALID', path, message);
      if (seen.has(input.key)) bad(`입력 키 ${input.key}이(가) 겹칩니다.`);
      const options = input.options ?? [];
      if (CHOICE_KINDS.has(input.kind) && options.length === 0) bad(`${input.kind} 입력에는 options가 있어야 합니다.`);
      if (!CHOICE_KINDS.has(input.kind) && input.options !== undefined) bad(`${input.kind} 입력은 options를 받지 않습니다.`);
      if (new Set(options.map((o) => o.value)).size !== options.length) bad('options의 value가 겹칩니다.');
      if (input.placeholder !== undefined && !['text', 'textarea', 'datetime'].includes(input.kind)) bad(`${input.kind} 입력은 placeholder를 받지 않습니다.`);
      if (input.when) {
        // A condition reads an input shown before this one, so the form can be filled top to bottom.
        const other = seen.get(input.when.key);
        if (!other) bad(`when.key ${input.when.key}은(는) 앞에 있는 다른 입력이어야 합니다.`);
        else if (other.options?.length && input.when.in.some((v) => typeof v !== 'string' || !other.options!.some((o) => o.value === v)))
          bad(`when.in에 ${other.key}의 선택지에 없는 값이 있습니다.`);
        else if (other.kind === 'boolean' && input.when.in.some((v) => typeof v !== 'boolean')) bad(`when.in은 ${other.key}(boolean)의 true/false여야 합니다.`);
      }
      seen.set(input.key, input);
    });
  }
}

/**
 * A buyer cancel: a BUYER action whose transitions all lead to a state of core status CANCELED. Its authority
 * IMMEDIATE_CANCEL makes the buyer's cancel apply at once where it is offered (engine.ts `offersImmediateCancel`).
 */
function isBuyerCancel(def: Definition, key: string): boolean {
  const leads = def.transitions.filter((t) => 'action' in t.on && t.on.action === key);
  return def.actions[key]?.actor === 'BUYER' && leads.length > 0 && leads.every((t) => def.states[t.to]?.coreStatus === 'CANCELED');
}

/** States reachable from the initial one by any transition. */
function reachableStates(def: Definition): Set<string> {
  const seen = new Set<string>();
  const queue = def.states[def.initial] ? [def.initial] : [];
  while (queue.length) {
    const state = queue.pop()!;
    if (seen.has(state)) continue;
    seen.add(state);
    for (const t of def.transitions) if (t.from === state && def.states[t.to] && !seen.has(t.to)) queue.push(t.to);
  }
  return seen;
}
