/**
 * Test-only entry of the crash tier: the local runtime (shared/local/runtime.ts) as a process of
 * its own, so that a test can SIGKILL it in the middle of work and start it again on the same
 * data folder. Started by test/crash/harness.ts as `node --import tsx runtime-entry.ts`.
 *
 * Environment:
 * - CRASH_DATA_DIR (required): the data folder;
 * - SESAME_SECRET_KEY / SESAME_PUBLIC_KEY: the seeded keys (fixed, so they survive restarts);
 * - CRASH_MAIL_DELAY_MS: provider latency added to every mail (half before the mail sink
 *   accepts it, half after), so that a kill lands while sending; 0 by default;
 * - RATE_LIMIT_PER_MINUTE: passed on (tests poll a lot; the harness sets it high);
 * - SES_MAX_SEND_RATE, SESAME_REDELIVER_EACH_MESSAGE: passed on (the harness sets the latter: the
 *   crash tier runs with every queue message delivered twice).
 *
 * When ready it prints one JSON line `{url, projectId, secretKey, publicKey, pid}` on stdout.
 * It exits when its stdin closes, so that it never outlives the test process that started it.
 */
import { quietLogger } from '../../shared/adapters/local/log';
import { fastTimings, startLocal } from '../../shared/local/runtime';

const env = process.env;
const dataDir = env.CRASH_DATA_DIR;
if (!dataDir) throw new Error('CRASH_DATA_DIR is required');

// The parent holds our stdin open; when it goes away (even killed), so do we.
process.stdin.on('end', () => process.exit(70));
process.stdin.on('error', () => process.exit(70));
process.stdin.resume();

const runtime = await startLocal({
  port: 0,
  host: '127.0.0.1',
  dataDir,
  env: Object.fromEntries(
    ['RATE_LIMIT_PER_MINUTE', 'SES_MAX_SEND_RATE', 'SESAME_REDELIVER_EACH_MESSAGE'].flatMap((name) =>
      env[name] ? [[name, env[name]]] : [],
    ),
  ),
  secretKey: env.SESAME_SECRET_KEY,
  publicKey: env.SESAME_PUBLIC_KEY,
  logger: quietLogger,
  timings: fastTimings,
  recurringSchedules: false,
});

const delayMs = Number(env.CRASH_MAIL_DELAY_MS ?? 0);
if (delayMs > 0) {
  const sink = runtime.mailSink;
  // The handlers call deps.mailer.sendRaw at send time; the sink is that very object.
  if ((runtime.deps.mailer as unknown) !== sink) throw new Error('deps.mailer is not the mail sink');
  const accept = sink.sendRaw.bind(sink);
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  sink.sendRaw = async (email) => {
    await sleep(delayMs / 2);
    const out = await accept(email);
    await sleep(delayMs / 2);
    return out;
  };
}

process.stdout.write(
  `${JSON.stringify({
    url: runtime.url,
    projectId: runtime.projectId,
    secretKey: runtime.secretKey,
    publicKey: runtime.publicKey,
    pid: process.pid,
  })}\n`,
);
