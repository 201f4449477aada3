import { startRegistration } from '@simplewebauthn/browser';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import QRCode from 'qrcode';
import type { Call } from '../api.js';
import { ApiError, explain } from '../api.js';
import { Confirm, Dialog, Done, Field, Problem, useActions, When } from '../components.js';
import type { Session } from '../session.js';
import { passkeyProblem } from './sign-in.js';

/** A second factor of the user (GET /v1/users/{uid}/mfa). */
export interface Factor {
  factor_id: string | number;
  type: 'totp' | 'webauthn';
  name: string;
  created: string;
  last_used?: string;
}

interface MfaStatus {
  factors: Factor[];
  recovery_codes_remaining: number;
  /** A role of the user requires a second factor. */
  mfa_required: boolean;
}

/** A factor just verified: the first one brings the recovery codes. */
interface Added {
  factor: Factor;
  recovery_codes?: string[];
}

const TYPE_NAME: Record<Factor['type'], string> = {
  totp: 'Authenticator app',
  webauthn: 'Passkey or security key',
};

const codesText = (n: number) => `${n} recovery code${n === 1 ? '' : 's'}`;

/**
 * The signed-in person's second factors: authenticator apps (TOTP) and passkeys or security keys (WebAuthn),
 * listed and removed; recovery codes shown once, when made. With a token that may only set one up
 * (its role requires one), this is the only page, and the person signs in again once it is done.
 */
