import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Debian's OpenLDAP server (apt-get install -y slapd ldap-utils). */
export const SLAPD = process.env.SLAPD_PATH ?? '/usr/sbin/slapd';

export const BASE_DN = 'dc=example,dc=org';
export const ROOT_DN = `cn=admin,${BASE_DN}`;
export const ROOT_PASSWORD = 'directory-root-pw';

/**
 * Whether the LDAP tests can run. In CI a missing slapd is a failure (the tests run and say
 * why); elsewhere they are left out with a message saying what to install.
 */
export function slapdAvailable() {
  if ((existsSync(SLAPD) && existsSync('/usr/bin/ldapadd')) || process.env.CI) return true;
  console.warn(
    `The LDAP tests need OpenLDAP at ${SLAPD}: apt-get install -y slapd ldap-utils (or set SLAPD_PATH). Left out.`,
  );
  return false;
}

/**
 * (Plain JavaScript, typed in slapd.d.mts, so that the benchmarks start the same directory.)
 *
 * A real OpenLDAP server of the test's own, on a free port, with a config written under a
 * temporary folder: users under ou=people, groups (groupOfNames) under ou=groups, and the
 * memberof overlay so that a user's entry lists its groups in `memberOf`.
 */
export async function startDirectory(seed, options = {}) {
  if (!existsSync(SLAPD))
    throw new Error(
      `The LDAP tests need OpenLDAP at ${SLAPD}: apt-get install -y slapd ldap-utils (.ci/run installs it)`,
    );
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tessera-slapd-'));
  mkdirSync(path.join(dir, 'db'));
  const port = await freePort();
  const url = `ldap://127.0.0.1:${port}`;
  const conf = path.join(dir, 'slapd.conf');
  writeFileSync(
    conf,
    [
      'include /etc/ldap/schema/core.schema',
      'include /etc/ldap/schema/cosine.schema',
      'include /etc/ldap/schema/inetorgperson.schema',
      'modulepath /usr/lib/ldap',
      'moduleload back_mdb',
      'moduleload memberof',
      `pidfile ${dir}/slapd.pid`,
      ...(options.tls
        ? [`TLSCertificateFile ${options.tls.certFile}`, `TLSCertificateKeyFile ${options.tls.keyFile}`]
        : []),
      'database mdb',
      `suffix "${BASE_DN}"`,
      `rootdn "${ROOT_DN}"`,
      `rootpw ${ROOT_PASSWORD}`,
      `directory ${dir}/db`,
      'maxsize 10485760',
      'overlay memberof',
      'access to attrs=userPassword by self write by anonymous auth by * none',
      // As Active Directory by default: anonymous clients bind and read nothing.
      options.anonymousRead === false
        ? 'access to * by users read by anonymous auth by * none'
        : 'access to * by * read',
      '',
    ].join('\n'),
  );
  const child = spawn(SLAPD, ['-f', conf, '-h', url, '-d', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise((resolve) => child.once('exit', () => resolve()));
  /** Writes as the root: ldapadd, ldapmodify or ldapdelete reading LDIF (or DNs) on standard input. */
  const ldap = (tool, ldif) =>
    new Promise((resolve, reject) => {
      const p = execFile(
        tool,
        ['-x', '-H', url, '-D', ROOT_DN, '-w', ROOT_PASSWORD, ...(tool === 'ldapmodify' ? ['-c'] : [])],
        (err, _out, errOut) => (err ? reject(new Error(`${tool}: ${errOut || err.message}`)) : resolve()),
      );
      p.stdin.end(ldif);
    });
  // Up when a search answers.
  for (let i = 0; ; i++) {
    try {
      await run('ldapsearch', ['-x', '-H', url, '-b', '', '-s', 'base', '(objectClass=*)']);
      break;
    } catch (err) {
      if (child.exitCode !== null || i > 100) throw new Error(`slapd did not start: ${stderr || String(err)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  await ldap(
    'ldapadd',
    `dn: ${BASE_DN}\nobjectClass: dcObject\nobjectClass: organization\ndc: example\no: Example\n\n` +
      `dn: ou=people,${BASE_DN}\nobjectClass: organizationalUnit\nou: people\n\n` +
      `dn: ou=groups,${BASE_DN}\nobjectClass: organizationalUnit\nou: groups\n\n` +
      person('placeholder', randomBytes(12).toString('hex')) +
      seed,
  );
  return {
    url,
    port,
    modify: (ldif) => ldap('ldapmodify', ldif),
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** An LDIF person under ou=people with a cleartext password (slapd compares it as given). */
export function person(uid, password) {
  return `dn: uid=${uid},ou=people,${BASE_DN}\nobjectClass: inetOrgPerson\nuid: ${uid}\ncn: ${uid}\nsn: ${uid}\nuserPassword: ${password}\n\n`;
}

/**
 * An LDIF groupOfNames under ou=groups with these people as members, and a placeholder
 * person: groupOfNames needs a member, so a test can take every real one out.
 */
export function group(cn, members) {
  const lines = [...members, 'placeholder'].map((m) => `member: uid=${m},ou=people,${BASE_DN}`);
  return `dn: cn=${cn},ou=groups,${BASE_DN}\nobjectClass: groupOfNames\ncn: ${cn}\n${lines.join('\n')}\n\n`;
}

/**
 * The settings of PUT /v1/cluster/ldap for this directory: bound as its root, a user's DN from
 * a template under ou=people, its groups from memberOf, LDAP logins on; `extra` overrides.
 */
export function directorySettings(url, extra = {}) {
  return {
    uris: [url],
    bind_dn: ROOT_DN,
    bind_pass: ROOT_PASSWORD,
    user_dn_template: `uid=%u,ou=people,${BASE_DN}`,
    dn_group_attr: 'memberOf',
    control_plane: true,
    ...extra,
  };
}

export const groupDn = (cn) => `cn=${cn},ou=groups,${BASE_DN}`;

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}
