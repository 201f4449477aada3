import { startAuthentication } from '@simplewebauthn/browser';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, explain } from '../api.js';
import { Field, Problem } from '../components.js';
import { PasswordForm } from '../password-form.js';
import {
  type MfaChallenge,
  mfaChallengeOf,
  type Session,
  type SsoStatus,
  signIn,
  signInSecondFactor,
  ssoStatus,
} from '../session.js';

/**
 * Sign in with a password or, where the cluster has it, through its identity provider (SSO); a right but expired
 * password leads straight to choosing a new one; an account with a second factor is asked for it next.
 */
export function SignIn(props: {
  notice?: string;
  problem?: string;
  onSignedIn: (session: Session, notice?: string) => void;
}) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [problem, setProblem] = useState<{ title?: string; text: string }>();
  const [expired, setExpired] = useState(false);
  const [busy, setBusy] = useState(false);
  const [sso, setSso] = useState<SsoStatus>();
  /** The password was right: the second step, and what to say once it is done. */
  const [mfa, setMfa] = useState<{ challenge: MfaChallenge; notice?: string }>();
  useEffect(() => {
    ssoStatus().then(setSso, () => setSso(undefined));
  }, []);

  /** Signed in, or on to the second step; any other refusal is thrown. */
  const passwordStep = async (user: string, pass: string, notice?: string) => {
    try {
      props.onSignedIn(await signIn(user, pass), notice);
    } catch (err) {
      const challenge = mfaChallengeOf(err);
      if (!challenge) throw err;
      setExpired(false);
      setPassword('');
      setMfa({ challenge, notice });
    }
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    setProblem(undefined);
    setBusy(true);
    try {
      await passwordStep(username, password);
    } catch (err) {
      if (err instanceof ApiError && err.code === 'password_expired') setExpired(true);
      else if (err instanceof ApiError && err.code === 'account_locked')
        setProblem({ title: 'Account locked', text: err.message });
      else if (err instanceof ApiError && err.status === 429)
        setProblem({ title: 'Too many attempts', text: explain(err) });
      else setProblem({ text: explain(err) });
    } finally {
      setBusy(false);
    }
  };

  if (mfa) {
    return (
      <SecondFactor
        username={username}
        challenge={mfa.challenge}
        onSignedIn={(s) => props.onSignedIn(s, mfa.notice)}
        onRestart={(why) => {
          setMfa(undefined);
          setProblem(why ? { text: why } : undefined);
        }}
      />
    );
  }
  if (expired) {
    return (
      <main class="narrow">
        <h1>Choose a new password</h1>
        <p>The password of {username} has expired. Choose a new one to sign in.</p>
        <PasswordForm
          username={username}
          current={password}
          onChanged={(newPassword) => passwordStep(username, newPassword, 'Password changed.')}
        />
      </main>
    );
  }
  return (
    <main class="narrow">
      <h1>Sign in to Tessera</h1>
      {props.notice && (
        <p class="notice" role="status">
          {props.notice}
        </p>
      )}
      <Problem title="SSO">{props.problem}</Problem>
      {sso?.control_plane && (
        <p>
          <a class="button" href={sso.login_url}>
            Sign in with SSO
          </a>
          {sso.enforce_control_plane && <small class="hint"> Users who are not admins sign in with SSO only.</small>}
        </p>
      )}
      <form onSubmit={submit} aria-label="Sign in">
        <Field label="Username" autoComplete="username" value={username} onInput={setUsername} required />
        <Field
          label="Password"
          type="password"
          autoComplete="current-password"
          value={password}
          onInput={setPassword}
          required
        />
        <Problem title={problem?.title}>{problem?.text}</Problem>
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}

/** What is typed at the second step: the authenticator app's code, or a recovery code (none: a passkey only). */
type Typed = 'code' | 'recovery' | undefined;

/** What a passkey's refusal in the browser (cancelled, timed out, not verified) tells the person. */
export function passkeyProblem(err: unknown, doing: string): string {
  const name = err instanceof Error ? err.name : '';
  if (name === 'NotAllowedError' || name === 'AbortError')
    return `${doing} did not happen: it was cancelled, timed out, or your passkey or security key could not verify you.`;
  if (name === 'InvalidStateError')
    return `${doing} did not happen: this passkey or security key is registered already.`;
  if (name === 'SecurityError')
    return `${doing} did not happen: the browser refused it for this address (passkeys need the console's own name, https or localhost).`;
  return `${doing} did not happen: ${err instanceof Error ? err.message : 'the browser refused it'}.`;
}

