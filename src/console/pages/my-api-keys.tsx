import { useEffect, useState } from 'preact/hooks';
import type { Call } from '../api.js';
import { explain } from '../api.js';
import { Problem } from '../components.js';
import type { ClusterRole } from '../roles.js';
import type { Session } from '../session.js';
import { UserApiKeys } from './user-api-keys.js';

/**
 * The signed-in person's own API keys, whatever their level: the API lets every user list,
 * make and revoke its own. A key offers the person's own roles, named when the person may read
 * the cluster's roles; otherwise none is offered and a key acts with every role they hold.
 */
export function MyApiKeys(props: { session: Session; call: Call; onClose: () => void }) {
  const { uid, username } = props.session;
  const [roleUids, setRoleUids] = useState<number[]>([]);
  const [roles, setRoles] = useState<ClusterRole[]>([]);
  const [problem, setProblem] = useState('');
  useEffect(() => {
    props.call<{ role_uids: number[] }>('GET', `/v1/users/${uid}`).then(
      (me) => setRoleUids(me.role_uids),
      (err) =>
        setProblem(`Your roles could not be read (${explain(err)}): a key made now acts with every role you hold.`),
    );
    // token_verifier and none may not read the roles (view_all_roles_info): no role to choose then.
    props.call<ClusterRole[]>('GET', '/v1/roles').then(setRoles, () => undefined);
  }, [uid]);
  // The dialog is whole at once (the focus lands as in any user's); the roles to offer follow when read.
  return (
    <>
      <Problem>{problem}</Problem>
      <UserApiKeys
        user={{ uid, username, role_uids: roleUids }}
        roles={roles}
        call={props.call}
        onClose={props.onClose}
      />
    </>
  );
}
