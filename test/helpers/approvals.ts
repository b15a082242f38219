/** The error code an HTML page shows (`data-code`). */
export const codeOf = (html: string) => /data-code="([A-Z_]+)"/.exec(html)?.[1];

/** The one-time code the approval page shows after "AI 대화에서 승인/거절" (`confirm-approve`, `confirm-reject`). */
export const confirmationCodeOf = (html: string) => /data-confirmation-code="([A-Z0-9]+)"/.exec(html)?.[1];

/**
 * A person on the approval page (`approvalUrl`): logs in there with their own account, then presses the
 * page's buttons with its form token — the way a human approves, outside any agent's channel. `code` takes
 * a one-time code for the AI conversation.
 */
export async function approvalPage(url: string, who: { email: string; password: string }) {
  const res = await fetch(url, { method: 'POST', body: new URLSearchParams({ action: 'login', ...who }) });
  const html = await res.text();
  const cookie = res.headers.get('set-cookie')?.split(';')[0];
  return {
    status: res.status,
    html,
    cookie,
    async press(action: 'approve' | 'reject' | 'confirm-approve' | 'confirm-reject', token = /name="formToken" value="([^"]+)"/.exec(html)?.[1] ?? '') {
      const answer = await fetch(url, { method: 'POST', headers: { cookie: cookie! }, body: new URLSearchParams({ action, formToken: token }) });
      return { status: answer.status, html: await answer.text() };
    },
    async code(decision: 'APPROVE' | 'REJECT') {
      const shown = await this.press(decision === 'APPROVE' ? 'confirm-approve' : 'confirm-reject');
      const code = confirmationCodeOf(shown.html);
      if (!code) throw new Error(`no code on the page (HTTP ${shown.status} ${codeOf(shown.html)})`);
      return code;
    },
  };
}
