#!/usr/bin/env node
// npm run try:ldap — a real OpenLDAP directory on this machine to try docs/ldap.md against: the
// one the tests start (test/helpers/slapd.mjs), with two people and a group, on a free port,
// until Ctrl-C. It prints the requests that connect Tessera to it.
import { directorySettings, group, groupDn, person, startDirectory } from '../test/helpers/slapd.mjs';

const PEOPLE = [
  ['alice', 'alice-password-1'],
  ['bob', 'bob-password-1'],
];

let directory;
try {
  directory = await startDirectory(PEOPLE.map(([uid, pw]) => person(uid, pw)).join('') + group('operators', ['alice']));
} catch (err) {
  console.error(`try:ldap: ${err.message}`);
  process.exit(1);
}
const settings = JSON.stringify(directorySettings(directory.url));
process.stdout.write(`A directory is listening at ${directory.url} (base dc=example,dc=org) until Ctrl-C.
People: alice / alice-password-1 (in the group "operators"), bob / bob-password-1 (in none).

With the README's API and AUTH (an admin's token), in another terminal:

curl -sk -H "$AUTH" -X PUT $API/v1/cluster/ldap -d '${settings}' -w '\\n'
curl -sk -H "$AUTH" -X POST $API/v1/ldap_mappings -d '{"name": "Operators", "dn": "${groupDn('operators')}", "role_uids": [2]}' -w '\\n'
curl -sk -X POST $API/v1/users/authorize -d '{"username": "alice", "password": "alice-password-1"}' -w '\\n'

alice logs in with the roles of her group's mapping; bob is refused (no mapped group).

When you are done (before Ctrl-C: once this directory is gone, every login Tessera cannot find
locally asks it, and answers 503 directory_unavailable):

curl -sk -H "$AUTH" -X DELETE $API/v1/cluster/ldap -w '\\n'
`);
const stop = async () => {
  await directory.stop();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
