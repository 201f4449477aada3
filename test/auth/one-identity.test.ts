import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, login } from '../helpers/http.js';
import {
  BASE_DN,
  type Directory,
  directorySettings,
  group,
  groupDn,
  person,
  ROOT_DN,
  ROOT_PASSWORD,
  slapdAvailable,
  startDirectory,
} from '../helpers/slapd.mjs';
import { decodeJwt, type TestTessera, testTessera } from '../helpers/test-tessera.js';

/** A person with a mail address, which a search filter also takes as its name. */
const mia = `dn: uid=mia,ou=people,${BASE_DN}\nobjectClass: inetOrgPerson\nuid: mia\ncn: mia\nsn: mia\nmail: mia@example.org\nuserPassword: mia-pw-1\n\n`;

const SEED =
  mia +
  person('alice', 'alice-pw-1') +
  person('ann lee', 'ann-pw-1') +
  person('um', 'um-directory-pw') +
  person('dave', 'dave-pw-1') +
  person('bob', 'bob-pw-1') +
  person('eve', 'eve-pw-1') +
  group('ops', ['alice', 'ann lee', 'um', 'dave', 'eve', 'mia']) +
  group('viewers', ['alice', 'bob']);

/** How the directory finds a user: a DN template, or a search by the service account. */
const MODES = {
  template: (url: string) => directorySettings(url, { cache_ttl: 60 }),
  search: (url: string) => ({
    uris: [url],
    bind_dn: ROOT_DN,
    bind_pass: ROOT_PASSWORD,
    user_dn_query: { base: `ou=people,${BASE_DN}`, filter: '(&(objectClass=inetOrgPerson)(uid=%u))', scope: 'subtree' },
    dn_group_query: { base: `ou=groups,${BASE_DN}`, filter: '(&(objectClass=groupOfNames)(member=%D))', scope: 'one' },
    cache_ttl: 60,
    control_plane: true,
  }),
};

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function node(): Promise<{ t: TestTessera; admin: string }> {
  const t = await testTessera({ authRateLimit: 0 });
  cleanups.push(() => t.close());
  await t.addUser('root', 'root-password', 'admin');
  return { t, admin: await login(t, 'root', 'root-password') };
}

const uidOf = (res: { status: number; body: any }) => {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return decodeJwt(res.body.access_token).payload.uid as number;
};

/**
 * One account is one identity, whatever the way in: a directory that ignores case and
 * insignificant spaces (a real slapd whose ACLs let anonymous clients read nothing, as
 * Active Directory's do) yields one Tessera user per directory entry, counted once by the
 * lockout, and a name belongs to one way in.
 */
