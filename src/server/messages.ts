/**
 * Korean messages per error code (the only language offered, spec 01 §2.1). Clients decide by `code`;
 * the message is for people. Modules add their codes with `defineMessages` next to the rules that raise them.
 */
const messages: Record<string, string> = {
  OK: '성공',
  DRY_RUN: '시험 실행 결과입니다. 요청은 실행되지 않았습니다.',
  NOT_FOUND: '요청한 리소스를 찾을 수 없습니다.',
  ROUTE_NOT_FOUND: '존재하지 않는 API 경로입니다.',
  METHOD_NOT_ALLOWED: '이 경로에서 지원하지 않는 HTTP 메서드입니다.',
  VALIDATION_FAILED: '요청 형식이 올바르지 않습니다.',
  INVALID_PARAMETER: '요청 파라미터가 올바르지 않습니다.',
  RANGE_TOO_WIDE: '조회 기간은 최대 92일입니다.',
  INTERNAL_ERROR: '일시적인 오류가 발생했습니다. 잠시 후 다시 시도해 주세요.',
  PAYLOAD_TOO_LARGE: '요청 본문이 너무 큽니다.',
  UNSUPPORTED_MEDIA_TYPE: '요청 본문은 JSON이어야 합니다.',
  STORE_ID_REQUIRED: 'X-Store-Id 헤더가 필요합니다.',
  UNAUTHORIZED: '인증이 필요합니다. 토큰이 없거나 만료되었거나 형식이 올바르지 않습니다.',
  TOKEN_REVOKED: '폐기된 토큰입니다.',
  ENDPOINT_RETIRED: '더 이상 제공하지 않는 API입니다. details.successor의 API를 사용하세요.',
  TOKEN_TYPE_RETIRED: '더 이상 지원하지 않는 토큰 종류 또는 인증 경로입니다. 다시 로그인하거나 새 액세스 토큰을 만드세요.',
  STORE_NOT_GRANTED: '토큰의 상점 범위에 포함되지 않은 상점입니다.',
  NOT_A_MEMBER: '이 상점의 구성원이 아닙니다.',
  INSUFFICIENT_ROLE: '역할 또는 토큰 권한이 부족하거나, 상점 플랫폼 로그인으로만 할 수 있는 작업입니다.',
  INSUFFICIENT_SCOPE: '토큰에 필요한 계정 범위가 없습니다.',
  TENANT_MISMATCH: '다른 상점의 리소스입니다.',
  DELEGATION_NOT_ALLOWED: '이 토큰으로는 구매자 위임을 할 수 없습니다.',
  AGENT_OPERATION_DENIED: 'AI 에이전트에게 허용되지 않는 작업입니다.',
  APPROVAL_REQUIRED: '승인이 필요한 작업입니다.',
  IDEMPOTENCY_KEY_REUSED: '같은 Idempotency-Key가 다른 요청에 사용되었습니다.',
  IDEMPOTENCY_KEY_IN_USE: '같은 Idempotency-Key의 요청이 처리 중입니다.',
  PLAN_AI_ACTIONS_EXCEEDED: '이번 달 AI 작업 한도를 모두 사용했습니다.',
  LOGIN_TOO_OLD: '액세스 토큰을 만들려면 10분 이내에 다시 로그인해야 합니다.',
  TOKEN_LIMIT_EXCEEDED: '사용 중인 액세스 토큰은 최대 50개입니다.',
  INVALID_LOGIN: '이메일 또는 비밀번호가 올바르지 않습니다.',
  EMAIL_TAKEN: '이미 가입된 이메일입니다.',
  STORE_CODE_TAKEN: '이미 사용 중인 상점 코드입니다.',
  ACCOUNT_NOT_FOUND: '해당 이메일의 계정이 없습니다.',
  ALREADY_A_MEMBER: '이미 상점의 구성원입니다.',
  LAST_OWNER: '상점에는 소유자가 한 명 이상 있어야 합니다.',
  CLOCK_NOT_MANUAL: '시계를 옮기려면 svc dev --clock manual로 시작하세요.',
  RESET_TOKEN_INVALID: '비밀번호 재설정 링크가 유효하지 않거나 만료되었습니다.',
};

const byStatus: Record<number, string> = {
  400: messages.VALIDATION_FAILED,
  401: messages.UNAUTHORIZED,
  403: '이 작업을 할 권한이 없습니다.',
  404: messages.NOT_FOUND,
  409: '현재 상태에서는 요청을 처리할 수 없습니다.',
  410: '더 이상 제공하지 않는 API입니다.',
  429: '요청이 너무 많습니다. 잠시 후 다시 시도해 주세요.',
};

export function defineMessages(more: Record<string, string>) {
  Object.assign(messages, more);
}

export function errorMessage(code: string, status: number): string {
  return messages[code] ?? byStatus[status] ?? messages.INTERNAL_ERROR;
}

export function allMessages(): Readonly<Record<string, string>> {
  return messages;
}
