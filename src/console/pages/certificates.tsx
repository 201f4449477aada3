import { useEffect, useId, useState } from 'preact/hooks';
import type { Call } from '../api.js';
import { explain } from '../api.js';
import { CertificateFacts, Check, Confirm, Done, Problem, useActions } from '../components.js';
import { type CertificateSummary, pemBlocks, summarize } from '../x509.js';

type Validation = 'disabled' | 'san_cn' | 'full_subject';
interface Subject {
  CN?: string;
  OU?: string[];
  O?: string;
  C?: string;
  L?: string;
  ST?: string;
}
/** The certificate-login fields of the cluster object (GET/PUT /v1/cluster). */
interface Settings {
  mtls_certificate_authentication: boolean;
  mtls_client_cert_subject_validation_type: Validation;
  mtls_authorized_subjects: Subject[];
}

const VALIDATIONS: { value: Validation; label: string }[] = [
  { value: 'disabled', label: 'any certificate from the trusted CA' },
  { value: 'san_cn', label: 'only the subjects below, by CN (or a SAN DNS name)' },
  { value: 'full_subject', label: 'only the subjects below, by their full subject' },
];
const KEYS = ['CN', 'OU', 'O', 'L', 'ST', 'C'] as const;

/** One subject a line, RFC 2253 style: CN=ops-bot,OU=automation,O=Example (a comma in a value as \,). */
const subjectText = (s: Subject) =>
  KEYS.flatMap((k) => {
    const v = s[k];
    return (Array.isArray(v) ? v : v === undefined ? [] : [v]).map((x) => `${k}=${x.replace(/([,\\])/g, '\\$1')}`);
  }).join(',');

function parseSubjects(text: string): Subject[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const subject: Subject = {};
      for (const part of line.split(/(?<!\\),/)) {
        const at = part.indexOf('=');
        const key = part.slice(0, at).trim().toUpperCase() as (typeof KEYS)[number];
        const value = part
          .slice(at + 1)
          .trim()
          .replace(/\\(.)/g, '$1');
        if (at < 1 || !KEYS.includes(key))
          throw new Error(`"${line}": each part is one of ${KEYS.join(', ')}, then = and a value`);
        if (key === 'OU') subject.OU = [...(subject.OU ?? []), value];
        else subject[key] = value;
      }
      return subject;
    });
}

