/**
 * `npm run sesame -- <command>`: operator commands run from a checkout, against a deployment's
 * table with the deployer's AWS credentials, or against the local runtime's data folder.
 *
 *     npm run sesame -- owner create --email <email> [--password <pw>] [--project <name>]
 *                                    [--table <name> | --local [dataDir]]
 *     npm run sesame -- project disable --project <id> [--reason <text>] [--table <name> | --local [dataDir]]
 *     npm run sesame -- project enable --project <id> [--table <name> | --local [dataDir]]
 *
 * `owner create` makes the first owner of a deployment, whose signup is off (shared/accounts/owner.ts):
 * a verified user and a project they own, and prints the project's keys (and the password when it
 * generated one). The table is `--table`, else TABLE_NAME, in the SDK's region (AWS_REGION or the
 * profile's); `--local` uses the data folder `npm start` uses (SESAME_DATA_DIR, else .sesame)
 * or the one named, which `npm start` must not be running on.
 *
 * `project disable` and `project enable` switch a project off and on for the operator
 * (shared/projects/operator.ts): a disabled project's keys and sessions answer 403
 * PROJECT_DISABLED and its scheduled work does not run (docs/accounts.md, "Disabled projects").
 *
 * Exit code 0 on success; 1 with one line on stderr otherwise (bad input, a missing table, no
 * credentials).
 */
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createOwner, OwnerInputError, type OwnerResult } from '../shared/accounts/owner';
import { createDocumentClient } from '../shared/adapters/aws/dynamo';
import { LocalClock } from '../shared/adapters/local/clock';
import { lockDataDir, openDataDir } from '../shared/local/data-dir';
import { startDynamo } from '../shared/local/dynamo';
import { type Clock, type Ids, randomIds, systemClock } from '../shared/ports';
import {
  disableProject,
  enableProject,
  OperatorInputError,
  type OperatorResult,
} from '../shared/projects/operator';
import { createStore } from '../shared/store/dynamo';
import type { Store } from '../shared/store/store';

const TARGET = '[--table <name> | --local [dataDir]]';
const USAGE = [
  `usage: npm run sesame -- owner create --email <email> [--password <pw>] [--project <name>] ${TARGET}`,
  `       npm run sesame -- project disable --project <id> [--reason <text>] ${TARGET}`,
  `       npm run sesame -- project enable --project <id> ${TARGET}`,
].join('\n');

/** A command line that names no valid command; printed with the usage. */
class UsageError extends Error {}

type Target = { readonly local: string } | { readonly table: string };

interface OwnerCommand {
  readonly kind: 'owner create';
  readonly email: string;
  readonly password?: string;
  readonly projectName?: string;
  readonly target: Target;
}

interface ProjectCommand {
  readonly kind: 'project disable' | 'project enable';
  readonly projectId: string;
  readonly reason?: string;
  readonly target: Target;
}

type Command = OwnerCommand | ProjectCommand;

/**
 * `--local` takes an optional folder, which `parseArgs` cannot express: a bare `--local` (last,
 * or followed by another option) is given the default folder before parsing.
 */
function withLocalDefault(argv: readonly string[], env: NodeJS.ProcessEnv): string[] {
  const folder = env.SESAME_DATA_DIR || '.sesame';
  return argv.map((arg, i) =>
    arg === '--local' && (argv[i + 1] === undefined || argv[i + 1]!.startsWith('-'))
      ? `--local=${folder}`
      : arg,
  );
}

