import { useEffect, useRef, useState } from 'preact/hooks';
import { isBuiltInRole } from '../../access/built-in-roles.js';
import type { Call } from '../api.js';
import { explain } from '../api.js';
import {
  ActionMenu,
  breakable,
  Check,
  Confirm,
  Dialog,
  Done,
  Field,
  type MenuItem,
  OneTimeSecret,
  Problem,
  RoleChoice,
  useActions,
  userText,
  When,
} from '../components.js';
import type { ClusterRole } from '../roles.js';
import type { Role, Session } from '../session.js';
import { UserApiKeys } from './user-api-keys.js';
import { UserSessions } from './user-sessions.js';

/** What a row's Actions menu opens. */
type Opened = 'edit' | 'password' | 'delete' | 'sessions' | 'api_keys' | 'reset_mfa';

interface User {
  uid: number;
  name: string;
  email: string;
  role: Role;
  role_uids: number[];
  status: 'active' | 'locked' | 'password_expired';
  last_login?: number;
  /** The login shown: the name, else the email. */
  username: string;
  /** How it signs in: a password, a client certificate, SSO, or its API keys only (a service account). */
  auth_method: 'regular' | 'certificate' | 'sso' | 'api_key';
  certificate_subject_line?: string;
  /** It has a second factor (an authenticator app, a passkey or a security key). */
  mfa_enabled?: boolean;
}

/** The ways in the Create user form offers (auth_method "sso" users come from the identity provider's side). */
type WayIn = 'password' | 'certificate' | 'api_key';

/** Letters and digits, 20 of them (~119 bits), from the browser's CSPRNG: shown once. */
function generatePassword(): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
  const bytes = crypto.getRandomValues(new Uint8Array(40));
  return [...bytes]
    .filter((b) => b < 4 * alphabet.length)
    .slice(0, 20)
    .map((b) => alphabet[b % alphabet.length])
    .join('');
}

