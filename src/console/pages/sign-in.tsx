import { useEffect, useState } from 'preact/hooks';
import { ApiError, explain } from '../api.js';
import { Field, Problem } from '../components.js';
import { PasswordForm } from '../password-form.js';
import { type Session, type SsoStatus, signIn, ssoStatus } from '../session.js';

/** Sign in with a password or, where the cluster has it, through its identity provider (SSO); a right but expired password leads straight to choosing a new one. */
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
  useEffect(() => {
    ssoStatus().then(setSso, () => setSso(undefined));
  }, []);

  const submit = async (e: Event) => {
    e.preventDefault();
    setProblem(undefined);
    setBusy(true);
    try {
      props.onSignedIn(await signIn(username, password));
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

  if (expired) {
    return (
      <main class="narrow">
        <h1>Choose a new password</h1>
        <p>The password of {username} has expired. Choose a new one to sign in.</p>
        <PasswordForm
          username={username}
          current={password}
          onChanged={async (newPassword) => props.onSignedIn(await signIn(username, newPassword), 'Password changed.')}
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
