import { styleText } from 'node:util';

/** Korean money as people read it: `12,900원`. */
export const won = (amount: number | null | undefined) => (amount === null || amount === undefined ? '-' : `${amount.toLocaleString('ko-KR')}원`);

/**
 * Text safe to print to a terminal: control characters (C0, DEL, C1 — an ESC or CSI starts a sequence the
 * terminal would obey, e.g. retitling the window or clearing the screen) become visible `\u001b` escapes.
 * Much of what commands print is others' input (a visitor's page title or referrer, a buyer's name).
 * Line breaks and tabs stay unless `inline` (a table cell, where a line break would forge a row). The
 * escapes are JSON's own, so `--json` output passes through unchanged in meaning.
 */
export const terminalSafe = (text: string, inline = false) =>
  text.replace(
    inline ? /[\u0000-\u001f\u007f-\u009f]/g : /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );

const MARK_COLOURS = { '✓': 'green', '✔': 'green', '✗': 'red' } as const;

/**
 * A line's leading ✓/✔/✗ (after indentation) in green or red where `stream` shows colour. styleText decides
 * as Node does everywhere: a terminal only, never with NO_COLOR (no-color.org) or TERM=dumb, forced by
 * FORCE_COLOR; so pipes and files get the plain line. `--json` output never comes here (see ApiCommand.log).
 */
export const colourMarks = (line: string, stream: NodeJS.WriteStream) =>
  line.replace(/^(\s*)([✓✔✗])/u, (_all, indent: string, mark: keyof typeof MARK_COLOURS) => indent + styleText(MARK_COLOURS[mark], mark, { stream }));
