#!/usr/bin/env -S node --max-semi-space-size=2
// A 2 MiB young generation (Node's default is 16 MiB) keeps idle RSS ~18 MB lower; a
// service's requests make little garbage that lives long, so scavenges stay cheap.
import { ConfigError } from '../config/config.js';
import { DomainError } from '../errors.js';
import { CliError } from './cli-error.js';
import { tesseraProgram } from './program.js';

/** Stacks are for `--log-level debug` (or TESSERA_LOG_LEVEL=debug); a user gets one line. */
const debug =
  /(^|\s)--log-level[= ](debug|trace)\b/.test(process.argv.join(' ')) ||
  /^(debug|trace)$/.test(process.env.TESSERA_LOG_LEVEL ?? '');

tesseraProgram()
  .parseAsync()
  .catch((err: unknown) => {
    const known = err instanceof CliError || err instanceof ConfigError || err instanceof DomainError;
    const message = known
      ? (err as Error).message
      : `${(err as Error)?.message ?? err} (add --log-level debug for the details)`;
    process.stderr.write(`tessera: ${message}\n`);
    const detail = err instanceof CliError ? err.explains : known ? undefined : err;
    if (debug && detail) process.stderr.write(`${(detail as Error).stack ?? detail}\n`);
    process.exit(err instanceof CliError ? err.exitCode : known ? 2 : 1);
  });
