/** An error whose message is all the user needs; the CLI prints it without a stack. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
    /** What it explains, shown with --log-level debug. */
    readonly explains?: unknown,
  ) {
    super(message);
  }
}
