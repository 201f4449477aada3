import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, api, type Call, explain } from './api.js';
import { Dialog, Done } from './components.js';
import { AuditingPage } from './pages/auditing.js';
import { CertificatesPage } from './pages/certificates.js';
import { EventsPage } from './pages/events.js';
import { Home } from './pages/home.js';
import { KeysPage } from './pages/keys.js';
import { LdapPage } from './pages/ldap.js';
import { MyApiKeys } from './pages/my-api-keys.js';
import { MyPasswordPage } from './pages/my-password.js';
import { PolicyPage } from './pages/policy.js';
import { RolesPage } from './pages/roles.js';
import { SecurityPage } from './pages/security.js';
import { SessionsPage } from './pages/sessions.js';
import { SignIn } from './pages/sign-in.js';
import { SsoPage } from './pages/sso.js';
import { UsersPage } from './pages/users.js';
import {
  isAdmin,
  mayManageUsers,
  mayViewEvents,
  mfaChallengeOf,
  RENEW_BEFORE_MS,
  renew,
  type Session,
  signIn,
  signOut,
  ssoExchange,
  ssoProblem,
} from './session.js';

const route = () => location.hash.replace(/^#\/?/, '') || 'home';

export function App(props: { idleMinutes: number }) {
  const [session, setSession] = useState<Session>();
  const [notice, setNotice] = useState<string>();
  const [problem, setProblem] = useState<string>();
  const [confirm, setConfirm] = useState<string>();
  const [page, setPage] = useState(route());
  const [myKeys, setMyKeys] = useState(false);
  const lastActive = useRef(Date.now());
  /** Recovery codes are on the Security page: timers do not end the session under them. */
  const codesShown = useRef(false);
  const current = useRef<Session>();
  /** The renewal in flight, if any. */
  const renewing = useRef<Promise<void>>();
  current.current = session;

  /** Signed out: the token ends; asked for by the person, the identity provider's session too (after an SSO sign-in). */
  const end = useCallback(async (why: string, asked = false) => {
    const s = current.current;
    // Once: a late answer of the session that just ended (a read in flight, refused now) says nothing more.
    if (!s) return;
    current.current = undefined;
    setSession(undefined);
    setMyKeys(false);
    setNotice(why);
    const idpLogout = s && (await signOut(s));
    if (asked && idpLogout) location.assign(idpLogout);
  }, []);

  // Back from the identity provider: ?sso=signed_in (a one-time code in a cookie to take), signed_out, or ?sso_error=<code>.
  useEffect(() => {
    const query = new URLSearchParams(location.search);
    const [step, error] = [query.get('sso'), query.get('sso_error')];
    if (!step && !error) return;
    history.replaceState(null, '', location.pathname + location.hash);
    if (error) setProblem(ssoProblem(error));
    else if (step === 'signed_out') setNotice('Signed out, at your identity provider too.');
    else if (step === 'signed_in') {
      setNotice('Signing you in…');
      void takeSsoSignIn(false);
    }
  }, []);

  /** The SSO sign-in's cookie for a session; one this browser did not start is confirmed first. */
  const takeSsoSignIn = async (confirmed: boolean) => {
    setConfirm(undefined);
    try {
      const s = await ssoExchange(confirmed);
      lastActive.current = Date.now();
      setNotice(undefined);
      setSession(s);
    } catch (err) {
      setNotice(undefined);
      if (err instanceof ApiError && err.code === 'sso_confirm') setConfirm(err.message);
      else setProblem(explain(err));
    }
  };

  // Idle for the cluster's cm_session_timeout_minutes: signed out. Active: the token is renewed before it ends,
  // and at least every half timeout, so that the server (which ends a console session without a request for that long) sees it in use;
  // not more than every 10 s, since near a session's lifetime every new token is short.
  useEffect(() => {
    const active = () => (lastActive.current = Date.now());
    const events = ['pointerdown', 'keydown'] as const;
    for (const e of events) window.addEventListener(e, active);
    const timer = setInterval(() => {
      const s = current.current;
      if (!s) return;
      const now = Date.now();
      if (now - lastActive.current >= props.idleMinutes * 60_000) {
        void end(`Signed out after ${props.idleMinutes} minutes without activity.`);
      } else if (codesShown.current) {
        // Recovery codes on the screen, shown this once: nothing but idleness or Sign out ends the page under them.
      } else if (s.mfaEnrol) {
        // A token for setting up a second factor is not renewed (the server refuses it): it ends.
        if (now >= s.expiresAt) void end('Your sign-in to set up a second factor has expired. Sign in again.');
      } else if (
        now - s.issuedAt >= 10_000 &&
        (s.expiresAt - now < RENEW_BEFORE_MS || now - s.issuedAt >= props.idleMinutes * 30_000)
      ) {
        // One at a time: a renewal ends the token it replaces, so a second with the same one would be refused.
        if (renewing.current) return;
        renewing.current = renew(s)
          .then(
            (next) => {
              if (current.current !== s) return; // signed out meanwhile: the new token is not taken up
              current.current = next; // before the render: a request refused meanwhile is sent again with it
              setSession(next);
            },
            (err) =>
              end(
                err instanceof ApiError && err.code === 'mfa_required'
                  ? 'Your account has a second factor now: sign in again with it.'
                  : 'Your session has ended. Sign in again.',
              ),
          )
          .finally(() => {
            renewing.current = undefined;
          });
      }
    }, 1000);
    return () => {
      clearInterval(timer);
      for (const e of events) window.removeEventListener(e, active);
    };
  }, [props.idleMinutes, end]);

  useEffect(() => {
    const onHash = () => setPage(route());
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);

  const call: Call = useCallback(
    async <T,>(method: string, path: string, body?: unknown) => {
      const token = current.current?.token;
      try {
        return await api<T>(method, path, { token, body });
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) {
          // Sent with a token renewed meanwhile (a renewal ends the one it replaces): again with the new one.
          await renewing.current;
          const renewed = current.current?.token;
          if (renewed && renewed !== token) return call<T>(method, path, body);
          // The token no longer works: revoked by a role or password change, a logout, a deletion.
          await end(`Your session has ended (${err.message}). Sign in again.`);
        }
        throw err;
      }
    },
    [end],
  );

  if (!session && confirm) {
    return (
      <main class="narrow">
        <h1>Sign in with SSO</h1>
        <p role="status">{confirm}</p>
        <p class="hint">You did not start this sign-in from this page: continue only if this is your account.</p>
        <button type="button" class="primary" onClick={() => void takeSsoSignIn(true)}>
          Continue
        </button>
        <button type="button" onClick={() => setConfirm(undefined)}>
          Cancel
        </button>
      </main>
    );
  }
  if (!session) {
    return (
      <SignIn
        notice={notice}
        problem={problem}
        onSignedIn={(s, message) => {
          lastActive.current = Date.now();
          setNotice(message);
          setProblem(undefined);
          setSession(s);
        }}
      />
    );
  }

  // A token that may only set up a second factor: its one page.
  const links = session.mfaEnrol
    ? [['security', 'Security']]
    : [
        ...(mayManageUsers(session)
          ? [
              ['users', 'Users'],
              ['roles', 'Roles'],
              // Every user's sessions are for who may list every user (view_all_users_info: admin, user_manager).
              ['sessions', 'Sessions'],
            ]
          : []),
        ...(mayViewEvents(session) ? [['events', 'Events']] : []),
        ...(isAdmin(session)
          ? [
              ['policy', 'Policy'],
              ['auditing', 'Auditing'],
              ['ldap', 'LDAP'],
              ['sso', 'SSO'],
              ['certificates', 'Certificates'],
              ['keys', 'Keys'],
            ]
          : []),
        ['security', 'Security'],
        ['password', 'My password'],
      ];
  const shown = session.mfaEnrol ? 'security' : links.some(([id]) => id === page) ? page : 'home';
  return (
    <>
      <header>
        {/* The way back to the home page and its counts. */}
        <a class="brand" href="#/home" aria-current={shown === 'home' ? 'page' : undefined}>
          Tessera
        </a>
        <nav aria-label="Main">
          {links.map(([id, label]) => (
            <a key={id} href={`#/${id}`} aria-current={shown === id ? 'page' : undefined}>
              {label}
            </a>
          ))}
        </nav>
        <span class="who">
          <span class="visually-hidden">Signed in as </span>
          <strong>{session.username}</strong> ({session.role})
        </span>
        {/* Every user's own, whatever its level: the API lets each list, make and revoke its keys. */}
        {!session.mfaEnrol && (
          <button type="button" onClick={() => setMyKeys(true)}>
            My API keys
          </button>
        )}
        <button type="button" onClick={() => end('Signed out.', true)}>
          Sign out
        </button>
      </header>
      <main>
        <Done>{notice}</Done>
        {shown === 'home' && <Home session={session} call={call} />}
        {shown === 'users' && <UsersPage call={call} session={session} />}
        {shown === 'roles' && <RolesPage call={call} session={session} />}
        {shown === 'sessions' && (
          <SessionsPage call={call} mayEndAll={isAdmin(session)} onSignInAgain={(why) => end(why)} />
        )}
        {shown === 'policy' && <PolicyPage call={call} />}
        {shown === 'auditing' && <AuditingPage call={call} />}
        {shown === 'ldap' && <LdapPage call={call} />}
        {shown === 'sso' && <SsoPage call={call} token={session.token} />}
        {shown === 'certificates' && <CertificatesPage call={call} />}
        {shown === 'events' && <EventsPage call={call} />}
        {shown === 'keys' && <KeysPage call={call} />}
        {shown === 'security' && (
          <SecurityPage
            call={call}
            session={session}
            onSignInAgain={(why) => end(why)}
            onCodesShown={(shown) => (codesShown.current = shown)}
          />
        )}
        {shown === 'password' && (
          <MyPasswordPage
            session={session}
            call={call}
            onChanged={async (newPassword) => {
              // A new password ends the old tokens: sign in again with it (and the second factor, which only the person has).
              try {
                setSession(await signIn(session.username, newPassword));
                setNotice('Password changed.');
              } catch (err) {
                if (!mfaChallengeOf(err)) throw err;
                await end('Password changed. Sign in again with your new password and your second factor.');
              }
            }}
          />
        )}
      </main>
      {myKeys && (
        <Dialog title="My API keys" onClose={() => setMyKeys(false)} wide>
          <MyApiKeys session={session} call={call} onClose={() => setMyKeys(false)} />
        </Dialog>
      )}
    </>
  );
}
