import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Role } from '../../src/access/management.js';
import { buildApp, type TesseraApp } from '../../src/app.js';
import { CLI_CONTEXT } from '../../src/audit/audit-log.js';
import { type Config, makeConfig } from '../../src/config/config.js';
import { openTessera, type Tessera } from '../../src/tessera.js';
import { checkAnswersAgainstDocument } from './openapi-conformance.js';

/** Cheap argon2id for tests that are not about hashing cost. */
export const FAST_ARGON2 = { memoryCost: 1024, timeCost: 1, parallelism: 1 };

export interface TestTessera {
  tessera: Tessera;
  app: TesseraApp;
  dataDir: string;
  /** Moves the injected clock forward. */
  advance(seconds: number): void;
  addUser(username: string, password: string, role?: string): Promise<number>;
  basic(username: string, password: string): string;
  close(): Promise<void>;
}

/**
 * A real Tessera on a real SQLite file in a temporary directory, with a movable clock. Every
 * answer of a documented route is checked against the OpenAPI document; close() fails the
 * test when one did not conform, so the document cannot drift from the code.
 */
export async function testTessera(
  overrides: Parameters<typeof makeConfig>[0] = {},
  options: { logger?: Logger; startAt?: number } = {},
): Promise<TestTessera> {
  const dataDir = overrides.dataDir ?? mkdtempSync(path.join(tmpdir(), 'tessera-test-'));
  const config: Config = makeConfig({ argon2: FAST_ARGON2, ...overrides, dataDir });
  let now = options.startAt ?? Date.now();
  const tessera = await openTessera(config, { clock: () => now, logger: options.logger });
  const app = buildApp(tessera, { loggerInstance: options.logger });
  const violations = checkAnswersAgainstDocument(app);
  return {
    tessera,
    app,
    dataDir,
    advance: (seconds) => {
      now += seconds * 1000;
    },
    addUser: async (username, password, role = 'cluster_viewer') =>
      (await tessera.userCreation.create(null, { username, password, role: role as Role }, CLI_CONTEXT))!.uid,
    basic: (username, password) => `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`,
    close: async () => {
      await app.close();
      await tessera.close();
      rmSync(dataDir, { recursive: true, force: true });
      if (violations.length > 0)
        throw new Error(`answers that the OpenAPI document does not describe:\n${violations.join('\n')}`);
    },
  };
}

/** Splits a JWT into its decoded header and payload, without verifying it. */
export function decodeJwt(token: string): { header: Record<string, unknown>; payload: Record<string, unknown> } {
  const [h, p] = token.split('.');
  return {
    header: JSON.parse(Buffer.from(h!, 'base64url').toString()),
    payload: JSON.parse(Buffer.from(p!, 'base64url').toString()),
  };
}
