import { read } from 'read';
import { CliError } from './cli-error.js';

/**
 * A password from standard input (--password-stdin: everything up to the end, less one
 * trailing line break) or from a hidden prompt on the terminal. Never from an argument,
 * which would land in shell history and in `ps`.
 */
export async function readPassword(opts: { stdin?: boolean; prompt: string; confirm?: boolean }): Promise<string> {
  if (opts.stdin) {
    const password = (await readStdin()).replace(/\r?\n$/, '');
    if (!password) throw new CliError('no password on standard input');
    return password;
  }
  if (!process.stdin.isTTY) {
    throw new CliError('no terminal to ask for the password: pass it on standard input with --password-stdin');
  }
  const password = await hidden(opts.prompt);
  if (opts.confirm) {
    const again = await hidden('Repeat it: ');
    if (again !== password) throw new CliError('the two passwords differ');
  }
  return password;
}

/** A line typed unseen; the Enter it ends with is muted as well, so the line is ended here (else the next output joins the prompt's line). */
async function hidden(prompt: string): Promise<string> {
  const line = await read({ prompt, silent: true, replace: '', output: process.stderr });
  process.stderr.write('\n');
  return line;
}

/** `count` passwords from standard input, one a line (each line exactly as typed). */
export async function readStdinLines(count: number): Promise<string[]> {
  const lines = (await readStdin()).replace(/\r?\n$/, '').split(/\r?\n/);
  if (lines.length !== count || lines.some((l) => l === '')) {
    throw new CliError(`standard input must hold ${count} passwords, one a line`);
  }
  return lines;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
