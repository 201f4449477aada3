import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { DOMParser, XMLSerializer } from '@xmldom/xmldom';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../src/audit/audit-log.js';
import {
  assertionOf,
  byTag,
  decodeAnswer,
  encodeAnswer,
  setAll,
  signAssertion,
  unsigned,
  unsolicited,
} from '../helpers/saml-forge.js';
import { selfSigned, simpleSamlPhpHere } from '../helpers/simplesamlphp.js';
import {
  ACS_URL,
  browserAt,
  EARLIER_ACS_URL,
  loginUrl,
  postAnswer,
  type SsoCluster,
  ssoCluster,
} from '../helpers/sso-cluster.js';

const here = simpleSamlPhpHere();
const SAML = 'urn:oasis:names:tc:SAML:2.0:assertion';
const minutes = (n: number) => new Date(Date.now() + n * 60_000).toISOString();

/**
 * Every way an answer can be forged or stale, each made from a real one the identity
 * provider gave, changed as an attacker would — and, where a check of ours is what refuses
 * it, signed again with the identity provider's own key, so that the signature is valid and
 * only the one thing under test is wrong (the audit line says which check refused it).
 */
describe.runIf(here)('forged and stale answers (from a real SimpleSAMLphp answer)', () => {
  let c: SsoCluster;
  let captured: string;
  let attacker: { certificate: string; key: string };
  let dir: string;
  const refusals: string[] = [];

  beforeAll(async () => {
    c = await ssoCluster([{ username: 'alice', password: 'alice-pw', email: 'alice@example.com', roles: ['3'] }]);
    c.t.tessera.events.on('audited', (r: AuditRecord) => {
      if (r.outcome === 'failure' && r.realm === 'sso') refusals.push(r.reason ?? '');
    });
    captured = (await browserAt(c).signIn(await loginUrl(c.t), 'alice', 'alice-pw')).SAMLResponse;
    dir = mkdtempSync(path.join(tmpdir(), 'tessera-attacker-'));
    attacker = selfSigned(dir, 'attacker', 'test-idp');
  }, 60_000);
  afterAll(async () => {
    await c?.close();
    await c?.t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The captured answer, made unsolicited with a fresh ID, changed, and signed by the IdP's key (unless told otherwise). */
  const forged = (
    change: (doc: Document) => void = () => {},
    signer: { certificate: string; key: string } | null = c.idp,
  ) => {
    const doc = unsolicited(unsigned(decodeAnswer(captured)));
    change(doc);
    return signer ? signAssertion(doc, signer) : encodeAnswer(doc);
  };

  async function refused(answer: string, why: RegExp, at?: string) {
    refusals.length = 0;
    const { location, cookie } = await postAnswer(c.t, answer, at);
    expect([location, cookie]).toEqual(['/?sso_error=sso_refused', undefined]);
    expect(refusals.join(' | ')).toMatch(why);
  }

  it("takes the workbench's own control: the answer signed again by the IdP, unchanged, signs in (once)", async () => {
    const answer = forged();
    expect((await postAnswer(c.t, answer)).location).toBe('/?sso=signed_in');
    await refused(answer, /used before \(a replay\)/);
  });

  it('refuses another signer, an unsigned answer, and one changed after signing', async () => {
    await refused(
      forged(() => {}, attacker),
      /Invalid signature/i,
    );
    // Unsigned: refused before any parsing (a string search), also when large.
    await refused(
      forged(() => {}, null),
      /the answer is not signed/,
    );
    const big = decodeAnswer(forged(() => {}, null));
    for (let i = 0; i < 200; i++) byTag(big, SAML, 'Assertion')[0]!.appendChild(big.createComment('x'.repeat(350)));
    expect(Buffer.from(encodeAnswer(big), 'base64').length).toBeGreaterThan(70_000);
    await refused(encodeAnswer(big), /the answer is not signed/);
    // A signature's name in a comment or a CDATA section is no signature.
    for (const hidden of [
      '<!--ds:SignatureValue>-->',
      '<![CDATA[<ds:SignatureValue>]]>',
      '<!-- unclosed <ds:SignatureValue> ',
    ])
      await refused(
        Buffer.from(
          Buffer.from(
            forged(() => {}, null),
            'base64',
          )
            .toString('utf8')
            .replace(/<\/samlp:Response>\s*$/, `${hidden}</samlp:Response>`),
        ).toString('base64'),
        /the answer is not signed/,
      );
    const signed = decodeAnswer(forged());
    byTag(signed, SAML, 'NameID')[0]!.textContent = 'root@example.com';
    await refused(encodeAnswer(signed), /Invalid signature/i);
    const attribute = decodeAnswer(forged());
    const value = byTag(attribute, SAML, 'AttributeValue').find((v) => v.textContent === '3')!;
    value.textContent = '1';
    await refused(encodeAnswer(attribute), /Invalid signature/i);
  });

  it('refuses an expired assertion and one not yet valid', async () => {
    await refused(
      forged((doc) => {
        setAll(doc, 'Conditions', 'NotOnOrAfter', minutes(-10));
        setAll(doc, 'Conditions', 'NotBefore', minutes(-20));
        setAll(doc, 'SubjectConfirmationData', 'NotOnOrAfter', minutes(-10));
      }),
      /expired/i,
    );
    await refused(
      forged((doc) => setAll(doc, 'Conditions', 'NotBefore', minutes(10))),
      /not yet valid/i,
    );
    await refused(
      forged((doc) => setAll(doc, 'SubjectConfirmationData', 'NotOnOrAfter', minutes(-10))),
      /bearer confirmation expired/,
    );
  });

  it('refuses an answer for another audience, recipient or destination, or from another issuer', async () => {
    await refused(
      forged((doc) => (byTag(doc, SAML, 'Audience')[0]!.textContent = 'http://other.test/sp')),
      /audience mismatch/i,
    );
    await refused(
      forged((doc) => setAll(doc, 'SubjectConfirmationData', 'Recipient', 'http://other.test/cluster/sso/saml/acs')),
      /Recipient/,
    );
    await refused(
      forged((doc) => doc.documentElement!.setAttribute('Destination', 'http://other.test/cluster/sso/saml/acs')),
      /not this consumer/,
    );
    await refused(
      forged((doc) => {
        for (const issuer of byTag(doc, SAML, 'Issuer')) issuer.textContent = 'http://other-idp.test/metadata';
      }),
      /Issuer is http:\/\/other-idp\.test/,
    );
    expect(ACS_URL).toBe('http://tessera.test/v1/cluster/sso/saml/acs');
  });

  it('takes an answer at the consumer it is addressed to, the documented one or the earlier one, and at no other', async () => {
    const addressedTo = (recipient: string, destination: string | null) =>
      forged((doc) => {
        setAll(doc, 'SubjectConfirmationData', 'Recipient', recipient);
        if (destination === null) doc.documentElement!.removeAttribute('Destination');
        else doc.documentElement!.setAttribute('Destination', destination);
      });
    const [documented, earlier] = ['/v1/cluster/sso/saml/acs', '/cluster/sso/saml/acs'];
    expect(EARLIER_ACS_URL).toBe(`http://tessera.test${earlier}`);
    // An identity provider set up with the earlier consumer posts there, addressed there: taken.
    expect((await postAnswer(c.t, addressedTo(EARLIER_ACS_URL, EARLIER_ACS_URL), earlier)).location).toBe(
      '/?sso=signed_in',
    );
    expect((await postAnswer(c.t, addressedTo(ACS_URL, ACS_URL), documented)).location).toBe('/?sso=signed_in');
    // Addressed to one consumer, posted to the other: refused, by the Destination or the Recipient alone.
    await refused(addressedTo(EARLIER_ACS_URL, EARLIER_ACS_URL), /not this consumer/, documented);
    await refused(addressedTo(ACS_URL, ACS_URL), /not this consumer/, earlier);
    await refused(addressedTo(EARLIER_ACS_URL, null), /Recipient/, documented);
    await refused(addressedTo(ACS_URL, null), /Recipient/, earlier);
    await refused(addressedTo(EARLIER_ACS_URL, ACS_URL), /Recipient/, documented);
    // Another path of this address is no consumer, whatever the answer says.
    expect(
      (
        await c.t.app.inject({
          method: 'POST',
          url: '/v1/cluster/sso/saml/acs/',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams({ SAMLResponse: addressedTo(ACS_URL, ACS_URL) }).toString(),
        })
      ).statusCode,
    ).toBe(404);
    await expect(
      c.t.tessera.ssoSignIn.consume(addressedTo('http://tessera.test/sp', null), '/sp', {
        ip: '192.0.2.9',
        requestId: 'test',
      }),
    ).rejects.toMatchObject({ code: 'sso_refused' });
  });

  it('refuses an answer to a request it never sent, and one older than three minutes', async () => {
    await refused(
      forged((doc) => {
        doc.documentElement!.setAttribute('InResponseTo', '_never-sent');
        setAll(doc, 'SubjectConfirmationData', 'InResponseTo', '_never-sent');
      }),
      /InResponseTo/,
    );
    const fresh = (await browserAt(c).signIn(await loginUrl(c.t), 'alice', 'alice-pw')).SAMLResponse;
    c.t.advance(181);
    try {
      await refused(fresh, /InResponseTo/);
    } finally {
      c.t.advance(-181);
    }
  });

  it('refuses XML signature wrapping: a second assertion beside the signed one, or around it', async () => {
    const original = decodeAnswer(captured);
    const beside = new DOMParser().parseFromString(
      new XMLSerializer().serializeToString(original as never),
      'text/xml',
    ) as unknown as Document;
    const evil = unsigned(assertionOf(beside).cloneNode(true) as unknown as Document) as unknown as Element;
    evil.setAttribute('ID', '_evil');
    byTag(evil as unknown as Document, SAML, 'NameID')[0]!.textContent = 'root@example.com';
    beside.documentElement!.insertBefore(evil, assertionOf(beside));
    await refused(encodeAnswer(beside), /signature|multiple assertions/i);

    // A refused answer takes its request with it (node-saml forgets it): the second attempt wraps another.
    const around = decodeAnswer((await browserAt(c).signIn(await loginUrl(c.t), 'alice', 'alice-pw')).SAMLResponse);
    const signedAssertion = assertionOf(around);
    const wrapper = unsigned(signedAssertion.cloneNode(true) as unknown as Document) as unknown as Element;
    wrapper.setAttribute('ID', '_wrapper');
    byTag(wrapper as unknown as Document, SAML, 'NameID')[0]!.textContent = 'root@example.com';
    around.documentElement!.replaceChild(wrapper, signedAssertion);
    byTag(wrapper as unknown as Document, SAML, 'Subject')[0]!.appendChild(signedAssertion);
    await refused(encodeAnswer(around), /signature/i);
  });

  it('refuses, before any XPath runs over it, an answer of more elements than any real one, and a logout answer that inflates past 64 KiB', async () => {
    const text = Buffer.from(captured, 'base64').toString('utf8');
    const flat = text.replace(/<\/samlp:Response>\s*$/, `${'<a/>'.repeat(20_000)}</samlp:Response>`);
    await refused(Buffer.from(flat).toString('base64'), /more than 1000 elements/);
    const bomb = deflateRawSync(
      `<samlp:LogoutResponse xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol">${' '.repeat(8_000_000)}</samlp:LogoutResponse>`,
    ).toString('base64');
    expect(bomb.length).toBeLessThan(20_000);
    const res = await c.t.app.inject({
      method: 'GET',
      url: `/cluster/sso/saml/slo?${new URLSearchParams({ SAMLResponse: bomb, SigAlg: 'x', Signature: 'x' })}`,
    });
    expect([res.statusCode, res.headers.location]).toEqual([303, '/?sso_error=idp_logout_refused']);
    const query = { SAMLResponse: bomb, SigAlg: 'x', Signature: 'x' };
    await expect(
      c.t.tessera.ssoSignIn.verifyLogoutResponse(query, new URLSearchParams(query).toString()),
    ).rejects.toMatchObject({ auditReason: /at most 65536 bytes/ });
  });

  it('throttles the start of a sign-in per address, as logins are (each start signs a request and keeps a row)', async () => {
    const start = (remoteAddress: string) =>
      c.t.app.inject({ method: 'GET', url: '/cluster/sso/saml/login', remoteAddress });
    const limit = c.t.tessera.config.authRateLimit;
    for (let i = 0; i < limit; i++) expect((await start('2001:db8::51')).headers.location).toMatch(/^http/);
    expect((await start('2001:db8::51')).headers.location).toBe('/?sso_error=too_many_requests');
    expect((await start('2001:db8::52')).headers.location).toMatch(/^http/); // another address goes on
  });
});
