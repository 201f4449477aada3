import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';

export const CLI = path.resolve(import.meta.dirname, '../../dist/cli/main.js');

/** Cheap argon2id for end-to-end runs that are not about hashing cost. */
export const FAST_ARGON2_ENV = {
  TESSERA_ARGON2_MEMORY_KIB: '1024',
  TESSERA_ARGON2_ITERATIONS: '1',
};

export function cleanEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = { ...process.env };
  for (const key of Object.keys(base)) if (key.startsWith('TESSERA_')) delete base[key];
  // Servers of parallel tests must not all take the metrics port 9464.
  return { ...base, TESSERA_METRICS_LISTEN: '127.0.0.1:0', ...env };
}

/** Runs the built CLI to completion. */
export function runCli(
  args: string[],
  opts: { env?: Record<string, string>; input?: string; cwd?: string } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: cleanEnv(opts.env ?? {}), cwd: opts.cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(opts.input ?? '');
  });
}

export interface ServeProcess {
  url: string;
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Sends the signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `tessera serve` as a subprocess and waits until it says where it listens. */
export function startServe(args: string[], env: Record<string, string> = {}, cwd?: string): Promise<ServeProcess> {
  const child = spawn(process.execPath, [CLI, 'serve', '--listen', '127.0.0.1:0', ...args], {
    env: cleanEnv(env),
    cwd,
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${stderr}`)), 20_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code}:\n${stderr}`));
    });
    child.stderr!.on('data', (d) => {
      stderr += d;
      const match = /listening on (\S+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve({
          url: match[1]!,
          child,
          stdout: () => stdout,
          stderr: () => stderr,
          stop: (signal = 'SIGTERM') => {
            child.kill(signal);
            return exited;
          },
        });
      }
    });
  });
}

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  json: any;
}

/** One HTTP(S) request over a real socket; `ca` trusts a PEM certificate. */
export function request(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string; ca?: Buffer } = {},
): Promise<Reply> {
  const target = new URL(url);
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(target, { method: opts.method ?? 'GET', headers: opts.headers, ca: opts.ca }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.headers, json: text ? JSON.parse(text) : undefined }),
      );
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

export const basic = (username: string, password: string) =>
  `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
