// Suspending an app whose calls have all failed for 24 hours (spec 02 §3), and the mail that tells its developer.
import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { queueMail } from '../../server/mail.js';
import { usersByIds } from '../accounts/index.js';
import type { App } from './app-records.js';
import { apps } from './schema.js';

/** The failure that completed the 24 hours: named in the mail so the developer knows where to look. */
export interface LastFailure {
  errorCode?: string | null;
  errorMessage?: string | null;
}

/**
 * Suspends `app` unless it already is, and mails the developer (the account that registered it) in the
 * same transaction: the guarded update lets only one of racing calls suspend, so one mail per suspension.
 */
export async function suspendApp(db: Db, app: App, failingSince: number, last: LastFailure, now: number) {
  const suspended = await db
    .update(apps)
    .set({ suspendedAt: now, updatedAt: now })
    .where(and(eq(apps.id, app.id), isNull(apps.suspendedAt)))
    .run();
  if (suspended.changes !== 1) return;
  const developer = (await usersByIds(db, [app.ownerUserId])).get(app.ownerUserId);
  if (!developer) return;
  const lastError = [last.errorCode, last.errorMessage].filter(Boolean).join(': ') || '(내용 없음)';
  await queueMail(db, now, {
    to: developer.email,
    subject: `[svc] '${app.name}' 앱이 정지되었습니다`,
    body: [
      `앱 '${app.name}'(${app.handle})이 ${isoAt(now)}에 정지되었습니다.`,
      '',
      `이유: ${isoAt(failingSince)}부터 24시간 동안 모든 호출이 앱 오류로 실패했습니다.`,
      `마지막 오류: ${lastError}`,
      '',
      '정지된 동안 이 앱의 도구, 알림, 일정, 공개 경로 호출은 모두 APP_SUSPENDED로 거절됩니다. 스토어의 설치는 그대로 남아 있고, 정지가 풀리면 다시 동작합니다.',
      '',
      `할 일: 실행 기록(svc app logs ${app.handle})에서 원인을 찾아 고친 뒤 새 버전을 배포하세요(svc app deploy). 새 버전이 올라가면 정지가 풀립니다.`,
    ].join('\n'),
  });
}
