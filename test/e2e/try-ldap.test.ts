import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { basic, FAST_ARGON2_ENV, request, startServe } from '../helpers/cli.js';
import { slapdAvailable } from '../helpers/slapd.mjs';

const SCRIPT = path.resolve(import.meta.dirname, '../../scripts/try-ldap.mjs');

/** `npm run try:ldap` as docs/ldap.md tells it: the requests it prints, pasted against a real server, log alice in. */
it.skipIf(!slapdAvailable() && process.env.CI !== 'true')(
  'starts a directory whose printed requests connect a real server to it: alice logs in, bob is refused',
  async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-try-ldap-'));
    const server = await startServe(['--no-tls', '--metrics-listen', 'off'], {
      ...FAST_ARGON2_ENV,
      TESSERA_DATA_DIR: dataDir,
      TESSERA_ADMIN_USERNAME: 'root',
      TESSERA_ADMIN_PASSWORD: 'Root-password-1',
    });
    const directory = spawn(process.execPath, [SCRIPT], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      let out = '';
      await new Promise<void>((resolve, reject) => {
        directory.stdout.on('data', (d) => {
          out += d;
          if (out.includes('bob is refused')) resolve();
        });
        directory.on('exit', (code) => reject(new Error(`try-ldap exited (${code}): ${out}`)));
      });
      // Each printed request: its method, path and body, sent as an admin would with curl.
      const requests = [...out.matchAll(/curl -sk (?:-H "\$AUTH" )?-X (\w+) \$API(\S+) -d '(.+?)' -w '\\n'$/gm)];
      expect(requests).toHaveLength(3);
      // And how to undo it: a directory left configured and gone turns every unknown name into a 503.
      expect(out).toMatch(/When you are done[\s\S]*curl -sk -H "\$AUTH" -X DELETE \$API\/v1\/cluster\/ldap/);
      const answers = [];
      for (const [, method, url = '', body] of requests)
        answers.push(
          await request(`${server.url}${url}`, {
            method,
            headers: url.endsWith('/authorize') ? {} : { authorization: basic('root', 'Root-password-1') },
            body,
          }),
        );
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
      const bob = await request(`${server.url}/v1/users/authorize`, {
        method: 'POST',
        body: JSON.stringify({ username: 'bob', password: 'bob-password-1' }),
      });
      expect(bob.status).toBe(401);
    } finally {
      directory.kill('SIGINT');
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
  60_000,
);