export function UsersPage(props: { call: Call; session: Session }) {
  const [users, setUsers] = useState<User[]>([]);
  const [roles, setRoles] = useState<ClusterRole[]>([]);
  const [search, setSearch] = useState('');
  const [open, setOpen] = useState<{ kind: Opened; user: User }>();
  /** A user just made: its password shown once, or (a service account) the offer of its first key. */
  const [created, setCreated] = useState<{ user: User; password?: string }>();
  const { problem, setProblem, done, setDone, act } = useActions(() => load());
  const load = () => props.call<User[]>('GET', '/v1/users').then(setUsers, (err) => setProblem(explain(err)));
  useEffect(() => {
    void load();
    props.call<ClusterRole[]>('GET', '/v1/roles').then(setRoles, (err) => setProblem(explain(err)));
  }, []);
  // Each row's Actions button: where focus goes back when a dialog it opened closes.
  const buttons = useRef(new Map<number, HTMLButtonElement>());
  const backTo = (uid: number) => () => buttons.current.get(uid);
  /** A dialog's change went through: said above the list, which is read again. */
  const saved = (message: string) => {
    setProblem('');
    setDone(message);
    setOpen(undefined);
    void load();
  };

  const needle = search.trim().toLowerCase();
  const shown = users.filter((u) => !needle || `${u.name}\n${u.email}`.toLowerCase().includes(needle));
  const roleName = (uid: number) => roles.find((r) => r.uid === uid)?.name ?? `#${uid}`;
  const close = () => setOpen(undefined);
  const u = open?.user;
  return (
    <section>
      <h1>Users</h1>
      <CreateUser
        call={props.call}
        roles={roles}
        onCreated={(user, password) => {
          setProblem('');
          if (user.auth_method === 'certificate')
            setDone(`Created ${user.username}: it signs in with its client certificate.`);
          else if (user.auth_method === 'api_key')
            setDone(`Created ${user.username}: a service account, which signs in with its API keys only.`);
          if (password || user.auth_method === 'api_key') setCreated({ user, password });
          void load();
        }}
      />
      <h2>All users</h2>
      <Field label="Search users" type="search" value={search} onInput={setSearch} />
      <Problem>{problem}</Problem>
      <Done>{done}</Done>
      <table class="users">
        <caption class="visually-hidden">Users</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Email</th>
            <th scope="col">Role (roles)</th>
            <th scope="col">Signs in with</th>
            <th scope="col">Status</th>
            <th scope="col">Last login</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((user) => (
            <UserRow
              key={user.uid}
              user={user}
              roleName={roleName}
              self={user.uid === props.session.uid}
              buttonRef={(el) => (el ? buttons.current.set(user.uid, el) : buttons.current.delete(user.uid))}
              open={(kind) => setOpen({ kind, user })}
              act={(what, success) => void act(() => props.call('POST', `/v1/users/${user.uid}/${what}`), success)}
            />
          ))}
        </tbody>
      </table>
      {created?.password && (
        <Dialog title={`Created ${created.user.username}`} onClose={() => setCreated(undefined)}>
          <OneTimeSecret
            intro={
              <>
                The password of <strong>{created.user.username}</strong>, shown this once only: give it to them by a
                safe way. They sign in with it.
              </>
            }
            password={created.password}
          />
          <div class="buttons">
            <button type="button" onClick={() => setCreated(undefined)}>
              Close
            </button>
          </div>
        </Dialog>
      )}
      {created && !created.password && (
        <Dialog title={`Created ${created.user.username}`} onClose={() => setCreated(undefined)}>
          <p>
            <strong>{created.user.username}</strong> is a service account: it signs in with its API keys only, and has
            none yet. Make its first key now, or later from its row's <strong>Actions</strong>,{' '}
            <strong>API keys</strong>.
          </p>
          <div class="buttons">
            <button
              type="button"
              class="primary"
              data-autofocus
              onClick={() => {
                setCreated(undefined);
                setOpen({ kind: 'api_keys', user: created.user });
              }}
            >
              Make its first API key
            </button>
            <button type="button" onClick={() => setCreated(undefined)}>
              Later
            </button>
          </div>
        </Dialog>
      )}
      {u && open.kind === 'edit' && (
        <EditUser
          user={u}
          roles={roles}
          call={props.call}
          onSaved={saved}
          onClose={close}
          returnFocus={backTo(u.uid)}
        />
      )}
      {u && open.kind === 'password' && (
        <SetPassword user={u} call={props.call} onSaved={saved} onClose={close} returnFocus={backTo(u.uid)} />
      )}
      {u && open.kind === 'sessions' && (
        <Dialog title={`Sessions of ${u.username}`} onClose={close} returnFocus={backTo(u.uid)} wide>
          <UserSessions uid={u.uid} who={u.username} call={props.call} onClose={close} />
        </Dialog>
      )}
      {u && open.kind === 'api_keys' && (
        <Dialog title={`API keys of ${u.username}`} onClose={close} returnFocus={backTo(u.uid)} wide>
          <UserApiKeys user={u} roles={roles} call={props.call} onClose={close} />
        </Dialog>
      )}
      {u && open.kind === 'reset_mfa' && (
        <Confirm
          title={`Reset the second factor of ${u.username}?`}
          confirm="Reset second factor"
          onConfirm={() =>
            act(
              () => props.call('DELETE', `/v1/users/${u.uid}/mfa`),
              `Reset the second factor of ${u.username}: they sign in with their password alone until they set up a new one.`,
            )
          }
          onClose={close}
          returnFocus={backTo(u.uid)}
        >
          <p>
            Every second factor of <strong>{u.username}</strong> (authenticator apps, passkeys, security keys) and their
            recovery codes are removed. Do it when they lost their device, once you know it is really them asking.
          </p>
          <p>
            They sign in with their password alone; if a role of theirs requires a second factor, they set up a new one
            at their next sign-in.
          </p>
        </Confirm>
      )}
      {u && open.kind === 'delete' && (
        <Confirm
          title={`Delete ${u.username}?`}
          confirm={`Delete ${u.username}`}
          onConfirm={() => act(() => props.call('DELETE', `/v1/users/${u.uid}`), `Deleted ${u.username}.`)}
          onClose={close}
          returnFocus={backTo(u.uid)}
        >
          <p>
            The user <strong>{u.username}</strong> is deleted: they can no longer sign in, and every session of theirs
            ends now. This cannot be undone.
          </p>
        </Confirm>
      )}
    </section>
  );
}

