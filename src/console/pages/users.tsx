import { useEffect, useId, useState } from 'preact/hooks';
import { explain } from '../api.js';
import type { Call } from '../app.js';
import { Done, Field, Problem, RoleChoice, useActions } from '../components.js';
import { type ClusterRole, LEVELS } from '../roles.js';
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

function RoleSelect(props: { label: string; value: Role; onChange: (role: Role) => void }) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <select
        id={id}
        value={props.value}
        onChange={(e) => props.onChange((e.target as HTMLSelectElement).value as Role)}
      >
        {LEVELS.map((r) => (
          <option key={r} value={r}>
            {r}
          </option>
        ))}
      </select>
    </div>
  );
}

export function UsersPage(props: { call: Call; session: Session }) {
  const [users, setUsers] = useState<User[]>([]);
  const [roles, setRoles] = useState<ClusterRole[]>([]);
  const [search, setSearch] = useState('');
  const { problem, setProblem, done, act } = useActions(() => load());
  const load = () => props.call<User[]>('GET', '/v1/users').then(setUsers, (err) => setProblem(explain(err)));
  useEffect(() => {
    void load();
    props.call<ClusterRole[]>('GET', '/v1/roles').then(setRoles, (err) => setProblem(explain(err)));
  }, []);

  const needle = search.trim().toLowerCase();
  const shown = users.filter((u) => !needle || `${u.name}\n${u.email}`.toLowerCase().includes(needle));
  const roleName = (uid: number) => roles.find((r) => r.uid === uid)?.name ?? `#${uid}`;
  return (
    <section>
      <h1>Users</h1>
      <CreateUser call={props.call} roles={roles} onCreated={load} />
      <h2>All users</h2>
      <Field label="Search users" type="search" value={search} onInput={setSearch} />
      <Problem>{problem}</Problem>
      <Done>{done}</Done>
      <table>
        <caption class="visually-hidden">Users</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Email</th>
            <th scope="col">Role</th>
            <th scope="col">Roles</th>
            <th scope="col">Signs in with</th>
            <th scope="col">Status</th>
            <th scope="col">Last login</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((u) => (
            <UserRow
              key={u.uid}
              user={u}
              roles={roles}
              roleName={roleName}
              self={u.uid === props.session.uid}
              call={props.call}
              act={act}
            />
          ))}
        </tbody>
      </table>
    </section>
  );
}

interface Draft {
  name: string;
  email: string;
  role: Role;
  role_uids: number[];
}

/** What the person changed in the form, and nothing else: a field left alone is not sent. */
function changesOf(u: User, d: Draft): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  if (d.name !== u.name) changes.name = d.name || null;
  if (d.email !== u.email) changes.email = d.email || null;
  if (d.role !== u.role) changes.role = d.role;
  if (d.role_uids.join() !== u.role_uids.join()) changes.role_uids = d.role_uids;
  return changes;
}

type Mode = 'view' | 'edit' | 'password' | 'delete' | 'sessions';