export function SecurityPage(props: {
  call: Call;
  session: Session;
  onSignInAgain: (notice: string) => void;
  /** Recovery codes are on the screen (true) or gone (false): the session is not ended under them by a timer. */
  onCodesShown?: (shown: boolean) => void;
}) {
  const { uid, mfaEnrol } = props.session;
  const base = `/v1/users/${uid}/mfa`;
  const [status, setStatus] = useState<MfaStatus>();
  const [removing, setRemoving] = useState<Factor>();
  const [renewing, setRenewing] = useState(false);
  /** Recovery codes to show this once; `first`: they came with the first factor. */
  const [codes, setCodes] = useState<{ codes: string[]; first: boolean }>();
  useEffect(() => {
    props.onCodesShown?.(codes !== undefined);
    return () => props.onCodesShown?.(false);
  }, [codes]);
  /** The server wants a second factor proven lately (mfa_fresh_required): signing in again does it. */
  const [stale, setStale] = useState(false);
  const { problem, setProblem, done, setDone, act } = useActions(() => load());
  const load = () => props.call<MfaStatus>('GET', base).then(setStatus, (err) => setProblem(explain(err)));
  useEffect(() => void load(), [uid]);
  const buttons = useRef(new Map<string, HTMLButtonElement>());

  /** A call that needs a second factor proven in the last minutes: its refusal offers to sign in again. */
  const fresh = (what: () => Promise<unknown>) => async () => {
    setStale(false);
    try {
      return await what();
    } catch (err) {
      if (err instanceof ApiError && err.code === 'mfa_fresh_required') setStale(true);
      throw err;
    }
  };

  const enrolled = (message: string) =>
    props.onSignInAgain(`${message} Sign in again, with your password and your second factor.`);

  const added = (what: string) => (result: Added) => {
    const message = `Added the ${what} ${result.factor.name}.`;
    if (result.recovery_codes?.length) {
      setCodes({ codes: result.recovery_codes, first: true });
      setProblem('');
      setDone(message);
      void load();
    } else if (mfaEnrol) enrolled(message);
    else {
      setProblem('');
      setDone(message);
      void load();
    }
  };

  const factors = status?.factors ?? [];
  return (
    <section>
      <h1>Security</h1>
      {mfaEnrol && (
        <div class="banner" role="alert">
          <strong>Your role requires a second factor: set one up, then sign in again.</strong> Until then, this is the
          only page you can use.
        </div>
      )}
      {!mfaEnrol && status?.mfa_required && (
        <p class="notice">
          Your role requires a second factor: you sign in with your password and one of the factors below. Keep at least
          one.
        </p>
      )}
      <p>
        A second factor keeps your account safe if your password is stolen: at sign-in you also give a code from an
        authenticator app, or use a passkey or security key.
      </p>
      <Problem>{problem}</Problem>
      {stale && (
        <p>
          <button
            type="button"
            onClick={() => props.onSignInAgain('Sign in again with your second factor, then retry.')}
          >
            Sign in again
          </button>
        </p>
      )}
      <Done>{done}</Done>

      <h2>Your second factors</h2>
      {status && factors.length === 0 && <p>You have no second factor yet: you sign in with your password alone.</p>}
      {factors.length > 0 && (
        <table class="factors">
          <caption class="visually-hidden">Your second factors</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Type</th>
              <th scope="col">Added</th>
              <th scope="col">Last used</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {factors.map((f) => (
              <tr key={f.factor_id}>
                <th scope="row">{f.name}</th>
                <td>{TYPE_NAME[f.type] ?? f.type}</td>
                <td>
                  <When at={f.created} />
                </td>
                <td>{f.last_used ? <When at={f.last_used} /> : 'never'}</td>
                <td class="actions">
                  <button
                    type="button"
                    ref={(el) => {
                      if (el) buttons.current.set(String(f.factor_id), el);
                      else buttons.current.delete(String(f.factor_id));
                    }}
                    aria-label={`Remove ${f.name}`}
                    onClick={() => setRemoving(f)}
                  >
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}

      {status && !mfaEnrol && (
        <>
          <h2>Recovery codes</h2>
          {factors.length === 0 ? (
            <p>Your first second factor comes with recovery codes: each signs you in once if you lose your factor.</p>
          ) : (
            <>
              <p>
                <strong>{codesText(status.recovery_codes_remaining)} left.</strong> Each signs you in once when you do
                not have your second factor with you.
                {status.recovery_codes_remaining <= 3 && ' Make new ones before they run out.'}
              </p>
              <button type="button" onClick={() => setRenewing(true)}>
                New recovery codes
              </button>
            </>
          )}
        </>
      )}

      <AppSetup call={props.call} base={base} onAdded={added('authenticator app')} />
      <PasskeySetup call={props.call} base={base} onAdded={added('passkey')} />

      {removing && (
        <Confirm
          title={`Remove ${removing.name}?`}
          confirm={`Remove ${removing.name}`}
          onConfirm={() =>
            act(
              fresh(() => props.call('DELETE', `${base}/${encodeURIComponent(String(removing.factor_id))}`)),
              `Removed ${removing.name}.`,
            )
          }
          onClose={() => setRemoving(undefined)}
          returnFocus={() => buttons.current.get(String(removing.factor_id)) ?? document.querySelector('h1')}
        >
          <p>
            You can no longer sign in with <strong>{removing.name}</strong> ({TYPE_NAME[removing.type]}).
          </p>
          {factors.length === 1 && (
            <p>
              It is your only second factor: your recovery codes end with it
              {status?.mfa_required
                ? ', and since your role requires a second factor, you set up a new one at your next sign-in.'
                : ', and you sign in with your password alone.'}
            </p>
          )}
        </Confirm>
      )}
      {renewing && (
        <Confirm
          title="Make new recovery codes?"
          confirm="Make new recovery codes"
          onConfirm={() =>
            act(
              fresh(async () => {
                const made = await props.call<{ recovery_codes: string[] }>('POST', `${base}/recovery_codes`);
                setCodes({ codes: made.recovery_codes, first: false });
              }),
              'Made new recovery codes: the old ones no longer work.',
            )
          }
          onClose={() => setRenewing(false)}
        >
          <p>Ten new recovery codes are made and shown once. Your old ones stop working, used or not.</p>
        </Confirm>
      )}
      {codes && (
        <RecoveryCodes
          codes={codes.codes}
          username={props.session.username}
          signInAgain={mfaEnrol}
          onClose={() => {
            setCodes(undefined);
            // (A session that had no factor ends at its token's next renewal, which the server refuses now: said so then.)
            if (mfaEnrol) enrolled('Your second factor is set up.');
          }}
        />
      )}
    </section>
  );
}

/** The shared secret in groups of four, as authenticator apps take it typed. */
const grouped = (secret: string) => secret.replace(/(.{4})(?=.)/g, '$1 ');

/** An authenticator app (TOTP): its secret as a QR code and as text, then a code from the app confirms it. */
function AppSetup(props: { call: Call; base: string; onAdded: (added: Added) => void }) {
  const [name, setName] = useState('');
  const [pending, setPending] = useState<{ secret: string; otpauth_url: string; name: string }>();
  const [qr, setQr] = useState<string>();
  const [code, setCode] = useState('');
  const [problem, setProblem] = useState('');
  const [busy, setBusy] = useState(false);
  const codeField = useRef<HTMLDivElement>(null);
  useEffect(() => {
    // A new key's code replaces the last one's at once; a drawing that finishes late for an older key is dropped.
    setQr(undefined);
    if (!pending) return;
    let current = true;
    QRCode.toDataURL(pending.otpauth_url, { errorCorrectionLevel: 'M', margin: 2, width: 220 }).then(
      (url) => current && setQr(url),
      () => current && setQr(undefined),
    );
    codeField.current?.querySelector('input')?.focus();
    return () => {
      current = false;
    };
  }, [pending]);

  const start = async (e: Event) => {
    e.preventDefault();
    setProblem('');
    setBusy(true);
    try {
      const made = await props.call<{ secret: string; otpauth_url: string; name: string }>(
        'POST',
        `${props.base}/totp`,
        name.trim() ? { name: name.trim() } : {},
      );
      setCode('');
      setPending(made);
    } catch (err) {
      setProblem(explain(err));
    } finally {
      setBusy(false);
    }
  };
  const verify = async (e: Event) => {
    e.preventDefault();
    setProblem('');
    setBusy(true);
    try {
      const added = await props.call<Added>('POST', `${props.base}/totp/verify`, { code: code.replace(/\s/g, '') });
      setPending(undefined);
      setName('');
      setCode('');
      props.onAdded(added);
    } catch (err) {
      setProblem(
        // invalid_mfa_code; invalid_mfa_response is taken too, as some servers answer a wrong code at setup.
        err instanceof ApiError && (err.code === 'invalid_mfa_code' || err.code === 'invalid_mfa_response')
          ? 'That code is not right. Enter the 6-digit code the app shows now (it changes every 30 seconds), and check the time on your device.'
          : explain(err),
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="card">
      <h2>Set up an authenticator app</h2>
      {!pending ? (
        <form aria-label="Set up an authenticator app" onSubmit={start}>
          <p class="hint">
            An app on your phone, such as a password manager or an authenticator, shows a new code every 30 seconds.
          </p>
          <Field
            label="Name of the app (optional)"
            value={name}
            onInput={setName}
            autoComplete="off"
            hint="To tell your factors apart: for example, phone."
          />
          <Problem>{problem}</Problem>
          <button type="submit" disabled={busy}>
            Set up an authenticator app
          </button>
        </form>
      ) : (
        <form aria-label="Verify the authenticator app" onSubmit={verify}>
          <ol class="steps">
            <li>
              <p>In your authenticator app, add an account by scanning this QR code:</p>
              {qr ? (
                <img
                  class="qr"
                  src={qr}
                  width={220}
                  height={220}
                  alt="QR code of the setup key for your authenticator app (the key is also written below)"
                />
              ) : (
                <p class="hint">Drawing the QR code…</p>
              )}
            </li>
            <li>
              <div class="field wide">
                <label for="totp-secret">Or type this setup key in the app</label>
                <input
                  id="totp-secret"
                  class="code"
                  readOnly
                  value={grouped(pending.secret)}
                  aria-describedby="totp-secret-hint"
                  onFocus={(e) => (e.target as HTMLInputElement).select()}
                />
                <small id="totp-secret-hint" class="hint">
                  Time-based, 6 digits, every 30 seconds. The spaces do not matter.
                </small>
              </div>
            </li>
            <li>
              <div ref={codeField}>
                <Field
                  label="Code from the app"
                  hint="The 6-digit code the app now shows for Tessera."
                  inputMode="numeric"
                  autoComplete="one-time-code"
                  maxLength={10}
                  value={code}
                  onInput={setCode}
                  required
                />
              </div>
            </li>
          </ol>
          <Problem>{problem}</Problem>
          <div class="buttons">
            <button type="submit" disabled={busy}>
              Verify
            </button>
            <button
              type="button"
              onClick={() => {
                setPending(undefined);
                setProblem('');
              }}
            >
              Cancel
            </button>
          </div>
        </form>
      )}
    </div>
  );
}

/** A passkey or security key (WebAuthn): the server's options to the browser, and its answer back. */
function PasskeySetup(props: { call: Call; base: string; onAdded: (added: Added) => void }) {
  const [name, setName] = useState('');
  const [problem, setProblem] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setProblem('');
    setBusy(true);
    try {
      // biome-ignore lint/suspicious/noExplicitAny: PublicKeyCredentialCreationOptionsJSON, handed to the browser as it is
      const optionsJSON = await props.call<any>('POST', `${props.base}/webauthn/options`, {});
      let response: Awaited<ReturnType<typeof startRegistration>>;
      try {
        response = await startRegistration({ optionsJSON });
      } catch (err) {
        return setProblem(passkeyProblem(err, 'Adding the passkey'));
      }
      const added = await props.call<Added>('POST', `${props.base}/webauthn`, { name: name.trim(), response });
      setName('');
      props.onAdded(added);
    } catch (err) {
      setProblem(
        err instanceof ApiError && err.code === 'invalid_mfa_response'
          ? `The passkey was not accepted: ${err.message}`
          : explain(err),
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card" aria-label="Add a passkey or security key" onSubmit={submit}>
      <h2>Add a passkey or security key</h2>
      <p class="hint">
        A passkey kept by this device or your password manager, or a security key you plug in or touch. Your browser
        asks you to confirm it.
      </p>
      <Field
        label="Passkey name"
        value={name}
        onInput={setName}
        required
        autoComplete="off"
        hint="To tell your factors apart: for example, laptop or YubiKey."
      />
      <Problem>{problem}</Problem>
      <button type="submit" disabled={busy}>
        Add passkey
      </button>
    </form>
  );
}

/** Recovery codes, shown this once: copied, downloaded as a text file, or written down. */
function RecoveryCodes(props: { codes: string[]; username: string; signInAgain: boolean; onClose: () => void }) {
  const [copied, setCopied] = useState<boolean>();
  const list = useRef<HTMLUListElement>(null);
  const text = `Tessera recovery codes of ${props.username} (${location.host}). Each works once.\n\n${props.codes.join('\n')}\n`;
  const download = useMemo(() => URL.createObjectURL(new Blob([text], { type: 'text/plain' })), [text]);
  useEffect(() => () => URL.revokeObjectURL(download), [download]);
  const selectAll = () => {
    const el = list.current;
    if (!el) return;
    const range = document.createRange();
    range.selectNodeContents(el);
    getSelection()?.removeAllRanges();
    getSelection()?.addRange(range);
  };
  return (
    <Dialog title="Your recovery codes" onClose={props.onClose}>
      <p>
        Save these codes somewhere safe, such as your password manager: <strong>they are shown this once</strong>. If
        you lose your second factor, each signs you in once instead.
      </p>
      <ul class="codes" aria-label="Recovery codes" ref={list}>
        {props.codes.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
      </ul>
      <div class="buttons">
        <button
          type="button"
          data-autofocus
          onClick={() =>
            Promise.resolve()
              .then(() => navigator.clipboard.writeText(props.codes.join('\n')))
              .then(
                () => setCopied(true),
                () => {
                  setCopied(false);
                  selectAll();
                },
              )
          }
        >
          Copy codes
        </button>
        <a class="button" href={download} download="tessera-recovery-codes.txt">
          Download (.txt)
        </a>
        <span role="status">
          {copied === true ? ' Copied.' : copied === false ? ' Selected: copy them by hand (Ctrl+C or ⌘C).' : ''}
        </span>
      </div>
      <div class="buttons">
        <button type="button" class="primary" onClick={props.onClose}>
          {props.signInAgain ? 'I have saved them: sign in again' : 'I have saved them'}
        </button>
      </div>
    </Dialog>
  );
}