interface Draft {
  name: string;
  email: string;
  role_uids: number[];
}

/** What the person changed in the form, and nothing else: a field left alone is not sent. */
function changesOf(u: User, d: Draft): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  if (d.name !== u.name) changes.name = d.name || null;
  if (d.email !== u.email) changes.email = d.email || null;
  if (d.role_uids.join() !== u.role_uids.join()) changes.role_uids = d.role_uids;
  return changes;
}

const LOCKED_HINT =
  'Locked after too many failed logins: it unlocks by itself after the lockout duration, or Unlock now';

function UserRow(props: {
  user: User;
  roleName: (uid: number) => string;
  self: boolean;
  buttonRef: (el: HTMLButtonElement | null) => void;
  open: (kind: Opened) => void;
  act: (what: 'expire-password' | 'unlock', success: string) => void;
}) {
  const { user: u } = props;
  const who = u.username;
  // A built-in role's name is its level's, shown already; the roles of the cluster's own are named beside it.
  const custom = u.role_uids.filter((uid) => !isBuiltInRole(uid));
  // Only a password user's password is set or expired here (nobody's own: My password).
  const hasPassword = !props.self && u.auth_method === 'regular';
  const items: MenuItem[] = [
    { label: 'Edit', onSelect: () => props.open('edit') },
    ...(hasPassword
      ? [
          { label: 'Set password', onSelect: () => props.open('password') },
          {
            label: 'Expire password',
            onSelect: () => props.act('expire-password', `The password of ${who} has expired.`),
          },
        ]
      : []),
    ...(u.status === 'locked' ? [{ label: 'Unlock', onSelect: () => props.act('unlock', `Unlocked ${who}.`) }] : []),
    // Someone else's, lost with its device: removed for good (one's own are removed on the Security page).
    ...(u.mfa_enabled && !props.self
      ? [{ label: 'Reset second factor', onSelect: () => props.open('reset_mfa') }]
      : []),
    { label: 'Sessions', onSelect: () => props.open('sessions') },
    { label: 'API keys', onSelect: () => props.open('api_keys') },
    { label: 'Delete', onSelect: () => props.open('delete') },
  ];
  return (
    <tr>
      <th scope="row">{u.name || '—'}</th>
      <td class="name">{u.email ? userText(u.email) : '—'}</td>
      <td>
        {breakable(u.role, /(?<=_)/)}
        {custom.length > 0 && <small class="roles-held"> ({custom.map(props.roleName).join(', ')})</small>}
      </td>
      <td>
        <WayIn user={u} />
        {u.mfa_enabled && (
          <>
            {' '}
            <span class="badge">+ second factor</span>
          </>
        )}
      </td>
      <td>
        {u.status === 'locked' ? (
          <span class="badge alert" title={LOCKED_HINT}>
            Locked
          </span>
        ) : u.status === 'password_expired' ? (
          <span class="badge warn">Password expired</span>
        ) : (
          'active'
        )}
      </td>
      <td>{u.last_login ? <When at={u.last_login * 1000} /> : 'never'}</td>
      <td class="actions">
        <ActionMenu label={`Actions for ${who}`} items={items} buttonRef={props.buttonRef} />
      </td>
    </tr>
  );
}