describe.skipIf(!slapdAvailable())('one identity behind every way in (real slapd, anonymous reads refused)', () => {
  let dir: Directory;
  beforeAll(async () => {
    dir = await startDirectory(SEED, { anonymousRead: false });
  });
  afterAll(() => dir?.stop());

  async function configure(
    t: TestTessera,
    admin: string,
    mode: keyof typeof MODES,
    extra: Record<string, unknown> = {},
  ) {
    const put = await call(t, 'PUT', '/v1/cluster/ldap', { auth: admin, body: { ...MODES[mode](dir.url), ...extra } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(
      (
        await call(t, 'POST', '/v1/ldap_mappings', {
          auth: admin,
          body: { name: 'Ops', dn: groupDn('ops'), role_uids: [1] },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await call(t, 'POST', '/v1/ldap_mappings', {
          auth: admin,
          body: { name: 'Viewers', dn: groupDn('viewers'), role_uids: [3] },
        })
      ).status,
    ).toBe(200);
  }

  const directoryRows = (t: TestTessera) =>
    t.tessera.db.selectFrom('users').select('uid').where('realm', '=', 'ldap').execute();

  describe.each(Object.keys(MODES) as (keyof typeof MODES)[])('%s mode', (mode) => {
    it('logs every spelling of one directory name in as one account, in both formats', async () => {
      const { t, admin } = await node();
      await configure(t, admin, mode);
      const alice = uidOf(
        await call(t, 'POST', '/v1/users/authorize', { body: { username: 'alice', password: 'alice-pw-1' } }),
      );
      for (const username of ['alice ', ' alice', 'ALICE', 'Alice']) {
        expect(
          uidOf(await call(t, 'POST', '/v1/users/authorize', { body: { username, password: 'alice-pw-1' } })),
          JSON.stringify(username),
        ).toBe(alice);
        expect(
          uidOf(await call(t, 'POST', '/v1/users/authorize', { auth: t.basic(username, 'alice-pw-1') })),
          JSON.stringify(username),
        ).toBe(alice);
      }
      const ann = uidOf(
        await call(t, 'POST', '/v1/users/authorize', { body: { username: 'ann lee', password: 'ann-pw-1' } }),
      );
      for (const username of ['ann  lee', 'Ann Lee', ' ann lee ']) {
        expect(
          uidOf(await call(t, 'POST', '/v1/users/authorize', { body: { username, password: 'ann-pw-1' } })),
          JSON.stringify(username),
        ).toBe(ann);
      }
      expect(await directoryRows(t)).toHaveLength(2);
      // The token names the account as it was made, not as it was typed this time.
      const token = await call(t, 'POST', '/v1/users/authorize', { auth: t.basic(' ALICE', 'alice-pw-1') });
      expect(decodeJwt(token.body.access_token).payload.username).toBe('alice');
    });

    it('counts wrong guesses over every spelling against the one account, and a lock holds for all of them', async () => {
      const { t, admin } = await node();
      await configure(t, admin, mode);
      expect(
        (await call(t, 'PUT', '/v1/cluster/policy', { auth: admin, body: { login_lockout_threshold: 4 } })).status,
      ).toBe(200);
      uidOf(await call(t, 'POST', '/v1/users/authorize', { body: { username: 'alice', password: 'alice-pw-1' } }));
      for (const username of ['alice', 'alice ', 'ALICE', ' alice']) {
        const wrong = await call(t, 'POST', '/v1/users/authorize', { body: { username, password: 'a-wrong-guess' } });
        expect(wrong.body.error_code, JSON.stringify(username)).toBe('invalid_credentials');
      }
      for (const username of ['alice', 'alice ', 'Alice']) {
        const right = await call(t, 'POST', '/v1/users/authorize', { auth: t.basic(username, 'alice-pw-1') });
        expect([right.status, right.body.error_code], JSON.stringify(username)).toEqual([401, 'account_locked']);
        expect((await call(t, 'GET', '/v1/users', { auth: t.basic(username, 'alice-pw-1') })).body.error_code).toBe(
          'account_locked',
        );
      }
    });

    it("lets a local user of a name win over the directory's, whatever the spelling", async () => {
      const { t, admin } = await node();
      const local = await t.addUser('um', 'local-um-password', 'db_viewer');
      await configure(t, admin, mode);
      for (const username of ['um', 'um ', 'UM', ' Um']) {
        const directoryPassword = await call(t, 'POST', '/v1/users/authorize', {
          body: { username, password: 'um-directory-pw' },
        });
        expect([directoryPassword.status, directoryPassword.body.error_code], JSON.stringify(username)).toEqual([
          401,
          'invalid_credentials',
        ]);
        expect(
          uidOf(await call(t, 'POST', '/v1/users/authorize', { body: { username, password: 'local-um-password' } })),
        ).toBe(local);
      }
      expect(await directoryRows(t)).toHaveLength(0);
    });
  });

  it("keeps a name to one way in: no local user takes a directory user's name, no password reaches a certificate user", async () => {
    const { t, admin } = await node();
    // A certificate user made before the directory was configured, with a name the directory has too.
    const made = await call(t, 'POST', '/v1/users', {
      auth: admin,
      body: {
        name: 'eve',
        auth_method: 'certificate',
        certificate_subject_line: 'CN=eve,O=Example',
        role: 'db_viewer',
      },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    await configure(t, admin, 'template');
    // A password login with the certificate user's name never reaches the directory's eve.
    for (const username of ['eve', 'eve ', 'EVE']) {
      const res = await call(t, 'POST', '/v1/users/authorize', { body: { username, password: 'eve-pw-1' } });
      expect([res.status, res.body.error_code], username).toEqual([401, 'invalid_credentials']);
    }
    // dave has logged in (his row exists); bob never has (the directory knows him all the same).
    uidOf(await call(t, 'POST', '/v1/users/authorize', { body: { username: 'dave', password: 'dave-pw-1' } }));
    const mallory = await t.addUser('mallory', 'mallory-password', 'none');
    for (const name of ['dave', 'Dave', 'bob', 'BOB']) {
      const rename = await call(t, 'PUT', `/v1/users/${mallory}`, { auth: admin, body: { name } });
      expect([rename.status, rename.body.error_code], name).toEqual([409, 'name_already_exists']);
      // mallory itself may not rename itself, and learns nothing of who exists by trying.
      const own = await call(t, 'PUT', `/v1/users/${mallory}?dry_run=true`, {
        auth: t.basic('mallory', 'mallory-password'),
        body: { name },
      });
      expect([own.status, own.body.error_code], name).toEqual([403, 'unauthorized_action']);
      const create = await call(t, 'POST', '/v1/users', {
        auth: admin,
        body: { name, password: 'a-long-password-1', role: 'db_viewer' },
      });
      expect([create.status, create.body.error_code], name).toEqual([409, 'name_already_exists']);
    }
    // The directory's dave and bob still log in as themselves.
    uidOf(await call(t, 'POST', '/v1/users/authorize', { body: { username: 'dave', password: 'dave-pw-1' } }));
    const bob = await call(t, 'POST', '/v1/users/authorize', { body: { username: 'bob', password: 'bob-pw-1' } });
    expect(decodeJwt(bob.body.access_token).payload).toMatchObject({ username: 'bob', roles: ['cluster_viewer'] });
  });

  it("counts guesses at another of a directory user's names (its mail) against its account, and holds its lock there too", async () => {
    const { t, admin } = await node();
    const either = {
      base: `ou=people,${BASE_DN}`,
      filter: '(&(objectClass=inetOrgPerson)(|(uid=%u)(mail=%u)))',
      scope: 'subtree',
    };
    await configure(t, admin, 'search', { user_dn_query: either });
    expect(
      (await call(t, 'PUT', '/v1/cluster/policy', { auth: admin, body: { login_lockout_threshold: 4 } })).status,
    ).toBe(200);
    const uid = uidOf(
      await call(t, 'POST', '/v1/users/authorize', { body: { username: 'mia', password: 'mia-pw-1' } }),
    );
    // Its mail is the same entry: the same account.
    expect(
      uidOf(
        await call(t, 'POST', '/v1/users/authorize', { body: { username: 'MIA@example.org', password: 'mia-pw-1' } }),
      ),
    ).toBe(uid);
    for (let i = 0; i < 4; i++) {
      const wrong = await call(t, 'POST', '/v1/users/authorize', {
        body: { username: 'mia@example.org', password: `guess-${i}` },
      });
      expect(wrong.body.error_code).toBe('invalid_credentials');
    }
    for (const username of ['mia', 'mia@example.org']) {
      const right = await call(t, 'POST', '/v1/users/authorize', { body: { username, password: 'mia-pw-1' } });
      expect([right.status, right.body.error_code], username).toEqual([401, 'account_locked']);
    }
  });

  it("answers a password for an account that has none (an SSO user's) as a name known nowhere: no realm asked, not counted against it", async () => {
    const { t, admin } = await node();
    // Made before the directory is on (its name would be the directory's then): the SSO account of mia's mail.
    const made = await call(t, 'POST', '/v1/users', {
      auth: admin,
      body: { auth_method: 'sso', email: 'mia@example.org', role_uids: [4] },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const either = {
      base: `ou=people,${BASE_DN}`,
      filter: '(&(objectClass=inetOrgPerson)(|(uid=%u)(mail=%u)))',
      scope: 'subtree',
    };
    await configure(t, admin, 'search', { user_dn_query: either });
    expect(
      (await call(t, 'PUT', '/v1/cluster/policy', { auth: admin, body: { login_lockout_threshold: 2 } })).status,
    ).toBe(200);
    uidOf(await call(t, 'POST', '/v1/users/authorize', { body: { username: 'mia', password: 'mia-pw-1' } }));
    // The directory's right password for the entry whose mail the SSO account is named by: not a way into either account.
    for (const password of ['mia-pw-1', 'guess-1']) {
      const refused = await call(t, 'POST', '/v1/users/authorize', { body: { username: 'mia@example.org', password } });
      expect([refused.status, refused.body.error_code]).toEqual([401, 'invalid_credentials']);
    }
    // The name is counted apart, as a name nobody has is: it answers as locked now, like any name guessed at.
    const third = await call(t, 'POST', '/v1/users/authorize', {
      body: { username: 'mia@example.org', password: 'x' },
    });
    expect(third.body.error_code).toBe('account_locked');
    // Guesses at a name whose account has no password lock neither that account (its way in is the IdP) nor the directory's.
    const sso = await call(t, 'GET', `/v1/users/${made.body.uid}`, { auth: admin });
    expect(sso.body.status).toBe('active');
    uidOf(await call(t, 'POST', '/v1/users/authorize', { body: { username: 'mia', password: 'mia-pw-1' } }));
  });

  it('bounds a remembered directory answer by cache_ttl, however often the credentials come', async () => {
    const { t, admin } = await node();
    await configure(t, admin, 'template', { cache_ttl: 1 });
    const token = await login(t, 'alice', 'alice-pw-1');
    expect((await call(t, 'GET', '/v1/users', { auth: t.basic('alice', 'alice-pw-1') })).status).toBe(200);
    await dir.modify(
      `dn: ${groupDn('ops')}\nchangetype: modify\ndelete: member\nmember: uid=alice,ou=people,${BASE_DN}\n\n`,
    );
    cleanups.push(() =>
      dir.modify(`dn: ${groupDn('ops')}\nchangetype: modify\nadd: member\nmember: uid=alice,ou=people,${BASE_DN}\n\n`),
    );
    // A call every 200 ms: within the second the remembered answer stands, past it the directory is asked again.
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      t.advance(0.2);
      statuses.push((await call(t, 'GET', '/v1/users', { auth: t.basic('alice', 'alice-pw-1') })).status);
    }
    expect(statuses.slice(0, 4)).toEqual([200, 200, 200, 200]);
    expect(statuses.slice(5)).toEqual([403, 403, 403, 403, 403]);
    // Her roles changed: the token made with the old ones is over, and cannot be renewed.
    expect((await call(t, 'GET', '/v1/users/permissions', { auth: token })).status).toBe(401);
    expect((await call(t, 'POST', '/v1/users/refresh_jwt', { auth: token, body: {} })).status).toBe(401);
  });

  it('ends the tokens of a user the directory no longer has, at its refresh', async () => {
    const { t, admin } = await node();
    await configure(t, admin, 'search');
    const dir2 = await startDirectory(person('zed', 'zed-pw-1') + group('ops', ['zed']), { anonymousRead: false });
    cleanups.push(() => dir2.stop());
    expect(
      (await call(t, 'PUT', '/v1/cluster/ldap', { auth: admin, body: { ...MODES.search(dir2.url) } })).status,
    ).toBe(200);
    const token = await login(t, 'zed', 'zed-pw-1');
    await dir2.modify(`dn: uid=zed,ou=people,${BASE_DN}\nchangetype: delete\n\n`);
    expect((await call(t, 'POST', '/v1/users/refresh_jwt', { auth: token, body: {} })).status).toBe(401);
    expect((await call(t, 'GET', '/v1/users/permissions', { auth: token })).status).toBe(401);
  });
});

describe('the lockout counts per account', () => {
  it("counts wrong guesses at a user's name and email together", async () => {
    const { t, admin } = await node();
    expect(
      (await call(t, 'PUT', '/v1/cluster/policy', { auth: admin, body: { login_lockout_threshold: 4 } })).status,
    ).toBe(200);
    const made = await call(t, 'POST', '/v1/users', {
      auth: admin,
      body: { name: 'ops', email: 'ops@example.com', password: 'ops-password-1', role: 'db_viewer' },
    });
    expect(made.status).toBe(200);
    for (const username of ['ops', 'ops@example.com', 'OPS ', 'Ops@Example.com']) {
      expect(
        (await call(t, 'POST', '/v1/users/authorize', { body: { username, password: 'wrong-guess' } })).body.error_code,
      ).toBe('invalid_credentials');
    }
    for (const username of ['ops', 'ops@example.com']) {
      expect(
        (await call(t, 'POST', '/v1/users/authorize', { body: { username, password: 'ops-password-1' } })).body
          .error_code,
      ).toBe('account_locked');
    }
  });

  it('does not hold failures against a name that did not exist yet against the account made later', async () => {
    const { t, admin } = await node();
    expect(
      (await call(t, 'PUT', '/v1/cluster/policy', { auth: admin, body: { login_lockout_threshold: 4 } })).status,
    ).toBe(200);
    for (let i = 0; i < 4; i++) {
      const res = await call(t, 'POST', '/v1/users/authorize', {
        body: { username: 'newcomer', password: `guess-${i}` },
      });
      expect(res.body.error_code).toBe('invalid_credentials');
    }
    // Unknown names answer as known ones do, locked once the threshold is reached.
    expect(
      (await call(t, 'POST', '/v1/users/authorize', { body: { username: 'newcomer', password: 'guess-5' } })).body
        .error_code,
    ).toBe('account_locked');
    await t.addUser('newcomer', 'newcomer-password-1', 'db_viewer');
    uidOf(
      await call(t, 'POST', '/v1/users/authorize', { body: { username: 'newcomer', password: 'newcomer-password-1' } }),
    );
  });
});
