import { CORE_STATUSES } from '../orders/index.js';
import { INPUT_KINDS, type Definition, type FlowKind } from './definition.js';

/**
 * Starting points a seller installs and edits (`POST /v1/commerce-flows { presetKey }`), and the node
 * types the flow editor may place (`GET /v1/flow-node-types`). Every preset passes the check
 * (test/flows/authoring.test.ts).
 */

export interface Preset {
  key: string;
  name: string;
  kind: FlowKind;
  description: string;
  definition: Definition;
}

const decide = { label: '구매 확정', actor: 'BUYER', scope: 'ITEM' } as const;
const withdraw = { label: '요청 철회', actor: 'BUYER', scope: 'ITEM' } as const;
const decided = { label: '구매 확정', coreStatus: 'PURCHASE_DECIDED', final: true } as const;
const dispatchInputs = [
  { key: 'carrier', kind: 'text', label: '택배사', placeholder: 'CJ대한통운', required: true },
  { key: 'trackingNo', kind: 'text', label: '송장 번호', required: true },
] as const;

const madeToOrder: Definition = {
  progression: 'ITEM',
  initial: 'PAID',
  states: {
    PAID: { label: '결제 완료', coreStatus: 'PAID', claims: { cancel: 'IMMEDIATE', return: 'NONE', exchange: 'NONE' } },
    MAKING: { label: '제작중', coreStatus: 'CONFIRMED', claims: { cancel: 'REQUEST', return: 'NONE', exchange: 'NONE' } },
    PROOF_SENT: { label: '시안 확인중', coreStatus: 'CONFIRMED', notify: [{ channel: 'webhook', params: { event: '"proof-sent"' } }] },
    READY: { label: '발송 준비', coreStatus: 'CONFIRMED' },
    DISPATCHED: { label: '배송중', coreStatus: 'DISPATCHED' },
    DELIVERED: { label: '배송 완료', coreStatus: 'DELIVERED', claims: { cancel: 'NONE', return: 'REQUEST', exchange: 'NONE' } },
    PURCHASE_DECIDED: decided,
  },
  transitions: [
    { from: 'PAID', to: 'MAKING', on: { action: 'START_MAKING' } },
    { from: 'MAKING', to: 'PROOF_SENT', on: { action: 'SEND_PROOF' } },
    { from: 'PROOF_SENT', to: 'READY', on: { action: 'APPROVE_PROOF' } },
    { from: 'PROOF_SENT', to: 'MAKING', on: { action: 'REQUEST_CHANGES' } },
    // A buyer who does not answer in 3 days accepts the proof.
    { from: 'PROOF_SENT', to: 'READY', on: { timer: { after: 'P3D' } } },
    { from: 'READY', to: 'DISPATCHED', on: { action: 'DISPATCH' } },
    { from: 'DISPATCHED', to: 'DELIVERED', on: { action: 'DELIVER' } },
    { from: 'DISPATCHED', to: 'DELIVERED', on: { timer: { after: 'P7D' } } },
    { from: 'DELIVERED', to: 'PURCHASE_DECIDED', on: { action: 'DECIDE_PURCHASE' } },
    { from: 'DELIVERED', to: 'PURCHASE_DECIDED', on: { timer: { after: 'P8D' } } },
  ],
  actions: {
    START_MAKING: { label: '제작 시작', actor: 'SELLER', scope: 'ITEM' },
    SEND_PROOF: {
      label: '시안 보내기',
      actor: 'SELLER',
      scope: 'ITEM',
      inputs: [{ key: 'proofUrl', kind: 'text', label: '시안 주소', placeholder: 'https://…', required: true }],
    },
    APPROVE_PROOF: { label: '시안 승인', actor: 'BUYER', scope: 'ITEM' },
    REQUEST_CHANGES: {
      label: '수정 요청',
      actor: 'BUYER',
      scope: 'ITEM',
      inputs: [
        {
          key: 'what',
          kind: 'select',
          label: '무엇을',
          required: true,
          options: [
            { value: 'TEXT', label: '문구' },
            { value: 'COLOR', label: '색상' },
            { value: 'OTHER', label: '기타' },
          ],
        },
        { key: 'detail', kind: 'textarea', label: '자세히', when: { key: 'what', in: ['OTHER'] }, required: true },
      ],
    },
    DISPATCH: { label: '발송 처리', actor: 'SELLER', scope: 'ITEM', inputs: [...dispatchInputs] },
    DELIVER: { label: '배송 완료 처리', actor: 'SELLER', scope: 'ITEM' },
    DECIDE_PURCHASE: decide,
    WITHDRAW_REQUEST: withdraw,
  },
};