function parseCommand(argv: readonly string[], env: NodeJS.ProcessEnv): Command | 'help' {
  let parsed: ReturnType<typeof parseOptions>;
  try {
    parsed = parseOptions(withLocalDefault(argv, env));
  } catch (error) {
    throw new UsageError((error as Error).message.split('. ')[0]!);
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  const kind = positionals.join(' ');
  if (kind === 'owner create') {
    if (values.email === undefined) throw new UsageError('--email is required');
    if (values.reason !== undefined) throw new UsageError('--reason is an option of project disable');
    return {
      kind,
      email: values.email,
      password: values.password,
      projectName: values.project,
      target: targetOf(values, env),
    };
  }
  if (kind === 'project disable' || kind === 'project enable') {
    if (values.project === undefined) throw new UsageError('--project <id> is required');
    for (const [option, value] of [
      ['--email', values.email],
      ['--password', values.password],
    ] as const)
      if (value !== undefined) throw new UsageError(`${option} is an option of owner create`);
    if (kind === 'project enable' && values.reason !== undefined)
      throw new UsageError('--reason is an option of project disable');
    return { kind, projectId: values.project, reason: values.reason, target: targetOf(values, env) };
  }
  throw new UsageError(positionals.length === 0 ? 'no command given' : `unknown command "${kind}"`);
}

function targetOf(values: ReturnType<typeof parseOptions>['values'], env: NodeJS.ProcessEnv): Target {
  if (values.local !== undefined && values.table !== undefined)
    throw new UsageError('--local and --table exclude each other');
  if (values.local !== undefined) return { local: values.local };
  const table = values.table ?? env.TABLE_NAME;
  if (!table)
    throw new UsageError(
      'no table: pass --table <name> or set TABLE_NAME (the table of the Sesame-<stage>-Stateful stack), or --local',
    );
  return { table };
}

function parseOptions(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      project: { type: 'string' },
      reason: { type: 'string' },
      table: { type: 'string' },
      local: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

/** What a command writes with: the table's store, a clock and ids. */
interface AdminDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly ids: Ids;
}

/** `run` over the local runtime's data folder, with the runtime's own table and clock. */
async function inLocalFolder<T>(
  folder: string,
  env: NodeJS.ProcessEnv,
  run: (deps: AdminDeps) => Promise<T>,
) {
  const dataDir = openDataDir(folder)!;
  // The embedded database opens in one process at a time: a running `npm start` on the folder
  // is refused here, with its pid, rather than crashing both.
  const lock = lockDataDir(dataDir);
  try {
    // The table `npm start` uses (parseLocalSettings); rebuilt like the runtime after an unclean stop.
    const tableName = env.TABLE_NAME || 'sesame';
    const dynamo = await startDynamo({ tableName, dataDir, rebuild: lock.unclean });
    try {
      const deps = {
        store: createStore(dynamo.db, tableName),
        // Times as the runtime would write them, after any advance of its clock (POST /_local/clock).
        clock: new LocalClock({ dataDir }),
        ids: randomIds,
      };
      return { result: await run(deps), where: `${dataDir} (local)` };
    } finally {
      await dynamo.close();
    }
  } finally {
    await lock.release();
  }
}

/** `run` over a deployment's table, through the SDK's default credentials and region. */
async function inTable<T>(table: string, run: (deps: AdminDeps) => Promise<T>) {
  // The same document client and store as the functions (shared/composition/aws-ports/dynamo.ts);
  // built here rather than through the composition so the region can be named and the client closed.
  const client = new DynamoDBClient({});
  try {
    let region: string;
    try {
      region = await client.config.region();
    } catch {
      throw new Error('no AWS region: set AWS_REGION (or use a profile that has one)');
    }
    const deps = {
      store: createStore(createDocumentClient(client), table),
      clock: systemClock,
      ids: randomIds,
    };
    try {
      return { result: await run(deps), where: `${table} in ${region}` };
    } catch (error) {
      if ((error as Error).name === 'ResourceNotFoundException')
        throw new Error(`table ${table} not found in ${region}: check --table/TABLE_NAME and AWS_REGION`);
      throw error;
    }
  } finally {
    client.destroy();
  }
}

function report(command: OwnerCommand, result: OwnerResult, where: string): string {
  const { user, project, keys } = result;
  const lines = [
    result.created
      ? `Created the user ${user.email} (email verified) and the project "${project.name}", which they own.`
      : `${user.email} already has an account: no user created; added the project "${project.name}", which they own.`,
    '',
    `  User           ${user.email}`,
    ...(result.password ? [`  Password       ${result.password}`] : []),
    `  Project id     ${project.id}`,
    `  Secret key     ${keys.secretKey}`,
    `  Public key     ${keys.publicKey}`,
    `  Stored in      ${where}`,
    '',
  ];
  if (result.password)
    lines.push('The password was generated and is shown only this once (only its hash is stored).');
  else if (!result.created && command.password !== undefined)
    lines.push('The --password given was not used: the existing account keeps its password.');
  lines.push('The keys are shown only this once (only their hashes are stored).');
  return `${lines.join('\n')}\n`;
}

function projectReport(command: ProjectCommand, result: OperatorResult, where: string): string {
  const lines =
    command.kind === 'project disable'
      ? [
          `Disabled the project "${result.name}": its keys and sessions answer 403 PROJECT_DISABLED (within a minute on instances that cached it), and its scheduled work does not run.`,
          '',
          `  Project id     ${result.id}`,
          `  Disabled by    operator${result.wasDisabledBy && result.wasDisabledBy !== 'operator' ? ` (was disabled by ${result.wasDisabledBy})` : ''}`,
          ...(result.disabledReason ? [`  Reason         ${result.disabledReason}`] : []),
          `  Stored in      ${where}`,
        ]
      : [
          result.wasDisabledBy
            ? `Enabled the project "${result.name}" (it was disabled by ${result.wasDisabledBy}): its keys work again, and its held work goes on.`
            : `The project "${result.name}" was not disabled: nothing changed.`,
          '',
          `  Project id     ${result.id}`,
          `  Stored in      ${where}`,
        ];
  return `${lines.join('\n')}\n`;
}

/** `run` against the command's table or data folder. */
function against<T>(target: Target, env: NodeJS.ProcessEnv, run: (deps: AdminDeps) => Promise<T>) {
  return 'local' in target ? inLocalFolder(target.local, env, run) : inTable(target.table, run);
}

async function main(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const command = parseCommand(argv, env);
  if (command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (command.kind === 'owner create') {
    const { result, where } = await against(command.target, env, (deps) => createOwner(deps, command));
    process.stdout.write(report(command, result, where));
    return 0;
  }
  const { result, where } = await against(command.target, env, (deps) =>
    command.kind === 'project disable'
      ? disableProject(deps, { projectId: command.projectId, reason: command.reason })
      : enableProject(deps, { projectId: command.projectId }),
  );
  process.stdout.write(projectReport(command, result, where));
  return 0;
}

main(process.argv.slice(2), process.env).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    // One line, whatever went wrong: input refused, no table, no credentials.
    const line =
      error instanceof UsageError
        ? `sesame: ${message} (${USAGE})`
        : error instanceof OwnerInputError || error instanceof OperatorInputError
          ? `sesame: ${message}`
          : `sesame: ${error instanceof Error && error.name !== 'Error' ? `${error.name}: ` : ''}${message}`;
    process.stderr.write(`${line.replace(/\s*\n\s*/g, ' ')}\n`);
    process.exitCode = 1;
  },
);