/**
 * The second step: the code of an authenticator app, a passkey or security key, or a recovery code, with the
 * mfa_token the password step gave. A wrong code may be tried again; an expired or used-up step goes back to the password.
 */
function SecondFactor(props: {
  username: string;
  challenge: MfaChallenge;
  onSignedIn: (session: Session) => void;
  onRestart: (why?: string) => void;
}) {
  const { methods, webauthn, mfa_token } = props.challenge;
  const hasApp = methods.includes('totp');
  const hasPasskey = methods.includes('webauthn') && webauthn !== undefined;
  const hasRecovery = methods.includes('recovery_code');
  const [typed, setTyped] = useState<Typed>(hasApp ? 'code' : hasPasskey ? undefined : 'recovery');
  const [value, setValue] = useState('');
  const [problem, setProblem] = useState('');
  const [busy, setBusy] = useState(false);
  const main = useRef<HTMLElement>(null);
  // The field (or, with a passkey only, its button) has the focus as the step appears and when the way changes.
  useEffect(() => {
    main.current?.querySelector<HTMLElement>('form input, button[data-passkey]')?.focus();
  }, [typed]);

  const prove = async (proof: Parameters<typeof signInSecondFactor>[1], way: 'code' | 'recovery' | 'passkey') => {
    setProblem('');
    setBusy(true);
    try {
      props.onSignedIn(await signInSecondFactor(mfa_token, proof));
    } catch (err) {
      setBusy(false);
      if (err instanceof ApiError && err.code === 'invalid_mfa_token')
        return props.onRestart(
          'Your sign-in took too long, or too many codes were tried: enter your password again to start over.',
        );
      if (err instanceof ApiError && err.code === 'invalid_mfa_code' && way !== 'passkey')
        return setProblem(
          way === 'code'
            ? 'That code is not right. Enter the 6-digit code your authenticator app shows now (it changes every 30 seconds).'
            : 'That recovery code is not right, or it was used already: each works once.',
        );
      setProblem(way === 'passkey' ? `Your passkey was not accepted: ${explain(err)}` : explain(err));
    }
  };

  const passkey = async () => {
    setProblem('');
    setBusy(true);
    let response: Awaited<ReturnType<typeof startAuthentication>>;
    try {
      response = await startAuthentication({ optionsJSON: webauthn });
    } catch (err) {
      setBusy(false);
      return setProblem(passkeyProblem(err, 'The sign-in with a passkey'));
    }
    await prove({ webauthn: response }, 'passkey');
  };

  const switchTo = (next: Typed) => {
    setValue('');
    setProblem('');
    setTyped(next);
  };

  return (
    <main class="narrow" ref={main}>
      <h1>Second factor</h1>
      <p>
        The password of <strong>{props.username}</strong> is right. Now prove it is you with your second factor.
      </p>
      {typed && (
        <form
          aria-label="Second factor"
          onSubmit={(e) => {
            e.preventDefault();
            const v = value.replace(/\s/g, '');
            void prove(typed === 'code' ? { code: v } : { recovery_code: value.trim() }, typed);
          }}
        >
          {typed === 'code' ? (
            <Field
              key="code"
              label="Authenticator code"
              hint="The 6-digit code your authenticator app shows for Tessera."
              inputMode="numeric"
              autoComplete="one-time-code"
              maxLength={10}
              value={value}
              onInput={setValue}
              required
            />
          ) : (
            <Field
              key="recovery"
              label="Recovery code"
              hint="One of the recovery codes you saved when you set up your second factor. Each works once."
              autoComplete="off"
              value={value}
              onInput={setValue}
              required
            />
          )}
          <button type="submit" disabled={busy}>
            Verify
          </button>
        </form>
      )}
      <Problem>{problem}</Problem>
      {hasPasskey && (
        <p>
          <button type="button" class={typed ? undefined : 'primary'} data-passkey disabled={busy} onClick={passkey}>
            Use a passkey
          </button>
        </p>
      )}
      <p class="other-ways">
        {hasRecovery && typed !== 'recovery' && (
          <button type="button" class="link" onClick={() => switchTo('recovery')}>
            Use a recovery code
          </button>
        )}
        {hasApp && typed !== 'code' && (
          <button type="button" class="link" onClick={() => switchTo('code')}>
            Use your authenticator app
          </button>
        )}
        <button type="button" class="link" onClick={() => props.onRestart()}>
          Back to the password
        </button>
      </p>
    </main>
  );
}
