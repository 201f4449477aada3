import { useEffect, useId, useState } from 'preact/hooks';
import { explain } from '../api.js';
import type { Call } from '../app.js';
import { Done, Field, Problem } from '../components.js';
import type { Role, Session } from '../session.js';

interface User {
  uid: number;
  username: string;
  name: string | null;
  role: Role;
  status: 'active' | 'locked' | 'password_expired';
  last_login: string | null;
}

const ROLES: Role[] = ['admin', 'user_manager', 'cluster_member', 'cluster_viewer', 'db_member', 'db_viewer', 'token_verifier', 'none'];

/** Letters and digits, 20 of them (~119 bits), from the browser's CSPRNG: shown once. */
function generatePassword(): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
  const bytes = crypto.getRandomValues(new Uint8Array(40));
  return [...bytes].filter((b) => b < 4 * alphabet.length).slice(0, 20).map((b) => alphabet[b % alphabet.length]).join('');
}

function RoleSelect(props: { label: string; value: Role; onChange: (role: Role) => void }) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <select id={id} value={props.value} onChange={(e) => props.onChange((e.target as HTMLSelectElement).value as Role)}>
        {ROLES.map((r) => (
          <option key={r} value={r}>
            {r}
          </option>
        ))}
      </select>
    </div>
  );
}

/** Users: list with search, create (a generated password shown once), edit, expire, unlock, delete. */
export function UsersPage(props: { call: Call; session: Session }) {
  const [users, setUsers] = useState<User[]>([]);
  const [search, setSearch] = useState('');
  const [problem, setProblem] = useState('');
  const [done, setDone] = useState('');
  const load = () => props.call<User[]>('GET', '/v1/users').then(setUsers, (err) => setProblem(explain(err)));
  useEffect(() => void load(), []);

  /** Runs an action on a user; its refusal is shown next to the list, in the server's words. */
  const act = async (what: () => Promise<unknown>, success: string) => {
    setProblem('');
    setDone('');
    try {
      await what();
      setDone(success);
      await load();
    } catch (err) {
      setProblem(explain(err));
    }
  };

  const needle = search.trim().toLowerCase();
  const shown = users.filter((u) => !needle || u.username.toLowerCase().includes(needle) || (u.name ?? '').toLowerCase().includes(needle));
  return (
    <section>
      <h1>Users</h1>
      <CreateUser call={props.call} onCreated={load} />
      <h2>All users</h2>
      <Field label="Search users" type="search" value={search} onInput={setSearch} />
      <Problem>{problem}</Problem>
      <Done>{done}</Done>
      <table>
        <caption class="visually-hidden">Users</caption>
        <thead>
          <tr>
            <th scope="col">Username</th>
            <th scope="col">Name</th>
            <th scope="col">Role</th>
            <th scope="col">Status</th>
            <th scope="col">Last login</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((u) => (
            <UserRow key={u.uid} user={u} self={u.uid === props.session.uid} call={props.call} act={act} />
          ))}
        </tbody>
      </table>
    </section>
  );
}

function UserRow(props: { user: User; self: boolean; call: Call; act: (what: () => Promise<unknown>, success: string) => Promise<void> }) {
  const { user: u, call, act } = props;
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [name, setName] = useState(u.name ?? '');
  const [role, setRole] = useState<Role>(u.role);
  return (
    <tr>
      <th scope="row">{u.username}</th>
      <td>{u.name ?? ''}</td>
      <td>{u.role}</td>
      <td>{u.status.replace('_', ' ')}</td>
      <td>{u.last_login ? new Date(u.last_login).toLocaleString() : 'never'}</td>
      <td class="actions">
        {editing ? (
          <form
            aria-label={`Edit ${u.username}`}
            onSubmit={(e) => {
              e.preventDefault();
              void act(() => call('PUT', `/v1/users/${u.uid}`, { name: name || null, role }), `Saved ${u.username}.`).then(() => setEditing(false));
            }}
          >
            <Field label={`Name of ${u.username}`} value={name} onInput={setName} />
            <RoleSelect label={`Role of ${u.username}`} value={role} onChange={setRole} />
            <button type="submit">Save</button>
            <button type="button" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </form>
        ) : confirming ? (
          <span role="group" aria-label={`Delete ${u.username}?`}>
            Delete {u.username}?{' '}
            <button
              type="button"
              class="danger"
              onClick={() => void act(() => call('DELETE', `/v1/users/${u.uid}`), `Deleted ${u.username}.`).then(() => setConfirming(false))}
            >
              Yes, delete {u.username}
            </button>
            <button type="button" aria-label={`Keep ${u.username}`} onClick={() => setConfirming(false)}>
              Keep
            </button>
          </span>
        ) : (
          <>
            <button type="button" aria-label={`Edit ${u.username}`} onClick={() => setEditing(true)}>
              Edit
            </button>
            {!props.self && (
              <button
                type="button"
                aria-label={`Expire password of ${u.username}`}
                onClick={() => void act(() => call('POST', `/v1/users/${u.uid}/expire-password`), `The password of ${u.username} has expired.`)}
              >
                Expire password
              </button>
            )}
            {u.status === 'locked' && (
              <button type="button" aria-label={`Unlock ${u.username}`} onClick={() => void act(() => call('POST', `/v1/users/${u.uid}/unlock`), `Unlocked ${u.username}.`)}>
                Unlock
              </button>
            )}
            <button type="button" aria-label={`Delete ${u.username}`} onClick={() => setConfirming(true)}>
              Delete
            </button>
          </>
        )}
      </td>
    </tr>
  );
}

function CreateUser(props: { call: Call; onCreated: () => void }) {
  const [username, setUsername] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('cluster_viewer');
  const [problem, setProblem] = useState('');
  const [created, setCreated] = useState<{ username: string; password: string }>();
  const [copied, setCopied] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setProblem('');
    setCreated(undefined);
    setCopied(false);
    const password = generatePassword();
    try {
      await props.call('POST', '/v1/users', { username, password, role, ...(name ? { name } : {}) });
      setCreated({ username, password });
      setUsername('');
      setName('');
      props.onCreated();
    } catch (err) {
      setProblem(explain(err));
    }
  };
  return (
    <form onSubmit={submit} aria-label="Create user" class="card">
      <h2>Create a user</h2>
      <Field label="New username" value={username} onInput={setUsername} required autoComplete="off" />
      <Field label="Full name (optional)" value={name} onInput={setName} autoComplete="off" />
      <RoleSelect label="Role" value={role} onChange={setRole} />
      <Problem>{problem}</Problem>
      <button type="submit">Create user</button>
      {created && (
        <div class="secret" role="status">
          <p>
            Created <strong>{created.username}</strong>. Its password, shown this once only:
          </p>
          <output aria-label="Generated password">{created.password}</output>{' '}
          <button type="button" onClick={() => navigator.clipboard.writeText(created.password).then(() => setCopied(true), () => setCopied(false))}>
            Copy password
          </button>
          {copied && <span> Copied.</span>}
        </div>
      )}
    </form>
  );
}
