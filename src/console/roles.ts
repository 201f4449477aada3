import type { Role as Level } from './session.js';

/** A role of the cluster (GET /v1/roles): a name and the management level it grants. */
export interface ClusterRole {
  uid: number;
  name: string;
  management: Level;
  /** Its holders sign in with a second factor too. */
  mfa_required?: boolean;
}

export const LEVELS: Level[] = [
  'admin',
  'user_manager',
  'cluster_member',
  'cluster_viewer',
  'db_member',
  'db_viewer',
  'token_verifier',
  'none',
];