const digitalDelivery: Definition = {
  progression: 'ITEM',
  initial: 'PAID',
  states: {
    PAID: { label: '결제 완료', coreStatus: 'PAID', claims: { cancel: 'IMMEDIATE', return: 'NONE', exchange: 'NONE' } },
    SENT: { label: '전송 완료', coreStatus: 'FULFILLED', notify: [{ channel: 'webhook', params: { event: '"download-ready"', url: 'input.downloadUrl' } }] },
    PURCHASE_DECIDED: decided,
  },
  transitions: [
    { from: 'PAID', to: 'SENT', on: { action: 'SEND_LINK' } },
    { from: 'SENT', to: 'PURCHASE_DECIDED', on: { action: 'DECIDE_PURCHASE' } },
    { from: 'SENT', to: 'PURCHASE_DECIDED', on: { timer: { after: 'P7D' } } },
  ],
  actions: {
    SEND_LINK: {
      label: '다운로드 링크 보내기',
      actor: 'SELLER',
      scope: 'ITEM',
      inputs: [{ key: 'downloadUrl', kind: 'text', label: '다운로드 주소', required: true }],
    },
    DECIDE_PURCHASE: decide,
    WITHDRAW_REQUEST: withdraw,
  },
};

const reservation: Definition = {
  progression: 'ITEM',
  initial: 'PAID',
  states: {
    PAID: { label: '예약 접수', coreStatus: 'PAID', claims: { cancel: 'IMMEDIATE', return: 'NONE', exchange: 'NONE' } },
    BOOKED: { label: '예약 확정', coreStatus: 'CONFIRMED', claims: { cancel: 'REQUEST', return: 'NONE', exchange: 'NONE' } },
    STAYING: { label: '이용중', coreStatus: 'FULFILLED' },
    COMPLETED: { label: '이용 완료', coreStatus: 'PURCHASE_DECIDED', final: true },
  },
  transitions: [
    { from: 'PAID', to: 'BOOKED', on: { action: 'CONFIRM' } },
    { from: 'BOOKED', to: 'STAYING', on: { action: 'CHECK_IN' } },
    // Check-out day at 11:00 (KST) ends the stay; a stay-less item has no such timer.
    { from: 'STAYING', to: 'COMPLETED', on: { timer: { at: 'item.stay.checkOut + "T11:00:00+09:00"' } } },
    { from: 'STAYING', to: 'COMPLETED', on: { action: 'CHECK_OUT' } },
  ],
  actions: {
    CONFIRM: { label: '예약 확정', actor: 'SELLER', scope: 'ITEM' },
    CHECK_IN: { label: '체크인', actor: 'SELLER', scope: 'ITEM' },
    CHECK_OUT: { label: '체크아웃', actor: 'SELLER', scope: 'ITEM' },
    WITHDRAW_REQUEST: withdraw,
  },
};

const pickup: Definition = {
  progression: 'ORDER',
  initial: 'PAID',
  states: {
    PAID: { label: '결제 완료', coreStatus: 'PAID', claims: { cancel: 'IMMEDIATE', return: 'NONE', exchange: 'NONE' } },
    PREPARING: { label: '준비중', coreStatus: 'CONFIRMED', claims: { cancel: 'REQUEST', return: 'NONE', exchange: 'NONE' } },
    READY: { label: '픽업 대기', coreStatus: 'DISPATCHED', notify: [{ channel: 'webhook', params: { event: '"ready-for-pickup"' } }] },
    PICKED_UP: { label: '픽업 완료', coreStatus: 'DELIVERED', claims: { cancel: 'NONE', return: 'REQUEST', exchange: 'REQUEST' } },
    PURCHASE_DECIDED: decided,
  },
  transitions: [
    { from: 'PAID', to: 'PREPARING', on: { action: 'CONFIRM' } },
    { from: 'PREPARING', to: 'READY', on: { action: 'MARK_READY' } },
    { from: 'READY', to: 'PICKED_UP', on: { action: 'HAND_OVER' } },
    { from: 'PICKED_UP', to: 'PURCHASE_DECIDED', on: { action: 'DECIDE_PURCHASE' } },
    { from: 'PICKED_UP', to: 'PURCHASE_DECIDED', on: { timer: { after: 'P7D' } } },
  ],
  actions: {
    CONFIRM: { label: '주문 확인', actor: 'SELLER', scope: 'ORDER' },
    MARK_READY: { label: '픽업 준비 완료', actor: 'SELLER', scope: 'ORDER' },
    HAND_OVER: { label: '전달 완료', actor: 'SELLER', scope: 'ORDER', inputs: [{ key: 'receivedBy', kind: 'text', label: '받은 사람' }] },
    DECIDE_PURCHASE: { ...decide, scope: 'ORDER' },
    WITHDRAW_REQUEST: withdraw,
  },
};

