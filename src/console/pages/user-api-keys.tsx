import { useEffect, useRef, useState } from 'preact/hooks';
import type { Call } from '../api.js';
import { explain } from '../api.js';
import { Confirm, Dialog, Done, OneTimeSecret, Problem, useActions, When } from '../components.js';
import { when } from '../dates.js';
import type { ClusterRole } from '../roles.js';
import { type ApiKey, type CreatedKey, NewApiKey } from './new-api-key.js';

/**
 * A user's API keys: listed (never the key itself), revoked one by one after a confirmation, and
 * made; a new key is shown once in a dialog of its own, and gone from the page when it closes.
 */
export function UserApiKeys(props: {
  user: { uid: number; username: string; role_uids: number[] };
  /** Every role of the cluster, to name a key's roles. */
  roles: ClusterRole[];
  call: Call;
  onClose: () => void;
}) {
  const { uid, username: who } = props.user;
  const [keys, setKeys] = useState<ApiKey[]>();
  const [created, setCreated] = useState<CreatedKey>();
  const [revoking, setRevoking] = useState<ApiKey>();
  const { problem, setProblem, done, setDone, act } = useActions(() => load());
  const load = () =>
    props.call<ApiKey[]>('GET', `/v1/users/${uid}/api_keys`).then(setKeys, (err) => setProblem(explain(err)));
  useEffect(() => void load(), [uid]);
  // Where the focus goes after a revocation: the revoked key's button is gone, the list's heading stays.
  const heading = useRef<HTMLHeadingElement>(null);
  // Where it goes after the new key's dialog: the form's button (disabled while the key was made, so not the opener).
  const section = useRef<HTMLElement>(null);
  const createButton = () => section.current?.querySelector<HTMLElement>('form button[type="submit"]');
  const revokeButtons = useRef(new Map<string, HTMLButtonElement>());

  const roleName = (r: number) => props.roles.find((role) => role.uid === r)?.name ?? `#${r}`;
  const own = props.roles.filter((r) => props.user.role_uids.includes(r.uid));
  return (
    <section ref={section} aria-label={`API keys of ${who}`} class="api-keys">
      <h3 ref={heading} tabIndex={-1}>
        Keys
      </h3>
      <Problem>{problem}</Problem>
      <Done>{done}</Done>
      {keys === undefined ? (
        <p>Loading API keys…</p>
      ) : keys.length === 0 ? (
        <p>{who} has no API key.</p>
      ) : (
        <table>
          <caption class="visually-hidden">API keys of {who}</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Roles</th>
              <th scope="col">Created</th>
              <th scope="col">Expires</th>
              <th scope="col">Last used</th>
              <th scope="col">Addresses</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {keys.map((k) => (
              <tr key={k.key_id}>
                <th scope="row" class="long">
                  {k.name}
                </th>
                <td>
                  <code>{k.prefix}…</code>
                </td>
                <td>{k.role_uids ? k.role_uids.map(roleName).join(', ') : `every role of ${who}`}</td>
                <td>
                  <When at={k.created} />
                </td>
                <td>
                  <When at={k.expires} />
                  {new Date(k.expires) <= new Date() && <span class="badge warn">Expired</span>}
                </td>
                <td>{k.last_used ? <When at={k.last_used} /> : 'never'}</td>
                <td class="long">{k.allowed_cidrs ? k.allowed_cidrs.join(', ') : 'any'}</td>
                <td class="actions">
                  <button
                    type="button"
                    class="danger"
                    ref={(el) => {
                      if (el) revokeButtons.current.set(k.key_id, el);
                      else revokeButtons.current.delete(k.key_id);
                    }}
                    aria-label={`Revoke ${k.name} (${k.prefix})`}
                    onClick={() => setRevoking(k)}
                  >
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <NewApiKey
        uid={uid}
        who={who}
        roles={own}
        call={props.call}
        onCreated={(key) => {
          setProblem('');
          setDone(`Created the API key ${key.name} (${key.prefix}…).`);
          setCreated(key);
          void load();
        }}
      />
      <div class="buttons">
        <button type="button" onClick={props.onClose}>
          Close
        </button>
      </div>
      {created && (
        <Dialog title={`New API key of ${who}`} onClose={() => setCreated(undefined)} returnFocus={createButton}>
          <OneTimeSecret
            label="New API key"
            copy="Copy key"
            password={created.key}
            intro={
              <>
                The API key <strong>{created.name}</strong> of {who}, until {when(created.expires)}.{' '}
                <strong>It will not be shown again:</strong> copy it now and keep it where secrets are kept.
              </>
            }
          />
          <p class="hint">
            Send it as <code>Authorization: Bearer {created.prefix}…</code>, or as the password of {who}.
          </p>
          <div class="buttons">
            <button type="button" onClick={() => setCreated(undefined)}>
              Done
            </button>
          </div>
        </Dialog>
      )}
      {revoking && (
        <Confirm
          title={`Revoke ${revoking.name}?`}
          confirm="Revoke key"
          onConfirm={() =>
            act(
              () => props.call('DELETE', `/v1/users/${uid}/api_keys/${revoking.key_id}`),
              `Revoked the API key ${revoking.name} (${revoking.prefix}…).`,
            )
          }
          onClose={() => setRevoking(undefined)}
          returnFocus={() => revokeButtons.current.get(revoking.key_id) ?? heading.current}
        >
          <p>
            The API key <strong>{revoking.name}</strong> (<code>{revoking.prefix}…</code>) of {who} is refused from now
            on, and the sessions it began end. This cannot be undone: make a new key to replace it.
          </p>
        </Confirm>
      )}
    </section>
  );
}
