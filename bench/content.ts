/**
 * CPU per recipient of rendering and building the MIME of one message, for a ~5 KB marketing
 * template with five variables: today's path (whole Liquid render, html-to-text per message,
 * nodemailer's composer) against the path composeEmail takes (text template derived once per
 * content, outputs rendered one by one, lean MIME builder). `npm run bench:content`.
 */
import { compile, htmlToText, render, renderSubject } from '../shared/rendering';
import { type EmailContent, renderContent, withFooter } from '../shared/sending/compose';
import { buildMime, buildMimeLean } from '../shared/sending/mime';

const paragraph =
  '<p style="margin:0 0 16px;font-family:Arial,sans-serif;font-size:15px;line-height:22px;color:#111827">' +
  'Our spring collection is here, with new colours, lighter fabrics and the fit you asked for. ' +
  'Free shipping on every order this week, and returns are always free.</p>\n';
let body =
  '<html><head><style>p{margin:0}</style></head><body>\n<h2>Spring is here</h2>\n' +
  '<p>Hi {{first name ?? there}},</p>\n<p>Your member tier is {{tier}} and you have {{points}} points.</p>\n';
while (body.length < 4700) body += paragraph;
body +=
  '<p>Your code: {{code}}. <a href="https://shop.example.com/r?c={{code}}">Shop now</a></p>\n' +
  '<p>Sent to {{email}}.</p>\n</body></html>';

const content: EmailContent = {
  templateId: 't1',
  type: 'MARKETING',
  from: { email: 'news@shop.example.com', name: 'Shop Team' },
  replyTo: null,
  subject: compile('{{first name ?? Hello}}, spring is here', 'text'),
  body: compile(body, 'html'),
  bodyHasUnsubscribeLink: false,
  headers: {},
  attachments: [],
  links: {} as EmailContent['links'],
};

const N = Number(process.env.N ?? 3000);
const unsubscribeUrl = 'https://api.example.com/v1/subscription/tok123?p=1&c=2';
const vars = (i: number) => ({
  'first name': `Ann${i}`,
  tier: i % 2 ? 'gold' : 'silver',
  points: 1000 + i,
  code: `SPRING${i}`,
  email: `ann${i}@example.org`,
});
const mimeOf = (subject: string, html: string, text: string, i: number) => ({
  from: content.from,
  to: { email: `ann${i}@example.org` },
  subject,
  html,
  text,
  date: new Date(),
  headers: content.headers,
  listUnsubscribeUrl: unsubscribeUrl,
  attachments: content.attachments,
});

async function today(i: number) {
  const v = vars(i);
  const subject = await renderSubject(content.subject, v);
  const html = withFooter(await render(content.body, v), unsubscribeUrl);
  return buildMime(mimeOf(subject, html, htmlToText(html), i));
}

async function derived(i: number) {
  const v = vars(i);
  const subject = await renderSubject(content.subject, v);
  const { html, text } = await renderContent(content, v, unsubscribeUrl);
  return buildMimeLean(mimeOf(subject, html, text, i));
}

async function measure(name: string, run: (i: number) => Promise<Buffer>) {
  for (let i = 0; i < 300; i++) await run(i);
  const start = process.cpuUsage();
  for (let i = 0; i < N; i++) await run(i);
  const used = process.cpuUsage(start);
  const ms = (used.user + used.system) / 1000 / N;
  console.log(`${name.padEnd(44)} ${ms.toFixed(3)} ms CPU per recipient`);
}

console.log(`template ${body.length} chars, 5 variables, ${N} recipients`);
await measure('today (render + html-to-text + composer)', today);
await measure('derived (text template + lean MIME)', derived);

/*
 * Saving a template of tags: the parse `POST /templates` runs (translation, tokenizing, parse,
 * giving the event loop back every 2,000 tokens) on 200 KB and 1 MB of `{{x}}`. Work is counted
 * in characters the translation examined and tokens parsed. Goal (linear): the 1 MB case does at
 * most 6x the 200 KB case's work (5x the text; a rescan per tag made it 25x). The 1 MB text is
 * over the parse budget (MAX_TEMPLATE_TOKENS) and is refused; its row with the budget lifted is
 * the one the goal compares.
 */
const { compileAsync, parseWork } = await import('../shared/rendering/liquid');
const { MAX_TEMPLATE_TOKENS } = await import('../shared/rendering/limits');
const { monitorEventLoopDelay } = await import('node:perf_hooks');

let sample = 0;
async function save(label: string, chars: number, maxTokens = MAX_TEMPLATE_TOKENS) {
  // A comment first keeps every run's source unique, so the parse cache never answers.
  const prefix = `<!--${sample++}-->`;
  const source = `${prefix}${'{{x}}'.repeat(Math.floor((chars - prefix.length) / 5))}`;
  const before = { ...parseWork };
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const start = process.cpuUsage();
  let outcome = 'parsed';
  try {
    await compileAsync(source, 'html', maxTokens);
  } catch (error) {
    outcome = `refused: ${(error as Error).message.slice(0, 60)}…`;
  }
  const used = process.cpuUsage(start);
  delay.disable();
  const cpu = (used.user + used.system) / 1000;
  const work = { cpu, chars: parseWork.chars - before.chars, tokens: parseWork.tokens - before.tokens };
  console.log(
    `${label.padEnd(24)} ${cpu.toFixed(0).padStart(5)} ms CPU, ` +
      `${work.chars} chars examined, ${work.tokens} tokens parsed, ` +
      `longest event-loop stall ${(delay.max / 1e6).toFixed(0)} ms; ${outcome}`,
  );
  return work;
}

console.log('\nsaving a template of {{x}} tags');
await save('warm-up 200 KB', 200_000);
const small = await save('200 KB (40,000 tags)', 200_000);
await save('1 MB (200,000 tags)', 1_000_000);
const large = await save('1 MB, budget lifted', 1_000_000, Number.POSITIVE_INFINITY);
for (const key of ['chars', 'tokens'] as const) {
  const ratio = large[key] / small[key];
  const pass = small[key] > 0 && large[key] > 0 && ratio <= 6;
  console.log(`${pass ? 'PASS' : 'FAIL'}  1 MB / 200 KB ${key}: ${ratio.toFixed(2)}x (goal at most 6x)`);
}
console.log(`      1 MB / 200 KB CPU: ${(large.cpu / small.cpu).toFixed(2)}x (CPU time, for information)`);
