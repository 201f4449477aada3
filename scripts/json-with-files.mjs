#!/usr/bin/env node
// node scripts/json-with-files.mjs TEMPLATE — the docs' request bodies that carry files
// (certificates, keys, metadata): prints TEMPLATE, a JSON text, with every string "@FILE"
// replaced by FILE's text and every "@base64:FILE" by its bytes in base64. When a file is not
// there it says which one and how to get it, prints nothing and exits 1, so that
// `BODY=$(node scripts/json-with-files.mjs '…') && curl … -d "$BODY"` sends no request.
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** How to get the files the docs name (docs/sso.md, docs/ldap.md, docs/certificates.md). */
const HOW = {
  'sp.crt': 'make it with the openssl line above (or run npm run try:sso)',
  'sp.key': 'make it with the openssl line above (or run npm run try:sso)',
  'idp.crt':
    "save your identity provider's signing certificate as idp.crt (it is in its metadata too), or run npm run try:sso for one to try",
  'idp-metadata.xml':
    "save your identity provider's metadata as idp-metadata.xml, or run npm run try:sso for one to try",
  'client-ca.pem': 'make it with the openssl lines above (the test CA)',
  'ldap-ca.pem':
    "save your directory's CA certificate (PEM) as ldap-ca.pem; without TLS, leave ca_cert out (npm run try:ldap starts a directory to try)",
};

function how(file) {
  const full = path.resolve(file);
  if (full.startsWith(path.join(tmpdir(), 'tessera-try-sso-')))
    return 'npm run try:sso made it and removes it when it stops: is it still running?';
  return HOW[path.basename(file)] ?? `no such file in ${process.cwd()}`;
}

function fail(message, code = 1) {
  console.error(message);
  process.exit(code);
}

const [template, ...rest] = process.argv.slice(2);
if (template === undefined || rest.length > 0 || template === '--help')
  fail(
    'usage: node scripts/json-with-files.mjs \'{"certificate": "@sp.crt", "metadata": "@base64:idp-metadata.xml"}\'\n' +
      'prints the JSON with "@FILE" replaced by the file\'s text and "@base64:FILE" by its bytes in base64',
    2,
  );

let body;
try {
  body = JSON.parse(template);
} catch (err) {
  fail(`json-with-files: the template is not JSON (${err.message})`, 2);
}

function read(file, encoding) {
  try {
    return readFileSync(file).toString(encoding);
  } catch (err) {
    if (err.code === 'ENOENT') fail(`missing file ${file}: ${how(file)}`);
    fail(`cannot read ${file}: ${err.message}`);
  }
}

function fill(value) {
  if (typeof value === 'string' && value.startsWith('@base64:')) return read(value.slice('@base64:'.length), 'base64');
  if (typeof value === 'string' && value.startsWith('@') && value.length > 1) return read(value.slice(1), 'utf8');
  if (Array.isArray(value)) return value.map(fill);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v)]));
  return value;
}

process.stdout.write(`${JSON.stringify(fill(body))}\n`);
