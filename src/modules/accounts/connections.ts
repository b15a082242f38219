// Connected apps (spec 01 §5.1): the third-party OAuth clients an account consented to, and disconnecting one.
import { and, eq, gt, inArray, isNull } from 'drizzle-orm';
import { z } from 'zod';
import { transaction } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { fail } from '../../server/errors.js';
import { defineMessages } from '../../server/messages.js';
import { instant } from '../../server/responses.js';
import type { Services } from '../../server/services.js';
import { findClient } from './clients.js';
import { invalidatePrincipals } from './principal.js';
import { loginSessions, refreshTokens, users } from './schema.js';

defineMessages({
  CONNECTION_NOT_FOUND: '연결된 앱을 찾을 수 없습니다. 이미 연결을 끊었거나 동의한 적이 없는 클라이언트입니다.',
});

/** One client the account consented to: every live login (OAuth grant) of that client, together. */
export const connectionSchema = z.object({
  clientId: z.string(),
  clientName: z.string(),
  /** Logins of this client are AI-agent connections (spec 01 §5.6). */
  agent: z.boolean(),
  /** Every scope granted across its live logins, sorted. */
  scopes: z.array(z.string()),
  /** Logins reach every store of the person, each within the role there (spec 01 §5.1). */
  storeScope: z.object({ all: z.literal(true) }),
  /** How many live logins (consents) the client holds. */
  sessions: z.number().int(),
  connectedAt: instant,
  lastUsedAt: instant.nullable(),
});
export type Connection = z.output<typeof connectionSchema>;

export const disconnectedSchema = connectionSchema.extend({ disconnectedAt: instant });

type Session = typeof loginSessions.$inferSelect;

/** The account's live logins of clients other than the service's own (the store platform and the CLI are the person, not an app). */
async function liveThirdPartySessions(
  services: Services,
  userId: string,
  clientId?: string,
): Promise<{ session: Session; clientName: string; agent: boolean }[]> {
  const now = services.clock.now();
  const rows = await services.db
    .select({ session: loginSessions, tokensValidFrom: users.tokensValidFrom })
    .from(loginSessions)
    .innerJoin(users, eq(users.id, loginSessions.userId))
    .where(
      and(
        eq(loginSessions.userId, userId),
        isNull(loginSessions.revokedAt),
        gt(loginSessions.maxExpiresAt, now),
        clientId === undefined ? undefined : eq(loginSessions.clientId, clientId),
      ),
    )
    .all();
  const live = [];
  for (const { session, tokensValidFrom } of rows) {
    // A password reset ended every login made before it, revoked or not.
    if (session.createdAt < tokensValidFrom) continue;
    const client = await findClient(services.db, session.clientId);
    if (client?.firstParty !== false) continue;
    live.push({ session, clientName: client.name, agent: client.agent });
  }
  return live;
}

function groupByClient(sessions: Awaited<ReturnType<typeof liveThirdPartySessions>>): Connection[] {
  const byClient = new Map<string, typeof sessions>();
  for (const s of sessions) byClient.set(s.session.clientId, [...(byClient.get(s.session.clientId) ?? []), s]);
  return [...byClient.values()]
    .map((group) => {
      const lastUsed = Math.max(...group.map((g) => g.session.lastUsedAt ?? 0));
      return {
        clientId: group[0]!.session.clientId,
        clientName: group[0]!.clientName,
        agent: group[0]!.agent,
        scopes: [...new Set(group.flatMap((g) => g.session.scope.split(' ').filter(Boolean)))].sort(),
        storeScope: { all: true as const },
        sessions: group.length,
        connectedAt: isoAt(Math.min(...group.map((g) => g.session.createdAt))),
        lastUsedAt: lastUsed === 0 ? null : isoAt(lastUsed),
      };
    })
    .sort((a, b) => (b.lastUsedAt ?? '').localeCompare(a.lastUsedAt ?? ''));
}

export async function listConnections(services: Services, userId: string): Promise<Connection[]> {
  return groupByClient(await liveThirdPartySessions(services, userId));
}

/**
 * Disconnects a client: its logins end and their refresh tokens are erased; login tokens already issued
 * are refused at once here (the principal cache is dropped) and by other processes once their cached
 * principal lapses (seconds, spec 01 §5.1's "at most 2 minutes").
 */
export async function disconnectClient(services: Services, userId: string, clientId: string): Promise<z.output<typeof disconnectedSchema>> {
  const { db } = services;
  const now = services.clock.now();
  const connection = await transaction(db, async () => {
    const sessions = await liveThirdPartySessions(services, userId, clientId);
    const [found] = groupByClient(sessions);
    if (!found) throw fail(404, 'CONNECTION_NOT_FOUND', { clientId });
    const ids = sessions.map((s) => s.session.id);
    await db
      .update(loginSessions)
      .set({ revokedAt: now })
      .where(and(inArray(loginSessions.id, ids), isNull(loginSessions.revokedAt)))
      .run();
    await db.delete(refreshTokens).where(inArray(refreshTokens.sessionId, ids)).run();
    return found;
  });
  invalidatePrincipals();
  return { ...connection, disconnectedAt: isoAt(now) };
}
