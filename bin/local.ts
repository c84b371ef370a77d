/**
 * `npm start`: the whole service in one process on this machine (see shared/local/runtime.ts).
 *
 * Environment: PORT (default 3000), HOST (default 127.0.0.1), SESAME_DATA_DIR (default .sesame),
 * SESAME_DNS_FILE, SESAME_SECRET_KEY, SESAME_PUBLIC_KEY, SESAME_SENDER_DOMAIN (default
 * example.com), SESAME_REDELIVER_EACH_MESSAGE (1: every queue message is delivered once more after
 * it completes, as SQS may), plus the service's own variables (RATE_LIMIT_PER_MINUTE, ...).
 */
import { startLocal } from '../shared/local/runtime';

async function main(): Promise<void> {
  const env = process.env;
  const port = Number(env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`PORT must be a port number, got ${env.PORT}`);
  const runtime = await startLocal({
    port,
    host: env.HOST ?? '127.0.0.1',
    dataDir: env.SESAME_DATA_DIR || '.sesame',
    env,
  });

  console.log(
    [
      '',
      'Sesame is running locally.',
      '',
      `  API            ${runtime.url}`,
      `  Project id     ${runtime.projectId}`,
      `  Secret key     ${runtime.secretKey}`,
      `  Public key     ${runtime.publicKey}`,
      `  Sender domain  ${runtime.senderDomain} (verified)`,
      `  API reference  ${runtime.url}/docs  (OpenAPI: ${runtime.url}/openapi.json)`,
      `  Local inbox    ${runtime.url}/_local/mail  (JSON: ${runtime.url}/_local/emails)`,
      `  Data           ${runtime.dataDir ?? 'in memory'}`,
      ...(runtime.queue.redeliversEachMessage
        ? ['  Queue          every message delivered twice (SESAME_REDELIVER_EACH_MESSAGE)']
        : []),
      `  DNS            ${env.SESAME_DNS_FILE ? `zone file ${env.SESAME_DNS_FILE}` : 'system resolver'}`,
      // The clock's advances (POST /_local/clock) are kept in the data folder: say so when set.
      ...(runtime.clock.offsetMs > 0
        ? [
            `  Clock          ${runtime.clock.now().toISOString()} (moved ${Math.round(runtime.clock.offsetMs / 1000)} s ahead by POST ${runtime.url}/_local/clock)`,
          ]
        : []),
      '',
      `Try: curl -H "Authorization: Bearer ${runtime.secretKey}" ${runtime.url}/contacts`,
      '',
    ].join('\n'),
  );

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) {
      console.log('Forced exit.');
      process.exit(1);
    }
    stopping = true;
    console.log(`\n${signal}: stopping (pending queue messages are kept)...`);
    runtime.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
  if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
    console.error(
      `Port ${process.env.PORT ?? 3000} is in use: stop what holds it, or set PORT (PORT=0 picks a free one).`,
    );
  } else {
    console.error(error instanceof Error ? error.message : error);
  }
  process.exit(1);
});