export const PRESETS: Preset[] = [
  {
    key: 'made-to-order',
    name: '주문 제작',
    kind: 'SHIPPING',
    description: '제작 시작, 시안 확인(구매자 승인·수정 요청, 3일 뒤 자동 승인), 발송, 배송 완료, 구매 확정.',
    definition: madeToOrder,
  },
  {
    key: 'digital-delivery',
    name: '디지털 전송',
    kind: 'MANUAL',
    description: '다운로드 링크를 보내면 제공 완료, 7일 뒤 자동 구매 확정.',
    definition: digitalDelivery,
  },
  { key: 'reservation', name: '예약·숙박', kind: 'MANUAL', description: '예약 확정, 체크인, 체크아웃 날 11시에 이용 완료.', definition: reservation },
  { key: 'pickup', name: '매장 픽업', kind: 'MANUAL', description: '주문 단위로 준비, 픽업 대기 알림, 전달, 구매 확정.', definition: pickup },
];

export const findPreset = (key: string) => PRESETS.find((p) => p.key === key);

/** What the editor may place; installed apps' notifications and events are listed beside these. */
export const NODE_TYPES = [
  {
    type: 'state',
    category: 'STATE',
    label: '상태',
    description: '항목이 머무는 단계: label, coreStatus, final, claims(cancel/return/exchange: IMMEDIATE|REQUEST|NONE).',
  },
  {
    type: 'action',
    category: 'TRIGGER',
    label: '작업',
    description: '판매자(SELLER)나 구매자(BUYER)가 누르는 버튼: scope ITEM|ORDER, inputs, authority, requires.groupClaim.',
  },
  { type: 'event.custom', category: 'TRIGGER', label: '상점 이벤트', description: 'POST /v1/order-items/{id}/events/custom.<이름> 으로 들어오는 외부 이벤트.' },
  {
    type: 'event.app',
    category: 'TRIGGER',
    label: '앱 이벤트',
    description: '설치된 앱이 자기 설치 토큰으로 보내는 app.<handle>.<EVENT> (manifest flow.events).',
  },
  { type: 'timer.after', category: 'TRIGGER', label: '기간 타이머', description: '상태에 들어온 뒤 ISO 8601 기간(P3D, PT12H)이 지나면; 클레임 중에는 멈춤.' },
  { type: 'timer.at', category: 'TRIGGER', label: '시각 타이머', description: 'CEL 식이 가리키는 시각에; 클레임 중에도 흐름.' },
  { type: 'condition', category: 'CONDITION', label: '조건', description: '전이의 when: { order, item, input, flow, now } 위의 CEL 식이 true일 때만.' },
  { type: 'notify.webhook', category: 'NOTIFY', label: '웹훅 알림', description: '상태에 들어오면 ORDER.FLOW_NOTIFICATION (params.event가 이벤트 이름).' },
  {
    type: 'notify.app',
    category: 'NOTIFY',
    label: '앱 알림',
    description:
      'app.<handle>.<알림>: 앱 함수가 { name, orderId, orderItemIds, flowId, flowVersion, state, params }를 받음; 파라미터 식이 secrets.<이름> 그대로면 호출할 때 그 flow secret 값이 들어감.',
  },
  {
    type: 'notify.email',
    category: 'NOTIFY',
    label: '이메일 알림',
    description: '구매자에게 이메일 (params.subject, params.body로 제목과 본문을 바꿀 수 있음; 주소가 없는 주문은 보내지 않음으로 기록).',
  },
] as const;

export const EDITOR_VOCABULARY = { coreStatuses: [...CORE_STATUSES], inputKinds: [...INPUT_KINDS] };
