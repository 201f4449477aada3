import { useEffect, useRef, useState } from 'preact/hooks';
import { isBuiltInRole } from '../../access/built-in-roles.js';
import type { Call } from '../api.js';
import { explain } from '../api.js';
import { Check, Confirm, Dialog, Done, Field, Problem, useActions } from '../components.js';
import { type ClusterRole, LEVELS } from '../roles.js';
import type { Role, Session } from '../session.js';

const usersText = (n: number) => `${n} user${n === 1 ? '' : 's'}`;

/**
 * Roles: each a name and the management level it grants; create, edit, delete. A new management
 * ends the tokens of everyone who holds the role, so it is saved only once confirmed; the
 * built-in roles are never deleted (the server refuses it too).
 */
export function RolesPage(props: { call: Call; session: Session }) {
  const [roles, setRoles] = useState<ClusterRole[]>([]);
  /** Users holding each role (their role_uids); undefined until GET /v1/users answers. */
  const [holders, setHolders] = useState<Map<number, number>>();
  const [name, setName] = useState('');
  const [management, setManagement] = useState<Role>('db_viewer');
  const [mfaRequired, setMfaRequired] = useState(false);
  const [editing, setEditing] = useState<ClusterRole>();
  const [deleting, setDeleting] = useState<ClusterRole>();
  const { problem, setProblem, done, setDone, act } = useActions(() => load());
  const load = () =>
    Promise.all([
      props.call<ClusterRole[]>('GET', '/v1/roles').then(setRoles, (err) => setProblem(explain(err))),
      props.call<{ role_uids: number[] }[]>('GET', '/v1/users').then(
        (users) => {
          const count = new Map<number, number>();
          for (const u of users) for (const uid of u.role_uids) count.set(uid, (count.get(uid) ?? 0) + 1);
          setHolders(count);
        },
        () => setHolders(undefined),
      ),
    ]);
  useEffect(() => void load(), []);
  return (
    <section>
      <h1>Roles</h1>
      <form
        aria-label="Create role"
        class="card"
        onSubmit={(e) => {
          e.preventDefault();
          void act(
            () => props.call('POST', '/v1/roles', { name, management, ...(mfaRequired && { mfa_required: true }) }),
            `Created the role ${name}.`,
          ).then((ok) => {
            if (!ok) return;
            setName('');
            setMfaRequired(false);
          });
        }}
      >
        <h2>Create a role</h2>
        <Field label="Role name" value={name} onInput={setName} required autoComplete="off" />
        <LevelSelect label="Management level" value={management} onChange={setManagement} />
        <Check id="new-role-mfa" label="Second factor required" checked={mfaRequired} onChange={setMfaRequired} />
        <p class="hint">{MFA_HINT}</p>
        <button type="submit">Create role</button>
      </form>
      <Problem>{problem}</Problem>
      <Done>{done}</Done>
      <table>
        <caption class="visually-hidden">Roles</caption>
        <thead>
          <tr>
            <th scope="col">UID</th>
            <th scope="col">Name</th>
            <th scope="col">Management</th>
            <th scope="col">Second factor</th>
            <th scope="col">Held by</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {roles.map((r) => (
            <tr key={r.uid}>
              <td>{r.uid}</td>
              <th scope="row">
                {r.name}
                {isBuiltInRole(r.uid) && (
                  <>
                    {' '}
                    <span
                      class="badge"
                      title="Every cluster has it: it keeps its name and management and cannot be deleted"
                    >
                      built-in
                    </span>
                  </>
                )}
              </th>
              <td>{r.management}</td>
              <td>{r.mfa_required ? <span class="badge">required</span> : 'optional'}</td>
              <td>{holders ? usersText(holders.get(r.uid) ?? 0) : '—'}</td>
              <td class="actions">
                {isBuiltInRole(r.uid) && (
                  // Its name and management stay; whether it requires a second factor is the cluster's choice.
                  <button type="button" aria-label={`Second factor for role ${r.name}`} onClick={() => setEditing(r)}>
                    Second factor
                  </button>
                )}
                {!isBuiltInRole(r.uid) && (
                  <>
                    <button type="button" aria-label={`Edit role ${r.name}`} onClick={() => setEditing(r)}>
                      Edit
                    </button>
                    <button type="button" aria-label={`Delete role ${r.name}`} onClick={() => setDeleting(r)}>
                      Delete
                    </button>
                  </>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {editing && (
        <EditRole
          role={editing}
          holders={holders && (holders.get(editing.uid) ?? 0)}
          call={props.call}
          onClose={() => setEditing(undefined)}
          onSaved={(message) => {
            setEditing(undefined);
            setProblem('');
            setDone(message);
            void load();
          }}
        />
      )}
      {deleting && (
        <Confirm
          title={`Delete the role ${deleting.name}?`}
          confirm={`Delete role ${deleting.name}`}
          onConfirm={() =>
            act(() => props.call('DELETE', `/v1/roles/${deleting.uid}`), `Deleted the role ${deleting.name}.`)
          }
          onClose={() => setDeleting(undefined)}
        >
          <p>
            The role <strong>{deleting.name}</strong> ({deleting.management}) is deleted for good.{' '}
            {holders?.get(deleting.uid)
              ? `It is given to ${usersText(holders.get(deleting.uid)!)}: take it from them first, or the server refuses.`
              : 'No user holds it; an LDAP mapping that gives it keeps the server from deleting it.'}
          </p>
        </Confirm>
      )}
    </section>
  );
}

/** Name and management; a new management is confirmed first, naming how many sessions it ends. */
function EditRole(props: {
  role: ClusterRole;
  holders: number | undefined;
  call: Call;
  onClose: () => void;
  onSaved: (message: string) => void;
}) {
  const { role } = props;
  const [name, setName] = useState(role.name);
  const [level, setLevel] = useState<Role>(role.management);
  const [mfa, setMfa] = useState(role.mfa_required === true);
  const builtIn = isBuiltInRole(role.uid);
  const [confirming, setConfirming] = useState(false);
  const [problem, setProblem] = useState('');
  /** A refused change goes back to the form, with the reason, rather than closing. */
  const refused = useRef(false);
  const save = async () => {
    const changes = {
      ...(name !== role.name && { name }),
      ...(level !== role.management && { management: level }),
      ...(mfa !== (role.mfa_required === true) && { mfa_required: mfa }),
    };
    if (Object.keys(changes).length === 0) return props.onClose();
    setProblem('');
    try {
      await props.call('PUT', `/v1/roles/${role.uid}`, changes);
      props.onSaved(
        level !== role.management
          ? `${name} now grants ${level}; its holders sign in again.`
          : changes.mfa_required !== undefined
            ? `${name} ${mfa ? 'now requires' : 'no longer requires'} a second factor.`
            : `Saved the role ${name}.`,
      );
    } catch (err) {
      refused.current = true;
      setConfirming(false);
      setProblem(explain(err));
    }
  };
  if (confirming) {
    return (
      <Confirm
        title={`Change what ${role.name} grants?`}
        confirm="Change management"
        onConfirm={save}
        onClose={() => (refused.current ? undefined : props.onClose())}
      >
        <p>
          <strong>{role.name}</strong> would grant <strong>{level}</strong> instead of {role.management}.
        </p>
        <p>
          {props.holders === undefined
            ? 'Everyone who holds this role is signed out: their tokens end now.'
            : props.holders === 0
              ? 'No user holds it now; directory users it is mapped to are signed out.'
              : `The ${usersText(props.holders)} who ${props.holders === 1 ? 'holds it is' : 'hold it are'} signed out: their tokens end now, and they sign in again with the new rights.`}
        </p>
      </Confirm>
    );
  }
  return (
    <Dialog title={builtIn ? `Second factor for ${role.name}` : `Edit the role ${role.name}`} onClose={props.onClose}>
      <form
        aria-label={builtIn ? `Second factor for ${role.name}` : `Edit the role ${role.name}`}
        onSubmit={(e) => {
          e.preventDefault();
          refused.current = false;
          if (level !== role.management) setConfirming(true);
          else void save();
        }}
      >
        {!builtIn && (
          <>
            <Field label={`Name of ${role.name}`} value={name} onInput={setName} required autoComplete="off" />
            <LevelSelect label={`Management of ${role.name}`} value={level} onChange={setLevel} />
            <p class="hint">A new management ends the sessions of everyone who holds the role: you confirm it first.</p>
          </>
        )}
        <Check
          id={`role-${role.uid}-mfa`}
          label={`Second factor required for ${role.name}`}
          checked={mfa}
          onChange={setMfa}
        />
        <p class="hint">{MFA_HINT}</p>
        <Problem>{problem}</Problem>
        <div class="buttons">
          <button type="submit">Save</button>
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

const MFA_HINT =
  'Its holders sign in with their password and a second factor (an authenticator app, a passkey or a security key); one who has none yet is asked to set one up at sign-in.';

function LevelSelect(props: { label: string; value: Role; onChange: (level: Role) => void }) {
  return (
    <label class="field">
      <span>{props.label}</span>
      <select value={props.value} onChange={(e) => props.onChange((e.target as HTMLSelectElement).value as Role)}>
        {LEVELS.map((l) => (
          <option key={l} value={l}>
            {l}
          </option>
        ))}
      </select>
    </label>
  );
}
