import { useEffect, useRef, useState } from 'preact/hooks';
import { isBuiltInRole } from '../../access/built-in-roles.js';
import type { Call } from '../api.js';
import { explain } from '../api.js';
import {
  ActionMenu,
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
} from '../components.js';
import type { ClusterRole } from '../roles.js';
import type { Role, Session } from '../session.js';
import { UserSessions } from './user-sessions.js';

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
  auth_method: 'regular' | 'certificate';
  certificate_subject_line?: string;
}

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
  const [open, setOpen] = useState<{ kind: 'edit' | 'password' | 'delete' | 'sessions'; user: User }>();
  const [created, setCreated] = useState<{ username: string; password: string }>();
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
        onCreated={(user) => {
          if (user.password) setCreated({ username: user.username, password: user.password });
          else setDone(`Created ${user.username}: it signs in with its client certificate.`);
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
      {created && (
        <Dialog title={`Created ${created.username}`} onClose={() => setCreated(undefined)}>
          <OneTimeSecret
            intro={
              <>
                The password of <strong>{created.username}</strong>, shown this once only: give it to them by a safe
                way. They sign in with it.
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

/** Long text with places to wrap (after an @, a comma, an underscore), so that a narrow window needs no sideways scroll. */
function breakable(text: string, at: RegExp) {
  return text.split(at).map((part, i) => (
    <span key={i}>
      {i > 0 && <wbr />}
      {part}
    </span>
  ));
}

const LOCKED_HINT =
  'Locked after too many failed logins: it unlocks by itself after the lockout duration, or Unlock now';

function UserRow(props: {
  user: User;
  roleName: (uid: number) => string;
  self: boolean;
  buttonRef: (el: HTMLButtonElement | null) => void;
  open: (kind: 'edit' | 'password' | 'delete' | 'sessions') => void;
  act: (what: 'expire-password' | 'unlock', success: string) => void;
}) {
  const { user: u } = props;
  const who = u.username;
  // A built-in role's name is its level's, shown already; the roles of the cluster's own are named beside it.
  const custom = u.role_uids.filter((uid) => !isBuiltInRole(uid));
  const hasPassword = !props.self && u.auth_method !== 'certificate';
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
    { label: 'Sessions', onSelect: () => props.open('sessions') },
    { label: 'Delete', onSelect: () => props.open('delete') },
  ];
  return (
    <tr>
      <th scope="row">{u.name || '—'}</th>
      <td class="long">{u.email ? breakable(u.email, /(?<=@)/) : '—'}</td>
      <td>
        {breakable(u.role, /(?<=_)/)}
        {custom.length > 0 && <small class="roles-held"> ({custom.map(props.roleName).join(', ')})</small>}
      </td>
      <td class="long">
        {u.auth_method === 'certificate' ? (
          <>
            certificate <small>{breakable(u.certificate_subject_line ?? '', /(?<=,)/)}</small>
          </>
        ) : (
          'password'
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
      <td>
        {u.last_login
          ? new Date(u.last_login * 1000).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' })
          : 'never'}
      </td>
      <td class="actions">
        <ActionMenu label={`Actions for ${who}`} items={items} buttonRef={props.buttonRef} />
      </td>
    </tr>
  );
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

function CreateUser(props: {
  call: Call;
  roles: ClusterRole[];
  onCreated: (user: { username: string; password?: string }) => void;
}) {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [roleUids, setRoleUids] = useState<number[]>([]);
  const [subject, setSubject] = useState('');
  const [byCertificate, setByCertificate] = useState(false);
  const [problem, setProblem] = useState('');
  const submit = async (e: Event) => {
    e.preventDefault();
    setProblem('');
    if (!name && !email && !byCertificate) return setProblem('Give a name, an email or both: either one logs in.');
    const password = byCertificate ? undefined : generatePassword();
    const secret = byCertificate ? { auth_method: 'certificate', certificate_subject_line: subject } : { password };
    try {
      const user = await props.call<User>('POST', '/v1/users', {
        ...(name && { name }),
        ...(email && { email }),
        ...secret,
        // No role ticked: the API's default (db_viewer), as for any client.
        ...(roleUids.length > 0 && { role_uids: roleUids }),
      });
      setName('');
      setEmail('');
      setSubject('');
      setRoleUids([]);
      props.onCreated({ username: user.username, password });
    } catch (err) {
      setProblem(explain(err));
    }
  };
  return (
    <form onSubmit={submit} aria-label="Create user" class="card">
      <h2>Create a user</h2>
      <p class="hint">A name, an email or both; either one logs in. A password is made for it and shown once.</p>
      <Field label="New user's name" value={name} onInput={setName} autoComplete="off" />
      <Field label="New user's email" type="email" value={email} onInput={setEmail} autoComplete="off" />
      <Check
        id="new-user-certificate"
        label="Signs in with a client certificate (no password)"
        checked={byCertificate}
        onChange={setByCertificate}
      />
      {byCertificate && (
        <Field
          label="Certificate subject"
          value={subject}
          onInput={setSubject}
          required
          hint="RFC 2253, CN first, as openssl x509 -noout -subject -nameopt RFC2253 prints it: CN=ops-bot,OU=automation,O=Example"
          autoComplete="off"
        />
      )}
      <RoleChoice legend="Roles (none ticked: DB Viewer)" roles={props.roles} value={roleUids} onChange={setRoleUids} />
      <Problem>{problem}</Problem>
      <button type="submit">Create user</button>
    </form>
  );
}
