import { useEffect, useState } from 'preact/hooks';
import type { Call } from '../api.js';
import { PasswordForm } from '../password-form.js';
import type { Session } from '../session.js';

/**
 * Why the person has no password to change here, from its user object and the session it is in
 * (a directory user's sessions are LDAP's); undefined when it has one.
 */
export function passwordElsewhere(authMethod: string | undefined, realm: string | undefined): string | undefined {
  if (authMethod === 'sso')
    return 'You sign in with SSO: your password is kept by your identity provider. Change it there.';
  if (authMethod === 'certificate') return 'You sign in with a client certificate: you have no password here.';
  if (authMethod === 'api_key') return 'A service account has no password: it signs in with its API keys.';
  if (realm === 'ldap') return 'You sign in through the LDAP directory: your password is kept there. Change it there.';
  return undefined;
}

/** The person's own password: the form, or — read when the page opens — why there is none to change here. */
export function MyPasswordPage(props: {
  session: Session;
  call: Call;
  onChanged: (password: string) => Promise<void>;
}) {
  // undefined: still reading; '': a password kept here.
  const [elsewhere, setElsewhere] = useState<string | undefined>();
  useEffect(() => {
    const { uid } = props.session;
    Promise.all([
      props.call<{ auth_method?: string }>('GET', `/v1/users/${uid}`),
      props.call<{ realm: string; current: boolean }[]>('GET', `/v1/users/${uid}/sessions`),
    ]).then(
      ([user, sessions]) =>
        setElsewhere(passwordElsewhere(user.auth_method, sessions.find((s) => s.current)?.realm) ?? ''),
      () => setElsewhere(''), // unread: the form, and the server's words should it refuse
    );
  }, [props.session.uid]);
  return (
    <section>
      <h1>Change your password</h1>
      {elsewhere === undefined ? (
        <p aria-busy="true">Loading…</p>
      ) : elsewhere ? (
        <p>{elsewhere}</p>
      ) : (
        <PasswordForm username={props.session.username} token={props.session.token} onChanged={props.onChanged} />
      )}
    </section>
  );
}