const same = (a: Settings, b: Settings) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Client certificates: the CA(s) they must chain to (the product's mtls_trusted_ca) and the
 * cluster's certificate-login settings. Each change ends the tokens of every user who signs in
 * with a certificate, so it is saved only once confirmed.
 */
export function CertificatesPage(props: { call: Call }) {
  const [pem, setPem] = useState<string>();
  /** One a PEM block the server trusts; undefined for one this page cannot read (it is trusted all the same). */
  const [summaries, setSummaries] = useState<(CertificateSummary | undefined)[]>([]);
  const [settings, setSettings] = useState<Settings>();
  const [certificateUsers, setCertificateUsers] = useState<number>();
  const [newPem, setNewPem] = useState('');
  const [draft, setDraft] = useState<Settings>();
  const [subjects, setSubjects] = useState('');
  const [confirming, setConfirming] = useState<'ca' | 'remove' | 'settings'>();
  const { problem, setProblem, done, setDone, act } = useActions(() => load());
  const pemId = useId();
  const fileId = useId();
  const validationId = useId();
  const subjectsId = useId();
  const load = () =>
    Promise.all([
      props.call<{ mtls_trusted_ca_cert?: string }>('GET', '/v1/cluster/certificates'),
      props.call<Settings>('GET', '/v1/cluster'),
      props.call<{ auth_method: string }[]>('GET', '/v1/users').catch(() => undefined),
    ]).then(
      async ([certs, cluster, users]) => {
        const ca = certs.mtls_trusted_ca_cert ?? '';
        setPem(ca);
        setSummaries(await Promise.all(pemBlocks(ca).map((der) => summarize(der).catch(() => undefined))));
        const mine = {
          mtls_certificate_authentication: cluster.mtls_certificate_authentication,
          mtls_client_cert_subject_validation_type: cluster.mtls_client_cert_subject_validation_type,
          mtls_authorized_subjects: cluster.mtls_authorized_subjects,
        };
        setSettings(mine);
        setDraft(mine);
        setSubjects(mine.mtls_authorized_subjects.map(subjectText).join('\n'));
        setCertificateUsers(users?.filter((u) => u.auth_method === 'certificate').length);
      },
      (err) => setProblem(explain(err)),
    );
  useEffect(() => void load(), []);

  const ends =
    certificateUsers === undefined
      ? 'Every user who signs in with a client certificate is signed out now: their tokens end.'
      : certificateUsers === 0
        ? 'No user signs in with a client certificate now: no session ends.'
        : `The ${certificateUsers === 1 ? '1 user who signs' : `${certificateUsers} users who sign`} in with a client certificate ${certificateUsers === 1 ? 'is' : 'are'} signed out now: their tokens end, and they sign in again under the new trust.`;
  const draftWithSubjects = (): Settings | undefined => {
    try {
      return { ...draft!, mtls_authorized_subjects: parseSubjects(subjects) };
    } catch (err) {
      setProblem(`Authorized subjects: ${(err as Error).message}`);
      return undefined;
    }
  };

  return (
    <section>
      <h1>Certificates</h1>
      <p>
        A user made to sign in with a client certificate (on the Users page) logs in by presenting one that chains to a
        trusted CA below, while certificate login is on.
      </p>
      <Problem>{problem}</Problem>
      <Done>{done}</Done>
      {pem !== undefined && (
        <div class="card">
          <h2>Trusted client CA</h2>
          {summaries.length === 0 ? (
            <p>No CA is trusted: no client certificate signs anyone in.</p>
          ) : (
            summaries.map((s, i) =>
              s === undefined ? (
                <p key={i} class="problem">
                  A trusted certificate this page cannot read (it is trusted all the same): GET /v1/cluster/certificates
                  shows its PEM.
                </p>
              ) : (
                <CertificateFacts
                  key={s.sha256 ?? s.subject}
                  summary={s}
                  label={`Trusted CA ${s.subject}`}
                  selfIssued="itself (a root)"
                />
              ),
            )
          )}
          <form
            aria-label={pem ? 'Replace the trusted CA' : 'Set the trusted CA'}
            onSubmit={(e) => {
              e.preventDefault();
              setProblem('');
              setDone('');
              if (pemBlocks(newPem).length === 0)
                return setProblem('Paste a CA certificate in PEM (-----BEGIN CERTIFICATE-----), or choose its file.');
              setConfirming('ca');
            }}
          >
            <h3>{pem ? 'Replace the CA' : 'Set the CA'}</h3>
            <div class="field wide">
              <label for={pemId}>CA certificate (PEM)</label>
              <textarea
                id={pemId}
                rows={5}
                spellcheck={false}
                aria-describedby={`${pemId}-hint`}
                value={newPem}
                onInput={(e) => setNewPem((e.target as HTMLTextAreaElement).value)}
              />
              <small id={`${pemId}-hint`} class="hint">
                one certificate or a bundle of several; it replaces the CA trusted now
              </small>
            </div>
            <div class="field">
              <label for={fileId}>Or a PEM file</label>
              <input
                id={fileId}
                type="file"
                accept=".pem,.crt,.cer,application/x-pem-file"
                onChange={async (e) => {
                  const file = (e.target as HTMLInputElement).files?.[0];
                  if (file) setNewPem(await file.text());
                }}
              />
            </div>
            <div class="buttons">
              <button type="submit">Save CA</button>
              {pem && (
                <button type="button" onClick={() => setConfirming('remove')}>
                  Remove CA
                </button>
              )}
            </div>
          </form>
        </div>
      )}
      {draft && settings && (
        <form
          aria-label="Certificate login"
          class="card"
          onSubmit={(e) => {
            e.preventDefault();
            setProblem('');
            setDone('');
            const next = draftWithSubjects();
            if (!next) return;
            if (same(next, settings)) return setDone('Nothing changed.');
            setConfirming('settings');
          }}
        >
          <h2>Certificate login</h2>
          <Check
            id="mtls-on"
            label="Certificate login: client certificates sign their users in"
            checked={draft.mtls_certificate_authentication}
            onChange={(on) => setDraft({ ...draft, mtls_certificate_authentication: on })}
          />
          <div class="field">
            <label for={validationId}>Certificates let in</label>
            <select
              id={validationId}
              value={draft.mtls_client_cert_subject_validation_type}
              onChange={(e) =>
                setDraft({
                  ...draft,
                  mtls_client_cert_subject_validation_type: (e.target as HTMLSelectElement).value as Validation,
                })
              }
            >
              {VALIDATIONS.map((v) => (
                <option key={v.value} value={v.value}>
                  {v.label}
                </option>
              ))}
            </select>
          </div>
          <div class="field wide">
            <label for={subjectsId}>Authorized subjects</label>
            <textarea
              id={subjectsId}
              rows={3}
              spellcheck={false}
              aria-describedby={`${subjectsId}-hint`}
              value={subjects}
              onInput={(e) => setSubjects((e.target as HTMLTextAreaElement).value)}
            />
            <small id={`${subjectsId}-hint`} class="hint">
              one a line: CN=ops-bot,OU=automation,O=Example (CN, OU, O, L, ST, C); used unless any certificate is let
              in
            </small>
          </div>
          <button type="submit">Save certificate login</button>
        </form>
      )}
      {confirming === 'ca' && (
        <Confirm
          title={pem ? 'Replace the trusted CA?' : 'Trust this CA?'}
          confirm={pem ? 'Replace CA' : 'Trust CA'}
          onConfirm={() =>
            act(
              () =>
                props.call('PUT', '/v1/cluster/certificates', {
                  certificates: [{ name: 'mtls_trusted_ca', certificate: newPem }],
                }),
              'Saved the trusted CA.',
            ).then((ok) => ok && setNewPem(''))
          }
          onClose={() => setConfirming(undefined)}
        >
          <p>
            Client certificates must chain to the {pemBlocks(newPem).length === 1 ? 'certificate' : 'certificates'}{' '}
            pasted{pem ? ', and no longer to the CA trusted now' : ''}.
          </p>
          <p>{ends}</p>
        </Confirm>
      )}
      {confirming === 'remove' && (
        <Confirm
          title="Remove the trusted CA?"
          confirm="Remove CA"
          onConfirm={() =>
            act(
              () => props.call('DELETE', '/v1/cluster/certificates/mtls_trusted_ca'),
              'Removed the trusted CA: no client certificate signs anyone in.',
            )
          }
          onClose={() => setConfirming(undefined)}
        >
          <p>No client certificate signs anyone in until a CA is set again.</p>
          <p>{ends}</p>
        </Confirm>
      )}
      {confirming === 'settings' && (
        <Confirm
          title="Change certificate login?"
          confirm="Save and sign them out"
          onConfirm={() => {
            const next = draftWithSubjects()!;
            return act(() => props.call('PUT', '/v1/cluster', next), 'Saved certificate login.');
          }}
          onClose={() => setConfirming(undefined)}
        >
          <p>
            Certificate login {draft?.mtls_certificate_authentication ? 'on' : 'off'}
            {draft?.mtls_certificate_authentication &&
              `, letting in ${VALIDATIONS.find((v) => v.value === draft.mtls_client_cert_subject_validation_type)?.label}`}
            .
          </p>
          <p>{ends}</p>
        </Confirm>
      )}
    </section>
  );
}