/** The "Signs in with" cell: how the user proves who it is. */
function WayIn(props: { user: User }) {
  const { user: u } = props;
  switch (u.auth_method) {
    case 'certificate':
      return (
        <>
          certificate <small class="subject">{breakable(u.certificate_subject_line ?? '', /(?<=,)/)}</small>
        </>
      );
    case 'sso':
      return <>SSO</>;
    case 'api_key':
      return (
        <>
          API keys only <small>(service account)</small>
        </>
      );
    default:
      return <>password</>;
  }
}

function EditUser(props: {
  user: User;
  roles: ClusterRole[];
  call: Call;
  onSaved: (message: string) => void;
  onClose: () => void;
  returnFocus: () => HTMLElement | undefined;
}) {
  const { user: u } = props;
  const who = u.username;
  // Every edit starts from the user as the list shows it now, never from an earlier draft.
  const [draft, setDraft] = useState<Draft>({ name: u.name, email: u.email, role_uids: u.role_uids });
  const [problem, setProblem] = useState('');
  const [busy, setBusy] = useState(false);
  return (
    <Dialog title={`Edit ${who}`} onClose={props.onClose} returnFocus={props.returnFocus} wide>
      <form
        aria-label={`Edit ${who}`}
        onSubmit={async (e) => {
          e.preventDefault();
          const changes = changesOf(u, draft);
          if (Object.keys(changes).length === 0) return props.onClose();
          setProblem('');
          setBusy(true);
          try {
            await props.call('PUT', `/v1/users/${u.uid}`, changes);
            props.onSaved(`Saved ${who}.`);
          } catch (err) {
            setProblem(explain(err));
            setBusy(false);
          }
        }}
      >
        <Field label={`Name of ${who}`} value={draft.name} onInput={(name) => setDraft({ ...draft, name })} />
        <Field
          label={`Email of ${who}`}
          type="email"
          value={draft.email}
          onInput={(email) => setDraft({ ...draft, email })}
        />
        <RoleChoice
          legend={`Roles of ${who}`}
          roles={props.roles}
          value={draft.role_uids}
          onChange={(role_uids) => setDraft({ ...draft, role_uids })}
        />
        <p class="hint">A new role or roles end the sessions of {who}: they sign in again with the new rights.</p>
        <Problem>{problem}</Problem>
        <div class="buttons">
          <button type="submit" disabled={busy}>
            Save
          </button>
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** A new password typed, or made here and then shown once; either way the user's sessions end. */
function SetPassword(props: {
  user: User;
  call: Call;
  onSaved: (message: string) => void;
  onClose: () => void;
  returnFocus: () => HTMLElement | undefined;
}) {
  const who = props.user.username;
  const [password, setPassword] = useState('');
  const [made, setMade] = useState(false);
  const [shown, setShown] = useState<string>();
  const [problem, setProblem] = useState('');
  const [busy, setBusy] = useState(false);
  const done = `Set a new password for ${who}; their sessions have ended.`;
  if (shown) {
    return (
      <Dialog
        key="shown"
        title={`New password of ${who}`}
        onClose={() => props.onSaved(done)}
        returnFocus={props.returnFocus}
      >
        <OneTimeSecret
          intro={
            <>
              The new password of <strong>{who}</strong>, shown this once only. Their sessions have ended.
            </>
          }
          password={shown}
        />
        <div class="buttons">
          <button type="button" onClick={() => props.onSaved(done)}>
            Close
          </button>
        </div>
      </Dialog>
    );
  }
  return (
    // A key of its own: the shown password is a new dialog, which takes the focus.
    <Dialog key="form" title={`Set the password of ${who}`} onClose={props.onClose} returnFocus={props.returnFocus}>
      <form
        aria-label={`Set the password of ${who}`}
        onSubmit={async (e) => {
          e.preventDefault();
          setProblem('');
          setBusy(true);
          try {
            await props.call('PUT', `/v1/users/${props.user.uid}`, { password });
            if (made) setShown(password);
            else props.onSaved(done);
          } catch (err) {
            setProblem(explain(err));
            setBusy(false);
          }
        }}
      >
        <p>Every session of {who} ends: they sign in again with the new password.</p>
        <Field
          label={`New password of ${who}`}
          type="password"
          value={password}
          onInput={(p) => {
            setPassword(p);
            setMade(false);
          }}
          required
          autoComplete="new-password"
        />
        <button
          type="button"
          onClick={() => {
            setPassword(generatePassword());
            setMade(true);
          }}
        >
          Generate a password
        </button>
        {made && <p class="hint">A password of 20 letters and digits: shown once after it is set.</p>}
        <Problem>{problem}</Problem>
        <div class="buttons">
          <button type="submit" disabled={busy}>
            Set password
          </button>
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** What each way in the form offers says about the user made. */
const WAY_HINT: Record<WayIn, string> = {
  password: 'A password is made for it and shown once.',
  certificate: 'No password: it signs in with a client certificate of the subject below.',
  api_key:
    'No password: a service account for automation, which signs in with its API keys only. Its first key is made next.',
};

function CreateUser(props: { call: Call; roles: ClusterRole[]; onCreated: (user: User, password?: string) => void }) {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [roleUids, setRoleUids] = useState<number[]>([]);
  const [subject, setSubject] = useState('');
  const [way, setWay] = useState<WayIn>('password');
  const [problem, setProblem] = useState('');
  const submit = async (e: Event) => {
    e.preventDefault();
    setProblem('');
    // A certificate user without a name takes its certificate's CN.
    if (!name && !email && way !== 'certificate')
      return setProblem('Give a name, an email or both: either one logs in.');
    const password = way === 'password' ? generatePassword() : undefined;
    const proof =
      way === 'certificate'
        ? { auth_method: 'certificate', certificate_subject_line: subject }
        : way === 'api_key'
          ? { auth_method: 'api_key' }
          : { password };
    try {
      const user = await props.call<User>('POST', '/v1/users', {
        ...(name && { name }),
        ...(email && { email }),
        ...proof,
        // No role ticked: the API's default (db_viewer), as for any client.
        ...(roleUids.length > 0 && { role_uids: roleUids }),
      });
      setName('');
      setEmail('');
      setSubject('');
      setRoleUids([]);
      props.onCreated(user, password);
    } catch (err) {
      setProblem(explain(err));
    }
  };
  const choice = (id: WayIn, label: string) => (
    <Check
      id={`new-user-${id.replace('_', '-')}`}
      radio
      name="new-user-way-in"
      label={label}
      checked={way === id}
      onChange={() => setWay(id)}
    />
  );
  return (
    <form onSubmit={submit} aria-label="Create user" class="card">
      <h2>Create a user</h2>
      <p class="hint">A name, an email or both; either one logs in.</p>
      <Field label="New user's name" value={name} onInput={setName} autoComplete="off" />
      <Field label="New user's email" type="email" value={email} onInput={setEmail} autoComplete="off" />
      <fieldset class="way-in" aria-describedby="new-user-way-in-hint">
        <legend>Signs in with</legend>
        {choice('password', 'a password')}
        {choice('certificate', 'a client certificate (no password)')}
        {choice('api_key', 'API keys only: a service account (no password)')}
        <small id="new-user-way-in-hint" class="hint">
          {WAY_HINT[way]}
        </small>
        {way === 'certificate' && (
          <Field
            label="Certificate subject"
            value={subject}
            onInput={setSubject}
            required
            hint="RFC 2253, CN first, as openssl x509 -noout -subject -nameopt RFC2253 prints it: CN=ops-bot,OU=automation,O=Example"
            autoComplete="off"
          />
        )}
      </fieldset>
      <RoleChoice legend="Roles (none ticked: DB Viewer)" roles={props.roles} value={roleUids} onChange={setRoleUids} />
      <Problem>{problem}</Problem>
      <button type="submit">Create user</button>
    </form>
  );
}