function UserRow(props: {
  user: User;
  roles: ClusterRole[];
  roleName: (uid: number) => string;
  self: boolean;
  call: Call;
  act: (what: () => Promise<unknown>, success: string) => Promise<boolean>;
}) {
  const { user: u, call, act } = props;
  const [mode, setMode] = useState<Mode>('view');
  const [draft, setDraft] = useState<Draft>({ name: u.name, email: u.email, role: u.role, role_uids: u.role_uids });
  const [password, setPassword] = useState('');
  /** Every edit starts from the user as the list shows it now, never from an earlier draft. */
  const edit = () => {
    setDraft({ name: u.name, email: u.email, role: u.role, role_uids: u.role_uids });
    setMode('edit');
  };
  const who = u.username;
  return (
    <tr>
      <th scope="row">{u.name || '—'}</th>
      <td>{u.email || '—'}</td>
      <td>{u.role}</td>
      <td>{u.role_uids.map(props.roleName).join(', ') || '—'}</td>
      <td>{u.auth_method === 'certificate' ? `certificate ${u.certificate_subject_line ?? ''}` : 'password'}</td>
      <td>{u.status.replace('_', ' ')}</td>
      <td>{u.last_login ? new Date(u.last_login * 1000).toLocaleString() : 'never'}</td>
      <td class="actions">
        {mode === 'edit' ? (
          <form
            aria-label={`Edit ${who}`}
            onSubmit={(e) => {
              e.preventDefault();
              const changes = changesOf(u, draft);
              if (Object.keys(changes).length === 0) return setMode('view');
              void act(() => call('PUT', `/v1/users/${u.uid}`, changes), `Saved ${who}.`).then(
                (ok) => ok && setMode('view'),
              );
            }}
          >
            <Field label={`Name of ${who}`} value={draft.name} onInput={(name) => setDraft({ ...draft, name })} />
            <Field
              label={`Email of ${who}`}
              type="email"
              value={draft.email}
              onInput={(email) => setDraft({ ...draft, email })}
            />
            <RoleSelect label={`Role of ${who}`} value={draft.role} onChange={(role) => setDraft({ ...draft, role })} />
            <RoleChoice
              legend={`Roles of ${who}`}
              roles={props.roles}
              value={draft.role_uids}
              onChange={(role_uids) => setDraft({ ...draft, role_uids })}
            />
            <button type="submit">Save</button>
            <button type="button" onClick={() => setMode('view')}>
              Cancel
            </button>
          </form>
        ) : mode === 'password' ? (
          <form
            aria-label={`Set the password of ${who}`}
            onSubmit={(e) => {
              e.preventDefault();
              void act(
                () => call('PUT', `/v1/users/${u.uid}`, { password }),
                `Set a new password for ${who}; their sessions have ended.`,
              ).then((ok) => {
                if (!ok) return;
                setPassword('');
                setMode('view');
              });
            }}
          >
            <Field
              label={`New password of ${who}`}
              type="password"
              value={password}
              onInput={setPassword}
              required
              autoComplete="new-password"
            />
            <button type="submit">Set password</button>
            <button
              type="button"
              onClick={() => {
                setPassword('');
                setMode('view');
              }}
            >
              Cancel
            </button>
          </form>
        ) : mode === 'sessions' ? (
          <UserSessions uid={u.uid} who={who} call={call} act={act} onClose={() => setMode('view')} />
        ) : mode === 'delete' ? (
          // biome-ignore lint/a11y/useSemanticElements: a question and its two buttons inline, not a form section
          <span role="group" aria-label={`Delete ${who}?`}>
            Delete {who}?{' '}
            <button
              type="button"
              class="danger"
              onClick={() =>
                void act(() => call('DELETE', `/v1/users/${u.uid}`), `Deleted ${who}.`).then(() => setMode('view'))
              }
            >
              Yes, delete {who}
            </button>
            <button type="button" aria-label={`Keep ${who}`} onClick={() => setMode('view')}>
              Keep
            </button>
          </span>
        ) : (
          <>
            <button type="button" aria-label={`Edit ${who}`} onClick={edit}>
              Edit
            </button>
            <button type="button" aria-label={`Sessions of ${who}`} onClick={() => setMode('sessions')}>
              Sessions
            </button>
            {!props.self && u.auth_method !== 'certificate' && (
              <>
                <button type="button" aria-label={`Set password of ${who}`} onClick={() => setMode('password')}>
                  Set password
                </button>
                <button
                  type="button"
                  aria-label={`Expire password of ${who}`}
                  onClick={() =>
                    void act(
                      () => call('POST', `/v1/users/${u.uid}/expire-password`),
                      `The password of ${who} has expired.`,
                    )
                  }
                >
                  Expire password
                </button>
              </>
            )}
            {u.status === 'locked' && (
              <button
                type="button"
                aria-label={`Unlock ${who}`}
                onClick={() => void act(() => call('POST', `/v1/users/${u.uid}/unlock`), `Unlocked ${who}.`)}
              >
                Unlock
              </button>
            )}
            <button type="button" aria-label={`Delete ${who}`} onClick={() => setMode('delete')}>
              Delete
            </button>
          </>
        )}
      </td>
    </tr>
  );
}

function CreateUser(props: { call: Call; roles: ClusterRole[]; onCreated: () => void }) {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('cluster_viewer');
  const [roleUids, setRoleUids] = useState<number[]>([]);
  const [subject, setSubject] = useState('');
  const [byCertificate, setByCertificate] = useState(false);
  const [problem, setProblem] = useState('');
  const [created, setCreated] = useState<{ username: string; password?: string }>();
  const [copied, setCopied] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setProblem('');
    setCreated(undefined);
    setCopied(false);
    if (!name && !email && !byCertificate) return setProblem('Give a name, an email or both: either one logs in.');
    const password = byCertificate ? undefined : generatePassword();
    const secret = byCertificate ? { auth_method: 'certificate', certificate_subject_line: subject } : { password };
    try {
      const user = await props.call<User>('POST', '/v1/users', {
        ...(name && { name }),
        ...(email && { email }),
        ...secret,
        role,
        ...(roleUids.length > 0 && { role_uids: roleUids }),
      });
      setCreated({ username: user.username, password });
      setName('');
      setEmail('');
      setSubject('');
      setRoleUids([]);
      props.onCreated();
    } catch (err) {
      setProblem(explain(err));
    }
  };
  return (
    <form onSubmit={submit} aria-label="Create user" class="card">
      <h2>Create a user</h2>
      <p class="hint">A name, an email or both; either one logs in.</p>
      <Field label="New user's name" value={name} onInput={setName} autoComplete="off" />
      <Field label="New user's email" type="email" value={email} onInput={setEmail} autoComplete="off" />
      <div class="field check">
        <input
          id="new-user-certificate"
          type="checkbox"
          checked={byCertificate}
          onChange={(e) => setByCertificate((e.target as HTMLInputElement).checked)}
        />
        <label for="new-user-certificate">Signs in with a client certificate (no password)</label>
      </div>
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
      <RoleSelect label="Role" value={role} onChange={setRole} />
      <RoleChoice legend="Roles" roles={props.roles} value={roleUids} onChange={setRoleUids} />
      <Problem>{problem}</Problem>
      <button type="submit">Create user</button>
      {created && !created.password && (
        <p class="done" role="status">
          Created <strong>{created.username}</strong>: it signs in with its client certificate.
        </p>
      )}
      {created?.password && (
        <div class="secret" role="status">
          <p>
            Created <strong>{created.username}</strong>. Its password, shown this once only:
          </p>
          <output aria-label="Generated password">{created.password}</output>{' '}
          <button
            type="button"
            onClick={() =>
              navigator.clipboard.writeText(created.password!).then(
                () => setCopied(true),
                () => setCopied(false),
              )
            }
          >
            Copy password
          </button>
          {copied && <span> Copied.</span>}
        </div>
      )}
    </form>
  );
}
