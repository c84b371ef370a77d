/** The logger the local adapters and runtime write to (console by default, quiet in tests). */
export interface LocalLogger {
  info(message: string): void;
  warn(message: string, error?: unknown): void;
  error(message: string, error?: unknown): void;
}

export const consoleLogger: LocalLogger = {
  info: (message) => console.log(message),
  warn: (message, error) => (error === undefined ? console.warn(message) : console.warn(message, error)),
  error: (message, error) => (error === undefined ? console.error(message) : console.error(message, error)),
};

/** Drops info lines, keeps warnings and errors (what a test run wants to see). */
export const quietLogger: LocalLogger = { ...consoleLogger, info: () => {} };

export const errorText = (error: unknown): string =>
  error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
