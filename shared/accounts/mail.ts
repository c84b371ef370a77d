/**
 * Sesame's own mails to its users (email verification, password reset), sent through the same
 * mailer port and MIME builder as every send, from the deployment's system sender
 * (`config.systemFrom`). They belong to no project: no email record, event or counter.
 */
import type { Deps } from '../ports';
import { escapeHtml } from '../subscriptions/pages';

export interface AccountMail {
  readonly to: string;
  readonly subject: string;
  /** Paragraphs of plain text; the HTML part is made from them, escaped. */
  readonly paragraphs: readonly string[];
}

/** Sends the mail; false (and a logged error) when the deployment names no system sender. */
export async function sendAccountMail(
  deps: Pick<Deps, 'mailer' | 'config' | 'clock'>,
  mail: AccountMail,
): Promise<boolean> {
  const from = deps.config.systemFrom;
  if (!from) {
    console.error(
      JSON.stringify({
        level: 'error',
        message: 'Account mail not sent: SYSTEM_FROM is not set',
        subject: mail.subject,
      }),
    );
    return false;
  }
  // The MIME builder (nodemailer's composer) loads on the first account mail, not at every cold start.
  const { buildMime } = await import('../sending/mime');
  const raw = await buildMime({
    from: { email: from, name: 'Sesame' },
    to: { email: mail.to },
    subject: mail.subject,
    text: mail.paragraphs.join('\n\n'),
    html: mail.paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n'),
    date: deps.clock.now(),
  });
  await deps.mailer.sendRaw({ from, to: [mail.to], raw });
  return true;
}
