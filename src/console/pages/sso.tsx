import { useEffect, useState } from 'preact/hooks';
import type { Call } from '../api.js';
import { api, explain } from '../api.js';
import { CertificateFacts, Check, Confirm, Done, Field, Problem, useActions } from '../components.js';
import { type CertificateSummary, pemBlocks, summarize } from '../x509.js';

/** The product's `sso` object, as GET /v1/cluster/sso answers it. */
interface Sso {
  control_plane: boolean;
  enforce_control_plane: boolean;
  issuer: { id: string; login_url: string; logout_url: string };
  service: { address: string; saml2: { entity_id: string; acs_url: string; slo_url: string } };
}

interface Certificates {
  sso_service_cert?: string;
  sso_issuer_cert?: string;
}

/** A file's text as base64 (UTF-8), as POST /v1/cluster/sso/saml/metadata/idp takes it. */
async function base64Of(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** SSO, in the order it is set up: this cluster's certificate, the identity provider's certificate and metadata, then the settings that turn it on. */
export function SsoPage(props: { call: Call; token: string }) {
  const [sso, setSso] = useState<Sso>();
  const [certs, setCerts] = useState<Certificates>({});
  const [serviceCert, setServiceCert] = useState('');
  const [serviceKey, setServiceKey] = useState('');
  const [issuerCert, setIssuerCert] = useState('');
  const [metadata, setMetadata] = useState<File>();
  const [clearing, setClearing] = useState(false);
  /** What the certificates set are (read from their PEM here): undefined while none is set or one cannot be read. */
  const [serviceFacts, setServiceFacts] = useState<CertificateSummary>();
  const [issuerFacts, setIssuerFacts] = useState<CertificateSummary>();
  const { problem, setProblem, done, act } = useActions(() => load());
  const load = () =>
    Promise.all([
      props.call<Sso>('GET', '/v1/cluster/sso'),
      props.call<Certificates>('GET', '/v1/cluster/certificates'),
    ]).then(
      async ([s, c]) => {
        const [service, issuer] = await Promise.all([factsOf(c.sso_service_cert), factsOf(c.sso_issuer_cert)]);
        setSso(s);
        setCerts(c);
        setServiceFacts(service);
        setIssuerFacts(issuer);
      },
      (err) => setProblem(explain(err)),
    );
  useEffect(() => void load(), []);
  const downloadMetadata = () =>
    act(async () => {
      const xml = await api<string>('GET', '/v1/cluster/sso/saml/metadata/sp', { token: props.token, text: true });
      const link = document.createElement('a');
      link.href = URL.createObjectURL(new Blob([xml], { type: 'application/samlmetadata+xml' }));
      link.download = 'tessera-sp-metadata.xml';
      link.click();
      URL.revokeObjectURL(link.href);
    }, 'Downloaded the service provider metadata.');
  const setIssuer = (changes: Partial<Sso['issuer']>) => setSso({ ...sso!, issuer: { ...sso!.issuer, ...changes } });
  const uploadCertificate = (certificate: { name: string; certificate: string; key?: string }, success: string) =>
    act(() => props.call('PUT', '/v1/cluster/certificates', { certificates: [certificate] }), success);

  return (
    <section>
      <h1>SSO</h1>
      <p>
        Operators sign in to this console through your company's SAML 2.0 identity provider. The first sign-in creates
        the user, named by its email, with the roles the provider sends in <code>redisRoleMapping</code> (role uids); an
        existing user with that email keeps its own roles. A change of the provider or turning SSO off ends the sessions
        SSO started.
      </p>
      <Problem>{problem}</Problem>
      <Done>{done}</Done>
      {sso && (
        <>
          <div class="card">
            <h2>This cluster, as the identity provider knows it</h2>
            <dl>
              <dt>Entity ID</dt>
              <dd>{sso.service.saml2.entity_id}</dd>
              <dt>Assertion consumer service (HTTP-POST)</dt>
              <dd>{sso.service.saml2.acs_url}</dd>
              <dt>Single logout (HTTP-Redirect)</dt>
              <dd>{sso.service.saml2.slo_url}</dd>
            </dl>
            <button type="button" onClick={() => void downloadMetadata()} disabled={!certs.sso_service_cert}>
              Download SP metadata
            </button>
            {!certs.sso_service_cert && <small class="hint"> needs the service certificate below</small>}
          </div>
          <form
            aria-label="Service certificate"
            class="card"
            onSubmit={(e) => {
              e.preventDefault();
              void uploadCertificate(
                { name: 'sso_service', certificate: serviceCert, key: serviceKey },
                'Service certificate set.',
              ).then(() => setServiceKey(''));
            }}
          >
            <h2>1. Service certificate {certs.sso_service_cert ? '(set)' : '(not set)'}</h2>
            <p class="hint">signs this cluster's requests and metadata; its key is never shown again</p>
            {serviceFacts && <CertificateFacts summary={serviceFacts} label="The service certificate set" />}
            <PemArea id="sso-service-cert" label="Certificate (PEM)" value={serviceCert} onInput={setServiceCert} />
            <PemArea id="sso-service-key" label="Private key (PEM)" value={serviceKey} onInput={setServiceKey} />
            <button type="submit">Set service certificate</button>
          </form>
          <form
            aria-label="Identity provider certificate"
            class="card"
            onSubmit={(e) => {
              e.preventDefault();
              void uploadCertificate(
                { name: 'sso_issuer', certificate: issuerCert },
                'Identity provider certificate set.',
              );
            }}
          >
            <h2>2. Identity provider certificate {certs.sso_issuer_cert ? '(set)' : '(not set)'}</h2>
            <p class="hint">the only signer whose answers are taken</p>
            {issuerFacts && <CertificateFacts summary={issuerFacts} label="The identity provider certificate set" />}
            <PemArea
              id="sso-issuer-cert"
              label="Identity provider certificate (PEM)"
              value={issuerCert}
              onInput={setIssuerCert}
            />
            <button type="submit">Set identity provider certificate</button>
          </form>
          <form
            aria-label="Identity provider metadata"
            class="card"
            onSubmit={(e) => {
              e.preventDefault();
              if (metadata)
                void act(
                  async () =>
                    props.call('POST', '/v1/cluster/sso/saml/metadata/idp', { idp_metadata: await base64Of(metadata) }),
                  'Identity provider metadata read.',
                );
            }}
          >
            <h2>3. Identity provider metadata</h2>
            <div class="field">
              <label for="sso-idp-metadata">Metadata file (XML)</label>
              <input
                id="sso-idp-metadata"
                type="file"
                accept=".xml,application/xml,application/samlmetadata+xml"
                onChange={(e) => setMetadata((e.target as HTMLInputElement).files?.[0])}
              />
              <small class="hint">
                fills in the identity provider's entity ID and URLs in the settings below; its signing certificate is
                step 2
              </small>
            </div>
            <button type="submit" disabled={!metadata}>
              Upload metadata
            </button>
          </form>
          <form
            aria-label="SSO settings"
            class="card"
            onSubmit={(e) => {
              e.preventDefault();
              const { control_plane, enforce_control_plane, issuer, service } = sso;
              void act(
                () =>
                  props.call('PUT', '/v1/cluster/sso', {
                    control_plane,
                    enforce_control_plane,
                    issuer: { id: issuer.id, login_url: issuer.login_url, logout_url: issuer.logout_url },
                    service: { address: service.address },
                  }),
                'SSO settings saved.',
              );
            }}
          >
            <h2>4. Settings</h2>
            <p class="hint">turn SSO on once the identity provider knows this cluster (the URLs above)</p>
            <Field
              label="Identity provider entity ID"
              value={sso.issuer.id}
              onInput={(id) => setIssuer({ id })}
              autoComplete="off"
            />
            <Field
              label="Identity provider sign-in URL"
              value={sso.issuer.login_url}
              onInput={(login_url) => setIssuer({ login_url })}
              hint="its single sign-on service (HTTP-Redirect)"
              autoComplete="off"
            />
            <Field
              label="Identity provider sign-out URL"
              value={sso.issuer.logout_url}
              onInput={(logout_url) => setIssuer({ logout_url })}
              hint="its single logout service; empty: sign out here only"
              autoComplete="off"
            />
            <Field
              label="This cluster's address"
              value={sso.service.address}
              onInput={(address) => setSso({ ...sso, service: { ...sso.service, address } })}
              hint="the base URL browsers reach this console at; empty: the server's --public-url"
              autoComplete="off"
            />
            <Check
              id="sso-control-plane"
              label="Sign-in with SSO for this console"
              checked={sso.control_plane}
              onChange={(control_plane) => setSso({ ...sso, control_plane })}
            />
            <Check
              id="sso-enforce"
              label="Require SSO of users who are not admins (no password sign-in for them)"
              checked={sso.enforce_control_plane}
              onChange={(enforce_control_plane) => setSso({ ...sso, enforce_control_plane })}
            />
            <button type="submit">Save SSO</button>{' '}
            <button type="button" onClick={() => setClearing(true)}>
              Clear SSO
            </button>
          </form>
        </>
      )}
      {clearing && (
        <Confirm
          title="Clear SSO?"
          confirm="Yes, clear SSO"
          cancel="Keep SSO"
          onConfirm={() => act(() => props.call('DELETE', '/v1/cluster/sso'), 'SSO cleared: no one signs in with it.')}
          onClose={() => setClearing(false)}
        >
          <p>
            Its settings and both certificates are deleted, and everyone it signed in is signed out now (their tokens
            end).
          </p>
        </Confirm>
      )}
    </section>
  );
}

/** What a PEM certificate is (its first one); undefined when there is none, or the page cannot read it. */
async function factsOf(pem: string | undefined): Promise<CertificateSummary | undefined> {
  const [der] = pemBlocks(pem ?? '');
  return der && summarize(der).catch(() => undefined);
}

function PemArea(props: { id: string; label: string; value: string; onInput: (value: string) => void }) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <textarea
        id={props.id}
        rows={4}
        spellcheck={false}
        value={props.value}
        onInput={(e) => props.onInput((e.target as HTMLTextAreaElement).value)}
      />
    </div>
  );
}
