/**
 * An error's stack with the bundle's positions mapped back to the source files, for the error logs
 * of the deployed functions.
 *
 * Functions are bundled minified with a source map beside each file (lib/bundling.ts). Node maps
 * stacks itself with `--enable-source-maps`, but that flag makes it read every loaded file's map
 * and measure the file's lines as it loads it: about 10 ms more at every cold start, for stacks
 * that only the rare unexpected error logs. So the functions run without it, and the logs that
 * print a stack map it here, on demand: a frame in a file with a `.map` beside it is rewritten to
 * its source position (`shared/http/stack.ts:120:11`; the function names stay the minified ones);
 * any other frame (a Node internal, the local runtime's TypeScript, a file without a map) stays as
 * it is. Maps are read once per file and instance. Nothing is loaded until the first stack is
 * mapped. test/infra/stack-trace.test.ts maps a bundled fixture's stack.
 */

/** A frame's location: `(file:///var/task/index.mjs:1:2345)` or ` /var/task/index.mjs:1:2345`. */
const FRAME_LOCATION = /([(\s])((?:file:\/\/)?\/[^\s()]+?\.m?js):(\d+):(\d+)(\)?)$/;

interface Origin {
  readonly fileName: string;
  readonly lineNumber: number;
  readonly columnNumber: number;
}

interface OriginFinder {
  findOrigin(line: number, column: number): Partial<Origin>;
}

/** Bundle file -> its source map, or null when it has none (or it cannot be read). */
const maps = new Map<string, OriginFinder | null>();

function mapOf(file: string): OriginFinder | null {
  const known = maps.get(file);
  if (known !== undefined) return known;
  let map: OriginFinder | null = null;
  try {
    const { readFileSync } = process.getBuiltinModule('node:fs');
    const { SourceMap } = process.getBuiltinModule('node:module');
    map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')));
  } catch {
    map = null;
  }
  maps.set(file, map);
  return map;
}

/** `../../shared/http/stack.ts` (as esbuild writes it, relative to the bundle) as `shared/http/stack.ts`. */
const sourcePath = (fileName: string) => fileName.replace(/^(?:\.\.\/)+/, '');

/** One stack line, its location mapped when its file has a map that knows the position. */
function mapLine(line: string): string {
  const m = FRAME_LOCATION.exec(line);
  if (!m) return line;
  const [whole, before, location, lineText, columnText, after] = m as unknown as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  const file = location.startsWith('file://')
    ? process.getBuiltinModule('node:url').fileURLToPath(location)
    : location;
  const origin = mapOf(file)?.findOrigin(Number(lineText), Number(columnText));
  if (!origin?.fileName || origin.lineNumber === undefined || origin.columnNumber === undefined) return line;
  const mapped = `${sourcePath(origin.fileName)}:${origin.lineNumber}:${origin.columnNumber}`;
  return `${line.slice(0, line.length - whole.length)}${before}${mapped}${after}`;
}

/**
 * The stack of `error` with its bundle positions mapped to source positions; undefined when it
 * has no stack. Never throws: a frame that cannot be mapped is kept as it is.
 */
export function sourceMappedStack(error: unknown): string | undefined {
  const stack = (error as { stack?: unknown } | null | undefined)?.stack;
  if (typeof stack !== 'string') return undefined;
  try {
    return stack.split('\n').map(mapLine).join('\n');
  } catch {
    return stack;
  }
}
